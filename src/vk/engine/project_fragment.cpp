// Projects of expressions on the compute backend (fragments.h): every computed select item is an
// expression program (vk/relational/expression.h) evaluated on the device over the input's columns
// (resident for a covered Scan or Filter-over-Scan, uploaded for an input's host relation) and
// downloaded in row order; plain column items are copied from the input's rows on the host. The
// items are evaluated in order, so the first failing one raises the CPU engine's error.

#include <chrono>

#include "cpu/exec/ops.h"
#include "gfxq/error.h"
#include "vk/engine/expression_inputs.h"
#include "vk/engine/fragments.h"

namespace gfxq::vk {

namespace {

using plan::Node;
using plan::NodeKind;

bool computes(const Node& node) {
  for (const auto& e : node.exprs)
    if (!e.is_column()) return true;
  return false;
}

}  // namespace

std::optional<engine::Fragment> claim_project(const Node& node, const Catalog& catalog, std::string& why) {
  if (node.kind != NodeKind::Project || !computes(node)) return std::nullopt;
  const Node& input = *node.children[0];
  size_t computed = 0;
  for (const auto& e : node.exprs) {
    if (e.is_column()) continue;
    if (!claim_expression(e, input, "select item", why)) return std::nullopt;
    ++computed;
  }
  engine::Fragment f;
  f.root = &node;
  f.nodes.push_back(&node);
  claim_input(input, catalog, f.nodes, f.inputs);
  f.algorithm = "compute: " + std::to_string(computed) + " expression program" + (computed == 1 ? "" : "s") +
                " evaluated on the device, column items copied on the host";
  return f;
}

engine::FragmentRun run_project_fragment(FragmentEnv& env, const engine::Fragment& f,
                                         std::vector<engine::Relation> inputs) {
  const auto start = std::chrono::steady_clock::now();
  const Node& node = *f.root;
  const Node& child = *node.children[0];
  engine::FragmentRun out;
  const bool covered = f.nodes.size() > 1;
  InputRows in(env, child, covered ? nullptr : &inputs.at(0), out.passes);
  const DeviceRows taking_part = in.live({}, "selected row ids");
  std::vector<uint64_t> rows;  // the selected row ids in host memory, for the column items
  const bool column_items =
      std::any_of(node.exprs.begin(), node.exprs.end(), [](const plan::Expr& e) { return e.is_column(); });
  if (taking_part.selection && column_items) {
    const std::vector<uint32_t> ids = *in.host_selection("selected row ids for the column items");
    rows.assign(ids.begin(), ids.end());
  }
  const size_t first_pass = out.passes.size();
  Table t;
  for (size_t i = 0; i < node.exprs.size(); ++i) {
    const plan::Expr& e = node.exprs[i];
    const std::string& name = node.schema[i].name;
    if (e.is_column()) {
      Column c = taking_part.selection ? cpu::gather_column(in.host().column(e.column), rows, name)
                                       : in.host().column(e.column);
      c.name = name;
      t.columns.push_back(std::move(c));
      continue;
    }
    std::string why;
    const auto program = compile_expression(e, why);
    if (!program) throw Error(ErrorCode::Internal, "compute Project: " + e.text + " no longer compiles: " + why);
    const ExprInput x = expression_input(in, *program, taking_part);
    ExprValues v = evaluate_expression(env.device, *program, x, ExprLayout::Compact, out.passes);
    if (v.error) throw *v.error;
    Column c = download_values(env.device, v, name, out.passes);
    // A STRING result (a literal, a column's codes) indexes the dictionary the plan gave the item.
    if (c.type == Type::String) c.dictionary = node.schema[i].dictionary;
    t.columns.push_back(std::move(c));
  }
  engine::NodeRun run;
  run.algorithm = "compute: expression programs over " + in.describe();
  run.rows_in = in.count();
  run.rows_out = in.count();
  double gpu = 0;
  bool any = false;
  for (size_t p = first_pass; p < out.passes.size(); ++p)
    if (out.passes[p].gpu_ms) gpu += *out.passes[p].gpu_ms, any = true;
  if (any) run.gpu_ms = gpu;
  run.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.nodes[&node] = run;
  cpu::HostRelation result = cpu::HostRelation::of(std::move(t));
  result.row_count = in.count();
  out.result = std::move(result);
  return out;
}

}  // namespace gfxq::vk
