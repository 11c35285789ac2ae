#pragma once
// Stream compaction (SELECT materialisation; GDB's three-phase lock-free output): the row ids and
// the values of the rows that satisfy a predicate, in row order, plus their count. Three passes:
// (1) each workgroup evaluates the predicate over its run of tiles, stores one bit per row in
// scratch and counts its rows; (2) one workgroup scans the counts into output offsets and writes
// the count; (3) each workgroup rereads only the bits (and the values of selected rows), scans the
// per-invocation counts and writes its rows at its offset. Barrier rules: see map.h. Needs subgroup
// arithmetic, subgroup ballot with 8 to 128 invocations per subgroup and shaderInt64
// (Error(Unsupported)).

#include <vulkan/vulkan.h>

#include <cstdint>

#include "vk/device.h"
#include "vk/primitives/map.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk {

//! Where compact() writes.
struct CompactOutputs {
  BufferRange ids{};     //!< selected row ids, uint32, ascending; buffer == nullptr: not written
  BufferRange values{};  //!< values_in of the selected rows (4 bytes, copied bitwise); nullptr: not written
  BufferRange count{};   //!< the uint64 number of selected rows, always exact (required)
  //! Elements `ids` and `values` hold. Selected rows past it are not written (the count still
  //! says how many there were: the caller can size the outputs and run again).
  uint64_t capacity = 0;
};

//! Scratch bytes compact() needs for n rows.
uint64_t compact_scratch_bytes(const Device& device, uint64_t n, const PrimTuning& tuning = {});

//! For the rows i < n with pred(in[i]) (in of type `type`), in ascending i: ids[k] = id_base + i
//! and values[k] = values_in[i]. Row ids are uint32: Error(ResultTooLarge) when id_base + n >
//! 2^32. values_in may be `in`; it is ignored (may be empty) when out.values is not wanted.
//! To select by a column of flags, pass it as `in` with type U32 and Predicate::nonzero().
//! `scratch` holds compact_scratch_bytes(n) bytes.
//! Example: I32, in = {5, 2, 8, 1}, Predicate::i32(CmpOp::Lt, 6), values_in = {50, 20, 80, 10}
//!          -> ids = {0, 1, 3}, values = {50, 20, 10}, count = 3
void compact(Device& device, VkCommandBuffer cmd, ElemType type, const BufferRange& in, uint64_t n,
             const Predicate& pred, const BufferRange& values_in, const CompactOutputs& out, const BufferRange& scratch,
             uint64_t id_base = 0, const PrimTuning& tuning = {});

//! 32-bit words of a bitmap of n rows as compact_bits() reads it: whole tiles of GFXQ_PRIM_TILE rows.
uint64_t compact_bitmap_words(uint64_t n);

//! compact() of rows already marked: the ids i < n whose bit i (bit i % 32 of word i / 32) is set in
//! `bits` (compact_bitmap_words(n) words, the bits past n zero), ascending, from id_base on, and their
//! count. Two passes and the spine: each workgroup counts its tiles' bits, the spine makes offsets,
//! each workgroup writes its ids. `scratch` holds compact_scratch_bytes(n) bytes.
//! Example: bits {0b1010} (n = 4) -> ids = {1, 3}, count = 2
void compact_bits(Device& device, VkCommandBuffer cmd, const BufferRange& bits, uint64_t n, const CompactOutputs& out,
                  const BufferRange& scratch, uint64_t id_base = 0, const PrimTuning& tuning = {});

}  // namespace gfxq::vk
