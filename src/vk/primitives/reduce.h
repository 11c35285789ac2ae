#pragma once
// Reduce (COUNT, SUM, MIN, MAX) of a 4-byte column, optionally filtered by a predicate on the
// column and/or a column of flags, into a 16-byte result in a device buffer. Two passes: each
// workgroup reduces a run of tiles to a partial (64-bit sums, exact), one workgroup combines the
// partials. Barrier rules: see map.h. Needs subgroup arithmetic and shaderInt64 (Error(Unsupported)).

#include <vulkan/vulkan.h>

#include <bit>
#include <cstdint>

#include "vk/device.h"
#include "vk/primitives/map.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk {

//! What reduce() computes over the elements that pass its filter.
enum class ReduceOp {
  Count,  //!< how many pass
  Sum,    //!< U32: uint64 sum; I32: int64 sum (exact, wraps only past int64); F32: Error(Unsupported)
  Min,    //!< smallest value (F32: in the total order, canonical: -0.0 as +0.0, NaN as 0x7fc00000)
  Max,    //!< largest value (same order)
};

//! The 16 bytes reduce() writes (std430: two uint64).
struct ReduceResult {
  //! Count: the count. Sum: the uint64 (U32) or int64 (I32) sum. Min/Max: the value, zero-extended
  //! (U32, and F32 as its bits) or sign-extended (I32). 0 when no element passed.
  uint64_t value = 0;
  uint64_t count = 0;  //!< elements that passed the filter (always written)

  //! `value` as int64 (I32 sums and I32 min/max).
  int64_t as_i64() const noexcept { return static_cast<int64_t>(value); }
  //! `value` as float (F32 min/max).
  float as_f32() const noexcept { return std::bit_cast<float>(static_cast<uint32_t>(value)); }
};

//! Which elements reduce() takes: those passing `pred` whose flag in `mask` is nonzero.
struct ReduceFilter {
  Predicate pred = Predicate::always();  //!< on the reduced column itself
  BufferRange mask{};                    //!< n uint32 flags; buffer == nullptr: no mask
};

//! Scratch bytes reduce() needs for n elements (at least 256).
uint64_t reduce_scratch_bytes(const Device& device, uint64_t n, const PrimTuning& tuning = {});

//! Writes a ReduceResult of `op` over in[0..n) (type `type`) filtered by `filter` at `result`.
//! n == 0 writes {0, 0}. `scratch` holds reduce_scratch_bytes(n) bytes.
//! Example: Sum, I32, in = {4, -7, 2, 9}, filter.pred = Predicate::i32(CmpOp::Lt, 5)
//!          -> result = {value = -1 (as int64), count = 3}
void reduce(Device& device, VkCommandBuffer cmd, ReduceOp op, ElemType type, const BufferRange& in, uint64_t n,
            const BufferRange& result, const BufferRange& scratch, const ReduceFilter& filter = {},
            const PrimTuning& tuning = {});

namespace prim {
//! Records reduce's first pass over `grid` (see scratch.h): partial g = {value, count} (two
//! uint64; value is the sum, the min/max order key, or the count for Count) into `partials`,
//! which holds grid.partials() of them; barriers between chunks, none before or after.
void record_partials(Device& device, VkCommandBuffer cmd, ReduceOp op, ElemType type, const BufferRange& in,
                     const TileGrid& grid, const ReduceFilter& filter, const BufferRange& partials);
}  // namespace prim

}  // namespace gfxq::vk
