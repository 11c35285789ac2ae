// The CPU aggregate: each row gets the id of its group, the tuple of its key cells' order keys, with
// ids in ascending key order (NULL first): by a k-way merge when the rows come in a few ascending
// runs of keys (concatenated partial group tables, a clustered table), else by an open-addressing
// hash table and a sort of the groups. Then each aggregate in one pass over the rows by group id
// (COUNT, integer SUM and AVG, MIN, MAX) or over each group's rows (the others). Aggregates skip NULL arguments; over
// no rows COUNT is 0 and the others NULL. SUM of integers is exact (int128, Overflow past BIGINT), SUM of FLOAT and
// DOUBLE the exact sum rounded once; AVG of integers the exact quotient rounded once; MIN, MAX and the ranks use the
// total order; FLOAT results canonical.

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>
#include <set>
#include <span>

#include "core/bind.h"
#include "core/exact_sum.h"
#include "core/order_key.h"
#include "cpu/exec/eval.h"
#include "cpu/exec/ops.h"
#include "gfxq/error.h"

namespace gfxq::cpu {

namespace {

// The groups of an aggregate: each row's group id, ids numbered in ascending key order.
struct Grouping {
  std::vector<uint32_t> id;         // per row
  std::vector<uint64_t> first_row;  // per group: a row of it, for its key cells
  size_t runs = 0;                  // the ascending runs merged, or 0 when hashed

  uint64_t count() const noexcept { return first_row.size(); }

  // One group of all `n` rows (an aggregate without GROUP BY: one result row even over no rows).
  static Grouping one(uint64_t n) {
    Grouping g;
    g.id.assign(n, 0);
    g.first_row.push_back(0);
    return g;
  }
};

// A 64-bit finalizer: every input bit moves about half the output bits.
uint64_t mix(uint64_t h) noexcept {
  h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 29);
}

// Most ascending runs group_by_keys merges instead of hashing.
constexpr size_t kMaxRuns = 64;

// The groups of `n` rows in ascending runs starting at `starts` (tuples compared by `compare`, a
// three-way comparison of two rows): a k-way merge of the runs by a heap of their heads.
template <class Compare>
Grouping merge_runs(const std::vector<uint64_t>& starts, uint64_t n, const Compare& compare) {
  std::vector<uint64_t> at(starts), end(starts.begin() + 1, starts.end());
  end.push_back(n);
  auto later = [&](size_t a, size_t b) { return compare(at[a], at[b]) > 0; };  // the heap's top: the least head
  std::vector<size_t> heap(starts.size());
  std::iota(heap.begin(), heap.end(), 0);
  std::make_heap(heap.begin(), heap.end(), later);
  Grouping g;
  g.id.resize(n);
  g.runs = starts.size();
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const size_t run = heap.back();
    const uint64_t r = at[run]++;
    if (g.first_row.empty() || compare(g.first_row.back(), r) != 0) {
      if (g.count() >= std::numeric_limits<uint32_t>::max() - 1)
        throw Error(ErrorCode::Unsupported, "the CPU GROUP BY takes fewer than 2^32 groups");
      g.first_row.push_back(r);
    }
    g.id[r] = uint32_t(g.count() - 1);
    if (at[run] < end[run])
      std::push_heap(heap.begin(), heap.end(), later);
    else
      heap.pop_back();
  }
  return g;
}

