#include "vk/primitives/compact.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gfxq/error.h"
#include "vk/primitives/scan.h"

namespace gfxq::vk {

namespace {

//! Push constants of compact_mark.comp.
struct MarkPush {
  uint32_t count, tiles_per_group, partial_base, accept, key;
};
//! Push constants of compact_count.comp.
struct CountPush {
  uint32_t count, tiles_per_group, partial_base;
};
//! Push constants of compact_write.comp.
struct WritePush {
  uint64_t window_base;
  uint32_t window_count, count, tiles_per_group, partial_base, id_base, reserved;
};
static_assert(sizeof(WritePush) == 32);

//! Scratch of compact(): partials (16 bytes each), carries (8 bytes each, one more than
//! partials) and the bits (one per row, whole tiles), each region 256-byte aligned. Chunk c's
//! bits start at byte first(c) / 8, a multiple of 512.
struct CompactScratch {
  uint64_t partials_bytes, carries_offset, carries_bytes, bits_offset, bytes;
  explicit CompactScratch(const prim::TileGrid& grid) {
    partials_bytes = prim::align_up(std::max<uint64_t>(1, grid.partials()) * 16, prim::kRangeAlign);
    carries_offset = partials_bytes;
    carries_bytes = prim::align_up((grid.partials() + 1) * 8, prim::kRangeAlign);
    bits_offset = carries_offset + carries_bytes;
    bytes = bits_offset + prim::div_up(grid.n, GFXQ_PRIM_TILE) * GFXQ_PRIM_TILE_WORDS * 4;
  }
};

//! What compact() and compact_bits() share: the checks of the row ids, the count and the ids
//! output, and the tile grid with its partials and carries in `scratch`.
struct CompactSetup {
  prim::TileGrid grid;
  CompactScratch layout;
  BufferRange partials, carries;
  CompactSetup(Device& device, const std::string& what, uint64_t n, uint64_t id_base, const CompactOutputs& out,
               const BufferRange& scratch, const PrimTuning& tuning)
      : grid(prim::TileGrid::make(device, n, tuning, 4)), layout(grid) {
    prim::require_features(device, what.c_str(), true);
    constexpr uint64_t kIds = uint64_t(1) << 32;
    if (id_base > kIds || n > kIds - id_base)
      throw Error(ErrorCode::ResultTooLarge, what + ": row ids are uint32, but rows " + std::to_string(id_base) +
                                                 " to " + std::to_string(id_base + n) + " exceed 2^32");
    prim::check_range(out.count, 1, 8, (what + " count").c_str());
    if (out.ids.buffer) prim::check_range(out.ids, std::min(out.capacity, n), 4, (what + " ids").c_str());
    prim::check_range(scratch, layout.bytes, 1, (what + " scratch").c_str());
    partials = {scratch.buffer, scratch.offset, layout.partials_bytes};
    carries = {scratch.buffer, scratch.offset + layout.carries_offset, layout.carries_bytes};
  }
};

//! Records the spine over the partials and pass 3 (compact_write): the selected rows' ids and values
//! at their offsets. `bits(c)` is chunk c's bitmap.
template <class Bits>
void record_write(Device& device, VkCommandBuffer cmd, const prim::TileGrid& grid, const BufferRange& partials,
                  const BufferRange& carries, Bits&& bits, const CompactOutputs& out, const BufferRange& values_in,
                  uint64_t id_base) {
  const bool want_ids = out.ids.buffer != nullptr, want_values = out.values.buffer != nullptr;
  const uint64_t capacity = std::min(out.capacity, grid.n);
  prim::record_spine(device, cmd, partials, grid.partials(), carries, {out.count.buffer, out.count.offset, 8});
  if (grid.n == 0 || capacity == 0 || (!want_ids && !want_values)) return;
  device.barrier(cmd);

  const char* name = want_ids && want_values ? "compact_write_ids_values"
                     : want_ids              ? "compact_write_ids"
                                             : "compact_write_values";
  const uint32_t bindings = 2 + (want_values ? 2 : 0) + (want_ids ? 1 : 0);
  const Pipeline& write = device.pipeline(name, bindings, sizeof(WritePush));
  // The outputs are bound in windows of one chunk's length. Chunk c's rows land somewhere below
  // min(capacity, first(c) + count(c)), where only the GPU knows: each window below that gets a
  // dispatch, whose workgroups return at once unless some of their positions fall in it.
  const uint64_t window = grid.chunk;
  for (uint64_t c = 0; c < grid.chunks; ++c) {
    if (c > 0) device.barrier(cmd);  // chunks may write the same window
    const uint64_t end = std::min(capacity, grid.first(c) + grid.count(c));
    for (uint64_t w = 0; w < end; w += window) {
      const uint64_t w_count = std::min(window, capacity - w);
      std::vector<BufferRange> ranges{bits(c), carries};
      if (want_values) {
        ranges.push_back(prim::sub_range(values_in, grid.first(c), grid.count(c), 4));
        ranges.push_back(prim::sub_range(out.values, w, w_count, 4));
      }
      if (want_ids) ranges.push_back(prim::sub_range(out.ids, w, w_count, 4));
      const WritePush push{w,
                           static_cast<uint32_t>(w_count),
                           static_cast<uint32_t>(grid.count(c)),
                           static_cast<uint32_t>(grid.tiles_per_group),
                           static_cast<uint32_t>(grid.partial_base(c)),
                           static_cast<uint32_t>(id_base + grid.first(c)),
                           0};
      device.dispatch_ranges(cmd, write, ranges, &push, static_cast<uint32_t>(grid.groups(c)));
    }
  }
}

}  // namespace

uint64_t compact_scratch_bytes(const Device& device, uint64_t n, const PrimTuning& tuning) {
  return CompactScratch(prim::TileGrid::make(device, n, tuning, 4)).bytes;
}

void compact(Device& device, VkCommandBuffer cmd, ElemType type, const BufferRange& in, uint64_t n,
             const Predicate& pred, const BufferRange& values_in, const CompactOutputs& out, const BufferRange& scratch,
             uint64_t id_base, const PrimTuning& tuning) {
  prim::check_predicate(pred, type, "compact");
  const CompactSetup setup(device, "compact", n, id_base, out, scratch, tuning);
  const prim::TileGrid& grid = setup.grid;
  const bool want_values = out.values.buffer != nullptr;
  if (want_values) prim::check_range(out.values, std::min(out.capacity, n), 4, "compact values");
  const auto bits = [&](uint64_t c) {
    return BufferRange{scratch.buffer, scratch.offset + setup.layout.bits_offset + grid.first(c) / 8,
                       prim::div_up(grid.count(c), GFXQ_PRIM_TILE) * GFXQ_PRIM_TILE_WORDS * 4};
  };

  if (n > 0) {
    prim::check_range(in, n, 4, "compact input");
    if (want_values) prim::check_range(values_in, n, 4, "compact values_in");
    const Pipeline& mark = device.pipeline(std::string("compact_mark_") + prim::type_suffix(type), 3, sizeof(MarkPush));
    for (uint64_t c = 0; c < grid.chunks; ++c) {
      if (c > 0) device.barrier(cmd);  // every chunk writes partials through the same binding
      const MarkPush push{static_cast<uint32_t>(grid.count(c)), static_cast<uint32_t>(grid.tiles_per_group),
                          static_cast<uint32_t>(grid.partial_base(c)), pred.accept, pred.key};
      device.dispatch_ranges(cmd, mark, {prim::sub_range(in, grid.first(c), grid.count(c), 4), bits(c), setup.partials},
                             &push, static_cast<uint32_t>(grid.groups(c)));
    }
    device.barrier(cmd);
  }
  record_write(device, cmd, grid, setup.partials, setup.carries, bits, out, values_in, id_base);
}

uint64_t compact_bitmap_words(uint64_t n) {
  return prim::div_up(n, GFXQ_PRIM_TILE) * GFXQ_PRIM_TILE_WORDS;
}

void compact_bits(Device& device, VkCommandBuffer cmd, const BufferRange& bits, uint64_t n, const CompactOutputs& out,
                  const BufferRange& scratch, uint64_t id_base, const PrimTuning& tuning) {
  if (out.values.buffer) throw Error(ErrorCode::Internal, "compact_bits: writes ids only");
  const CompactSetup setup(device, "compact_bits", n, id_base, out, scratch, tuning);
  const prim::TileGrid& grid = setup.grid;
  const auto chunk_bits = [&](uint64_t c) {
    return prim::sub_range(bits, grid.first(c) / 32, compact_bitmap_words(grid.count(c)), 4);
  };
  if (n > 0) {
    prim::check_range(bits, compact_bitmap_words(n), 4, "compact_bits bitmap");
    const Pipeline& count = device.pipeline("compact_count", 2, sizeof(CountPush));
    for (uint64_t c = 0; c < grid.chunks; ++c) {
      if (c > 0) device.barrier(cmd);  // every chunk writes partials through the same binding
      const CountPush push{static_cast<uint32_t>(grid.count(c)), static_cast<uint32_t>(grid.tiles_per_group),
                           static_cast<uint32_t>(grid.partial_base(c))};
      device.dispatch_ranges(cmd, count, {chunk_bits(c), setup.partials}, &push, static_cast<uint32_t>(grid.groups(c)));
    }
    device.barrier(cmd);
  }
  record_write(device, cmd, grid, setup.partials, setup.carries, chunk_bits, out, {}, id_base);
}

}  // namespace gfxq::vk
