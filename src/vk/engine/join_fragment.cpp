// Joins of logical plans on the compute backend (fragments.h): [Project of columns] over a Join of
// key equalities and/or one band. Each key column pair is one term of vk::run_join (INT, FLOAT, DATE
// or same-dictionary STRING keys, compared as 32-bit values in gfxq's total order; INT against FLOAT
// exactly); the band is a Band term (double arithmetic, as the CPU engine's). NULL keys match
// nothing: rows with a NULL key are left out of the side's selection. A residual condition (any
// other condition over both sides) is refused: the operators would have to evaluate arbitrary
// expressions per pair. The pairs come back in (left row, right row) order (JoinOptions::ordered),
// chunk by chunk, and the output columns (only those the Project keeps) are gathered on the host.

#include <algorithm>
#include <chrono>
#include <memory>

#include "cpu/exec/ops.h"
#include "gfxq/error.h"
#include "join_config.glsl"
#include "vk/engine/fragments.h"
#include "vk/engine/inputs.h"
#include "vk/operators/join/join.h"

namespace gfxq::vk {

namespace {

using plan::Node;
using plan::NodeKind;

bool columns_only(const Node& p) {
  for (const auto& e : p.exprs)
    if (!e.is_column()) return false;
  return true;
}

// The Join under an optional Project of columns, or null.
const Node* join_of(const Node& node) {
  if (node.kind == NodeKind::Join) return &node;
  if (node.kind == NodeKind::Project && columns_only(node) && node.children[0]->kind == NodeKind::Join)
    return node.children[0].get();
  return nullptr;
}

std::string key_text(const Node& j, size_t l, size_t r) {
  const size_t lw = j.children[0]->schema.size();
  return j.schema[l].name + " = " + j.schema[lw + r].name;
}

}  // namespace

std::optional<engine::Fragment> claim_join(const Node& node, const Catalog& catalog, const VkCapabilities& caps,
                                           std::string& why) {
  const Node* j = join_of(node);
  if (!j) return std::nullopt;  // not of this shape: no reason of its own
  if (j->residual) {
    why = "its condition " + j->residual->text +
          " is not key equalities or one band (the compute join runs those; other conditions would be "
          "evaluated per pair)";
    return std::nullopt;
  }
  if (j->equi.empty() && !j->band) {
    why = "it is a product (no key equality or band)";
    return std::nullopt;
  }
  if (j->equi.size() + (j->band ? 1 : 0) > JOIN_MAX_TERMS) {
    why = "its condition has " + std::to_string(j->equi.size() + (j->band ? 1 : 0)) +
          " terms (the compute join takes " + std::to_string(JOIN_MAX_TERMS) + ")";
    return std::nullopt;
  }
  const Node& left = *j->children[0];
  const Node& right = *j->children[1];
  for (const auto& [l, r] : j->equi)
    if (!device_type(left.schema[l].type) || !device_type(right.schema[r].type)) {
      why = "its key " + key_text(*j, l, r) + " compares " + to_string(left.schema[l].type) + " with " +
            to_string(right.schema[r].type) + " (the compute join takes 32-bit INT, FLOAT, DATE and STRING keys)";
      return std::nullopt;
    }
  if (j->band) {
    const Type lt = left.schema[j->band->left].type, rt = right.schema[j->band->right].type;
    if ((lt != Type::Int32 && lt != Type::Float32) || (rt != Type::Int32 && rt != Type::Float32)) {
      why = "its band compares " + std::string(to_string(lt)) + " with " + to_string(rt) +
            " (the compute band join takes INT and FLOAT)";
      return std::nullopt;
    }
    if (!caps.shader_float64) {
      why = "its band adds offsets in double arithmetic, which needs shaderFloat64 (" + caps.device_name + " lacks it)";
      return std::nullopt;
    }
  }
  engine::Fragment f;
  f.root = &node;
  f.nodes.push_back(&node);
  if (j != &node) f.nodes.push_back(j);
  claim_input(left, catalog, f.nodes, f.inputs);
  claim_input(right, catalog, f.nodes, f.inputs);
  f.algorithm = "compute: join on " + std::to_string(j->equi.size()) + (j->equi.size() == 1 ? " key" : " keys") +
                (j->band ? std::string(j->equi.empty() ? "" : " and") + " a band" : "") +
                " (the join chooser picks the algorithm at run time), pairs in (left, right) order, columns "
                "gathered on the host";
  return f;
}

engine::FragmentRun run_join_fragment(FragmentEnv& env, const engine::Fragment& f,
                                      std::vector<cpu::HostRelation> inputs) {
  const auto start = std::chrono::steady_clock::now();
  const Node& root = *f.root;
  const Node& j = *join_of(root);
  engine::FragmentRun out;
  // The two sides: covered ones from the catalog, the others from the fragment's inputs in order.
  size_t next_input = 0;
  auto side = [&](const Node& child) {
    const bool covered = std::find(f.nodes.begin(), f.nodes.end(), &child) != f.nodes.end();
    return std::make_unique<InputRows>(env, child, covered ? nullptr : &inputs.at(next_input++), out.passes);
  };
  std::unique_ptr<InputRows> left = side(*j.children[0]);
  std::unique_ptr<InputRows> right = side(*j.children[1]);

  // One key column per term on each side, the equalities first, then the band.
  std::vector<size_t> lkeys, rkeys;
  std::vector<JoinTerm> terms;
  for (const auto& [l, r] : j.equi) {
    terms.push_back(JoinTerm{uint32_t(lkeys.size()), uint32_t(rkeys.size()), JoinOp::Eq, 0, 0});
    lkeys.push_back(l);
    rkeys.push_back(r);
  }
  if (j.band) {
    terms.push_back(JoinTerm{uint32_t(lkeys.size()), uint32_t(rkeys.size()), JoinOp::Band, j.band->lo, j.band->hi});
    lkeys.push_back(j.band->left);
    rkeys.push_back(j.band->right);
  }
  const auto lsel = left->live(lkeys);
  const auto rsel = right->live(rkeys);
  std::vector<uint32_t> lrows, rrows;
  std::string algorithm;
  const uint64_t lcount = lsel ? lsel->size() : left->rows().rows();
  const uint64_t rcount = rsel ? rsel->size() : right->rows().rows();
  std::optional<double> gpu_ms;
  if (lcount == 0 || rcount == 0) {
    algorithm = "compute join: a side without rows, no pairs (no GPU work)";
  } else {
    JoinSide ls, rs;
    ls.rows = left->rows().rows();
    rs.rows = right->rows().rows();
    for (size_t c : lkeys) ls.keys.push_back(join_key(left->column(c)));
    for (size_t c : rkeys) rs.keys.push_back(join_key(right->column(c)));
    Buffer lbuf, rbuf;
    if (lsel) {
      lbuf = upload_selection(env.device, *lsel, "left row ids", out.passes);
      ls.selection = &lbuf;
      ls.selected = lsel->size();
    }
    if (rsel) {
      rbuf = upload_selection(env.device, *rsel, "right row ids", out.passes);
      rs.selection = &rbuf;
      rs.selected = rsel->size();
    }
    JoinOptions options;
    options.ordered = true;
    auto download_start = std::chrono::steady_clock::now();
    double download_ms = 0;
    options.consume = [&](const JoinChunk& c) {
      download_start = std::chrono::steady_clock::now();
      lrows.resize(c.first + c.count);
      rrows.resize(c.first + c.count);
      env.device.download(*c.left, lrows.data() + c.first, c.count * 4);
      env.device.download(*c.right, rrows.data() + c.first, c.count * 4);
      download_ms +=
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - download_start).count();
    };
    JoinResult r = run_join(env.device, ls, rs, terms, options);
    double gpu = 0;
    bool any = false;
    for (auto& p : r.passes) {
      if (p.gpu_ms) gpu += *p.gpu_ms, any = true;
      out.passes.push_back(std::move(p));
    }
    if (any) gpu_ms = gpu;
    PassRecord d;
    d.kind = "download";
    d.detail = "pairs (" + std::to_string(r.count * 8) + " bytes)";
    d.items = r.count;
    d.wall_ms = download_ms;
    out.passes.push_back(std::move(d));
    if (r.count != lrows.size())
      throw Error(ErrorCode::Internal, "compute join: " + std::to_string(r.count) + " pairs, " +
                                           std::to_string(lrows.size()) + " handed over");
    algorithm = "compute: " + r.algorithm_text + " (" + r.reason + ")";
  }

