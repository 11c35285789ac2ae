#pragma once
// Radix select: the exact k-th key of n 32-bit keys without sorting them. MSB-first digits of 12,
// 12 and 8 bits of the sort key, one scan per digit:
//  1. a histogram of the top 12 bits of every key (per-workgroup shared-memory histograms merged
//     with global atomics); one workgroup picks the bucket holding rank k;
//  2. one scan over the keys: when the bucket holds at most half of the keys (and not all of
//     them), it only copies them into candidate regions (one per invocation: no atomics, no
//     barriers) and a separate dispatch histograms the next 12 bits of the copies; otherwise it
//     histograms the next 12 bits of that bucket's keys itself (the extra dispatch then returns
//     at once). One workgroup picks the next bucket;
//  3. a histogram of the last 8 bits over the candidate regions (or, when step 2 copied nothing,
//     over the keys again, filtered by the decided 24 bits); one workgroup decides the last digit.
// Every choice is made on the GPU, so the whole select records into one command buffer with no
// host round trip. The scans read uvec4 by at most 1024 workgroups, load the next tile before
// counting the current one and count into one shared histogram per workgroup with per-invocation
// runs (one shared atomic per change of digit). Cost: two scans of n plus the
// copy when the k-th key's top-12-bit bucket holds at most half of the keys (uniform keys, the
// median of floats in [0, 1): about 6% of them); three scans at most (all-equal or narrow-range
// keys). Barriers the caller owes: see radix_sort.h.
//
// Binding windows: keys beyond one storage binding are cut into windows of W keys
// (RadixSelectArgs::binding_elements, at most the device's binding, rounded down to 64 keys), any
// number of them: each scan is one dispatch per window, all adding into the same histograms (a
// barrier between them), and each window has candidate regions of its own in the scratch, filled
// by scan 2 and read back by scan 3 with the same window's dispatch geometry. The choices are one
// dispatch each, as over one binding, so the result is exactly the same. Keys within one binding
// are one window (the dispatches above). Limit: n < 2^32 (32-bit counts).
//
// Sampled select (RadixSelectArgs::sample; by default from SELECT_SAMPLE_AUTO keys; the engine's
// ComputeOptions::select_sample turns it off / on): a Floyd-Rivest
// bracket around rank k, then an exact select of the few keys inside it, all decided on the GPU in
// the same command buffer:
//  1. select_sample gathers SELECT_SAMPLE (4096) keys at evenly strided positions (one dispatch
//     per window), select_bracket sorts their sort keys in one workgroup (bitonic; strides below
//     16 in registers, wider ones in shared memory) and takes lo and hi SELECT_SAMPLE_MARGIN (96)
//     sample ranks either side of rank k's place r = (k - 1) S / n (3 standard deviations of that
//     place at the median; a side past the sample's ends stays open);
//  2. select_sample_scan, one scan of the keys (one dispatch per window): counts the keys below
//     lo, equal to lo and equal to hi, and copies the sort keys strictly between lo and hi into
//     the candidate regions of unsampled step 2 (no atomics; about 2 x 96 / 4096 = 4.7% of uniform
//     keys). The regions have room for every key, so they cannot overflow;
//  3. select_check places k: among the keys equal to lo or to hi it writes the result itself;
//     strictly inside it starts the select over the candidates (rank k - below - at_lo); outside
//     [lo, hi] (the sample misled: periodic or adversarial keys) the whole select below runs;
//  4. the three levels (select_pass + select_choose) over the candidate regions, gated on that
//     path; then the whole unsampled select over the keys, gated on the fallback path. A gated
//     dispatch reads one state word and returns. radix_select_path() reads back which path ran.
// Only n >= SELECT_SAMPLE_MIN keys whose candidate regions fit the scratch's bindings are sampled.
//
// Copy only, then count (H200, median of 2^28 floats in [0, 1), GPU kept busy): 1.118 ms, down
// from 1.286 ms when scan 2 counted while copying. Interleaved shared histogram copies, subgroup-
// matched digits (subgroupPartitionNV or ballots) and candidates compacted or staged per workgroup
// were all slower (2.1-3.8 ms) and were removed.

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
  BufferRange scratch;                      //!< radix_select_scratch_bytes(device, n, binding_elements)
  //! Keys one binding window holds; 0: Device::max_binding_elements(). At most the device's;
  //! rounded down to a multiple of 64 (at least 64). Tests shrink it to force several windows.
  uint64_t binding_elements = 0;
  //! Whether the select is sampled (see above): Auto samples from SELECT_SAMPLE_AUTO keys.
  enum class Sample { Auto, Off, On } sample = Sample::Auto;
  //! Sample ranks either side of rank k's place in the sorted sample; 0: SELECT_SAMPLE_MARGIN.
  //! Tests set 1 or 2 (a bracket that may miss) and SELECT_SAMPLE (no bound: every key a candidate).
  uint32_t sample_margin = 0;
};

