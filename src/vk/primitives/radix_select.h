#pragma once
// Radix select: the exact k-th key of n 32-bit keys without sorting them. MSB-first digits of 12,
// 12 and 8 bits of the sort key, one scan per digit:
//  1. a histogram of the top 12 bits of every key (per-workgroup shared-memory histograms merged
//     with global atomics); one workgroup picks the bucket holding rank k;
//  2. one scan over the keys that histograms the next 12 bits of that bucket's keys AND, when the
//     bucket holds at most half of the keys (and not all of them), copies them into candidate
//     regions (one per invocation: no atomics, no barriers); one workgroup picks the next bucket;
//  3. a histogram of the last 8 bits over the candidate regions (or, when step 2 copied nothing,
//     over the keys again, filtered by the decided 24 bits); one workgroup decides the last digit.
// Every choice is made on the GPU, so the whole select records into one command buffer with no
// host round trip. The scans count with per-invocation runs (one shared atomic per change of
// digit) and load the next tile before counting the current one. Cost: two scans of n plus the
// copy when the k-th key's top-12-bit bucket holds at most half of the keys (uniform keys, the
// median of floats in [0, 1): about 6% of them); three scans at most (all-equal or narrow-range
// keys). Barriers the caller owes: see radix_sort.h.

#include <cstdint>

#include "cpu/primitives_sort.h"
#include "vk/device.h"

namespace gfxq::vk {

//! One selection. `result` receives SelectResult's three words {key, less, equal}.
struct RadixSelectArgs {
  uint64_t n = 0;                           //!< number of keys, >= 1
  uint64_t k = 1;                           //!< 1-based rank in `order`, 1 <= k <= n
  SortKeyType key_type = SortKeyType::U32;  //!< how keys are ordered
  SortOrder order = SortOrder::Ascending;   //!< Descending: k-th largest
  BufferRange keys;                         //!< n raw keys (read only)
  BufferRange result;                       //!< 12 bytes: SelectResult {key, less, equal}
  BufferRange scratch;                      //!< radix_select_scratch_bytes(device, n)
};

//! Bytes of scratch record_radix_select needs (caller-owned, no contents required): about 4n
//! bytes (the candidate regions: room for every key, rounded up to whole tiles per workgroup) plus
//! 33 KiB and 1 KiB per workgroup (at most 1024); only 33 KiB when the regions would not fit one
//! binding (then nothing is copied). Error(Unsupported) past one binding.
uint64_t radix_select_scratch_bytes(const Device& device, uint64_t n);

//! Records the selection: a fill of the scratch header, then 6 dispatches with barriers between.
//! Error(InvalidInput) when n == 0 or k is not in 1..n.
//! Example: keys {5,1,4,1}, k = 2, U32 ascending -> result {1, 0, 2}; k = 1 descending -> {5, 0, 1}.
//! MEDIAN / QUANTILE(q) of n keys: k = quantile_rank(q, n), Ascending. KTH_LARGEST(k): Descending.
void record_radix_select(Device& device, VkCommandBuffer cmd, const RadixSelectArgs& args);

namespace detail {
//! record_radix_select up to its `scans`-th scan and choice (1..3; 3 is the whole select, which
//! alone writes the result): what the benchmark times to give each scan's share.
void record_radix_select_scans(Device& device, VkCommandBuffer cmd, const RadixSelectArgs& args, uint32_t scans);
}  // namespace detail

}  // namespace gfxq::vk
