#pragma once
// Merge path (Green, McColl, Bader 2012; Red Fox's "partition" skeleton): where the diagonals of
// the merge of two sorted key sequences cut each sequence, so that every tile of `step` merged
// elements can be merged, searched or intersected by one workgroup with equal work, whatever the
// distribution of the keys. One invocation per diagonal, a binary search of at most 32 steps; no
// scratch. The sort-merge join's sorted search uses it, and the set operations will. Barrier rules:
// see radix_sort.h.

#include <cstdint>

#include "cpu/primitives_sort.h"
#include "vk/device.h"

namespace gfxq::vk {

//! Which of two equal keys the merge takes first.
enum class MergeTies : uint32_t {
  AFirst,  //!< a's element before an equal b's (a stable merge of a, then b)
  BFirst,  //!< b's element before an equal a's
};

//! One partition of a merge. Ranges as in RadixSortArgs (buffer, byte offset, bytes).
struct MergePathArgs {
  uint64_t n = 0;                           //!< keys of a (ascending in key_type's order)
  uint64_t m = 0;                           //!< keys of b (ascending)
  SortKeyType key_type = SortKeyType::U32;  //!< how keys are ordered
  MergeTies ties = MergeTies::AFirst;       //!< the merge's rule for equal keys
  uint32_t step = 2048;                     //!< merged elements per tile (>= 1)
  BufferRange a, b;                         //!< the two sequences
  BufferRange out;                          //!< merge_path_parts(n, m, step) uint32
};

//! Diagonals a merge of n and m keys cut into tiles of `step` has: ceil((n + m) / step) + 1 (the last
//! is the end of the merge, n).
uint64_t merge_path_parts(uint64_t n, uint64_t m, uint32_t step);

//! Records the partition: out[t] = how many of a's keys are among the first min(t * step, n + m)
//! merged keys, so tile t holds a[out[t] .. out[t+1]) and b[t * step - out[t] .. ). n and m below
//! 2^32 (Error(Unsupported) otherwise, and past one binding).
//! Example: a = {1, 3, 5}, b = {3, 4}, step 2, AFirst -> out = {0, 1, 2, 3} (merge 1 3a | 3b 4 | 5);
//! BFirst -> {0, 1, 1, 3} (merge 1 3b | 3a 4 | 5).
void record_merge_path(Device& device, VkCommandBuffer cmd, const MergePathArgs& args);

}  // namespace gfxq::vk
