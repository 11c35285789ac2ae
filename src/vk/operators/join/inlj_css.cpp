#include "vk/operators/join/inlj_css.h"

#include "join_config.glsl"
#include "vk/primitives/css_tree.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk::join {

namespace {

//! Push constants of join_inlj.comp (group_offset last, set by dispatch).
struct ProbePush {
  uint32_t m_a, n_b, mode, a_type, b_type, op, lo_lo, lo_hi, hi_lo, hi_hi, group_offset;
};

const char* op_text(JoinOp op) {
  switch (op) {
    case JoinOp::Eq: return "=";
    case JoinOp::Lt: return "<";
    case JoinOp::Le: return "<=";
    case JoinOp::Gt: return ">";
    case JoinOp::Ge: return ">=";
    case JoinOp::Band: return "band";
  }
  return "?";
}

}  // namespace

void indexed_loop(Context& ctx) {
  Stages& stages = ctx.stages;
  Device& device = stages.device();
  const Oriented& o = ctx.o;
  const std::string a_name = o.swapped ? "right" : "left", b_name = o.swapped ? "left" : "right";
  // The primary term: the equi keys when there are equi terms, else the first term.
  bool hashed = false;
  auto [a_spec, b_spec] = equi_keys(o, hashed);
  const bool keyed = !a_spec.columns.empty();
  std::vector<JoinTerm> residual = residual_terms(o, hashed);
  JoinTerm primary;
  if (!keyed) {
    primary = o.terms[0];
    residual.erase(residual.begin());
    const uint32_t b_type = type_code(o.b->keys[primary.right]);
    a_spec.columns = {{primary.left, JOIN_NORM_RAW}};
    b_spec.columns = {{primary.right, b_type == JOIN_TYPE_FLOAT ? JOIN_NORM_ORDER_FLOAT : JOIN_NORM_ORDER_INT}};
  }
  const Prepared a = prepare(stages, *o.a, a_spec, a_name);
  const Prepared b = prepare(stages, *o.b, b_spec, b_name);
  const CssTreeLayout layout = css_tree_layout(b.count);
  ctx.text = std::string("indexed nested-loop join: ") +
             (keyed ? (hashed ? "hashed multi-column equi keys" : "equi key")
                    : std::string("primary term ") + op_text(primary.op)) +
             ", " + layout.describe() + " over the sorted " + b_name + " keys, " + std::to_string(a.count) + " probes" +
             (residual.empty() ? "" : ", " + std::to_string(residual.size()) + " residual term(s)");
  const Natural natural = keyed ? Natural::AB : Natural::Unordered;
  if (a.count == 0 || b.count == 0) {
    emit_runs(ctx.out, o, Runs{0, nullptr, nullptr, nullptr, nullptr, ctx.text}, residual, natural);
    return;
  }
  const Sorted sorted = sort_by_key(stages, b, layout.padded_keys(), b_name + " keys with row ids");
  const Buffer directory = words(device, std::max<uint64_t>(1, layout.directory_words));
  stages.run("join-index", layout.describe(), b.count, [&](VkCommandBuffer cmd) {
    record_css_tree_build(device, cmd, layout, range32(sorted.key, layout.padded_keys()),
                          range32(directory, layout.directory_words));
  });
  const Buffer unit_start = words(device, a.count), counts = words(device, a.count);
  const uint64_t lo = offset_bits(primary.lo), hi = offset_bits(primary.hi);
  const ProbePush push{uint32_t(a.count),
                       uint32_t(b.count),
                       keyed ? JOIN_INLJ_KEYED : JOIN_INLJ_TERM,
                       keyed ? 0u : type_code(o.a->keys[primary.left]),
                       keyed ? 0u : type_code(o.b->keys[primary.right]),
                       keyed ? JOIN_OP_EQ : op_code(primary.op),
                       uint32_t(lo),
                       uint32_t(lo >> 32),
                       uint32_t(hi),
                       uint32_t(hi >> 32),
                       0};
  const Pipeline& pipe = device.pipeline(primary.op == JoinOp::Band && !keyed ? "join_inlj_band" : "join_inlj", 5,
                                         sizeof(ProbePush), true);
  stages.run("join-probe", "two CSS-tree searches per probe: the run of build keys each pairs with", a.count,
             [&](VkCommandBuffer cmd) {
               device.dispatch_ranges(cmd, pipe,
                                      {range32(a.key, a.count), range32(sorted.key, layout.padded_keys()),
                                       range32(directory, std::max<uint64_t>(4, layout.directory_words)),
                                       range32(unit_start, a.count), range32(counts, a.count)},
                                      &push, uint32_t(prim::div_up(a.count, JOIN_WG)));
             });
  emit_runs(ctx.out, o, Runs{a.count, &a.rid, &unit_start, &counts, &sorted.rid, ctx.text}, residual, natural);
}

}  // namespace gfxq::vk::join
