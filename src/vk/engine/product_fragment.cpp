// PRODUCT (CROSS JOIN) of logical plans on the compute backend (fragments.h): `[Project of columns]
// Join` without keys, band or residual, over any inputs, by the three-phase PRODUCT of
// vk/operators/skeletons/product.h (count known, chunks of one binding, pairs written in (left row,
// right row) order). Each chunk's pair ids come back to the host, which gathers the output columns
// (the inputs are in host memory). A result larger than the host limit (half the physical memory)
// is refused with ResultTooLarge before any work, as the CPU engine does.

#include <chrono>

#include "core/host_memory.h"
#include "cpu/exec/ops.h"
#include "gfxq/error.h"
#include "vk/engine/fragments.h"
#include "vk/engine/skeleton_inputs.h"
#include "vk/operators/skeletons/product.h"

namespace gfxq::vk {

using plan::Node;
using plan::NodeKind;

namespace {

const Node* product_of(const Node& node) {
  const Node* j = &node;
  if (j->kind == NodeKind::Project) {
    for (const auto& e : j->exprs)
      if (!e.is_column()) return nullptr;
    j = j->children[0].get();
  }
  if (j->kind != NodeKind::Join || !j->equi.empty() || j->band || j->residual) return nullptr;
  return j;
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

std::optional<engine::Fragment> claim_product(const Node& node, const Catalog& catalog) {
  const Node* j = product_of(node);
  if (!j) return std::nullopt;
  engine::Fragment f;
  f.root = &node;
  if (j != &node) f.nodes.push_back(&node);
  f.nodes.push_back(j);
  claim_input(*j->children[0], catalog, f.nodes, f.inputs);
  claim_input(*j->children[1], catalog, f.nodes, f.inputs);
  f.algorithm = "compute: PRODUCT, pairs written in (left row, right row) order in chunks of one binding";
  return f;
}

engine::FragmentRun run_product_fragment(FragmentEnv& env, const engine::Fragment& f,
                                         std::vector<engine::Relation> inputs) {
  const auto start = std::chrono::steady_clock::now();
  const Node& root = *f.root;
  const Node& j = *product_of(root);
  engine::FragmentRun out;
  size_t next_input = 0;
  auto rows_of = [&](const Node& child) {
    const bool covered = std::find(f.nodes.begin(), f.nodes.end(), &child) != f.nodes.end();
    return std::make_unique<InputRows>(env, child, covered ? nullptr : &inputs.at(next_input++), out.passes);
  };
  const auto left = rows_of(*j.children[0]);
  const auto right = rows_of(*j.children[1]);
  const uint64_t ln = left->count(), rn = right->count();
  if (ln && rn > UINT64_MAX / ln)
    throw Error(ErrorCode::ResultTooLarge, "the PRODUCT of " + std::to_string(ln) + " x " + std::to_string(rn) +
                                               " rows has more than 2^64 - 1 pairs");
  check_host_bytes(ln * rn, 2 * sizeof(uint64_t), 0, "the PRODUCT's " + std::to_string(ln * rn) + " row pairs");

  skel::ProductInput pi;
  pi.left_rows = ln;
  pi.right_rows = rn;
  pi.left_ids = left->live({}, "left row ids").selection;  // null: every row
  pi.right_ids = right->live({}, "right row ids").selection;
  std::vector<uint64_t> lids, rids;
  double download_ms = 0;
  skel::ProductOptions po;
  po.chunk_pairs = env.product_chunk_pairs;
  std::vector<uint32_t> words;
  po.consume = [&](const skel::ProductChunk& c) {
    const auto t = std::chrono::steady_clock::now();
    words.resize(c.count);
    env.device.download(*c.left, words.data(), c.count * 4);
    lids.insert(lids.end(), words.begin(), words.end());
    env.device.download(*c.right, words.data(), c.count * 4);
    rids.insert(rids.end(), words.begin(), words.end());
    download_ms += ms_since(t);
  };
  std::vector<PassRecord> passes;
  const uint64_t total = skel::product(env.device, pi, po, passes);
  double gpu = 0;
  bool any = false;
  uint64_t chunks = 0;
  for (auto& p : passes) {
    if (p.gpu_ms) gpu += *p.gpu_ms, any = true;
    ++chunks;
    out.passes.push_back(std::move(p));
  }
  PassRecord d;
  d.kind = "download";
  d.detail = "pairs (" + std::to_string(total * 8) + " bytes)";
  d.items = total;
  d.wall_ms = download_ms;
  out.passes.push_back(std::move(d));

  const auto gather_start = std::chrono::steady_clock::now();
  const size_t lw = j.children[0]->schema.size();
  std::vector<size_t> keep;
  if (&root == &j)
    for (size_t i = 0; i < j.schema.size(); ++i) keep.push_back(i);
  else
    for (const auto& e : root.exprs) keep.push_back(e.column);
  Table table;
  for (size_t i = 0; i < keep.size(); ++i) {
    const size_t c = keep[i];
    table.columns.push_back(c < lw ? cpu::gather_column(left->host().column(c), lids, root.schema[i].name)
                                   : cpu::gather_column(right->host().column(c - lw), rids, root.schema[i].name));
  }
  const double gather_ms = ms_since(gather_start);

  engine::NodeRun run;
  run.algorithm = "compute: PRODUCT of " + std::to_string(ln) + " x " + std::to_string(rn) + " rows, " +
                  std::to_string(total) + " pairs written in " + std::to_string(chunks) +
                  " chunk(s), columns gathered on the host; inputs: " + left->describe() + ", " + right->describe();
  run.rows_in = ln + rn;
  run.rows_out = total;
  if (any) run.gpu_ms = gpu;
  run.wall_ms = ms_since(start);
  out.nodes[&j] = run;
  if (&root != &j) {
    engine::NodeRun project;
    project.algorithm = "compute: " + std::to_string(keep.size()) + " of " + std::to_string(j.schema.size()) +
                        " columns gathered on the host by the pair ids";
    project.rows_in = total;
    project.rows_out = total;
    project.wall_ms = gather_ms;
    out.nodes[&root] = project;
  }
  cpu::HostRelation result = cpu::HostRelation::of(std::move(table));
  result.row_count = total;
  out.result = std::move(result);
  return out;
}

}  // namespace gfxq::vk
