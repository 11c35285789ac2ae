// DISTINCT and the set operations of logical plans on the compute backend (fragments.h), by the
// skeletons of vk/operators/skeletons/rows.h: the key planes' ranges first; when the rows' packed keys
// fit a dense table (DISTINCT, UNION, INTERSECT, EXCEPT), the first row of each key by atomicMin into
// a table of one word per key; else (DISTINCT) a hash table of first rows, or the rows (both operands as
// one relation, left rows first) sorted stably by their packed key or plane by plane, runs of equal
// rows found by adjacent difference, each row marked by what its run holds of each side. The marks,
// a bitmap, are compacted in row order, so the kept rows come in the CPU engine's order (first
// appearances, left operand first; ALL keeps the first copies) and are gathered on the host. Columns:
// INT, FLOAT, DATE, STRING, BIGINT and DOUBLE, NULLs equal; the operands' STRING codes are moved to the
// output's dictionary first. A set operation whose operand columns differ in type from its output (INT
// widened to FLOAT, ...) is refused.

#include <chrono>
#include <numeric>

#include "core/append_column.h"
#include "cpu/exec/ops.h"
#include "gfxq/error.h"
#include "vk/engine/column_facts.h"
#include "vk/engine/fragments.h"
#include "vk/engine/skeleton_inputs.h"

