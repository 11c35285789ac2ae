// Joins of logical plans on the compute backend (fragments.h): [Project of columns] over a Join of
// key equalities, a band and comparisons of a left with a right column. Each key column pair is one
// term of vk::run_join (INT, FLOAT, DATE or same-dictionary STRING keys, compared as 32-bit values in
// gfxq's total order; INT against FLOAT exactly); the band is a Band term (double arithmetic, as the
// CPU engine's); a residual condition that is a conjunction of column comparisons (<, <=, >, >=, =)
// gives one term each. NULL keys match nothing: rows with a NULL in any column a term reads are left
// out of the side's selection (a comparison with NULL is never true). Any other residual condition
// is refused: the operators would have to evaluate arbitrary expressions per pair. The pairs come back
// in (left row, right row) order (JoinOptions::ordered), chunk by chunk, and the output columns (only
// those the Project keeps) are gathered on the host.

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

// A comparison of a left column with a right column: one JoinTerm.
struct ColumnTerm {
  size_t left = 0, right = 0;  // input columns
  JoinOp op = JoinOp::Eq;
};

// The residual condition as comparisons of a left with a right column (a conjunction of them), or
// nullopt with `why`. Both columns INT or FLOAT (compared exactly, also INT with FLOAT), both DATE, or
// both STRING of one dictionary (codes in string order); `<>` has no join term.
std::optional<std::vector<ColumnTerm>> residual_terms(const Node& j, std::string& why) {
  const size_t lw = j.children[0]->schema.size();
  std::vector<const plan::Expr*> conjuncts;
  if (j.residual->kind == plan::ExprKind::And)
    for (const auto& a : j.residual->args) conjuncts.push_back(&a);
  else
    conjuncts.push_back(&*j.residual);
  std::vector<ColumnTerm> terms;
  for (const plan::Expr* c : conjuncts) {
    bool ok = c->kind == plan::ExprKind::Compare && c->cmp != CmpOp::Ne && c->args[0].is_column() &&
              c->args[1].is_column() && (c->args[0].column < lw) != (c->args[1].column < lw);
    if (ok) {
      const bool left_first = c->args[0].column < lw;
      const plan::SchemaColumn& a = j.schema[c->args[0].column];
      const plan::SchemaColumn& b = j.schema[c->args[1].column];
      const bool numbers =
          (a.type == Type::Int32 || a.type == Type::Float32) && (b.type == Type::Int32 || b.type == Type::Float32);
      ok = numbers || (a.type == b.type && a.type == Type::Date) ||
           (a.type == b.type && a.type == Type::String && a.dictionary == b.dictionary);
      if (ok) {
        static constexpr JoinOp kOps[] = {JoinOp::Lt, JoinOp::Le, JoinOp::Gt, JoinOp::Ge, JoinOp::Eq};
        const CmpOp op = left_first ? c->cmp : flip(c->cmp);
        ColumnTerm t;
        t.left = left_first ? c->args[0].column : c->args[1].column;
        t.right = (left_first ? c->args[1].column : c->args[0].column) - lw;
        t.op = kOps[size_t(op)];
        terms.push_back(t);
        continue;
      }
    }
    why = "its condition " + c->text +
          " is not a key equality, a band or a comparison of a left with a right column (the compute join "
          "runs those; other conditions would be expressions evaluated per pair)";
    return std::nullopt;
  }
  return terms;
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
  std::vector<ColumnTerm> residual;
  if (j->residual) {
    auto r = residual_terms(*j, why);
    if (!r) return std::nullopt;
    residual = std::move(*r);
  }
  if (j->equi.empty() && !j->band && residual.empty()) {
    why = "it is a product (no key equality, band or column comparison)";
    return std::nullopt;
  }
  const size_t terms = j->equi.size() + (j->band ? 1 : 0) + residual.size();
  if (terms > JOIN_MAX_TERMS) {
    why = "its condition has " + std::to_string(terms) + " terms (the compute join takes " +
          std::to_string(JOIN_MAX_TERMS) + ")";
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
                (j->band ? ", a band" : "") +
                (residual.empty() ? "" : ", " + std::to_string(residual.size()) + " column comparisons") +
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
  if (j.residual) {
    std::string why;
    const std::vector<ColumnTerm> residual = *residual_terms(j, why);
    for (const ColumnTerm& t : residual) {
      terms.push_back(JoinTerm{uint32_t(lkeys.size()), uint32_t(rkeys.size()), t.op, 0, 0});
      lkeys.push_back(t.left);
      rkeys.push_back(t.right);
    }
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
