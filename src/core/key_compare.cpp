#include "core/key_compare.h"

#include <cmath>
#include <limits>

#include "core/order_key.h"

namespace gfxq {

namespace {

KeyPredicate always(bool v) { return KeyPredicate::constant(v); }

KeyPredicate compare(CmpOp op, uint32_t key) { return KeyPredicate::compare(op, key); }

// `v op c` for int32 v and an integer bound c that may lie outside int32.
KeyPredicate int_bound(CmpOp op, double c) {
  constexpr double lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  switch (op) {
    case CmpOp::Lt:
      if (c > hi) return always(true);
      if (c <= lo) return always(false);
      break;
    case CmpOp::Le:
      if (c >= hi) return always(true);
      if (c < lo) return always(false);
      break;
    case CmpOp::Gt:
      if (c >= hi) return always(false);
      if (c < lo) return always(true);
      break;
    case CmpOp::Ge:
      if (c > hi) return always(false);
      if (c <= lo) return always(true);
      break;
    case CmpOp::Eq:
      if (c < lo || c > hi) return always(false);
      break;
    case CmpOp::Ne:
      if (c < lo || c > hi) return always(true);
      break;
  }
  return compare(op, int_key(static_cast<int32_t>(c)));
}

KeyPredicate int_literal(CmpOp op, double d) {
  switch (op) {
    case CmpOp::Lt: return int_bound(CmpOp::Lt, std::ceil(d));
    case CmpOp::Le: return int_bound(CmpOp::Le, std::floor(d));
    case CmpOp::Gt: return int_bound(CmpOp::Gt, std::floor(d));
    case CmpOp::Ge: return int_bound(CmpOp::Ge, std::ceil(d));
    case CmpOp::Eq: return std::floor(d) == d ? int_bound(CmpOp::Eq, d) : always(false);
    case CmpOp::Ne: return std::floor(d) == d ? int_bound(CmpOp::Ne, d) : always(true);
  }
  return always(false);
}

KeyPredicate float_literal(CmpOp op, double d) {
  // The floats bracketing d: f_lo <= d <= f_hi (equal when d is a float; +-inf beyond the range).
  const float nearest = static_cast<float>(d);
  float f_lo = nearest, f_hi = nearest;
  if (static_cast<double>(nearest) > d) f_lo = std::nextafter(nearest, -std::numeric_limits<float>::infinity());
  if (static_cast<double>(nearest) < d) f_hi = std::nextafter(nearest, std::numeric_limits<float>::infinity());
  if (f_lo == f_hi) return compare(op, float_key(f_lo));
  switch (op) {
    case CmpOp::Lt:
    case CmpOp::Le: return compare(CmpOp::Le, float_key(f_lo));
    case CmpOp::Gt:
    case CmpOp::Ge: return compare(CmpOp::Ge, float_key(f_hi));
    case CmpOp::Eq: return always(false);
    case CmpOp::Ne: return always(true);
  }
  return always(false);
}

}  // namespace

KeyPredicate literal_predicate(Type column_type, CmpOp op, double literal) {
  if (std::isnan(literal)) {
    // Everything is below NaN and NaN equals NaN: compare with the NaN key (no INT value is NaN).
    if (column_type == Type::Int32) return always(op == CmpOp::Lt || op == CmpOp::Le || op == CmpOp::Ne);
    return compare(op, float_key(std::numeric_limits<float>::quiet_NaN()));
  }
  return column_type == Type::Int32 ? int_literal(op, literal) : float_literal(op, literal);
}

bool evaluate(const KeyPredicate& p, uint32_t key) noexcept {
  switch (p.kind) {
    case KeyPredicate::Kind::Always: return true;
    case KeyPredicate::Kind::Never: return false;
    case KeyPredicate::Kind::Compare: break;
  }
  return holds(p.op, key < p.key ? -1 : (key > p.key ? 1 : 0));
}

}  // namespace gfxq