// Rows grouped by their key tuples: merge_runs when they come in at most kMaxRuns ascending runs,
// else through an open-addressing hash table of group ids, the groups then sorted by key. A tuple
// is one word per key cell (its order key; a NULL cell's key is 0) after a word 0 for NULL and 1 for
// a value in each column with NULLs, so the lexicographic order of the words is the groups' order,
// NULL first.
Grouping group_by_keys(const std::vector<CellKeys>& keys, uint64_t n) {
  std::vector<std::pair<const CellKeys*, bool>> words;  // per tuple word: its column, whether it is the NULL word
  for (const auto& k : keys) {
    if (!k.null.empty()) words.emplace_back(&k, true);
    words.emplace_back(&k, false);
  }
  const size_t w = words.size();
  auto word = [&](size_t i, uint64_t r) {
    const auto& [k, null_word] = words[i];
    return null_word ? uint64_t(!k->null[r]) : k->key[r];
  };
  // Rows already in a few ascending runs of tuples (partial group tables concatenated, each sorted by
  // key; a table clustered by its key) merge run by run: group ids in key order, no hash table.
  auto compare = [&](uint64_t a, uint64_t b) {
    for (size_t i = 0; i < w; ++i) {
      const uint64_t x = word(i, a), y = word(i, b);
      if (x != y) return x < y ? -1 : 1;
    }
    return 0;
  };
  std::vector<uint64_t> starts{0};
  for (uint64_t r = 1; r < n && starts.size() <= kMaxRuns; ++r)
    if (compare(r - 1, r) > 0) starts.push_back(r);
  if (n > 0 && starts.size() <= kMaxRuns) return merge_runs(starts, n, compare);

  Grouping g;
  g.id.resize(n);
  std::vector<uint64_t> tuples;  // w words per group
  tuples.reserve(std::min<uint64_t>(n, uint64_t(1) << 16) * w);
  // A slot holds a group's tuple (one word) or its hash (several words), and the group + 1 (0: empty).
  struct Slot {
    uint64_t word = 0;
    uint32_t group = 0;
  };
  std::vector<Slot> slots(1024);
  uint64_t mask = slots.size() - 1;
  std::vector<uint64_t> t(w);
  for (uint64_t r = 0; r < n; ++r) {
    uint64_t h = 0;
    if (w == 1) {
      h = t[0] = word(0, r);
    } else {
      h = 0x9e3779b97f4a7c15ull;
      for (size_t i = 0; i < w; ++i) h = mix(h ^ (t[i] = word(i, r)));
    }
    uint64_t s = mix(h) & mask;
    for (;; s = (s + 1) & mask) {
      const Slot& at = slots[s];
      if (!at.group || (at.word == h && (w == 1 || std::equal(t.begin(), t.end(), &tuples[(at.group - 1) * w])))) break;
    }
    if (slots[s].group) {
      g.id[r] = slots[s].group - 1;
      continue;
    }
    if (g.count() >= std::numeric_limits<uint32_t>::max() - 1)
      throw Error(ErrorCode::Unsupported, "the CPU GROUP BY takes fewer than 2^32 groups");
    const auto group = uint32_t(g.count());
    g.id[r] = group;
    g.first_row.push_back(r);
    tuples.insert(tuples.end(), t.begin(), t.end());
    slots[s] = {h, group + 1};
    if (2 * g.count() <= slots.size()) continue;
    // Past half full: twice the slots, every group again.
    std::vector<Slot> old(slots.size() * 2);
    old.swap(slots);
    mask = slots.size() - 1;
    for (const Slot& o : old) {
      if (!o.group) continue;
      uint64_t x = mix(o.word) & mask;
      while (slots[x].group) x = (x + 1) & mask;
      slots[x] = o;
    }
  }

  // Ranks in key order; one word a tuple sorts as (word, group) pairs.
  const uint64_t groups = g.count();
  std::vector<uint32_t> order(groups);
  if (w == 1) {
    std::vector<std::pair<uint64_t, uint32_t>> pairs(groups);
    for (uint32_t x = 0; x < groups; ++x) pairs[x] = {tuples[x], x};
    std::sort(pairs.begin(), pairs.end());
    for (uint64_t i = 0; i < groups; ++i) order[i] = pairs[i].second;
  } else {
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return std::lexicographical_compare(tuples.begin() + long(a * w), tuples.begin() + long((a + 1) * w),
                                          tuples.begin() + long(b * w), tuples.begin() + long((b + 1) * w));
    });
  }
  std::vector<uint32_t> rank(groups);
  std::vector<uint64_t> first(groups);
  for (uint64_t i = 0; i < groups; ++i) {
    rank[order[i]] = uint32_t(i);
    first[i] = g.first_row[order[i]];
  }
  g.first_row = std::move(first);
  for (auto& id : g.id) id = rank[id];
  return g;
}

// Each group's rows, ascending, one after another (a counting sort of the rows by group id).
struct GroupRows {
  std::vector<uint64_t> offsets;  // groups + 1
  std::vector<uint64_t> rows;

  static GroupRows of(const Grouping& g) {
    GroupRows m;
    m.offsets.assign(g.count() + 1, 0);
    for (uint32_t id : g.id) ++m.offsets[id + 1];
    std::partial_sum(m.offsets.begin(), m.offsets.end(), m.offsets.begin());
    std::vector<uint64_t> next(m.offsets.begin(), m.offsets.end() - 1);
    m.rows.resize(g.id.size());
    for (uint64_t r = 0; r < g.id.size(); ++r) m.rows[next[g.id[r]]++] = r;
    return m;
  }

