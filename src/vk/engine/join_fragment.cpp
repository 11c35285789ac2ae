// Joins of logical plans on the compute backend (fragments.h): [Project of columns] over a Join of
// key equalities, a band and comparisons of a left with a right column. Each key column pair is one
// term of vk::run_join (INT, FLOAT, DATE or same-dictionary STRING keys, compared as 32-bit values in
// gfxq's total order; INT against FLOAT exactly); the band is a Band term (double arithmetic, as the
// CPU engine's); a residual condition that is a conjunction of column comparisons (<, <=, >, >=, =)
// gives one term each. NULL keys match nothing: rows with a NULL in any column a term reads are left
// out of the side's selection (a comparison with NULL is never true). Any other residual condition
// is refused: the operators would have to evaluate arbitrary expressions per pair. The pairs come
// in (left row, right row) order (JoinOptions::ordered), or in any order where no result depends on
// it (plan::Node::any_order: below an Aggregate), chunk by chunk, and the output columns (only
// those the Project keeps) are gathered on the device by the pair ids into a DeviceRelation (chunks
// concatenated on the device); an output column that may be NULL or is 64-bit makes the fragment
// download the pairs and gather on the host instead.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "cpu/exec/ops.h"
#include "gfxq/error.h"
#include "join_config.glsl"
#include "vk/engine/column_facts.h"
#include "vk/engine/fragments.h"
#include "vk/engine/inputs.h"
#include "vk/operators/join/chooser.h"
#include "vk/operators/join/join.h"
#include "vk/primitives/gather_scatter.h"

namespace gfxq::vk {

namespace {

using plan::Node;
using plan::NodeKind;

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

// Whether column `c` of `n`'s rows is a catalog column whose values are all distinct (its facts),
// through Projects of columns and Filters (a subset of distinct values is distinct). Only asked for
// sides of more than kGlobalHashRows rows, where it can change the chooser's pick.
bool distinct_key(const Node* n, size_t c, const Catalog& catalog, ColumnFactsCache& facts) {
  n = column_source(n, c);
  if (n->kind != NodeKind::Scan || !n->table || n->table->rows() <= kGlobalHashRows) return false;
  const Type t = n->schema.at(c).type;
  if (t != Type::Int32 && t != Type::Date && t != Type::String) return false;
  const ResidentKey key{n->table_name, catalog.version(n->table_name), n->scan_columns.at(c)};
  return facts.get(key, n->table->columns.at(key.column)).unique;
}

}  // namespace

std::optional<engine::Fragment> claim_join(const Node& node, const Catalog& catalog, const VkCapabilities& caps,
                                           ColumnFactsCache& facts, std::string& why) {
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
  auto claim = std::make_shared<JoinClaim>();
  claim_input(left, catalog, f.nodes, f.inputs, claim.get());
  claim_input(right, catalog, f.nodes, f.inputs, claim.get());
  if (!j->equi.empty()) {
    claim->left_unique = distinct_key(&left, j->equi[0].first, catalog, facts);
    claim->right_unique = distinct_key(&right, j->equi[0].second, catalog, facts);
  }
  f.state = std::move(claim);
  f.algorithm = "compute: join on " + std::to_string(j->equi.size()) + (j->equi.size() == 1 ? " key" : " keys") +
                (j->band ? ", a band" : "") +
                (residual.empty() ? "" : ", " + std::to_string(residual.size()) + " column comparisons") +
                " (the join chooser picks the algorithm at run time), pairs in (left, right) order, columns "
                "gathered " +
                std::string(device_schema(node) ? "on the device" : "on the host");
  return f;
}

namespace {

// Milliseconds since `start`.
double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The output columns of a join on the device, chunk by chunk of pairs: each chunk's kept columns are
// gathered from the two sides by its pair ids into buffers of the chunk's size (a gather's output
// must start at a bound offset); with several chunks they are then concatenated by buffer copies.
class DeviceGather {
 public:
  DeviceGather(Device& device, InputRows& left, InputRows& right, size_t left_width, std::vector<size_t> keep)
      : device_(device), left_(left), right_(right), left_width_(left_width), keep_(std::move(keep)) {}