//! Which path the last recorded select ran (radix_select_path).
enum class RadixSelectPath {
  Unsampled,   //!< the select was not sampled: three MSB-digit levels over the keys
  Candidates,  //!< sampled; rank k fell strictly inside the bracket: levels over the copies
  Bound,       //!< sampled; the k-th key was the bracket's lo or hi: decided from the counts
  Fallback,    //!< sampled; the bracket missed rank k: the unsampled select over the keys ran
};

//! A name for reports: "unsampled", "sampled: candidates", "sampled: bracket bound",
//! "sampled: bracket missed, full select".
const char* radix_select_path_name(RadixSelectPath path);

//! Bytes of scratch record_radix_select needs (caller-owned, no contents required): about 4n
//! bytes (the candidate regions: room for every key, rounded up to whole tiles per workgroup and
//! window) plus 49 KiB (state, histograms, the sample) and 1 KiB per workgroup of each window (at
//! most 1024 per window); only 49 KiB when one window's regions would not fit one binding (then
//! nothing is copied, and nothing is sampled).
//! `binding_elements` as in RadixSelectArgs. Error(Unsupported) past 2^32 - 1 keys.
uint64_t radix_select_scratch_bytes(const Device& device, uint64_t n, uint64_t binding_elements = 0);

//! Keys per binding window (`binding_elements` as in RadixSelectArgs).
uint64_t radix_select_window_keys(const Device& device, uint64_t binding_elements = 0);

//! Binding windows n keys span (`binding_elements` as in RadixSelectArgs): 1 within one binding.
uint32_t radix_select_windows(const Device& device, uint64_t n, uint64_t binding_elements = 0);

//! Records the selection: a fill of the scratch header, then 7 dispatches with barriers between
//! (4w + 3 over w binding windows); sampled, 9w + 8 (w sample, 1 bracket, w scan, 1 check, 3w + 3
//! over the candidates, 4w + 3 fallback; the gated ones return at once off their path).
//! Error(InvalidInput) when n == 0 or k is not in 1..n.
//! Example: keys {5,1,4,1}, k = 2, U32 ascending -> result {1, 0, 2}; k = 1 descending -> {5, 0, 1}.
//! MEDIAN / QUANTILE(q) of n keys: k = quantile_rank(q, n), Ascending. KTH_LARGEST(k): Descending.
void record_radix_select(Device& device, VkCommandBuffer cmd, const RadixSelectArgs& args);

//! Whether record_radix_select samples this select (`sample`, n and the scratch layout).
bool radix_select_sampled(const Device& device, const RadixSelectArgs& args);

//! The path the select recorded with `args` ran, read back from its scratch after the command
//! buffer completed (Unsampled without a read when it was not sampled).
RadixSelectPath radix_select_path(Device& device, const RadixSelectArgs& args);

namespace detail {
//! record_radix_select up to its `scans`-th scan and choice (1..3; 3 is the whole select, which
//! alone writes the result): what the benchmark times to give each scan's share. Sampled: 1 is
//! the sample and bracket, 2 adds the scan and the check, 3 is the whole select.
void record_radix_select_scans(Device& device, VkCommandBuffer cmd, const RadixSelectArgs& args, uint32_t scans);
}  // namespace detail

}  // namespace gfxq::vk
