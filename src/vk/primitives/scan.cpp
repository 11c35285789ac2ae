#include "vk/primitives/scan.h"

#include <algorithm>

#include "gfxq/error.h"
#include "vk/primitives/reduce.h"

namespace gfxq::vk {

namespace {

//! Push constants of scan_spine.comp.
struct SpinePush {
  uint32_t partial_count;
};
//! Push constants of scan_downsweep.comp.
struct DownsweepPush {
  uint32_t count, tiles_per_group, partial_base;
};

//! Scratch of scan(): partials (16 bytes each), carries (8 bytes each, one more than partials)
//! and a total slot for when the caller wants none, each region 256-byte aligned.
struct ScanScratch {
  uint64_t partials_bytes, carries_offset, carries_bytes, total_offset, bytes;
  explicit ScanScratch(const prim::TileGrid& grid) {
    partials_bytes = prim::align_up(std::max<uint64_t>(1, grid.partials()) * 16, prim::kRangeAlign);
    carries_offset = partials_bytes;
    carries_bytes = prim::align_up((grid.partials() + 1) * 8, prim::kRangeAlign);
    total_offset = carries_offset + carries_bytes;
    bytes = total_offset + prim::kRangeAlign;
  }
};

}  // namespace

namespace prim {

void record_spine(Device& device, VkCommandBuffer cmd, const BufferRange& partials, uint64_t count,
                  const BufferRange& carries, const BufferRange& total) {
  const SpinePush push{static_cast<uint32_t>(count)};
  device.dispatch_ranges(cmd, device.pipeline("scan_spine", 3, sizeof(SpinePush)), {partials, carries, total}, &push,
                         1);
}

}  // namespace prim

uint64_t scan_scratch_bytes(const Device& device, uint64_t n, const PrimTuning& tuning) {
  // Enough for either output width (their chunks differ).
  return std::max(ScanScratch(prim::TileGrid::make(device, n, tuning, 4)).bytes,
                  ScanScratch(prim::TileGrid::make(device, n, tuning, 8)).bytes);
}

void scan(Device& device, VkCommandBuffer cmd, ScanKind kind, ScanWidth width, const BufferRange& in, uint64_t n,
          const BufferRange& out, const BufferRange& total, const BufferRange& scratch, const PrimTuning& tuning) {
  prim::require_features(device, "scan");
  const uint32_t out_bytes = width == ScanWidth::U64 ? 8 : 4;
  const prim::TileGrid grid = prim::TileGrid::make(device, n, tuning, out_bytes);
  const ScanScratch layout(grid);
  prim::check_range(scratch, layout.bytes, 1, "scan scratch");
  if (total.buffer) prim::check_range(total, 1, 8, "scan total");
  const BufferRange partials{scratch.buffer, scratch.offset, layout.partials_bytes};
  const BufferRange carries{scratch.buffer, scratch.offset + layout.carries_offset, layout.carries_bytes};
  const BufferRange total_range = total.buffer ? BufferRange{total.buffer, total.offset, 8}
                                               : BufferRange{scratch.buffer, scratch.offset + layout.total_offset, 8};
  if (n > 0) {
    prim::check_range(in, n, 4, "scan input");
    prim::check_range(out, n, out_bytes, "scan output");
    prim::record_partials(device, cmd, ReduceOp::Sum, ElemType::U32, in, grid, {}, partials);
    device.barrier(cmd);
  }
  prim::record_spine(device, cmd, partials, grid.partials(), carries, total_range);
  if (n == 0) return;
  device.barrier(cmd);
  const char* name = kind == ScanKind::Exclusive
                         ? (width == ScanWidth::U64 ? "scan_downsweep_exclusive_u64" : "scan_downsweep_exclusive_u32")
                         : (width == ScanWidth::U64 ? "scan_downsweep_inclusive_u64" : "scan_downsweep_inclusive_u32");
  const Pipeline& p = device.pipeline(name, 3, sizeof(DownsweepPush));
  for (uint64_t c = 0; c < grid.chunks; ++c) {
    const DownsweepPush push{static_cast<uint32_t>(grid.count(c)), static_cast<uint32_t>(grid.tiles_per_group),
                             static_cast<uint32_t>(grid.partial_base(c))};
    device.dispatch_ranges(cmd, p,
                           {prim::sub_range(in, grid.first(c), grid.count(c), 4), carries,
                            prim::sub_range(out, grid.first(c), grid.count(c), out_bytes)},
                           &push, static_cast<uint32_t>(grid.groups(c)));
  }
}

}  // namespace gfxq::vk
