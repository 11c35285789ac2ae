// GROUP BY of logical plans on the compute backend (fragments.h): an Aggregate with group keys, run by
// vk::group_by (the optimizer estimates the group count and picks the variant), and above it the
// layers that keep the groups as they come (ascending by key): Projects of columns, a Sort whose keys
// are a prefix of the group keys ascending (the identity on that order) and a Limit, applied to the
// groups on the host. Keys are 1 to 4 columns of the 32-bit types the device columns hold (INT,
// FLOAT, DATE days, STRING codes: string order is code order, so MIN, MAX and the keys' order of
// strings are their codes') or expressions of INT, FLOAT or DATE type; aggregate arguments are such
// columns or expressions (vk/relational/expression.h, evaluated on the device first), never NULL
// (decided from the plan: may_be_null); SUM and AVG take INT and FLOAT, and BIGINT expressions
// (SUM(lo_revenue - lo_supplycost)), which are split into an INT column of high words and one of
// low words biased by 2^31, summed apart exactly and joined on the host (int_sum_result's Overflow
// past BIGINT). The rest is refused with the reason.

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>

#include "core/bind.h"
#include "cpu/exec/ops.h"
#include "gfxq/error.h"
#include "group_by_config.glsl"
#include "vk/engine/expression_inputs.h"
#include "vk/engine/fragments.h"
#include "vk/engine/inputs.h"
#include "vk/operators/group_by/group_by.h"

