// Aggregates without GROUP BY over expressions on the compute backend (fragments.h): each aggregate's
// argument is an expression program (vk/relational/expression.h; a plain column is a one-instruction
// program) reduced on the device in one pass (per-workgroup exact sums, minimum and maximum, added on
// the host), so SUM(lo_extendedprice * lo_discount) over a join's output never leaves int64 and
// never wraps. Arguments of SUM, AVG, MIN and MAX are integers (INT, BIGINT, DATE), COUNT's any
// compiled expression, none of them NULL. A FLOAT argument of SUM, AVG, MIN or MAX goes through the
// GROUP BY operator over one group (a key column of zeros), whose FLOAT sum is exact (a fixed point
// per group, rounded once), so the result is the CPU engine's. Results and errors follow the CPU engine
// (cpu/exec/aggregate_op.cpp): aggregates in order, each argument's evaluation error before its SUM overflow
// (int_sum_result), AVG by int_average, NULL over no rows. Projects of columns and Limits above the Aggregate (one row)
// are applied on the host.

#include <algorithm>
#include <chrono>

#include "core/bind.h"
#include "cpu/exec/ops.h"
#include "gfxq/error.h"
#include "vk/engine/expression_inputs.h"
#include "vk/engine/fragments.h"
#include "vk/operators/group_by/group_by.h"

namespace gfxq::vk {

namespace {

using plan::Node;
using plan::NodeKind;

// The layers above the Aggregate without GROUP BY, top-down, and the Aggregate; null when `node` is
// not of that shape.
const Node* scalar_aggregate_of(const Node& node, std::vector<const Node*>& layers) {
  const Node* cur = &node;
  while ((cur->kind == NodeKind::Project && columns_only(*cur)) || cur->kind == NodeKind::Limit ||
         cur->kind == NodeKind::Sort) {
    layers.push_back(cur);
    cur = cur->children[0].get();
  }
  return cur->kind == NodeKind::Aggregate && cur->group_keys.empty() ? cur : nullptr;
}

bool integer_repr(Type t) {
  return t == Type::Int32 || t == Type::Int64 || t == Type::Date;
}

// SUM, AVG, MIN or MAX of a FLOAT argument (reduced by the GROUP BY operator).
bool float_reduced(const plan::AggCall& a) {
  return a.arg && a.arg->type == Type::Float32 &&
         (a.kind == AggKind::Sum || a.kind == AggKind::Avg || a.kind == AggKind::Min || a.kind == AggKind::Max);
}

// `a` (float_reduced) over the rows `rows` of `in` (at least one): the argument evaluated by row
// unless it is a column, then the GROUP BY operator over one group. Passes go to `passes`.
Value float_aggregate(FragmentEnv& env, InputRows& in, const DeviceRows& rows, const plan::AggCall& a,
                      std::vector<PassRecord>& passes) {
  Device& device = env.device;
  std::optional<DeviceColumn> computed;
  const DeviceColumn* value = nullptr;
  if (a.arg->is_column()) {
    value = &in.column(a.arg->column);
  } else {
    std::string why;
    const auto program = compile_expression(*a.arg, why);
    if (!program) throw Error(ErrorCode::Internal, "compute aggregate: " + a.text + " no longer compiles: " + why);
    ExprValues v =
        evaluate_expression(device, *program, expression_input(in, *program, rows), ExprLayout::ByRow, passes);
    if (v.error) throw *v.error;
    computed = DeviceColumn{std::move(v.values), Type::Float32, in.rows()};
    value = &*computed;
  }
  const DeviceColumn zeros{device.create_buffer(padded_bytes(in.rows()), MemoryKind::Device), Type::Int32, in.rows()};
  device.run_pass([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, zeros.buffer.handle(), 0, VK_WHOLE_SIZE, 0); });
  GroupByInput gi;
  gi.keys = {&zeros};
  gi.values = {value};
  gi.aggregates = {{a.kind, 0, 0.5, 1, a.text}};
  gi.rows = in.rows();
  gi.selection = rows.selection;
  gi.selected = rows.count;
  GroupByResult r = group_by(device, gi);
  for (auto& p : r.passes) passes.push_back(std::move(p));
  return r.groups ? r.aggregates.at(0).value(0) : Value();
}

// The value of an integer reduction result as a cell of `type`.
Value cell(int64_t v, Type type) {
  if (type == Type::Int32) return int32_t(v);
  if (type == Type::Date) return Date{int32_t(v)};
  return v;
}

}  // namespace