  // Gathers the kept columns of `chunk`'s pairs (its buffers are valid only during the call).
  void add(const JoinChunk& chunk) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::shared_ptr<DeviceColumn>> out;
    std::vector<const DeviceColumn*> src;
    for (size_t c : keep_) {
      src.push_back(c < left_width_ ? &left_.column(c) : &right_.column(c - left_width_));
      auto col = std::make_shared<DeviceColumn>();
      col->buffer = device_.create_buffer(padded_bytes(chunk.count), MemoryKind::Device);
      col->type = src.back()->type;
      col->rows = chunk.count;
      out.push_back(std::move(col));
    }
    const std::optional<double> gpu = device_.run_pass([&](VkCommandBuffer cmd) {
      for (size_t i = 0; i < keep_.size(); ++i) {
        const Buffer& ids = *(keep_[i] < left_width_ ? chunk.left : chunk.right);
        gather(device_, cmd, BufferRange{&src[i]->buffer, 0, 0}, src[i]->rows, BufferRange{&ids, 0, 0}, chunk.count,
               BufferRange{&out[i]->buffer, 0, 0});
      }
    });
    PassRecord p;
    p.kind = "gather";
    p.detail = std::to_string(keep_.size()) + " columns of " + std::to_string(chunk.count) +
               " pairs on the device (pairs " + std::to_string(chunk.first) + "..)";
    p.items = chunk.count;
    p.passed = chunk.count;
    p.gpu_ms = gpu;
    p.wall_ms = ms_since(start);
    passes_.push_back(std::move(p));
    chunks_.push_back({chunk.first, chunk.count, std::move(out)});
  }

  // The output columns of all `total` pairs (one chunk's as they are, several concatenated), and
  // the passes so far.
  std::vector<std::shared_ptr<const DeviceColumn>> finish(uint64_t total, const std::vector<Type>& types) {
    std::vector<std::shared_ptr<const DeviceColumn>> cols;
    if (chunks_.size() == 1) {
      for (auto& c : chunks_[0].columns) cols.push_back(std::move(c));
      return cols;
    }
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::shared_ptr<DeviceColumn>> all;
    for (size_t i = 0; i < keep_.size(); ++i) {
      auto col = std::make_shared<DeviceColumn>();
      col->buffer = device_.create_buffer(padded_bytes(total), MemoryKind::Device);
      col->type = chunks_.empty() ? types[i] : chunks_[0].columns[i]->type;
      col->rows = total;
      all.push_back(std::move(col));
    }
    if (!chunks_.empty()) {
      device_.enqueue([&](VkCommandBuffer cmd) {
        for (const Chunk& c : chunks_)
          for (size_t i = 0; i < keep_.size(); ++i) {
            const VkBufferCopy region{0, c.first * 4, c.count * 4};
            vkCmdCopyBuffer(cmd, c.columns[i]->buffer.handle(), all[i]->buffer.handle(), 1, &region);
          }
      });
      PassRecord p;
      p.kind = "concat";
      p.detail = std::to_string(keep_.size()) + " columns of " + std::to_string(chunks_.size()) +
                 " chunks of pairs joined on the device (" + std::to_string(total * 4 * keep_.size()) + " bytes)";
      p.items = total;
      p.wall_ms = ms_since(start);
      passes_.push_back(std::move(p));
    }
    chunks_.clear();
    for (auto& c : all) cols.push_back(std::move(c));
    return cols;
  }

  // Passes of the gathers and the concatenation.
  std::vector<PassRecord>& passes() noexcept { return passes_; }

 private:
  struct Chunk {
    uint64_t first = 0, count = 0;
    std::vector<std::shared_ptr<DeviceColumn>> columns;
  };
  Device& device_;
  InputRows& left_;
  InputRows& right_;
  size_t left_width_;
  std::vector<size_t> keep_;
  std::vector<Chunk> chunks_;
  std::vector<PassRecord> passes_;
};

}  // namespace

