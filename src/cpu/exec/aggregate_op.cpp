// The CPU aggregate: rows grouped by the tuple of their key cells' order keys (a hash map), groups
// sorted ascending by key (NULL first), then each aggregate over each group's rows. Aggregates skip
// NULL arguments; over no rows COUNT is 0 and the others NULL. SUM of integers is exact (int128,
// Overflow past BIGINT), SUM of FLOAT and DOUBLE the exact sum rounded once; AVG of integers the
// exact quotient rounded once; MIN, MAX and the ranks use the total order; FLOAT results canonical.

#include <algorithm>
#include <bit>
#include <numeric>
#include <set>
#include <unordered_map>

#include "core/bind.h"
#include "core/exact_sum.h"
#include "core/order_key.h"
#include "cpu/exec/eval.h"
#include "cpu/exec/ops.h"
#include "gfxq/error.h"

namespace gfxq::cpu {

namespace {

struct KeyHash {
  size_t operator()(const std::vector<uint64_t>& k) const noexcept {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint64_t w : k) h = (h ^ w) * 0xbf58476d1ce4e5b9ull, h ^= h >> 31;
    return size_t(h);
  }
};

// The value of an order key of a cell of `type` (the canonical member of its class).
Value value_of_key(Type type, uint64_t key) {
  switch (type) {
    case Type::Int32: return int_from_key(uint32_t(key));
    case Type::Date: return Date{int_from_key(uint32_t(key))};
    case Type::Float32: return float_from_key(uint32_t(key));
    case Type::Int64: return std::bit_cast<int64_t>(key ^ (uint64_t(1) << 63));
    case Type::Float64: {
      const uint64_t bits = (key >> 63) ? key & ~(uint64_t(1) << 63) : ~key;
      return std::bit_cast<double>(bits);
    }
    case Type::String: return int32_t(int_from_key(uint32_t(key)));  // the code
  }
  return std::monostate{};
}

// Appends `v` to `out`; String results arrive as codes of out's dictionary.
void push(Column& out, const Value& v) {
  if (out.type == Type::String && std::holds_alternative<int32_t>(v)) {
    out.as<int32_t>().push_back(std::get<int32_t>(v));
    if (!out.nulls.empty()) out.nulls.push_back(0);
    return;
  }
  if (out.type == Type::String && std::holds_alternative<std::monostate>(v)) {
    if (out.nulls.empty()) out.nulls.assign(out.size(), 0);
    out.as<int32_t>().push_back(0);
    out.nulls.push_back(1);
    return;
  }
  out.push(v);
}

// One aggregate over the rows of one group.
class AggEval {
 public:
  AggEval(const plan::AggCall& call, const HostRelation& in) : call_(call) {
    if (call.arg) {
      arg_ = evaluate(*call.arg, in);
      keys_ = cell_keys(arg_);
    }
  }

  Value over(const std::vector<uint64_t>& rows) {
    if (!call_.arg) return int64_t(rows.size());
    std::vector<uint64_t> live;
    live.reserve(rows.size());
    for (uint64_t r : rows)
      if (!keys_.is_null(r)) live.push_back(r);
    const uint64_t n = live.size();
    switch (call_.kind) {
      case AggKind::Count: {
        if (!call_.distinct) return int64_t(n);
        std::set<uint64_t> seen;
        for (uint64_t r : live) seen.insert(keys_.key[r]);
        return int64_t(seen.size());
      }
      case AggKind::Sum:
      case AggKind::Avg: {
        if (n == 0) return std::monostate{};
        if (plan::is_integer(arg_.type)) {
          __int128 s = 0;
          if (arg_.type == Type::Int32)
            for (uint64_t r : live) s += arg_.as<int32_t>()[r];
          else
            for (uint64_t r : live) s += arg_.as<int64_t>()[r];
          if (call_.kind == AggKind::Sum) return int_sum_result(s, call_.text);
          return int_average(s, n);
        }
        double s = 0;
        if (arg_.type == Type::Float32) {
          ExactFloatSum acc;
          for (uint64_t r : live) acc.add(arg_.as<float>()[r]);
          s = acc.result();
        } else {
          double_sum_.clear();
          for (uint64_t r : live) double_sum_.add(arg_.as<double>()[r]);
          s = double_sum_.result();
        }
        return canonical_double(call_.kind == AggKind::Sum ? s : s / double(n));
      }
      case AggKind::Min:
      case AggKind::Max: {
        if (n == 0) return std::monostate{};
        uint64_t best = keys_.key[live[0]];
        for (uint64_t r : live)
          best = call_.kind == AggKind::Min ? std::min(best, keys_.key[r]) : std::max(best, keys_.key[r]);
        return value_of_key(arg_.type, best);
      }
      case AggKind::Median:
      case AggKind::Quantile:
      case AggKind::KthLargest: {
        if (n == 0) return std::monostate{};
        std::vector<uint64_t> k;
        k.reserve(n);
        for (uint64_t r : live) k.push_back(keys_.key[r]);
        uint64_t rank = 0;
        if (call_.kind == AggKind::KthLargest) {
          if (uint64_t(call_.k) > n) return std::monostate{};
          rank = n - uint64_t(call_.k) + 1;
        } else {
          rank = quantile_rank(call_.q, n);
        }
        std::nth_element(k.begin(), k.begin() + long(rank - 1), k.end());
        return value_of_key(arg_.type, k[rank - 1]);
      }
    }
    throw Error(ErrorCode::Internal, "unhandled aggregate " + call_.text);
  }