  // The output: the Project's columns (or all), gathered on the host by the pair ids.
  const auto gather_start = std::chrono::steady_clock::now();
  const std::vector<uint64_t> lids(lrows.begin(), lrows.end()), rids(rrows.begin(), rrows.end());
  const size_t lw = j.children[0]->schema.size();
  std::vector<size_t> keep;
  if (&root == &j)
    for (size_t i = 0; i < j.schema.size(); ++i) keep.push_back(i);
  else
    for (const auto& e : root.exprs) keep.push_back(e.column);
  Table table;
  for (size_t i = 0; i < keep.size(); ++i) {
    const size_t c = keep[i];
    table.columns.push_back(c < lw ? cpu::gather_column(left->rows().column(c), lids, root.schema[i].name)
                                   : cpu::gather_column(right->rows().column(c - lw), rids, root.schema[i].name));
  }
  PassRecord g;
  g.kind = "gather";
  g.detail = std::to_string(keep.size()) + " columns of " + std::to_string(lids.size()) + " pairs on the host";
  g.items = lids.size();
  g.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - gather_start).count();
  out.passes.push_back(std::move(g));

  const double gather_ms = out.passes.back().wall_ms;
  engine::NodeRun run;
  run.algorithm = algorithm + "; inputs: " + left->describe() + ", " + right->describe();
  run.rows_in = left->count() + right->count();
  run.rows_out = lids.size();
  run.gpu_ms = gpu_ms;
  run.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.nodes[&j] = run;
  if (&root != &j) {
    engine::NodeRun project = run;
    project.algorithm = "compute: " + std::to_string(keep.size()) + " of " + std::to_string(j.schema.size()) +
                        " join columns gathered on the host by the pair ids";
    project.rows_in = lids.size();
    project.gpu_ms.reset();
    project.wall_ms = gather_ms;
    out.nodes[&root] = project;
  }
  out.result = cpu::HostRelation::of(std::move(table));
  out.result.row_count = lids.size();
  return out;
}

}  // namespace gfxq::vk
