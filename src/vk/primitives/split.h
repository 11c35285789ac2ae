#pragma once
// Split (GDB Algorithm 1, lock-free): a relation of keys (and row ids / values) partitioned by a
// radix or hash partition function into F partitions, stable within each partition, with the F+1
// partition offsets. Per-block histograms, a scan of them and a scatter with stable in-tile
// ranking; F <= 256 is one pass, 256 < F <= 65536 two stable passes (low then high digit of the
// partition number, LSD) through scratch. Barriers the caller owes: see radix_sort.h.

#include <cstdint>

#include "cpu/primitives_sort.h"
#include "vk/device.h"

namespace gfxq::vk {

//! The largest fanout of split.
constexpr uint32_t kSplitMaxFanout = 65536;

//! One split. Ranges as in RadixSortArgs; keys_out / values_out must not overlap the inputs.
struct SplitArgs {
  uint64_t n = 0;                           //!< number of keys
  SortKeyType key_type = SortKeyType::U32;  //!< key order (radix partitions are key ranges)
  Partitioner partitioner;                  //!< the partition function (see cpu::partition_of)
  BufferRange keys_in;                      //!< n raw keys
  BufferRange keys_out;                     //!< n keys grouped by partition, input order within each
  BufferRange values_in;                    //!< optional n uint32 values; absent with values_out: row ids 0..n-1
  BufferRange values_out;                   //!< optional: values moved with their keys
  BufferRange offsets;                      //!< fanout + 1 uint32: partition p is [offsets[p], offsets[p+1])
  BufferRange scratch;                      //!< split_scratch_bytes(device, n, partitioner, values_out present)
};

//! Bytes of scratch record_split needs (caller-owned, no contents required).
//! Error(InvalidInput) for a bad partitioner, Error(Unsupported) past one binding.
uint64_t split_scratch_bytes(const Device& device, uint64_t n, const Partitioner& p, bool with_values);

//! Records the split. Example: Radix fanout 2 shift 0, U32 keys {3,2,5,4}, row ids ->
//! keys {2,4,3,5}, values {1,3,0,2}, offsets {0,2,4}.
void record_split(Device& device, VkCommandBuffer cmd, const SplitArgs& args);

}  // namespace gfxq::vk