namespace gfxq::vk {

using plan::Node;
using plan::NodeKind;

namespace {

skel::SetKind set_kind(const Node& s) {
  switch (s.set_op) {
    case plan::SetOpKind::Union: return s.all ? skel::SetKind::UnionAll : skel::SetKind::Union;
    case plan::SetOpKind::Intersect: return s.all ? skel::SetKind::IntersectAll : skel::SetKind::Intersect;
    case plan::SetOpKind::Except: return s.all ? skel::SetKind::ExceptAll : skel::SetKind::Except;
  }
  return skel::SetKind::Union;
}

double gpu_total(std::vector<PassRecord>& from, std::vector<PassRecord>& to, bool& any) {
  double gpu = 0;
  for (auto& p : from) {
    if (p.gpu_ms) gpu += *p.gpu_ms, any = true;
    to.push_back(std::move(p));
  }
  return gpu;
}

//! What claim_set works out: each output column's value range from the catalog's column facts (the
//! skeletons' RowColumn::range), where every operand reads it from a NULL-free INT or DATE column of
//! a Scan (through Projects of columns and Filters).
struct SetState final : CoveredFilters {
  std::vector<std::optional<std::pair<int32_t, int32_t>>> ranges;
};

//! The range of column `c` of `n`'s rows from the facts of the catalog column under it, if any.
std::optional<std::pair<int32_t, int32_t>> fact_range(const Node* n, size_t c, const Catalog& catalog,
                                                      ColumnFactsCache& facts) {
  n = column_source(n, c);
  if (n->kind != NodeKind::Scan || may_be_null(*n, c)) return std::nullopt;
  const Type t = n->schema.at(c).type;
  if (t != Type::Int32 && t != Type::Date) return std::nullopt;
  const ResidentKey key{n->table_name, catalog.version(n->table_name), n->scan_columns.at(c)};
  const ColumnFacts& f = facts.get(key, n->table->columns.at(key.column));
  return std::pair{f.min, f.max};
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

std::optional<engine::Fragment> claim_set(const Node& node, const Catalog& catalog, ColumnFactsCache& facts,
                                          std::string& why) {
  std::vector<const Node*> layers;
  const Node& core = under_layers(node, layers);
  if (core.kind != NodeKind::Distinct && core.kind != NodeKind::SetOp) return std::nullopt;
  for (size_t i = 0; i < core.schema.size(); ++i) {
    const plan::SchemaColumn& s = core.schema[i];
    if (!skeleton_type(s.type)) {
      why = "its column " + s.name + " is " + to_string(s.type) +
            " (the compute DISTINCT and set operations take INT, FLOAT, DATE, STRING, BIGINT and DOUBLE)";
      return std::nullopt;
    }
    if (core.kind == NodeKind::SetOp)
      for (const auto& c : core.children)
        if (c->schema.at(i).type != s.type) {
          why = "its column " + s.name + " is " + to_string(c->schema[i].type) + " in an operand and " +
                to_string(s.type) + " in the result (the compute set operations do not widen types)";
          return std::nullopt;
        }
  }
  engine::Fragment f;
  f.root = &node;
  f.nodes = layers;
  f.nodes.push_back(&core);
  std::string algorithm;
  for (const auto& child : core.children) claim_skeleton_input(*child, catalog, f.nodes, f.inputs);
  auto state = std::make_shared<SetState>();
  for (size_t i = 0; i < core.schema.size(); ++i) {
    std::optional<std::pair<int32_t, int32_t>> range;
    for (const auto& child : core.children) {
      const auto r = fact_range(child.get(), i, catalog, facts);
      if (!r) {
        range.reset();
        break;
      }
      range = range ? std::pair{std::min(range->first, r->first), std::max(range->second, r->second)} : *r;
    }
    state->ranges.push_back(range);
  }
  f.state = std::move(state);
  algorithm = core.kind == NodeKind::Distinct ? "DISTINCT" : skel::to_string(set_kind(core));
  f.algorithm = "compute: " + algorithm + " of whole rows (" + std::to_string(core.schema.size()) +
                " columns; a dense table of first rows when the key ranges allow, else hash (DISTINCT) or a row "
                "sort with run heads; marks compacted in row order)";
  return f;
}

engine::FragmentRun run_set_fragment(FragmentEnv& env, const engine::Fragment& f,
                                     std::vector<engine::Relation> inputs) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<const Node*> layers;
  const Node& core = under_layers(*f.root, layers);
  engine::FragmentRun out;
  size_t next_input = 0;
  auto rows_of = [&](const Node& child) {
    const bool covered = std::find(f.nodes.begin(), f.nodes.end(), &child) != f.nodes.end();
    return std::make_unique<InputRows>(env, child, covered ? nullptr : &inputs.at(next_input++), out.passes);
  };
  const bool distinct = core.kind == NodeKind::Distinct;
  std::vector<size_t> map, rmap;
  std::unique_ptr<InputRows> left = rows_of(skeleton_input(*core.children[0], f, map)), right;
  if (!distinct) right = rows_of(skeleton_input(*core.children[1], f, rmap));
  SkeletonColumns lcols(env, *left, out.passes);
  std::optional<SkeletonColumns> rcols;
  if (right) rcols.emplace(env, *right, out.passes);

  skel::RowsInput rows;
  set_input_rows(*left, rows);
  if (right) {
    rows.right_rows = right->rows();
    const std::optional<std::vector<uint32_t>> rsel = right->host_selection("selected right row ids");
    if (!rows.all || rsel) {
      std::vector<uint32_t> ids;
      if (!rows.all) {
        ids = std::move(rows.ids);
      } else {
        ids.resize(rows.left_rows);
        std::iota(ids.begin(), ids.end(), 0u);
      }
      if (rsel) {
        for (uint32_t r : *rsel) ids.push_back(uint32_t(rows.left_rows + r));
      } else {
        for (uint64_t r = 0; r < rows.right_rows; ++r) ids.push_back(uint32_t(rows.left_rows + r));
      }
      rows.ids = std::move(ids);
      rows.all = false;
    }
  }
  for (size_t i = 0; i < core.schema.size(); ++i) {
    skel::RowColumn c;
    c.type = core.schema[i].type;
    const auto& dictionary = core.schema[i].dictionary;
    c.left = lcols.source(map[i], dictionary);
    if (right) c.right = rcols->source(rmap[i], dictionary);
    if (const auto* st = dynamic_cast<const SetState*>(f.state.get())) c.range = st->ranges.at(i);
    rows.columns.push_back(c);
  }
  const skel::SetKind kind = distinct ? skel::SetKind::Distinct : set_kind(core);
  std::string how;
  std::vector<PassRecord> passes;
  const std::vector<uint32_t> ids = skel::set_rows(env.device, rows, kind, passes, how);
  bool any = false;
  const double gpu = gpu_total(passes, out.passes, any);

  // The kept rows' columns, gathered on the host (left rows, then right rows from left_rows on).
  const auto host_start = std::chrono::steady_clock::now();
  std::vector<uint64_t> lids, rids;
  for (uint32_t id : ids) (id < rows.left_rows ? lids.push_back(id) : rids.push_back(id - rows.left_rows));
  Table t;
  for (size_t i = 0; i < core.schema.size(); ++i) {
    const auto& s = core.schema[i];
    Column c = cpu::gather_column(cpu::recode(left->host().column(map[i]), s.dictionary), lids, s.name);
    if (right)
      append_column(c, cpu::gather_column(cpu::recode(right->host().column(rmap[i]), s.dictionary), rids, s.name));
    t.columns.push_back(std::move(c));
  }
  uint64_t n = ids.size();
  t = apply_layers(std::move(t), n, layers);
  const double host_ms = ms_since(host_start);

  engine::NodeRun run;
  run.algorithm = "compute: " + how + "; columns gathered on the host; input" + (right ? "s: " : ": ") +
                  left->describe() + (right ? ", " + right->describe() : "");
  run.rows_in = left->count() + (right ? right->count() : 0);
  run.rows_out = ids.size();
  if (any) run.gpu_ms = gpu;
  run.wall_ms = ms_since(start);
  out.nodes[&core] = run;
  report_layers(out, f, core, ids.size(), n, host_ms);
  cpu::HostRelation result = cpu::HostRelation::of(std::move(t));
  result.row_count = n;
  out.result = std::move(result);
  return out;
}

}  // namespace gfxq::vk
