// Aggregates without GROUP BY over expressions on the compute backend (fragments.h): each aggregate's
// argument is an expression program (vk/relational/expression.h; a plain column is a one-instruction
// program) reduced on the device in one pass (per-workgroup exact sums, minimum and maximum, added on
// the host), so SUM(lo_extendedprice * lo_discount) over a join's output never leaves int64 and
// never wraps. Arguments of SUM, AVG, MIN and MAX are integers (INT, BIGINT, DATE), COUNT's any
// compiled expression, none of them NULL. FLOAT arguments of SUM, AVG, MIN and MAX go, all in one
// run, through the GROUP BY operator over one group (a key column of zeros), whose FLOAT sum is exact
// (a fixed point per group, rounded once), so the results are the CPU engine's. Results and errors follow the CPU
// engine (cpu/exec/aggregate_op.cpp): aggregates in order, each argument's evaluation error before its SUM overflow
// (int_sum_result), AVG by int_average, NULL over no rows. Over a Filter over a Scan, with no FLOAT
// SUM, AVG, MIN or MAX, the WHERE is fused: each aggregate's program is the condition, a keep
// instruction and the argument (compile_kept), all run over every row of the table in one submission
// and one wait (reduce_expressions), the rows kept counted by the programs; no row ids are written. Projects of columns
// and Limits above the Aggregate (one row) are applied on the host.

#include <algorithm>
#include <chrono>
#include <memory>

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

// The FLOAT aggregates of one Aggregate (float_reduced), reduced together by one run of the GROUP BY
// operator over one group (a key column of zeros) once every argument is evaluated.
class FloatAggregates {
 public:
  // Evaluates the argument of aggregate `a`, the `column`-th output column, by row (unless it is a
  // column) over `rows` of `in`; throws its evaluation error, in the aggregates' order.
  void add(FragmentEnv& env, InputRows& in, const DeviceRows& rows, const plan::AggCall& a, size_t column,
           std::vector<PassRecord>& passes) {
    if (a.arg->is_column()) {
      gi_.values.push_back(&in.column(a.arg->column));
    } else {
      std::string why;
      const auto program = compile_expression(*a.arg, why);
      if (!program) throw Error(ErrorCode::Internal, "compute aggregate: " + a.text + " no longer compiles: " + why);
      ExprValues v =
          evaluate_expression(env.device, *program, expression_input(in, *program, rows), ExprLayout::ByRow, passes);
      if (v.error) throw *v.error;
      computed_.push_back(std::make_unique<DeviceColumn>(DeviceColumn{std::move(v.values), Type::Float32, in.rows()}));
      gi_.values.push_back(computed_.back().get());
    }
    gi_.aggregates.push_back({a.kind, int(gi_.values.size()) - 1, 0.5, 1, a.text});
    columns_.push_back(column);
  }

  // Runs the GROUP BY over `rows` of `in` (at least one) and appends each aggregate's value to its
  // column of `t`. Passes go to `passes`.
  void finish(FragmentEnv& env, const InputRows& in, const DeviceRows& rows, Table& t,
              std::vector<PassRecord>& passes) {
    if (columns_.empty()) return;
    Device& device = env.device;
    const DeviceColumn zeros{device.create_buffer(padded_bytes(in.rows()), MemoryKind::Device), Type::Int32, in.rows()};
    device.run_pass([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, zeros.buffer.handle(), 0, VK_WHOLE_SIZE, 0); });
    gi_.keys = {&zeros};
    gi_.rows = in.rows();
    gi_.selection = rows.selection;
    gi_.selected = rows.count;
    GroupByResult r = group_by(device, gi_);
    for (auto& p : r.passes) passes.push_back(std::move(p));
    for (size_t j = 0; j < columns_.size(); ++j)
      t.columns[columns_[j]].push(r.groups ? r.aggregates.at(j).value(0) : Value());
  }

 private:
  GroupByInput gi_;                                      // values and aggregates so far
  std::vector<std::unique_ptr<DeviceColumn>> computed_;  // evaluated arguments
  std::vector<size_t> columns_;                          // output column of each aggregate
};

// The programs of the fused pass over a Filter-over-Scan input (`input`): per aggregate with an
// argument, the Filter's condition, EXPR_OP_KEEP, then the argument (compile_kept); one program
// counting the rows kept when no aggregate has an argument. Nullopt when `input` is not a
// Filter over a Scan, an aggregate is a FLOAT SUM, AVG, MIN or MAX (the GROUP BY operator's), or a
// program does not compile (the Filter then selects row ids first).
std::optional<std::vector<ExprProgram>> fused_programs(const Node& agg, const Node& input) {
  if (input.kind != NodeKind::Filter || input.children[0]->kind != NodeKind::Scan) return std::nullopt;
  const plan::Expr& condition = *input.predicate;
  std::string why;
  if (!compile_condition(condition, why)) return std::nullopt;
  std::vector<ExprProgram> programs;
  for (const auto& a : agg.aggs) {
    if (!a.arg) continue;
    if (float_reduced(a)) return std::nullopt;
    auto p = compile_kept(condition, *a.arg, why);
    if (!p) return std::nullopt;
    programs.push_back(std::move(*p));
  }
  if (programs.empty()) {
    auto p = compile_kept(condition, plan::literal_expr(int64_t(0), Type::Int64, "COUNT(*)"), why);
    if (!p) return std::nullopt;
    programs.push_back(std::move(*p));
  }
  for (const ExprProgram& p : programs)
    for (size_t c : p.columns)
      if (may_be_null(*input.children[0], c)) return std::nullopt;
  return programs;
}

