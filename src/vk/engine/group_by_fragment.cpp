// GROUP BY of logical plans on the compute backend (fragments.h): an Aggregate with group keys, run by
// vk::group_by (the optimizer estimates the group count and picks the variant), and above it the
// layers that keep the groups as they come (ascending by key): Projects of columns, a Sort whose keys
// are a prefix of the group keys ascending (the identity on that order) and a Limit, applied to the
// groups on the host. Keys are 1 to 4 plain columns and aggregate arguments plain columns, of the
// 32-bit types the device columns hold (INT, FLOAT, DATE days, STRING codes: string order is code
// order, so MIN, MAX and the keys' order of strings are their codes'), never NULL (decided from the
// plan: may_be_null); SUM and AVG take INT and FLOAT. The rest is refused with the reason.

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/bind.h"
#include "cpu/exec/ops.h"
#include "gfxq/error.h"
#include "vk/engine/fragments.h"
#include "vk/engine/inputs.h"
#include "vk/operators/group_by/group_by.h"

namespace gfxq::vk {

namespace {

using plan::Node;
using plan::NodeKind;

// Most GROUP BY key columns the operators take (GroupByInput::keys).
constexpr size_t kMaxKeys = 4;

bool columns_only(const Node& p) {
  for (const auto& e : p.exprs)
    if (!e.is_column()) return false;
  return true;
}

// The layers above the Aggregate, top-down, and the Aggregate; null when `node` is not of that shape.
const Node* aggregate_of(const Node& node, std::vector<const Node*>& layers) {
  const Node* cur = &node;
  while ((cur->kind == NodeKind::Project && columns_only(*cur)) || cur->kind == NodeKind::Limit ||
         cur->kind == NodeKind::Sort) {
    layers.push_back(cur);
    cur = cur->children[0].get();
  }
  return cur->kind == NodeKind::Aggregate && !cur->group_keys.empty() ? cur : nullptr;
}

// Why the layers do not keep the groups' key order, or empty when they do: each Sort's keys must be a
// prefix of the group keys, ascending.
std::string layers_keep_order(const Node& agg, const std::vector<const Node*>& layers) {
  std::vector<size_t> map(agg.schema.size());  // layer output column -> Aggregate output column
  for (size_t i = 0; i < map.size(); ++i) map[i] = i;
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
    const Node& l = **it;
    if (l.kind == NodeKind::Project) {
      std::vector<size_t> next;
      for (const auto& e : l.exprs) next.push_back(map.at(e.column));
      map = std::move(next);
    } else if (l.kind == NodeKind::Sort) {
      for (size_t i = 0; i < l.sort_keys.size(); ++i) {
        const auto& k = l.sort_keys[i];
        if (k.descending || map.at(k.column) != i || i >= agg.group_keys.size())
          return "ORDER BY " + l.schema[k.column].name + (k.descending ? " DESC" : "") +
                 " is not the groups' key order (the compute GROUP BY gives groups ascending by key)";
      }
    }
  }
  return {};
}

// Column `c` of the operator's result as the Aggregate's output column `s` (DATE and STRING types
// back on the 32-bit values; the dictionary of the schema).
Column typed(Column c, const plan::SchemaColumn& s) {
  c.name = s.name;
  if (storage_type(s.type) == c.type && s.type != c.type) c.type = s.type;
  if (s.type == Type::String) c.dictionary = s.dictionary;
  if (c.type != s.type)
    throw Error(ErrorCode::Internal, "compute GROUP BY: column " + s.name + " came back " + to_string(c.type) +
                                         ", the plan says " + to_string(s.type));
  return c;
}

}  // namespace

std::optional<engine::Fragment> claim_group_by(const Node& node, const Catalog& catalog, std::string& why) {
  std::vector<const Node*> layers;
  const Node* agg = aggregate_of(node, layers);
  if (!agg) return std::nullopt;  // not of this shape: no reason of its own
  if (const std::string bad = layers_keep_order(*agg, layers); !bad.empty()) {
    why = bad;
    return std::nullopt;
  }
  const Node& input = *agg->children[0];
  if (agg->group_keys.size() > kMaxKeys) {
    why = "it groups by " + std::to_string(agg->group_keys.size()) + " keys (the compute GROUP BY takes 1 to " +
          std::to_string(kMaxKeys) + ")";
    return std::nullopt;
  }
  for (const auto& k : agg->group_keys) {
    if (!k.is_column()) {
      why = "its key " + k.text + " is an expression (the compute GROUP BY groups by columns)";
      return std::nullopt;
    }
    if (!device_type(k.type)) {
      why = "its key " + k.text + " is " + to_string(k.type) +
            " (the compute GROUP BY takes 32-bit INT, FLOAT, DATE and STRING keys)";
      return std::nullopt;
    }
    if (may_be_null(input, k.column)) {
      why = "its key " + k.text + " may be NULL (the compute GROUP BY has no NULL group)";
      return std::nullopt;
    }
  }
  for (const auto& a : agg->aggs) {
    if (a.distinct) {
      why = "aggregate " + a.text + " is DISTINCT";
      return std::nullopt;
    }
    if (!a.arg) continue;
    if (!a.arg->is_column()) {
      why = "aggregate " + a.text + " is of an expression (the compute GROUP BY aggregates columns)";
      return std::nullopt;
    }
    const Type t = a.arg->type;
    const bool number = t == Type::Int32 || t == Type::Float32;
    if (!device_type(t) || ((a.kind == AggKind::Sum || a.kind == AggKind::Avg) && !number)) {
      why = "aggregate " + a.text + " reads a " + to_string(t) + " column (the compute GROUP BY " +
            (device_type(t) ? "sums INT and FLOAT)" : "reads 32-bit INT, FLOAT, DATE and STRING columns)");
      return std::nullopt;
    }
    if (may_be_null(input, a.arg->column)) {
      why = "aggregate " + a.text + " reads a column that may be NULL (the compute GROUP BY reads NULL-free columns)";
      return std::nullopt;
    }
  }
  engine::Fragment f;
  f.root = &node;
  f.nodes = layers;
  f.nodes.push_back(agg);
  auto filters = std::make_shared<CoveredFilters>();
  claim_input(input, catalog, f.nodes, f.inputs, filters.get());
  if (!filters->programs.empty()) f.state = std::move(filters);
  f.algorithm = "compute: GROUP BY " + std::to_string(agg->group_keys.size()) +
                (agg->group_keys.size() == 1 ? " key, " : " keys, ") + std::to_string(agg->aggs.size()) +
                " aggregates (the optimizer picks the variant from the estimated group count at run time)";
  return f;
}

