// Aggregates: COUNT, SUM, AVG, MIN, MAX, MEDIAN, QUANTILE, KTH_LARGEST over a list of rows.

#include <algorithm>

#include "core/exact_sum.h"
#include "cpu/internal.h"
#include "gfxq/error.h"

namespace gfxq::cpu {

namespace {

// The exact sum of an INT column: |sum| <= 2^31 * 2^64 = 2^95 fits in 128 bits.
__int128 int_sum(const Column& column, const std::vector<uint64_t>& rows) {
  const auto& values = column.as<int32_t>();
  __int128 sum = 0;
  for (uint64_t row : rows) sum += values[row];
  return sum;
}

// The sum of a FLOAT column: exact, rounded once to double (as the GPU paths sum).
double float_sum(const Column& column, const std::vector<uint64_t>& rows) {
  const auto& values = column.as<float>();
  ExactFloatSum sum;
  for (uint64_t row : rows) sum.add(values[row]);
  return sum.result();
}

Value sum(const BoundAggregate& agg, const Column& column, const std::vector<uint64_t>& rows) {
  if (column.type == Type::Int32) return int_sum_result(int_sum(column, rows), agg.name);
  return canonical_double(float_sum(column, rows));
}

Value average(const Column& column, const std::vector<uint64_t>& rows) {
  if (column.type == Type::Int32) return int_average(int_sum(column, rows), rows.size());
  return canonical_double(float_sum(column, rows) / static_cast<double>(rows.size()));
}

// The order keys of the values, in row order. Comparing keys is comparing in the total order
// (NaN largest), and converting a key back gives the canonical value.
std::vector<uint32_t> keys_of(const Column& column, const std::vector<uint64_t>& rows) {
  std::vector<uint32_t> keys;
  keys.reserve(rows.size());
  for (uint64_t row : rows) keys.push_back(order_key(column, row));
  return keys;
}

Value minimum(const Column& column, const std::vector<uint64_t>& rows) {
  const auto keys = keys_of(column, rows);
  return value_from_key(column.type, *std::min_element(keys.begin(), keys.end()));
}

Value maximum(const Column& column, const std::vector<uint64_t>& rows) {
  const auto keys = keys_of(column, rows);
  return value_from_key(column.type, *std::max_element(keys.begin(), keys.end()));
}

// The value of 1-based ascending rank `rank` (1 <= rank <= rows.size()).
Value ranked(const Column& column, const std::vector<uint64_t>& rows, uint64_t rank) {
  auto keys = keys_of(column, rows);
  std::sort(keys.begin(), keys.end());
  return value_from_key(column.type, keys[rank - 1]);
}

}  // namespace

Value aggregate_rows(const BoundAggregate& agg, const Column* column, const std::vector<uint64_t>& rows) {
  if (agg.kind == AggKind::Count) return static_cast<int64_t>(rows.size());
  if (rows.empty()) return std::monostate{};
  const uint64_t n = rows.size();
  switch (agg.kind) {
    case AggKind::Sum: return sum(agg, *column, rows);
    case AggKind::Avg: return average(*column, rows);
    case AggKind::Min: return minimum(*column, rows);
    case AggKind::Max: return maximum(*column, rows);
    case AggKind::Median:
    case AggKind::Quantile: return ranked(*column, rows, quantile_rank(agg.q, n));
    case AggKind::KthLargest:
      if (static_cast<uint64_t>(agg.k) > n) return std::monostate{};
      return ranked(*column, rows, n - static_cast<uint64_t>(agg.k) + 1);
    case AggKind::Count: break;
  }
  throw Error(ErrorCode::Internal, "unhandled aggregate " + agg.name);
}

}  // namespace gfxq::cpu
