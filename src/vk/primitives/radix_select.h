#pragma once
// Radix select: the exact k-th key of n 32-bit keys without sorting them. MSB-first digits of 11,
// 11 and 10 bits: a first scan counts the top two digits at once (when every key shares the top
// digit, the second is decided from the same scan), then each further scan filters the
// candidates by the decided prefix, counts the next digit and, once the candidates are at most
// half of n, compacts them so that later scans read only them. Every choice is made on the GPU
// (one workgroup), so the whole select records into one command buffer with no host round trip.
// Cost: two scans of n for uniform keys, narrow integer ranges and small domains; about 2.1 for the
// median of uniform floats in [0, 1); at most three (a key held by over half of the rows at the
// k-th place). Barriers the caller owes: see radix_sort.h.

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

//! Bytes of scratch record_radix_select needs (caller-owned, no contents required): about 2n
//! bytes (a candidate list of n/2 keys) plus 33 KiB. Error(Unsupported) past one binding.
uint64_t radix_select_scratch_bytes(const Device& device, uint64_t n);

//! Records the selection: a fill of the scratch header, then 6 dispatches with barriers between.
//! Error(InvalidInput) when n == 0 or k is not in 1..n.
//! Example: keys {5,1,4,1}, k = 2, U32 ascending -> result {1, 0, 2}; k = 1 descending -> {5, 0, 1}.
//! MEDIAN / QUANTILE(q) of n keys: k = quantile_rank(q, n), Ascending. KTH_LARGEST(k): Descending.
void record_radix_select(Device& device, VkCommandBuffer cmd, const RadixSelectArgs& args);

}  // namespace gfxq::vk
