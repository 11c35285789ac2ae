#pragma once
// Segmented reduction (Red Fox's skeleton; issue 23): per segment of rows sorted by up to four key
// columns, its row count, first row, order keys, and reductions of value columns: the int64 SUM of
// int32 values, the exact SUM of float32 values (a 320-bit fixed point, as GROUP BY's), the MIN and
// MAX order key. A segment is a maximal run of rows whose keys are equal as order keys (FLOAT:
// -0.0 = +0.0, every NaN one key), so sorting rows by their keys and reducing them here is
// sort-based GROUP BY (and DISTINCT, with no reduction).
//
// Two steps, recorded into the caller's command buffer:
//  1. record_segment_count: each subgroup counts the heads of a chunk of SEG_CHUNK rows, and a scan
//     of the counts gives each chunk's first segment and the number of segments (a uint64 at
//     args.segments). The caller reads it back to size the outputs.
//  2. record_segmented_reduce (same scratch, unchanged since step 1): fills the outputs with their
//     identities, then each subgroup walks its chunk one row per lane: segment numbers from the
//     heads, a segmented inclusive scan per reduction over the subgroup (log steps of shuffles),
//     and one atomic per run of a segment in the subgroup (INT sums by 64-bit atomics where the
//     device has them, else two 32-bit ones with the carry); FLOAT sums are added row by row into
//     the fixed point by 32-bit atomics with carries, exact in any order.
// Barriers the caller owes: as radix_sort.h says (before step 1, between its inputs' writes and
// it; between step 1 and the read of args.segments; after step 2 before reading the outputs).
// Needs subgroup arithmetic, ballot and shuffle (relative) operations and shaderInt64.
//
// Example: keys {3, 3, 5, 7, 7, 7}, values {1, 2, 3, 4, 5, 6}, Sum -> 3 segments; counts
// {2, 1, 3}, firsts {0, 2, 3}, segment keys {3, 5, 7} (as order keys), sums {3, 3, 15}.

#include <cstdint>
#include <vector>

#include "cpu/primitives_sort.h"
#include "vk/device.h"

namespace gfxq::vk {

//! A reduction per segment.
enum class SegmentOp : uint32_t {
  Sum = 1,  //!< I32 values: int64 sum (2 words per segment, little-endian); F32: exact sum (11 words)
  Min = 2,  //!< the smallest order key (1 word; I32: bits ^ 2^31, F32: float_key)
  Max = 3,  //!< the largest order key (1 word)
};

//! One reduction: `op` over `values` (n raw 32-bit values of `type`) into `out` (one entry per
//! segment, sized by the caller after record_segment_count).
struct SegmentReduction {
  SegmentOp op = SegmentOp::Sum;
  SortKeyType type = SortKeyType::I32;  //!< I32 or F32 for Sum; any for Min / Max
  BufferRange values;                   //!< n values
  BufferRange out;                      //!< filled with the identity, then reduced into
};

//! Words per segment of an F32 Sum: a 320-bit two's-complement fixed point in units of 2^-149
//! (word w holds bits 32w..32w+31), then flags (1 NaN, 2 +inf, 4 -inf).
inline constexpr uint32_t kSegmentFloatSumWords = 11;

//! One segmented reduction of n sorted rows.
struct SegmentedReduceArgs {
  uint64_t n = 0;                            //!< rows (< 2^32; they fit one binding)
  std::vector<BufferRange> keys;             //!< 1..4 key columns, n raw values each, sorted
  std::vector<SortKeyType> key_types;        //!< their types
  std::vector<SegmentReduction> reductions;  //!< any number (4 per dispatch)
  BufferRange counts;                        //!< optional: rows per segment (uint32)
  BufferRange firsts;                        //!< optional: first row of each segment (uint32)
  std::vector<BufferRange> segment_keys;     //!< optional: per key column, the segment's order key
  BufferRange segments;                      //!< 8 bytes: the number of segments (uint64)
  BufferRange scratch;                       //!< segmented_reduce_scratch_bytes(device, n)
  bool int64_atomics = true;                 //!< use 64-bit atomics for INT sums where the device has them
};

//! Bytes of scratch for n rows (at least 256).
uint64_t segmented_reduce_scratch_bytes(const Device& device, uint64_t n);

//! Step 1: the segment count at args.segments (and per-chunk offsets in the scratch).
//! Error(Unsupported) for n >= 2^32 or past one binding, InvalidInput for bad key columns.
void record_segment_count(Device& device, VkCommandBuffer cmd, const SegmentedReduceArgs& args);

//! Step 2: the outputs. Every given output range is filled before the reduction (so it must hold
//! exactly the entries the caller wants filled: bytes set, or to the end of its buffer).
void record_segmented_reduce(Device& device, VkCommandBuffer cmd, const SegmentedReduceArgs& args);

}  // namespace gfxq::vk
