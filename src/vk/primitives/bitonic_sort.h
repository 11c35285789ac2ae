#pragma once
// Bitonic sort of chunks in workgroup shared memory (GDB's local-memory sort): every consecutive
// chunk of `chunk` keys is sorted on its own, stably (ties are broken by input position), and the
// first `keep` of each chunk are written out: a building block for top-k (sort chunks, keep the
// best k of each, repeat) and for merge-based sorts. Barriers the caller owes: see radix_sort.h.

#include <cstdint>

#include "cpu/primitives_sort.h"
#include "vk/device.h"

namespace gfxq::vk {

//! The largest chunk (a power of two) one workgroup sorts.
constexpr uint32_t kBitonicMaxChunk = 2048;

//! One chunk sort. Ranges as in RadixSortArgs. keys_out holds cpu::chunk_sort_output_count(n,
//! chunk, keep) keys: chunk c's first min(keep, its size) at keys_out[c * keep ...]. keys_out may
//! be the very same range as keys_in only when keep is 0 or >= chunk (likewise values).
struct BitonicSortArgs {
  uint64_t n = 0;                           //!< number of keys
  SortKeyType key_type = SortKeyType::U32;  //!< how keys are ordered
  SortOrder order = SortOrder::Ascending;   //!< ascending: keep the smallest; descending: the largest
  uint32_t chunk = kBitonicMaxChunk;        //!< chunk size, a power of two in 1..kBitonicMaxChunk
  uint32_t keep = 0;                        //!< outputs per chunk (0: the whole chunk)
  BufferRange keys_in;                      //!< n raw 32-bit keys
  BufferRange keys_out;                     //!< the kept keys of each chunk, in order, raw bits unchanged
  BufferRange values_in;                    //!< optional n uint32 values; absent with values_out: row ids 0..n-1
  BufferRange values_out;                   //!< optional: the values of the kept keys
};

//! Records the chunk sort (one dispatch; no scratch). Error(InvalidInput) for a bad chunk.
//! Example: keys {4,3,2,1,9,8}, chunk 4, keep 2, ascending, row ids -> keys {1,2,8,9}, values {3,2,5,4}.
void record_bitonic_sort(Device& device, VkCommandBuffer cmd, const BitonicSortArgs& args);

}  // namespace gfxq::vk