  std::span<const uint64_t> rows_of(uint64_t group) const noexcept {
    return {rows.data() + offsets[group], rows.data() + offsets[group + 1]};
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

// The cells of `e` over `in`: a column of the relation read in place, else `e` evaluated into `owned`.
const Column& cells_of(const plan::Expr& e, const HostRelation& in, Column& owned) {
  if (e.is_column() && in.column(e.column).type == e.type) return in.column(e.column);
  owned = evaluate(e, in);
  return owned;
}

// One aggregate over the rows of one group.
class AggEval {
 public:
  AggEval(const plan::AggCall& call, const HostRelation& in) : call_(call) {
    if (call.arg) {
      arg_ = &cells_of(*call.arg, in, owned_);
      // Order keys only where values are compared (MIN, MAX, ranks, DISTINCT); NULLs from the column.
      const bool sums = call.kind == AggKind::Sum || call.kind == AggKind::Avg;
      if (call.distinct || !(sums || call.kind == AggKind::Count)) keys_ = cell_keys(*arg_);
    }
  }

  // The aggregate of every group into `out` in one pass over the rows by group id, for COUNT,
  // non-DISTINCT COUNT, integer SUM and AVG, MIN and MAX; false for the others (over() per group).
  bool by_group_id(const Grouping& g, Column& out) {
    const uint64_t groups = g.count();
    if (!call_.arg || (call_.kind == AggKind::Count && !call_.distinct)) {
      auto& count = out.as<int64_t>();
      count.assign(groups, 0);
      for (uint64_t r = 0; r < g.id.size(); ++r) count[g.id[r]] += call_.arg ? !arg_->is_null(r) : 1;
      return true;
    }
    const bool sums = call_.kind == AggKind::Sum || call_.kind == AggKind::Avg;
    if (sums && plan::is_integer(arg_->type)) {
      if (call_.kind == AggKind::Sum && sum_in_64_bits(g, out)) return true;
      std::vector<__int128> sum(groups, 0);
      std::vector<uint64_t> count(groups, 0);
      auto add = [&](const auto& values) {
        for (uint64_t r = 0; r < g.id.size(); ++r)
          if (!arg_->is_null(r)) sum[g.id[r]] += values[r], ++count[g.id[r]];
      };
      if (arg_->type == Type::Int32)
        add(arg_->as<int32_t>());
      else
        add(arg_->as<int64_t>());
      auto finish = [&](auto& values, auto&& value) {
        values.resize(groups);
        for (uint64_t x = 0; x < groups; ++x) {
          if (count[x] != 0) {
            values[x] = value(x);
            continue;
          }
          if (out.nulls.empty()) out.nulls.assign(groups, 0);
          out.nulls[x] = 1;
        }
      };
      if (call_.kind == AggKind::Sum)
        finish(out.as<int64_t>(), [&](uint64_t x) { return int_sum_result(sum[x], call_.text); });
      else
        finish(out.as<double>(), [&](uint64_t x) { return int_average(sum[x], count[x]); });
      return true;
    }
    if (call_.kind == AggKind::Min || call_.kind == AggKind::Max) {
      const bool min = call_.kind == AggKind::Min;
      std::vector<uint64_t> best(groups, min ? ~uint64_t(0) : 0);
      std::vector<uint8_t> seen(groups, 0);
      for (uint64_t r = 0; r < g.id.size(); ++r) {
        if (keys_.is_null(r)) continue;
        const uint32_t x = g.id[r];
        best[x] = min ? std::min(best[x], keys_.key[r]) : std::max(best[x], keys_.key[r]);
        seen[x] = 1;
      }
      for (uint64_t x = 0; x < groups; ++x)
        push(out, seen[x] ? value_of_key(arg_->type, best[x]) : Value(std::monostate{}));
      return true;
    }
    return false;
  }

  // An integer SUM of every group added in int64 straight into `out`: true when no partial sum left
  // int64 (then the sums are exact); false, `out` untouched, when one did (the int128 path decides).
  bool sum_in_64_bits(const Grouping& g, Column& out) {
    const uint64_t groups = g.count();
    std::vector<int64_t> sum(groups, 0);
    // Every group has a row with a value unless the argument has NULLs or there are no rows at all
    // (the one group of an aggregate without GROUP BY over no rows): then which groups have one.
    std::vector<uint8_t> seen(arg_->nulls.empty() && !g.id.empty() ? 0 : groups, 0);
    bool wrapped = false;
    auto add = [&](const auto& values) {
      for (uint64_t r = 0; r < g.id.size(); ++r) {
        if (arg_->is_null(r)) continue;
        const uint32_t x = g.id[r];
        wrapped |= __builtin_add_overflow(sum[x], int64_t(values[r]), &sum[x]);
        if (!seen.empty()) seen[x] = 1;
      }
    };
    if (arg_->type == Type::Int32)
      add(arg_->as<int32_t>());
    else
      add(arg_->as<int64_t>());
    if (wrapped) return false;
    if (!seen.empty() && std::find(seen.begin(), seen.end(), 0) != seen.end()) {
      out.nulls.resize(groups);
      for (uint64_t x = 0; x < groups; ++x) out.nulls[x] = !seen[x];
    }
    out.as<int64_t>() = std::move(sum);
    return true;
  }

  Value over(std::span<const uint64_t> rows) {
    if (!call_.arg) return int64_t(rows.size());
    std::vector<uint64_t>& live = live_;
    live.clear();
    for (uint64_t r : rows)
      if (!arg_->is_null(r)) live.push_back(r);
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
        if (plan::is_integer(arg_->type)) {
          __int128 s = 0;
          if (arg_->type == Type::Int32)
            for (uint64_t r : live) s += arg_->as<int32_t>()[r];
          else
            for (uint64_t r : live) s += arg_->as<int64_t>()[r];
          if (call_.kind == AggKind::Sum) return int_sum_result(s, call_.text);
          return int_average(s, n);
        }
        double s = 0;
        if (arg_->type == Type::Float32) {
          ExactFloatSum acc;
          for (uint64_t r : live) acc.add(arg_->as<float>()[r]);
          s = acc.result();
        } else {
          double_sum_.clear();
          for (uint64_t r : live) double_sum_.add(arg_->as<double>()[r]);
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
        return value_of_key(arg_->type, best);
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
        return value_of_key(arg_->type, k[rank - 1]);
      }
    }
    throw Error(ErrorCode::Internal, "unhandled aggregate " + call_.text);
  }

 private:
  const plan::AggCall& call_;
  Column owned_;                 // the argument when it is evaluated
  const Column* arg_ = nullptr;  // the argument's cells
  CellKeys keys_;
  ExactDoubleSum double_sum_;
  std::vector<uint64_t> live_;  // over(): the group's rows with a value
};

}  // namespace