engine::FragmentRun run_group_by_fragment(FragmentEnv& env, const engine::Fragment& f,
                                          std::vector<engine::Relation> inputs) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<const Node*> layers;
  const Node& agg = *aggregate_of(*f.root, layers);
  const Node& child = *agg.children[0];
  engine::FragmentRun out;
  const bool covered = std::find(f.nodes.begin(), f.nodes.end(), &child) != f.nodes.end();
  InputRows in(env, child, covered ? nullptr : &inputs.at(0), out.passes);

  GroupByInput gi;
  gi.rows = in.rows();
  for (const auto& k : agg.group_keys) gi.keys.push_back(&in.column(k.column));
  std::vector<size_t> value_columns;  // input column of each GroupByInput::values entry
  for (const auto& a : agg.aggs) {
    GroupByAggregate g;
    g.kind = a.kind;
    g.q = a.q;
    g.k = a.k;
    g.name = a.text;
    // COUNT(column) of a column without NULLs is COUNT(*).
    if (a.arg && a.kind != AggKind::Count) {
      const size_t c = a.arg->column;
      auto it = std::find(value_columns.begin(), value_columns.end(), c);
      if (it == value_columns.end()) {
        value_columns.push_back(c);
        gi.values.push_back(&in.column(c));
        it = value_columns.end() - 1;
      }
      g.value = int(it - value_columns.begin());
    }
    gi.aggregates.push_back(std::move(g));
  }
  // The keys and aggregated columns are NULL-free (claim_group_by), so every selected row groups.
  const DeviceRows taking_part = in.live({}, "selected row ids");
  gi.selection = taking_part.selection;
  gi.selected = taking_part.count;
  GroupByResult r = group_by(env.device, gi);
  double gpu = 0;
  bool any = false;
  for (auto& p : r.passes) {
    if (p.gpu_ms) gpu += *p.gpu_ms, any = true;
    out.passes.push_back(std::move(p));
  }

  // The Aggregate's output, then the layers above it, bottom-up, on the host.
  const auto host_start = std::chrono::steady_clock::now();
  Table t;
  for (size_t i = 0; i < r.keys.size(); ++i) t.columns.push_back(typed(std::move(r.keys[i]), agg.schema[i]));
  for (size_t i = 0; i < r.aggregates.size(); ++i)
    t.columns.push_back(typed(std::move(r.aggregates[i]), agg.schema[r.keys.size() + i]));
  uint64_t rows = r.groups;
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
    const Node& l = **it;
    if (l.kind == NodeKind::Project) {
      Table next;
      for (size_t i = 0; i < l.exprs.size(); ++i) {
        next.columns.push_back(t.columns.at(l.exprs[i].column));
        next.columns.back().name = l.schema[i].name;
      }
      t = std::move(next);
    } else if (l.kind == NodeKind::Limit) {
      const uint64_t first = std::min(l.offset, rows);
      const uint64_t count = std::min(l.limit, rows - first);
      std::vector<uint64_t> keep(count);
      for (uint64_t i = 0; i < count; ++i) keep[i] = first + i;
      for (auto& c : t.columns) c = cpu::gather_column(c, keep, c.name);
      rows = count;
    }
  }
  const double host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start).count();

  engine::NodeRun run;
  run.algorithm = "compute: " + r.algorithm + " (" + r.reason + "); input: " + in.describe();
  run.rows_in = in.count();
  run.rows_out = r.groups;
  if (any) run.gpu_ms = gpu;
  run.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.nodes[&agg] = run;
  if (f.root != &agg) {
    engine::NodeRun top;
    top.algorithm = "compute: select list, key order and LIMIT of the " + std::to_string(r.groups) +
                    " groups kept on the host (the groups come ascending by key)";
    top.rows_in = r.groups;
    top.rows_out = rows;
    top.wall_ms = host_ms;
    out.nodes[f.root] = top;
  }
  cpu::HostRelation result = cpu::HostRelation::of(std::move(t));
  result.row_count = rows;
  out.result = std::move(result);
  return out;
}

}  // namespace gfxq::vk