 private:
  const plan::AggCall& call_;
  Column arg_;
  CellKeys keys_;
  ExactDoubleSum double_sum_;
};

}  // namespace

HostRelation run_aggregate(const plan::Node& node, const HostRelation& in, std::string& how) {
  const uint64_t n = in.rows();
  // Group ids by key tuple, then the groups in key order.
  std::vector<Column> key_columns;
  std::vector<CellKeys> key_cells;
  for (const auto& k : node.group_keys) {
    key_columns.push_back(evaluate(k, in));
    key_cells.push_back(cell_keys(key_columns.back()));
  }
  std::vector<std::vector<uint64_t>> groups;
  std::vector<uint64_t> first_row;  // a row of each group, for its key cells
  if (node.group_keys.empty()) {
    groups.emplace_back(n);
    std::iota(groups[0].begin(), groups[0].end(), 0);
    first_row.push_back(0);
  } else {
    std::unordered_map<std::vector<uint64_t>, size_t, KeyHash> ids;
    std::vector<uint64_t> tuple(2 * key_cells.size());
    for (uint64_t r = 0; r < n; ++r) {
      for (size_t i = 0; i < key_cells.size(); ++i) {
        tuple[2 * i] = key_cells[i].is_null(r);
        tuple[2 * i + 1] = key_cells[i].key[r];
      }
      const auto [it, fresh] = ids.try_emplace(tuple, groups.size());
      if (fresh) {
        groups.emplace_back();
        first_row.push_back(r);
      }
      groups[it->second].push_back(r);
    }
    std::vector<size_t> order(groups.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      for (const auto& kc : key_cells) {
        const int c = kc.compare(first_row[a], first_row[b]);
        if (c) return c < 0;
      }
      return false;
    });
    std::vector<std::vector<uint64_t>> sorted;
    std::vector<uint64_t> sorted_first;
    for (size_t g : order) {
      sorted.push_back(std::move(groups[g]));
      sorted_first.push_back(first_row[g]);
    }
    groups = std::move(sorted);
    first_row = std::move(sorted_first);
  }
  Table out;
  for (size_t i = 0; i < node.group_keys.size(); ++i) {
    const auto& col = node.schema[i];
    // The group's key: its first row's cell (equal keys are one canonical value for FLOAT).
    std::vector<uint64_t> rows = first_row;
    Column c = gather_column(key_columns[i], rows, col.name);
    if (c.type == Type::Float32)
      for (auto& v : c.as<float>()) v = canonical_float(v);
    if (c.type == Type::Float64)
      for (auto& v : c.as<double>()) v = canonical_double(v);
    out.columns.push_back(std::move(c));
  }
  for (size_t a = 0; a < node.aggs.size(); ++a) {
    const auto& col = node.schema[node.group_keys.size() + a];
    Column c = Column::make(col.name, col.type);
    if (col.type == Type::String) c.dictionary = col.dictionary;
    AggEval eval(node.aggs[a], in);
    for (const auto& g : groups) push(c, eval.over(g));
    out.columns.push_back(std::move(c));
  }
  how = node.group_keys.empty()
            ? "one pass over " + std::to_string(n) + " rows"
            : "hash map of key tuples (" + std::to_string(groups.size()) + " groups), groups sorted by key";
  HostRelation r = HostRelation::of(std::move(out));
  r.row_count = groups.size();
  return r;
}

}  // namespace gfxq::cpu
