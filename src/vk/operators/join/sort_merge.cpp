#include "vk/operators/join/sort_merge.h"

#include "join_config.glsl"
#include "vk/primitives/merge_path.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk::join {

namespace {

//! Push constants of join_search.comp (group_offset last, set by dispatch).
struct SearchPush {
  uint32_t m_a, m_b, step, mode, group_offset;
};

}  // namespace

void sort_merge(Context& ctx) {
  Stages& stages = ctx.stages;
  Device& device = stages.device();
  const Oriented& o = ctx.o;
  const std::string a_name = o.swapped ? "right" : "left", b_name = o.swapped ? "left" : "right";
  bool hashed = false;
  const auto [a_spec, b_spec] = equi_keys(o, hashed);
  const std::vector<JoinTerm> residual = residual_terms(o, hashed);
  const Prepared a = prepare(stages, *o.a, a_spec, a_name);
  const Prepared b = prepare(stages, *o.b, b_spec, b_name);
  const uint64_t tiles = prim::div_up(a.count + b.count, JOIN_SEARCH_TILE);
  ctx.text = std::string("sort-merge join: ") + (hashed ? "hashed multi-column equi keys" : "equi key") +
             ", both sides sorted (" + std::to_string(a.count) + " and " + std::to_string(b.count) +
             " keys), merge path into " + std::to_string(tiles) + " tiles of " + std::to_string(JOIN_SEARCH_TILE) +
             ", sorted search per tile" +
             (residual.empty() ? "" : ", " + std::to_string(residual.size()) + " residual term(s)");
  if (a.count == 0 || b.count == 0) {
    emit_runs(ctx.out, o, Runs{0, nullptr, nullptr, nullptr, nullptr, ctx.text}, residual, Natural::AThenBRuns);
    return;
  }
  const Sorted sa = sort_by_key(stages, a, a.count, a_name + " keys with row ids");
  const Sorted sb = sort_by_key(stages, b, b.count, b_name + " keys with row ids");
  const uint64_t parts = merge_path_parts(a.count, b.count, JOIN_SEARCH_TILE);
  const Buffer lower_parts = words(device, parts), upper_parts = words(device, parts);
  const Buffer unit_start = words(device, a.count), counts = words(device, a.count);
  const Pipeline& pipe = device.pipeline("join_search", 5, sizeof(SearchPush), true);
  stages.run("join-merge", "merge path (both tie rules), then the sorted search per tile: lower and upper bounds",
             a.count + b.count, [&](VkCommandBuffer cmd) {
               MergePathArgs args;
               args.n = a.count;
               args.m = b.count;
               args.step = JOIN_SEARCH_TILE;
               args.a = range32(sa.key, a.count);
               args.b = range32(sb.key, b.count);
               args.out = range32(lower_parts, parts);
               record_merge_path(device, cmd, args);
               args.ties = MergeTies::BFirst;
               args.out = range32(upper_parts, parts);
               record_merge_path(device, cmd, args);
               device.barrier(cmd);
               for (const uint32_t mode : {JOIN_SEARCH_LOWER, JOIN_SEARCH_UPPER}) {
                 if (mode == JOIN_SEARCH_UPPER) device.barrier(cmd);
                 const SearchPush push{uint32_t(a.count), uint32_t(b.count), JOIN_SEARCH_TILE, mode, 0};
                 device.dispatch_ranges(cmd, pipe,
                                        {range32(sa.key, a.count), range32(sb.key, b.count),
                                         range32(mode == JOIN_SEARCH_LOWER ? lower_parts : upper_parts, parts),
                                         range32(unit_start, a.count), range32(counts, a.count)},
                                        &push, uint32_t(tiles));
               }
             });
  emit_runs(ctx.out, o, Runs{a.count, &sa.rid, &unit_start, &counts, &sb.rid, ctx.text}, residual, Natural::AThenBRuns);
}

}  // namespace gfxq::vk::join