engine::FragmentRun run_join_fragment(FragmentEnv& env, const engine::Fragment& f,
                                      std::vector<engine::Relation> inputs) {
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
  // The output: the Project's columns (or all), on the device when it can hold them (NULL-free
  // 32-bit columns), else gathered on the host from downloaded pairs.
  const size_t lw = j.children[0]->schema.size();
  std::vector<size_t> keep;
  std::vector<Type> keep_types;
  if (&root == &j)
    for (size_t i = 0; i < j.schema.size(); ++i) keep.push_back(i);
  else
    for (const auto& e : root.exprs) keep.push_back(e.column);
  for (size_t c : keep) keep_types.push_back(storage_type(j.schema[c].type));
  const bool on_device = device_schema(root);
  DeviceGather device_gather(env.device, *left, *right, lw, keep);

  std::vector<uint32_t> lrows, rrows;  // host pairs (output not on the device)
  std::string algorithm;
  uint64_t pairs = 0;
  std::optional<double> gpu_ms;
  const DeviceRows lsel = left->live(lkeys, "left row ids");
  const DeviceRows rsel = right->live(rkeys, "right row ids");
  if (lsel.count == 0 || rsel.count == 0) {
    algorithm = "compute join: a side without rows, no pairs (no GPU work)";
  } else {
    JoinSide ls, rs;
    ls.rows = left->rows();
    rs.rows = right->rows();
    for (size_t c : lkeys) ls.keys.push_back(join_key(left->column(c)));
    for (size_t c : rkeys) rs.keys.push_back(join_key(right->column(c)));
    ls.selection = lsel.selection;
    ls.selected = lsel.count;
    rs.selection = rsel.selection;
    rs.selected = rsel.count;
    JoinOptions options;
    // In (left row, right row) order unless nothing above depends on it (an Aggregate's input).
    options.ordered = !j.any_order;
    if (const auto* claim = dynamic_cast<const JoinClaim*>(f.state.get())) {
      options.stats.left_unique = claim->left_unique;
      options.stats.right_unique = claim->right_unique;
    }
    options.chunk_pairs = env.join_chunk_pairs;
    double download_ms = 0;
    options.consume = [&](const JoinChunk& c) {
      if (on_device) {
        device_gather.add(c);
        return;
      }
      const auto download_start = std::chrono::steady_clock::now();
      lrows.resize(c.first + c.count);
      rrows.resize(c.first + c.count);
      env.device.download(*c.left, lrows.data() + c.first, c.count * 4);
      env.device.download(*c.right, rrows.data() + c.first, c.count * 4);
      download_ms += ms_since(download_start);
    };
    JoinResult r = run_join(env.device, ls, rs, terms, options);
    pairs = r.count;
    double gpu = 0;
    bool any = false;
    for (auto& p : r.passes) {
      if (p.gpu_ms) gpu += *p.gpu_ms, any = true;
      out.passes.push_back(std::move(p));
    }
    if (any) gpu_ms = gpu;
    if (!on_device) {
      PassRecord d;
      d.kind = "download";
      d.detail = "pairs (" + std::to_string(r.count * 8) + " bytes)";
      d.items = r.count;
      d.wall_ms = download_ms;
      out.passes.push_back(std::move(d));
      if (r.count != lrows.size())
        throw Error(ErrorCode::Internal, "compute join: " + std::to_string(r.count) + " pairs, " +
                                             std::to_string(lrows.size()) + " handed over");
    }
    algorithm = "compute: " + r.algorithm_text + " (" + r.reason + ")";
  }

  const auto gather_start = std::chrono::steady_clock::now();
  if (on_device) {
    auto rel = std::make_shared<DeviceRelation>();
    rel->columns = device_gather.finish(pairs, keep_types);
    for (auto& p : device_gather.passes()) {
      if (p.gpu_ms) gpu_ms = gpu_ms.value_or(0) + *p.gpu_ms;
      out.passes.push_back(std::move(p));
    }
    rel->schema = root.schema;
    rel->row_count = pairs;
    out.result = engine::Relation(Backend::Compute, std::move(rel));
  } else {
    const std::vector<uint64_t> lids(lrows.begin(), lrows.end()), rids(rrows.begin(), rrows.end());
    Table table;
    for (size_t i = 0; i < keep.size(); ++i) {
      const size_t c = keep[i];
      table.columns.push_back(c < lw ? cpu::gather_column(left->host().column(c), lids, root.schema[i].name)
                                     : cpu::gather_column(right->host().column(c - lw), rids, root.schema[i].name));
    }
    PassRecord g;
    g.kind = "gather";
    g.detail = std::to_string(keep.size()) + " columns of " + std::to_string(lids.size()) + " pairs on the host";
    g.items = lids.size();
    g.wall_ms = ms_since(gather_start);
    out.passes.push_back(std::move(g));
    cpu::HostRelation rel = cpu::HostRelation::of(std::move(table));
    rel.row_count = pairs;
    out.result = std::move(rel);
  }
  const double gather_ms = ms_since(gather_start);
  const std::string where = on_device ? "on the device" : "on the host";

  engine::NodeRun run;
  run.algorithm = algorithm + "; inputs: " + left->describe() + ", " + right->describe();
  run.rows_in = left->count() + right->count();
  run.rows_out = pairs;
  run.gpu_ms = gpu_ms;
  run.wall_ms = ms_since(start);
  out.nodes[&j] = run;
  if (&root != &j) {
    engine::NodeRun project = run;
    project.algorithm = "compute: " + std::to_string(keep.size()) + " of " + std::to_string(j.schema.size()) +
                        " join columns gathered " + where + " by the pair ids";
    project.rows_in = pairs;
    project.gpu_ms.reset();
    project.wall_ms = gather_ms;
    out.nodes[&root] = project;
  }
  return out;
}

}  // namespace gfxq::vk
