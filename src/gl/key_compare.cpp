#include "gl/key_compare.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "core/order_key.h"

namespace gfxq::gl {

namespace {

// The largest float32 <= a as an integer magnitude and sign, with a minus it.
struct FloorFloat {
  float value;
  uint32_t residue;
};

FloorFloat floor_float(int32_t a) noexcept {
  // Keep the top 24 significant bits of |a|: rounding down for a >= 0, the magnitude up for a < 0.
  // The rounded magnitude is on the float grid (a power of two when the carry ripples through), so
  // converting it to float is exact.
  if (a >= 0) {
    const uint32_t m = static_cast<uint32_t>(a);
    const int width = std::bit_width(m);
    const uint32_t low = width > 24 ? (1u << (width - 24)) - 1 : 0;
    return {static_cast<float>(m & ~low), m & low};
  }
  const uint32_t m = 0u - static_cast<uint32_t>(a);  // |a| in [1, 2^31]
  const int width = std::bit_width(m);
  const uint32_t low = width > 24 ? (1u << (width - 24)) - 1 : 0;
  const uint32_t up = (m + low) & ~low;
  return {-static_cast<float>(up), up - m};
}

}  // namespace

uint32_t cell_key(Type type, uint32_t bits) noexcept {
  return type == Type::Float32 ? float_key(std::bit_cast<float>(bits)) : int_key(std::bit_cast<int32_t>(bits));
}

KeyTest fold(const KeyTest& test, const KeyRange& range) noexcept {
  if (test.kind != KeyTest::Kind::Compare) return test;
  const KeyTest folded = fold_pair(test.op, range, KeyRange{test.key, test.key});
  return folded.kind == KeyTest::Kind::Compare ? test : folded;
}

KeyTest fold_pair(CmpOp op, const KeyRange& lhs, const KeyRange& rhs) noexcept {
  const bool disjoint = lhs.hi < rhs.lo || rhs.hi < lhs.lo;
  const bool one_value = lhs.lo == lhs.hi && rhs.lo == rhs.hi && lhs.lo == rhs.lo;
  switch (op) {
    case CmpOp::Lt:
      if (lhs.hi < rhs.lo) return KeyTest::constant(true);
      if (lhs.lo >= rhs.hi) return KeyTest::constant(false);
      break;
    case CmpOp::Le:
      if (lhs.hi <= rhs.lo) return KeyTest::constant(true);
      if (lhs.lo > rhs.hi) return KeyTest::constant(false);
      break;
    case CmpOp::Gt:
    case CmpOp::Ge: {
      const KeyTest swapped = fold_pair(flip(op), rhs, lhs);  // lhs > rhs  <=>  rhs < lhs
      return swapped.kind == KeyTest::Kind::Compare ? KeyTest::compare(op, 0) : swapped;
    }
    case CmpOp::Eq:
      if (disjoint || one_value) return KeyTest::constant(one_value);
      break;
    case CmpOp::Ne:
      if (disjoint || one_value) return KeyTest::constant(disjoint);
      break;
  }
  return KeyTest::compare(op, 0);
}

uint32_t floor_float_key(int32_t a) noexcept {
  return float_key(floor_float(a).value);
}

uint32_t floor_residue(int32_t a) noexcept {
  return floor_float(a).residue;
}

}  // namespace gfxq::gl
