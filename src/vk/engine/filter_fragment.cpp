// Filters on the compute backend (fragments.h): a Filter whose condition compiles as an expression
// program (vk/relational/expression.h: comparisons, AND, OR, NOT over expressions of NULL-free
// columns) over any input: a covered Scan (resident columns), a compute fragment's device relation
// (read in place) or another backend's host rows (uploaded). The program writes a flag per row on the
// device and compact() turns the flags into ascending row ids (select_rows: one submission, one
// wait); the result is a DeviceRelation of the input's columns with those ids as its selection, so a
// compute fragment above reads it in place. The condition is evaluated for every row of the input,
// as the CPU engine evaluates it, so an error is the CPU engine's error at the same row.

#include <chrono>

#include "gfxq/error.h"
#include "vk/engine/fragments.h"
#include "vk/engine/inputs.h"
#include "vk/relational/expression.h"

namespace gfxq::vk {

namespace {

using plan::Node;
using plan::NodeKind;

// The Filter's condition compiled, or nullopt with `why`.
std::optional<ExprProgram> filter_condition(const Node& node, std::string& why) {
  std::string reason;
  auto program = compile_condition(*node.predicate, reason);
  if (!program) {
    why = "Filter " + node.predicate->text + " is not compiled for the compute path: " + reason;
    return std::nullopt;
  }
  for (size_t c : program->columns)
    if (may_be_null(*node.children[0], c)) {
      why = "Filter " + node.predicate->text + " reads " + node.children[0]->schema.at(c).name +
            ", which may be NULL (the compute expressions carry no NULLs)";
      return std::nullopt;
    }
  return program;
}

}  // namespace

std::optional<engine::Fragment> claim_filter(const Node& node, const Catalog& catalog, std::string& why) {
  if (node.kind != NodeKind::Filter) return std::nullopt;
  if (!filter_condition(node, why)) return std::nullopt;
  std::string schema_why;
  if (!device_schema(node, &schema_why)) {
    why = "Filter " + node.predicate->text + ": its output " + schema_why;
    return std::nullopt;
  }
  engine::Fragment f;
  f.root = &node;
  f.nodes.push_back(&node);
  auto filters = std::make_shared<CoveredFilters>();
  claim_input(*node.children[0], catalog, f.nodes, f.inputs, filters.get());
  f.state = std::move(filters);
  f.algorithm = "compute: the condition as an expression program, its rows selected on the device";
  return f;
}

engine::FragmentRun run_filter_fragment(FragmentEnv& env, const engine::Fragment& f,
                                        std::vector<engine::Relation> inputs) {
  const auto start = std::chrono::steady_clock::now();
  const Node& node = *f.root;
  const Node& child = *node.children[0];
  engine::FragmentRun out;
  const bool covered = f.nodes.size() > 1;
  InputRows in(env, child, covered ? nullptr : &inputs.at(0), out.passes);
  std::string why;
  const auto program = filter_condition(node, why);
  if (!program) throw Error(ErrorCode::Internal, "compute filter: " + why);
  const DeviceRows taking_part = in.live({}, "selected row ids");
  ExprInput x;
  for (size_t c : program->columns) x.columns.push_back(&in.column(c));
  x.rows = in.rows();
  x.selection = taking_part.selection;
  x.selected = taking_part.selection ? taking_part.count : 0;
  const size_t first_pass = out.passes.size();
  ExprSelection s = select_rows(env.device, *program, x, out.passes);
  if (s.error) throw *s.error;

  auto rel = std::make_shared<DeviceRelation>();
  for (size_t c = 0; c < child.schema.size(); ++c) rel->columns.push_back(in.shared_column(c));
  rel->schema = node.schema;
  rel->row_count = in.rows();
  rel->selected = s.count;
  rel->selection = std::make_shared<const Buffer>(std::move(s.ids));
  out.result = engine::Relation(Backend::Compute, std::move(rel));

  engine::NodeRun run;
  run.algorithm = "compute: expression program " + node.predicate->text + " (" + std::to_string(program->code.size()) +
                  " instructions), flags compacted into row ids on the device; input: " + in.describe();
  run.rows_in = x.count();
  run.rows_out = s.count;
  for (size_t p = first_pass; p < out.passes.size(); ++p)
    if (out.passes[p].gpu_ms) run.gpu_ms = run.gpu_ms.value_or(0) + *out.passes[p].gpu_ms;
  run.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.nodes[&node] = run;
  return out;
}

}  // namespace gfxq::vk
