#include "vk/primitives/gather_scatter.h"

#include <algorithm>
#include <string>

#include "gfxq/error.h"

namespace gfxq::vk {

namespace {

//! Push constants of gather_u32.comp and scatter_u32.comp (group_offset last, set by dispatch).
struct WindowPush {
  uint32_t count, window_base, window_count, group_offset;
};

//! Elements per pass window over an indexed buffer of `indexed_n` elements: about
//! indexed_n / passes, a multiple of 64 (so window offsets stay 256-byte aligned), at most one
//! chunk (so a window fits one binding).
uint64_t window_elements(const prim::TileGrid& grid, uint64_t indexed_n, uint32_t passes) {
  return std::min(grid.chunk, prim::align_up(prim::div_up(indexed_n, std::max<uint32_t>(passes, 1)), 64));
}

void check_indexed(uint64_t indexed_n, const char* what) {
  if (indexed_n > (uint64_t(1) << 32))
    throw Error(ErrorCode::InvalidInput,
                std::string(what) + ": uint32 indices address at most 2^32 elements, not " + std::to_string(indexed_n));
}

}  // namespace

void gather(Device& device, VkCommandBuffer cmd, const BufferRange& src, uint64_t src_n, const BufferRange& idx,
            uint64_t n, const BufferRange& out, uint32_t passes, const PrimTuning& tuning) {
  check_indexed(src_n, "gather");
  if (n == 0 || src_n == 0) return;
  prim::check_range(src, src_n, 4, "gather source");
  prim::check_range(idx, n, 4, "gather indices");
  prim::check_range(out, n, 4, "gather output");
  const prim::TileGrid grid = prim::TileGrid::make(device, n, tuning, 4);
  const uint64_t window = window_elements(grid, src_n, passes);
  const Pipeline& p = device.pipeline("gather_u32", 3, sizeof(WindowPush), true);
  for (uint64_t w = 0; w < src_n; w += window) {
    if (w > 0) device.barrier(cmd);  // passes write the same output chunks
    const uint64_t w_count = std::min(window, src_n - w);
    for (uint64_t c = 0; c < grid.chunks; ++c) {
      const WindowPush push{static_cast<uint32_t>(grid.count(c)), static_cast<uint32_t>(w),
                            static_cast<uint32_t>(w_count), 0};
      device.dispatch_ranges(
          cmd, p,
          {prim::sub_range(idx, grid.first(c), grid.count(c), 4), prim::sub_range(src, w, w_count, 4),
           prim::sub_range(out, grid.first(c), grid.count(c), 4)},
          &push, static_cast<uint32_t>(prim::div_up(grid.count(c), GFXQ_PRIM_TILE)));
    }
  }
}

void scatter(Device& device, VkCommandBuffer cmd, const BufferRange& in, const BufferRange& idx, uint64_t n,
             const BufferRange& out, uint64_t out_n, uint32_t passes, const PrimTuning& tuning) {
  check_indexed(out_n, "scatter");
  if (n == 0 || out_n == 0) return;
  prim::check_range(in, n, 4, "scatter input");
  prim::check_range(idx, n, 4, "scatter indices");
  prim::check_range(out, out_n, 4, "scatter output");
  const prim::TileGrid grid = prim::TileGrid::make(device, n, tuning, 4);
  const uint64_t window = window_elements(grid, out_n, passes);
  const Pipeline& p = device.pipeline("scatter_u32", 3, sizeof(WindowPush), true);
  for (uint64_t w = 0; w < out_n; w += window) {
    const uint64_t w_count = std::min(window, out_n - w);
    for (uint64_t c = 0; c < grid.chunks; ++c) {
      if (c > 0) device.barrier(cmd);  // chunks write the same output window
      const WindowPush push{static_cast<uint32_t>(grid.count(c)), static_cast<uint32_t>(w),
                            static_cast<uint32_t>(w_count), 0};
      device.dispatch_ranges(
          cmd, p,
          {prim::sub_range(idx, grid.first(c), grid.count(c), 4), prim::sub_range(in, grid.first(c), grid.count(c), 4),
           prim::sub_range(out, w, w_count, 4)},
          &push, static_cast<uint32_t>(prim::div_up(grid.count(c), GFXQ_PRIM_TILE)));
    }
  }
}

}  // namespace gfxq::vk
