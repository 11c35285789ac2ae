#include "vk/primitives/merge_path.h"

#include <string>

#include "gfxq/error.h"
#include "join_config.glsl"
#include "vk/primitives/radix_sort.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk {

namespace {

//! Push constants of merge_path.comp (group_offset last, set by dispatch).
struct MergePathPush {
  uint32_t n, m, step, parts, key_type, ties, group_offset;
};

}  // namespace

uint64_t merge_path_parts(uint64_t n, uint64_t m, uint32_t step) {
  return prim::div_up(n + m, step == 0 ? 1 : step) + 1;
}

void record_merge_path(Device& device, VkCommandBuffer cmd, const MergePathArgs& args) {
  if (args.step == 0) throw Error(ErrorCode::Internal, "merge path: step 0");
  if (args.n >= (uint64_t(1) << 32) || args.m >= (uint64_t(1) << 32))
    throw Error(ErrorCode::Unsupported, "merge path: sequences of " + std::to_string(args.n) + " and " +
                                            std::to_string(args.m) + " keys (at most 2^32 - 1 each)");
  detail::check_fits_binding(device, args.n, "merge path");
  detail::check_fits_binding(device, args.m, "merge path");
  const uint64_t parts = merge_path_parts(args.n, args.m, args.step);
  detail::check_range_holds(args.a, args.n * 4, "merge path a");
  detail::check_range_holds(args.b, args.m * 4, "merge path b");
  detail::check_range_holds(args.out, parts * 4, "merge path partitions");
  const MergePathPush push{uint32_t(args.n),        uint32_t(args.m),    args.step, uint32_t(parts),
                           uint32_t(args.key_type), uint32_t(args.ties), 0};
  const Pipeline& p = device.pipeline("merge_path", 3, sizeof(MergePathPush), true);
  device.dispatch_ranges(cmd, p,
                         {prim::sub_range(args.a, 0, args.n, 4), prim::sub_range(args.b, 0, args.m, 4),
                          prim::sub_range(args.out, 0, parts, 4)},
                         &push, uint32_t(prim::div_up(parts, MERGE_PATH_WG)));
}

}  // namespace gfxq::vk
