// Filters on the compute backend (fragments.h): a Filter whose condition compiles as an expression
// program (vk/relational/expression.h: comparisons, AND, OR, NOT over expressions of NULL-free
// columns) over any input: a covered Scan (resident columns), a compute fragment's device relation
// (read in place) or another backend's host rows (uploaded). The program writes a flag per row on the
// device and compact() turns the flags into ascending row ids (select_rows: one submission, one
// wait); the result is a DeviceRelation of the input's columns with those ids as its selection, so a
// compute fragment above reads it in place. The condition is evaluated for every row of the input,
// as the CPU engine evaluates it, so an error is the CPU engine's error at the same row. Projects of
// columns and Limits above the Filter are part of the fragment: a Project picks the relation's
// columns, a Limit copies a range of its row ids on the device.

#include <algorithm>
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

// The layers above the Filter (Projects of columns and Limits), top-down, and the Filter; null when
// `node` is not of that shape.
const Node* filter_of(const Node& node, std::vector<const Node*>& layers) {
  const Node* cur = &node;
  while ((cur->kind == NodeKind::Project && columns_only(*cur)) || cur->kind == NodeKind::Limit) {
    layers.push_back(cur);
    cur = cur->children[0].get();
  }
  return cur->kind == NodeKind::Filter ? cur : nullptr;
}

// `rel` with Project-of-columns and Limit layer `l` applied.
void apply_layer(Device& device, const Node& l, DeviceRelation& rel, std::vector<PassRecord>& passes) {
  if (l.kind == NodeKind::Project) {
    std::vector<std::shared_ptr<const DeviceColumn>> picked;
    for (const auto& e : l.exprs) picked.push_back(rel.columns.at(e.column));
    rel.columns = std::move(picked);
    rel.schema = l.schema;
    return;
  }
  const uint64_t first = std::min(l.offset, rel.rows());
  const uint64_t count = std::min(l.limit, rel.rows() - first);
  if (first == 0 && count == rel.rows()) return;
  const auto start = std::chrono::steady_clock::now();
  std::optional<double> gpu;
  auto ids =
      std::make_shared<Buffer>(device.create_buffer(std::max<uint64_t>(padded_bytes(count), 16), MemoryKind::Device));
  if (count) {
    if (rel.selection) {
      gpu = device.run_pass([&](VkCommandBuffer cmd) {
        const VkBufferCopy region{first * 4, 0, count * 4};
        vkCmdCopyBuffer(cmd, rel.selection->handle(), ids->handle(), 1, &region);
      });
    } else {
      std::vector<uint32_t> range(count);
      for (uint64_t i = 0; i < count; ++i) range[i] = uint32_t(first + i);
      device.upload(*ids, range.data(), count * 4);
    }
  }
  PassRecord p;
  p.kind = "copy";
  p.detail = "row ids " + std::to_string(first) + " .. " + std::to_string(first + count) + " (LIMIT)";
  p.items = count;
  p.gpu_ms = gpu;
  p.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  passes.push_back(std::move(p));
  rel.selection = std::move(ids);
  rel.selected = count;
}

}  // namespace

std::optional<engine::Fragment> claim_filter(const Node& root, const Catalog& catalog, std::string& why) {
  std::vector<const Node*> layers;
  const Node* filter = filter_of(root, layers);
  if (!filter) return std::nullopt;
  const Node& node = *filter;
  if (!filter_condition(node, why)) return std::nullopt;
  std::string schema_why;
  if (!device_schema(node, &schema_why)) {
    why = "Filter " + node.predicate->text + ": its output " + schema_why;
    return std::nullopt;
  }
  engine::Fragment f;
  f.root = &root;
  f.nodes = layers;
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
  std::vector<const Node*> layers;
  const Node& node = *filter_of(*f.root, layers);
  const Node& child = *node.children[0];
  engine::FragmentRun out;
  const bool covered = std::find(f.nodes.begin(), f.nodes.end(), &child) != f.nodes.end();
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
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) apply_layer(env.device, **it, *rel, out.passes);
  const uint64_t rows_out = rel->rows();
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
  for (const Node* l : layers) {
    engine::NodeRun r;
    r.algorithm = l->kind == NodeKind::Project ? "compute: columns of the device relation picked"
                                               : "compute: a range of the row ids copied on the device";
    r.rows_in = s.count;
    r.rows_out = rows_out;
    out.nodes[l] = r;
  }
  return out;
}

}  // namespace gfxq::vk
