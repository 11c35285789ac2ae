#include "gfxq/query.h"

#include <charconv>
#include <cmath>

#include "gfxq/error.h"

namespace gfxq {

const char* to_string(CmpOp op) noexcept {
  switch (op) {
    case CmpOp::Lt: return "<";
    case CmpOp::Le: return "<=";
    case CmpOp::Gt: return ">";
    case CmpOp::Ge: return ">=";
    case CmpOp::Eq: return "=";
    case CmpOp::Ne: return "<>";
  }
  return "?";
}

CmpOp flip(CmpOp op) noexcept {
  switch (op) {
    case CmpOp::Lt: return CmpOp::Gt;
    case CmpOp::Le: return CmpOp::Ge;
    case CmpOp::Gt: return CmpOp::Lt;
    case CmpOp::Ge: return CmpOp::Le;
    default: return op;
  }
}

CmpOp negate(CmpOp op) noexcept {
  switch (op) {
    case CmpOp::Lt: return CmpOp::Ge;
    case CmpOp::Le: return CmpOp::Gt;
    case CmpOp::Gt: return CmpOp::Le;
    case CmpOp::Ge: return CmpOp::Lt;
    case CmpOp::Eq: return CmpOp::Ne;
    case CmpOp::Ne: return CmpOp::Eq;
  }
  return op;
}

bool holds(CmpOp op, int three_way) noexcept {
  switch (op) {
    case CmpOp::Lt: return three_way < 0;
    case CmpOp::Le: return three_way <= 0;
    case CmpOp::Gt: return three_way > 0;
    case CmpOp::Ge: return three_way >= 0;
    case CmpOp::Eq: return three_way == 0;
    case CmpOp::Ne: return three_way != 0;
  }
  return false;
}

const char* to_string(AggKind kind) noexcept {
  switch (kind) {
    case AggKind::Count: return "COUNT";
    case AggKind::Sum: return "SUM";
    case AggKind::Avg: return "AVG";
    case AggKind::Min: return "MIN";
    case AggKind::Max: return "MAX";
    case AggKind::Median: return "MEDIAN";
    case AggKind::Quantile: return "QUANTILE";
    case AggKind::KthLargest: return "KTH_LARGEST";
  }
  return "?";
}

std::string number_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  // Fixed notation where people write it (0.0001, 250000), shortest round-trip digits either way.
  // Large values in scientific notation: as digits alone they would read back as an integer
  // literal, which SQL bounds to BIGINT.
  const double mag = std::fabs(v);
  const bool fixed = mag == 0 || (mag >= 1e-5 && mag < 1e16);
  auto r = fixed         ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed)
           : mag >= 1e16 ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific)
                         : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

namespace {

std::string operand_text(const Operand& o) {
  if (const auto* c = std::get_if<ColumnRef>(&o)) return c->text();
  return number_text(std::get<double>(o));
}

}  // namespace

std::string Cnf::text() const {
  std::string s;
  for (const auto& clause : clauses) {
    if (!s.empty()) s += " AND ";
    s += "(";
    for (size_t i = 0; i < clause.terms.size(); ++i) {
      const auto& t = clause.terms[i];
      if (i) s += " OR ";
      s += t.lhs.text() + " " + to_string(t.op) + " " + operand_text(t.rhs);
    }
    s += ")";
  }
  return s;
}

std::string Aggregate::text() const {
  std::string s = std::string(to_string(kind)) + "(" + (column ? column->text() : std::string("*"));
  if (kind == AggKind::Quantile) s += ", " + number_text(q);
  if (kind == AggKind::KthLargest) s += ", " + std::to_string(k);
  return s + ")";
}

bool Query::has_aggregates() const {
  for (const auto& item : items)
    if (std::holds_alternative<Aggregate>(item)) return true;
  return false;
}

std::string Query::text() const {
  std::string s = "SELECT ";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) s += ", ";
    if (std::holds_alternative<Star>(items[i])) s += "*";
    else if (const auto* c = std::get_if<ColumnRef>(&items[i])) s += c->text();
    else s += std::get<Aggregate>(items[i]).text();
  }
  s += " FROM " + table;
  if (join) {
    s += " JOIN " + join->right + " ON ";
    if (join->equi()) s += join->left_key.text() + " = " + join->right_key.text();
    else
      s += join->right_key.text() + " BETWEEN " + join->left_key.text() + " + " + number_text(join->lo) + " AND " +
           join->left_key.text() + " + " + number_text(join->hi);
  }
  if (!where.empty()) s += " WHERE " + where.text();
  if (group_by) s += " GROUP BY " + group_by->text();
  if (order_by) s += " ORDER BY " + order_by->column.text() + (order_by->descending ? " DESC" : " ASC");
  if (limit) s += " LIMIT " + std::to_string(*limit);
  return s;
}

uint64_t quantile_rank(double q, uint64_t n) {
  if (!(q > 0.0 && q <= 1.0))
    throw Error(ErrorCode::InvalidQuery, "quantile q must be in (0, 1], got " + number_text(q));
  if (n == 0) return 0;
  // q is the decimal the user wrote: the shortest decimal that reads back to the same double
  // (to_chars), digits * 10^exp exactly. ceil(digits * n / 10^-exp) in 128-bit integers: digits
  // has at most 17 significant digits (< 2^57), so the product stays below 2^121.
  char buf[40];
  const auto end = std::to_chars(buf, buf + sizeof buf, q, std::chars_format::scientific).ptr;
  const std::string_view text(buf, size_t(end - buf));  // "d.ddde-XX"
  const size_t e = text.find('e');
  unsigned __int128 digits = 0;
  int frac_digits = 0;
  for (size_t i = 0; i < e; ++i) {
    if (text[i] == '.') continue;
    digits = digits * 10 + unsigned(text[i] - '0');
    if (i > 1) ++frac_digits;
  }
  int exp10 = 0;
  std::from_chars(text.data() + e + 1 + (text[e + 1] == '+'), text.data() + text.size(), exp10);
  // q = digits * 10^(exp10 - frac_digits); q <= 1 makes the power's exponent negative or zero.
  const int scale = frac_digits - exp10;
  const unsigned __int128 p = digits * n;
  if (scale <= 0) return static_cast<uint64_t>(p);  // q = 1 written as "1e+00"
  if (scale > 38) return 1;                         // 10^scale > 2^121 > p: 0 < q * n < 1
  unsigned __int128 pow10 = 1;
  for (int i = 0; i < scale; ++i) pow10 *= 10;
  return static_cast<uint64_t>((p + pow10 - 1) / pow10);
}

}  // namespace gfxq