std::optional<engine::Fragment> claim_scalar_aggregate(const Node& node, const Catalog& catalog, std::string& why) {
  std::vector<const Node*> layers;
  const Node* agg = scalar_aggregate_of(node, layers);
  if (!agg) return std::nullopt;
  const Node& input = *agg->children[0];
  for (const auto& a : agg->aggs) {
    if (a.distinct) {
      why = "aggregate " + a.text + " is DISTINCT (not built on compute without GROUP BY)";
      return std::nullopt;
    }
    const bool basic = a.kind == AggKind::Count || a.kind == AggKind::Sum || a.kind == AggKind::Avg ||
                       a.kind == AggKind::Min || a.kind == AggKind::Max;
    if (!basic) {
      why = "aggregate " + a.text + " is a rank (the compute expression aggregates are COUNT, SUM, AVG, MIN, MAX)";
      return std::nullopt;
    }
    if (!a.arg) continue;
    if (a.kind != AggKind::Count && !integer_repr(a.arg->type) && !float_reduced(a)) {
      why = "aggregate " + a.text + " reads a " + to_string(a.arg->type) +
            " value (the compute expression aggregates reduce INT, BIGINT, DATE and FLOAT values exactly)";
      return std::nullopt;
    }
    if (!claim_expression(*a.arg, input, "aggregate", why)) return std::nullopt;
  }
  engine::Fragment f;
  f.root = &node;
  f.nodes = layers;
  f.nodes.push_back(agg);
  claim_input(input, catalog, f.nodes, f.inputs);
  f.algorithm = "compute: " + std::to_string(agg->aggs.size()) +
                " aggregates, each argument an expression program reduced on the device in one pass";
  return f;
}

engine::FragmentRun run_scalar_aggregate_fragment(FragmentEnv& env, const engine::Fragment& f,
                                                  std::vector<engine::Relation> inputs) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<const Node*> layers;
  const Node& agg = *scalar_aggregate_of(*f.root, layers);
  const Node& child = *agg.children[0];
  engine::FragmentRun out;
  const bool covered = std::find(f.nodes.begin(), f.nodes.end(), &child) != f.nodes.end();
  InputRows in(env, child, covered ? nullptr : &inputs.at(0), out.passes);
  const DeviceRows taking_part = in.live({}, "selected row ids");
  const size_t first_pass = out.passes.size();
  const uint64_t n = in.count();

  Table t;
  for (size_t i = 0; i < agg.aggs.size(); ++i) {
    const plan::AggCall& a = agg.aggs[i];
    Column c = Column::make(agg.schema[i].name, agg.schema[i].type);
    if (!a.arg) {
      c.push(int64_t(n));
      t.columns.push_back(std::move(c));
      continue;
    }
    if (float_reduced(a)) {
      c.push(n ? float_aggregate(env, in, taking_part, a, out.passes) : Value());
      t.columns.push_back(std::move(c));
      continue;
    }
    std::string why;
    const auto program = compile_expression(*a.arg, why);
    if (!program) throw Error(ErrorCode::Internal, "compute aggregate: " + a.text + " no longer compiles: " + why);
    const ExprInput x = expression_input(in, *program, taking_part);
    if (a.kind == AggKind::Count && !integer_repr(program->type)) {
      // Evaluated only for its errors (an integer operation inside a FLOAT or DOUBLE argument).
      const ExprValues v = evaluate_expression(env.device, *program, x, ExprLayout::Compact, out.passes);
      if (v.error) throw *v.error;
      c.push(int64_t(n));
      t.columns.push_back(std::move(c));
      continue;
    }
    const ExprReduction r = reduce_expression(env.device, *program, x, out.passes);
    if (r.error) throw *r.error;
    switch (a.kind) {
      case AggKind::Count: c.push(int64_t(n)); break;
      case AggKind::Sum: c.push(n ? Value(int_sum_result(r.sum, a.text)) : Value()); break;
      case AggKind::Avg: c.push(n ? Value(int_average(r.sum, n)) : Value()); break;
      case AggKind::Min: c.push(n ? cell(r.min, a.type) : Value()); break;
      case AggKind::Max: c.push(n ? cell(r.max, a.type) : Value()); break;
      default: throw Error(ErrorCode::Internal, "compute aggregate: unexpected " + a.text);
    }
    t.columns.push_back(std::move(c));
  }
  double gpu = 0;
  bool any = false;
  for (size_t p = first_pass; p < out.passes.size(); ++p)
    if (out.passes[p].gpu_ms) gpu += *out.passes[p].gpu_ms, any = true;

  // The layers above, bottom-up, on the one row.
  uint64_t rows = 1;
  t = apply_layers(std::move(t), rows, layers);

  engine::NodeRun run;
  run.algorithm = "compute: expression reductions over " + in.describe();
  run.rows_in = n;
  run.rows_out = 1;
  if (any) run.gpu_ms = gpu;
  run.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.nodes[&agg] = run;
  if (f.root != &agg) {
    engine::NodeRun top;
    top.algorithm = "compute: select list and LIMIT of the one aggregate row kept on the host";
    top.rows_in = 1;
    top.rows_out = rows;
    out.nodes[f.root] = top;
  }
  cpu::HostRelation result = cpu::HostRelation::of(std::move(t));
  result.row_count = rows;
  out.result = std::move(result);
  return out;
}

}  // namespace gfxq::vk
