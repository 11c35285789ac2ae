// Relational operators of cpu.h (PROJECT, PRODUCT, UNION, INTERSECT, EXCEPT) and the row
// gathering the query pipeline shares with them.

#include <bit>
#include <cstdint>
#include <set>
#include <string>

#include "core/host_memory.h"
#include "core/order_key.h"
#include "cpu/internal.h"
#include "gfxq/cpu.h"
#include "gfxq/error.h"

namespace gfxq::cpu {

namespace {

// A row's identity for set operations: two words per cell (NULL flag, value bits), where
// equal values have equal bits: FLOAT cells in the total order (-0.0 == 0.0, NaN == NaN).
using RowKey = std::vector<uint64_t>;

uint64_t cell_bits(const Column& c, uint64_t row) {
  switch (c.type) {
    case Type::Int32: return static_cast<uint32_t>(c.as<int32_t>()[row]);
    case Type::Float32: return float_key(c.as<float>()[row]);
    case Type::Int64: return std::bit_cast<uint64_t>(c.as<int64_t>()[row]);
    case Type::Float64: return std::bit_cast<uint64_t>(canonical_double(c.as<double>()[row]));
  }
  return 0;
}

RowKey row_key(const Table& t, uint64_t row) {
  RowKey key;
  for (const auto& c : t.columns) {
    const bool null = c.is_null(row);
    key.push_back(null ? 1 : 0);
    key.push_back(null ? 0 : cell_bits(c, row));
  }
  return key;
}

std::set<RowKey> row_keys(const Table& t) {
  std::set<RowKey> keys;
  for (uint64_t row = 0; row < t.rows(); ++row) keys.insert(row_key(t, row));
  return keys;
}

void check_schemas(std::string_view op, const Table& a, const Table& b) {
  const std::string what(op);
  if (a.columns.size() != b.columns.size())
    throw Error(ErrorCode::InvalidQuery, what + ": a has " + std::to_string(a.columns.size()) + " columns, b has " +
                                             std::to_string(b.columns.size()));
  for (size_t i = 0; i < a.columns.size(); ++i) {
    const Column &ca = a.columns[i], &cb = b.columns[i];
    if (ca.type != cb.type)
      throw Error(ErrorCode::InvalidQuery, what + ": column " + std::to_string(i + 1) + " is " + to_string(ca.type) +
                                               " in a ('" + ca.name + "') but " + to_string(cb.type) + " in b ('" +
                                               cb.name + "')");
  }
}

// An empty table with a's schema (names and types).
Table empty_like(const Table& a) {
  Table out;
  for (const auto& c : a.columns) out.columns.push_back(Column::make(c.name, c.type));
  return out;
}

// The rows of a (ascending) whose key is new (first appearance) and passes `keep`.
template <class Keep>
std::vector<uint64_t> distinct_rows(const Table& a, std::set<RowKey>& seen, Keep keep) {
  std::vector<uint64_t> rows;
  for (uint64_t row = 0; row < a.rows(); ++row) {
    RowKey key = row_key(a, row);
    if (keep(key) && seen.insert(std::move(key)).second) rows.push_back(row);
  }
  return rows;
}

Table rows_of(const Table& a, const std::vector<uint64_t>& rows) {
  Table out = empty_like(a);
  for (size_t i = 0; i < a.columns.size(); ++i) append_rows(out.columns[i], a.columns[i], rows);
  return out;
}

}  // namespace

void append_rows(Column& dst, const Column& src, const std::vector<uint64_t>& rows) {
  for (uint64_t row : rows) dst.push(src.value(row));
}

Column gather(const Column& src, const std::vector<uint64_t>& rows, std::string name) {
  Column out = Column::make(std::move(name), src.type);
  append_rows(out, src, rows);
  return out;
}

Table pair_table(const Table& a, std::string_view a_name, const std::vector<uint64_t>& a_rows, const Table& b,
                 std::string_view b_name, const std::vector<uint64_t>& b_rows) {
  Table out;
  for (const auto& c : a.columns) out.columns.push_back(gather(c, a_rows, std::string(a_name) + "." + c.name));
  for (const auto& c : b.columns) out.columns.push_back(gather(c, b_rows, std::string(b_name) + "." + c.name));
  return out;
}

Table project(const Table& table, const std::vector<std::string>& columns) {
  Table out;
  for (const auto& name : columns) out.columns.push_back(table.column(name));
  return out;
}

Table product(const Table& a, std::string_view a_name, const Table& b, std::string_view b_name) {
  // Refused before anything is allocated when the host could not hold it (two row ids per pair).
  const unsigned __int128 pairs = static_cast<unsigned __int128>(a.rows()) * b.rows();
  check_host_bytes(pairs >> 64 ? UINT64_MAX : static_cast<uint64_t>(pairs), 2 * sizeof(uint64_t), 0,
                   "PRODUCT of " + std::to_string(a.rows()) + " and " + std::to_string(b.rows()) + " rows");
  std::vector<uint64_t> a_rows, b_rows;
  for (uint64_t i = 0; i < a.rows(); ++i)
    for (uint64_t j = 0; j < b.rows(); ++j) {
      a_rows.push_back(i);
      b_rows.push_back(j);
    }
  return pair_table(a, a_name, a_rows, b, b_name, b_rows);
}

Table set_union(const Table& a, const Table& b) {
  check_schemas("UNION", a, b);
  std::set<RowKey> seen;
  const auto all = [](const RowKey&) { return true; };
  const auto from_a = distinct_rows(a, seen, all);
  const auto from_b = distinct_rows(b, seen, all);
  Table out = rows_of(a, from_a);
  for (size_t i = 0; i < b.columns.size(); ++i) append_rows(out.columns[i], b.columns[i], from_b);
  return out;
}

Table set_intersect(const Table& a, const Table& b) {
  check_schemas("INTERSECT", a, b);
  const auto in_b = row_keys(b);
  std::set<RowKey> seen;
  return rows_of(a, distinct_rows(a, seen, [&](const RowKey& k) { return in_b.count(k) > 0; }));
}

Table set_except(const Table& a, const Table& b) {
  check_schemas("EXCEPT", a, b);
  const auto in_b = row_keys(b);
  std::set<RowKey> seen;
  return rows_of(a, distinct_rows(a, seen, [&](const RowKey& k) { return in_b.count(k) == 0; }));
}

}  // namespace gfxq::cpu