namespace gfxq::vk {

namespace {

using plan::Node;
using plan::NodeKind;

// Most GROUP BY key columns the operators take (GroupByInput::keys).
constexpr size_t kMaxKeys = 4;

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

// What a value column of the operator holds: an input column, or an expression (by its text; a
// BIGINT expression takes two columns, its high and low words).
std::string value_key(const plan::Expr& arg) {
  return arg.is_column() ? "column " + std::to_string(arg.column) : "expression " + arg.text;
}

// The value columns the aggregates read (COUNT reads none).
size_t value_columns(const Node& agg) {
  std::set<std::string> seen;
  size_t n = 0;
  for (const auto& a : agg.aggs)
    if (a.arg && a.kind != AggKind::Count && seen.insert(value_key(*a.arg)).second)
      n += a.arg->type == Type::Int64 ? 2 : 1;
  return n;
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
      if (k.type != Type::Int32 && k.type != Type::Date && k.type != Type::Float32) {
        why = "its key " + k.text + " is a " + to_string(k.type) +
              " expression (the compute GROUP BY groups by 32-bit INT, FLOAT and DATE values)";
        return std::nullopt;
      }
      if (!claim_expression(k, input, "key", why)) return std::nullopt;
      continue;
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
    const Type t = a.arg->type;
    const bool sums = a.kind == AggKind::Sum || a.kind == AggKind::Avg;
    if (!a.arg->is_column()) {
      // Expressions: BIGINT values only as SUM and AVG (split into two INT columns); COUNT of any.
      const bool fits = a.kind == AggKind::Count || t == Type::Int32 || t == Type::Float32 ||
                        (sums ? t == Type::Int64 : t == Type::Date);
      if (!fits) {
        why = "aggregate " + a.text + " is of a " + to_string(t) + " expression (the compute GROUP BY " +
              (sums ? "sums INT, BIGINT and FLOAT values)" : "ranks 32-bit INT, FLOAT and DATE values)");
        return std::nullopt;
      }
      if (!claim_expression(*a.arg, input, "aggregate", why)) return std::nullopt;
      continue;
    }
    const bool number = t == Type::Int32 || t == Type::Float32;
    if (!device_type(t) || (sums && !number)) {
      why = "aggregate " + a.text + " reads a " + to_string(t) + " column (the compute GROUP BY " +
            (device_type(t) ? "sums INT and FLOAT)" : "reads 32-bit INT, FLOAT, DATE and STRING columns)");
      return std::nullopt;
    }
    if (may_be_null(input, a.arg->column)) {
      why = "aggregate " + a.text + " reads a column that may be NULL (the compute GROUP BY reads NULL-free columns)";
      return std::nullopt;
    }
  }
  if (const size_t n = value_columns(*agg); n > GB_MAX_VALUE_BINDINGS) {
    why = "its aggregates read " + std::to_string(n) + " value columns (the compute GROUP BY reads at most " +
          std::to_string(GB_MAX_VALUE_BINDINGS) + "; a BIGINT expression takes two)";
    return std::nullopt;
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

  // The keys and aggregated columns are NULL-free (claim_group_by), so every selected row groups.
  const DeviceRows taking_part = in.live({}, "selected row ids");

  // Expression keys and arguments evaluated by row into 32-bit device columns (a BIGINT value split
  // into its high word and its biased low word); their errors raised in the CPU engine's order.
  std::vector<std::unique_ptr<DeviceColumn>> computed;
  auto evaluate = [&](const plan::Expr& e, ExprLayout layout) {
    std::string why;
    const auto program = compile_expression(e, why);
    if (!program) throw Error(ErrorCode::Internal, "compute GROUP BY: " + e.text + " no longer compiles: " + why);
    return evaluate_expression(env.device, *program, expression_input(in, *program, taking_part), layout, out.passes);
  };
  auto keep = [&](Buffer b, Type type) {
    computed.push_back(std::make_unique<DeviceColumn>(DeviceColumn{std::move(b), type, in.rows()}));
    return computed.back().get();
  };

  GroupByInput gi;
  gi.rows = in.rows();
  for (const auto& k : agg.group_keys) {
    if (k.is_column()) {
      gi.keys.push_back(&in.column(k.column));
      continue;
    }
    ExprValues v = evaluate(k, ExprLayout::ByRow);
    if (v.error) throw *v.error;
    gi.keys.push_back(keep(std::move(v.values), k.type == Type::Float32 ? Type::Float32 : Type::Int32));
  }
  // Per aggregate: where its result comes from in gi.aggregates and its pending evaluation error.
  struct Source {
    size_t index = 0;    // its aggregate, or (split) the SUM of the high words
    size_t low = 0;      // split: the SUM of the biased low words
    bool split = false;  // a BIGINT SUM or AVG
    std::optional<Error> error;
  };
  std::vector<Source> sources(agg.aggs.size());
  // First GroupByInput::values entry of each distinct value (value_key) and its evaluation error.
  std::map<std::string, std::pair<int, std::optional<Error>>> values;
  bool any_split = false;
  for (size_t i = 0; i < agg.aggs.size(); ++i) {
    const auto& a = agg.aggs[i];
    GroupByAggregate g;
    g.kind = a.kind;
    g.q = a.q;
    g.k = a.k;
    g.name = a.text;
    Source& src = sources[i];
    if (a.arg && a.kind == AggKind::Count && !a.arg->is_column()) {
      src.error = evaluate(*a.arg, ExprLayout::Compact).error;  // COUNT(expression) without NULLs is COUNT(*)
    } else if (a.arg && a.kind != AggKind::Count) {
      // COUNT(column) of a column without NULLs is COUNT(*); other arguments are value columns.
      const std::string key = value_key(*a.arg);
      auto it = values.find(key);
      if (it == values.end()) {
        std::optional<Error> error;
        if (a.arg->is_column()) {
          gi.values.push_back(&in.column(a.arg->column));
        } else if (a.arg->type == Type::Int64) {
          ExprValues v = evaluate(*a.arg, ExprLayout::Split64);
          error = std::move(v.error);
          gi.values.push_back(keep(std::move(v.values), Type::Int32));
          gi.values.push_back(keep(std::move(v.low), Type::Int32));
        } else {
          ExprValues v = evaluate(*a.arg, ExprLayout::ByRow);
          error = std::move(v.error);
          gi.values.push_back(keep(std::move(v.values), a.arg->type == Type::Float32 ? Type::Float32 : Type::Int32));
        }
        const int first = int(gi.values.size()) - (a.arg->type == Type::Int64 ? 2 : 1);
        it = values.emplace(key, std::make_pair(first, std::move(error))).first;
      }
      src.error = it->second.second;
      g.value = it->second.first;
      if (a.arg->type == Type::Int64) {
        src.split = any_split = true;
        src.index = gi.aggregates.size();
        src.low = src.index + 1;
        gi.aggregates.push_back({AggKind::Sum, g.value, 0.5, 1, a.text + " (high words)"});
        gi.aggregates.push_back({AggKind::Sum, g.value + 1, 0.5, 1, a.text + " (low words)"});
        continue;
      }
    }
    src.index = gi.aggregates.size();
    gi.aggregates.push_back(std::move(g));
  }
  // A split SUM is high * 2^32 + low + 2^31 * rows of the group.
  const size_t group_rows = gi.aggregates.size();
  if (any_split) gi.aggregates.push_back({AggKind::Count, -1, 0.5, 1, "COUNT(*)"});
  gi.selection = taking_part.selection;
  gi.selected = taking_part.count;
  GroupByResult r = group_by(env.device, gi);
  double gpu = 0;
  bool any = false;
  for (auto& p : out.passes)
    if (p.kind == "expression" && p.gpu_ms) gpu += *p.gpu_ms, any = true;
  for (auto& p : r.passes) {
    if (p.gpu_ms) gpu += *p.gpu_ms, any = true;
    out.passes.push_back(std::move(p));
  }

  // The Aggregate's output, then the layers above it, bottom-up, on the host.
  Table t;
  for (size_t i = 0; i < r.keys.size(); ++i) t.columns.push_back(typed(std::move(r.keys[i]), agg.schema[i]));
  for (size_t i = 0; i < agg.aggs.size(); ++i) {
    const Source& src = sources[i];
    const plan::SchemaColumn& s = agg.schema[r.keys.size() + i];
    if (src.error) throw *src.error;
    if (!src.split) {
      t.columns.push_back(typed(std::move(r.aggregates[src.index]), s));
      continue;
    }
    const auto& high = r.aggregates[src.index].as<int64_t>();
    const auto& low = r.aggregates[src.low].as<int64_t>();
    const auto& count = r.aggregates[group_rows].as<int64_t>();
    Column c = Column::make(s.name, s.type);
    for (uint64_t g = 0; g < r.groups; ++g) {
      const __int128 sum = (__int128(high[g]) << 32) + low[g] + (__int128(count[g]) << 31);
      if (agg.aggs[i].kind == AggKind::Sum)
        c.as<int64_t>().push_back(int_sum_result(sum, agg.aggs[i].text));
      else
        c.as<double>().push_back(int_average(sum, uint64_t(count[g])));
    }
    t.columns.push_back(std::move(c));
  }
  engine::NodeRun run;
  run.algorithm = "compute: " + r.algorithm + " (" + r.reason + "); input: " + in.describe();
  run.rows_in = in.count();
  run.rows_out = r.groups;
  if (any) run.gpu_ms = gpu;
  run.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.nodes[&agg] = run;
  hand_over_groups(out, f, agg, std::move(t), r.groups, layers);
  return out;
}

}  // namespace gfxq::vk
