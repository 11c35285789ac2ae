// The CPU reference pipeline: bind; scan or join; filter; then either sort, limit and project
// the rows, or group, sort, limit and aggregate them. Each stage is one PassRecord.

#include <algorithm>
#include <charconv>
#include <chrono>

#include "core/trace_text.h"
#include "cpu/internal.h"
#include "gfxq/cpu.h"

namespace gfxq::cpu {

namespace {

using Clock = std::chrono::steady_clock;

// The passes of one execution; each is timed from the end of the one before.
class Trace {
 public:
  void add(std::string kind, std::string detail, uint64_t items, std::optional<uint64_t> passed = std::nullopt) {
    PassRecord pass;
    pass.kind = std::move(kind);
    pass.detail = std::move(detail);
    pass.items = items;
    pass.passed = passed;
    pass.wall_ms = ms_since(mark_);
    mark_ = Clock::now();
    passes_.push_back(std::move(pass));
  }
  // "cpu-reference: scan + filter + aggregate": the stages after binding.
  std::string algorithm() const {
    std::string s;
    for (const auto& p : passes_)
      if (p.kind != "bind") s += (s.empty() ? "" : " + ") + p.kind;
    return "cpu-reference: " + s;
  }
  std::vector<PassRecord> take() { return std::move(passes_); }

 private:
  Clock::time_point mark_ = Clock::now();
  std::vector<PassRecord> passes_;
};

std::string number_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// "equi-join r.k = s.k: ..." or "band join r.k + -1 <= s.k <= r.k + 2: ..."
std::string join_detail(const Query& query) {
  const auto& j = *query.join;
  const std::string l = j.left_key.text(), r = j.right_key.text();
  const std::string condition =
      j.equi() ? "equi-join " + l + " = " + r
               : "band join " + l + " + " + number_text(j.lo) + " <= " + r + " <= " + l + " + " + number_text(j.hi);
  return condition + ": right side sorted by key, binary search per left row";
}

// The pipeline's input: the FROM table, or the join materialised into `joined`.
Input scan_or_join(const Query& query, const BoundQuery& bq, Table& joined, Trace& trace) {
  if (!bq.join) {
    trace.add("scan", bq.left_name, bq.left->rows());
    return Input{bq.left, 0};
  }
  const Pairs pairs = join_pairs(bq.column(bq.join->left_key), bq.column(bq.join->right_key), bq.join->lo, bq.join->hi);
  joined = pair_table(*bq.left, bq.left_name, pairs.left, *bq.right, bq.right_name, pairs.right);
  trace.add("join", join_detail(query), bq.left->rows() + bq.right->rows(), pairs.left.size());
  return Input{&joined, bq.left->columns.size()};
}

std::vector<uint64_t> filter(const Query& query, const BoundQuery& bq, const Input& in, Trace& trace) {
  auto rows = filter_rows(in, bq.where);
  trace.add("filter", bq.where.empty() ? "no condition" : query.where.text(), in.table->rows(), rows.size());
  return rows;
}

std::string order_detail(const BoundOrder& order) {
  return "stable, by " + order.column.name + (order.descending ? " DESC" : " ASC");
}

template <class T>
void apply_limit(std::vector<T>& v, uint64_t limit, Trace& trace) {
  const uint64_t before = v.size();
  if (v.size() > limit) v.resize(limit);
  trace.add("limit", "LIMIT " + std::to_string(limit), before, v.size());
}

// An empty table with the query's result schema.
Table result_table(const BoundQuery& bq) {
  Table out;
  for (const auto& c : bq.output) out.columns.push_back(Column::make(c.name, c.type));
  return out;
}

Table plain_query(const BoundQuery& bq, const Input& in, std::vector<uint64_t> rows, Trace& trace) {
  if (bq.order_by) {
    stable_sort_rows(in.column(bq.order_by->column), rows, bq.order_by->descending);
    trace.add("sort", order_detail(*bq.order_by), rows.size());
  }
  if (bq.limit) apply_limit(rows, *bq.limit, trace);
  Table out;
  for (const auto& item : bq.items) {
    const auto& c = std::get<BoundColumn>(item);
    out.columns.push_back(gather(in.column(c), rows, c.name));
  }
  trace.add("project", std::to_string(out.columns.size()) + " columns", rows.size());
  return out;
}

// One result row: each item's value over `rows`; a plain column item is the group key `key`.
void append_row(const BoundQuery& bq, const Input& in, const std::vector<uint64_t>& rows, uint32_t key, Table& out) {
  for (size_t i = 0; i < bq.items.size(); ++i) {
    if (const auto* c = std::get_if<BoundColumn>(&bq.items[i])) {
      out.columns[i].push(value_from_key(c->type, key));
    } else {
      const auto& agg = std::get<BoundAggregate>(bq.items[i]);
      out.columns[i].push(aggregate_rows(agg, agg.column ? &in.column(*agg.column) : nullptr, rows));
    }
  }
}

std::string aggregate_detail(const BoundQuery& bq) {
  std::string s;
  for (const auto& c : bq.output) s += (s.empty() ? "" : ", ") + c.name;
  return s;
}

Table aggregate_query(const BoundQuery& bq, const Input& in, std::vector<uint64_t> rows, Trace& trace) {
  const uint64_t n = rows.size();
  std::vector<Group> groups;
  if (bq.group_by) {
    groups = group_rows(in.column(*bq.group_by), rows);
    trace.add("group-by", "ordered map by " + bq.group_by->name, n, groups.size());
  } else {
    // One result row over all rows; it has no plain columns, so the group key is unused.
    groups.push_back(Group{0, std::move(rows)});
  }
  if (bq.order_by) {
    // ORDER BY is the group column and group keys are distinct: ascending is the order the
    // groups already have, descending its reverse.
    if (bq.order_by->descending) std::reverse(groups.begin(), groups.end());
    trace.add("sort", order_detail(*bq.order_by), groups.size());
  }
  if (bq.limit) apply_limit(groups, *bq.limit, trace);
  Table out = result_table(bq);
  for (const auto& g : groups) append_row(bq, in, g.rows, g.key, out);
  trace.add("aggregate", aggregate_detail(bq), n, groups.size());
  return out;
}

}  // namespace

Result execute(const Query& query, const Catalog& catalog) {
  const auto start = Clock::now();
  Trace trace;
  const BoundQuery bq = bind(query, catalog);
  trace.add("bind", query.text(), 0);
  Table joined;
  const Input in = scan_or_join(query, bq, joined, trace);
  auto rows = filter(query, bq, in, trace);
  Result result;
  result.table =
      bq.aggregate ? aggregate_query(bq, in, std::move(rows), trace) : plain_query(bq, in, std::move(rows), trace);
  result.report.backend = Backend::Cpu;
  result.report.algorithm = trace.algorithm();
  result.report.reason = "requested";
  result.report.passes = trace.take();
  result.report.total_ms = ms_since(start);
  return result;
}

}  // namespace gfxq::cpu