// The value of an integer reduction result as a cell of `type`.
Value cell(int64_t v, Type type) {
  if (type == Type::Int32) return int32_t(v);
  if (type == Type::Date) return Date{int32_t(v)};
  return v;
}

// The fused pass: every program over every row of the Filter's table in one submission and one
// wait, the rows kept counted by the programs themselves; the aggregates' row, raising errors in the
// CPU engine's order (the condition's first: every program starts with it; then each argument's
// before its SUM overflow).
Table run_fused(FragmentEnv& env, const Node& agg, const std::vector<ExprProgram>& programs, InputRows& in,
                std::vector<PassRecord>& passes, uint64_t& kept) {
  std::vector<const ExprProgram*> all;
  std::vector<ExprInput> xs;
  for (const ExprProgram& p : programs) {
    all.push_back(&p);
    xs.push_back(expression_input(in, p, DeviceRows{nullptr, in.rows()}));
  }
  const std::vector<ExprReduction> reduced = reduce_expressions(env.device, all, xs, passes);
  const uint64_t n = kept = reduced.at(0).count;
  // Only COUNT(*): the one program counts the rows kept and raises the condition's errors.
  const bool count_only = std::none_of(agg.aggs.begin(), agg.aggs.end(), [](const auto& a) { return a.arg; });
  if (count_only && reduced[0].error) throw *reduced[0].error;
  Table t;
  size_t next = 0;
  for (size_t i = 0; i < agg.aggs.size(); ++i) {
    const plan::AggCall& a = agg.aggs[i];
    Column c = Column::make(agg.schema[i].name, agg.schema[i].type);
    const ExprReduction* r = a.arg ? &reduced.at(next++) : nullptr;
    if (r && r->error) throw *r->error;
    switch (a.kind) {
      case AggKind::Count: c.push(int64_t(n)); break;
      case AggKind::Sum: c.push(n ? Value(int_sum_result(r->sum, a.text)) : Value()); break;
      case AggKind::Avg: c.push(n ? Value(int_average(r->sum, n)) : Value()); break;
      case AggKind::Min: c.push(n ? cell(r->min, a.type) : Value()); break;
      case AggKind::Max: c.push(n ? cell(r->max, a.type) : Value()); break;
      default: throw Error(ErrorCode::Internal, "compute aggregate: unexpected " + a.text);
    }
    t.columns.push_back(std::move(c));
  }
  return t;
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
  f.algorithm = fused_programs(*agg, input)
                    ? "compute: " + std::to_string(agg->aggs.size()) + " aggregates and the WHERE fused in one pass"
                    : "compute: " + std::to_string(agg->aggs.size()) +
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
  const auto fused = covered ? fused_programs(agg, child) : std::nullopt;
  // Fused: the Scan below the Filter is the input, every row of it read once by the programs.
  InputRows in(env, fused ? *child.children[0] : child, covered ? nullptr : &inputs.at(0), out.passes);
  const DeviceRows taking_part = fused ? DeviceRows{nullptr, in.rows()} : in.live({}, "selected row ids");
  const size_t first_pass = out.passes.size();
  uint64_t n = in.count();

  Table t;
  FloatAggregates floats;
  if (fused) t = run_fused(env, agg, *fused, in, out.passes, n);
  for (size_t i = 0; i < agg.aggs.size() && !fused; ++i) {
    const plan::AggCall& a = agg.aggs[i];
    Column c = Column::make(agg.schema[i].name, agg.schema[i].type);
    if (!a.arg) {
      c.push(int64_t(n));
      t.columns.push_back(std::move(c));
      continue;
    }
    if (float_reduced(a)) {
      if (n)
        floats.add(env, in, taking_part, a, i, out.passes);
      else
        c.push(Value());
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
  floats.finish(env, in, taking_part, t, out.passes);
  double gpu = 0;
  bool any = false;
  for (size_t p = first_pass; p < out.passes.size(); ++p)
    if (out.passes[p].gpu_ms) gpu += *out.passes[p].gpu_ms, any = true;

  // The layers above, bottom-up, on the one row.
  uint64_t rows = 1;
  t = apply_layers(std::move(t), rows, layers);

  engine::NodeRun run;
  run.algorithm = fused ? "compute: one fused expression pass over table " + child.children[0]->table_name +
                              ": WHERE " + child.predicate->text + " kept by each of " + std::to_string(fused->size()) +
                              " expression program(s) (the condition, a keep instruction, the argument), reduced "
                              "with a count of the rows kept; one submission, one wait"
                        : "compute: expression reductions over " + in.describe();
  run.rows_in = fused ? in.rows() : n;
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