HostRelation run_aggregate(const plan::Node& node, const HostRelation& in, std::string& how) {
  const uint64_t n = in.rows();
  std::vector<Column> owned(node.group_keys.size());
  std::vector<const Column*> key_columns;
  std::vector<CellKeys> key_cells;
  for (size_t i = 0; i < node.group_keys.size(); ++i) {
    key_columns.push_back(&cells_of(node.group_keys[i], in, owned[i]));
    key_cells.push_back(cell_keys(*key_columns.back()));
  }
  const Grouping groups = node.group_keys.empty() ? Grouping::one(n) : group_by_keys(key_cells, n);
  Table out;
  for (size_t i = 0; i < node.group_keys.size(); ++i) {
    const auto& col = node.schema[i];
    // The group's key: its first row's cell (equal keys are one canonical value for FLOAT).
    Column c = gather_column(*key_columns[i], groups.first_row, col.name);
    if (c.type == Type::Float32)
      for (auto& v : c.as<float>()) v = canonical_float(v);
    if (c.type == Type::Float64)
      for (auto& v : c.as<double>()) v = canonical_double(v);
    out.columns.push_back(std::move(c));
  }
  GroupRows members;  // made on the first aggregate that needs each group's rows
  for (size_t a = 0; a < node.aggs.size(); ++a) {
    const auto& col = node.schema[node.group_keys.size() + a];
    Column c = Column::make(col.name, col.type);
    if (col.type == Type::String) c.dictionary = col.dictionary;
    AggEval eval(node.aggs[a], in);
    if (!eval.by_group_id(groups, c)) {
      if (members.offsets.empty()) members = GroupRows::of(groups);
      for (uint64_t g = 0; g < groups.count(); ++g) push(c, eval.over(members.rows_of(g)));
    }
    out.columns.push_back(std::move(c));
  }
  const std::string grouped = groups.runs
                                  ? "k-way merge of " + std::to_string(groups.runs) + " ascending runs of key tuples"
                                  : "hash table of key tuples, groups sorted by key";
  how = node.group_keys.empty() ? "one pass over " + std::to_string(n) + " rows"
                                : grouped + " (" + std::to_string(groups.count()) + " groups), aggregates by group id";
  HostRelation r = HostRelation::of(std::move(out));
  r.row_count = groups.count();
  return r;
}

}  // namespace gfxq::cpu
