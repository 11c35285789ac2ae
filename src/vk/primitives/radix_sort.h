#pragma once
// LSD radix sort of 32-bit keys, alone or with uint32 values (row ids), recorded into the caller's
// command buffer, four stable passes of 8-bit digits. Keys are moved with their bits unchanged;
// the order-preserving transform (SortKeyType, SortOrder) is applied to each key as it is loaded.
//
// Two paths:
// - Onesweep (Adinets & Merrill 2022), for n < 2^30: one pass computes all four digit histograms,
//   then one pass per digit ranks tiles (512 x 16 keys for keys alone, 512 x 12 with values;
//   digit peers matched by ballots) and finds each tile's output offsets by decoupled look-back
//   over per-tile descriptors, 4 per step (tile ids from an atomic counter, so a tile only waits
//   on tiles that started earlier; tile 0 folds the digit starts into its descriptors; two
//   descriptor regions, used by alternate passes).
//   5 dispatches and 1 fill; the keys are read 5 times and written 4 times. The look-back is
//   bounded (RadixSortArgs::lookback_limit): a pass whose look-back hits the bound writes no wrong
//   key and flags itself in the scratch; after the commands have run, radix_sort_status() reads
//   the flag and record_radix_sort_fallback() reruns the sort from that pass's (intact) input by
//   reduce-then-scan.
// - Reduce-then-scan (the fallback, and the path for n >= 2^30): per digit, per-block histograms
//   -> a scan of them -> a scatter with stable in-tile ranking; no forward progress between
//   workgroups is needed. 12 dispatches.
// - Reduce-then-scan over binding windows, for n larger than one binding holds: keys, values and
//   the temporaries are cut into w <= RadixSortArgs::kMaxWindows windows of W keys
//   (W: the binding size rounded down to whole blocks of SORT_BLOCK keys). Per digit, one upsweep
//   per input window (block ids continuing across windows), one scan, one downsweep per input
//   window that scatters into all w output windows, bound at once. 4 x (2w + 1) dispatches.
//
// Barriers the caller owes (this applies to every primitive in src/vk/primitives/{radix_sort,
// bitonic_sort,radix_select,split}.h): record device.barrier(cmd) before the call when earlier
// commands of `cmd` wrote its inputs or read/wrote its outputs or scratch (including an earlier
// call sharing the scratch), and after it before anything reads its outputs. Between its own
// dispatches the primitive records the barriers it needs.
//
// Limits: n <= kMaxWindows x W (W = max_binding_elements() rounded down to whole SORT_BLOCKs:
// 8 x 32 Mi keys on lavapipe) and n < 2^32; larger n is Error(Unsupported) naming the sizes. Each
// of keys_in, keys_out, values_in, values_out, the temporaries and the scratch is one range of one
// buffer; with tmp_keys/tmp_values given, no buffer needs more than n * 4 bytes (a Vulkan
// allocation is limited by maxMemoryAllocationSize, 2 GiB on lavapipe, about 4 GiB on NVIDIA).
// The windowed path binds 11 (keys) or 20 (pairs) storage buffers in one dispatch.
// The device needs subgroup basic, ballot, arithmetic and shuffle operations in compute shaders and
// a subgroup size of 8..128 dividing 256 (Error(Unsupported) otherwise; every desktop driver and
// lavapipe qualify).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cpu/primitives_sort.h"
#include "vk/device.h"

namespace gfxq::vk {

//! One radix sort of `n` keys. A range with buffer == nullptr is absent; bytes == 0 means "to the
//! end of the buffer"; offsets are multiples of minStorageBufferOffsetAlignment (256 always is).
//! keys_out may be the very same range as keys_in (in place), and values_out the same as
//! values_in; other overlaps are Error(Internal).
struct RadixSortArgs {
  uint64_t n = 0;                           //!< number of keys
  SortKeyType key_type = SortKeyType::U32;  //!< how keys are ordered
  SortOrder order = SortOrder::Ascending;   //!< descending is stable too (ties keep input order)
  BufferRange keys_in;                      //!< n raw 32-bit keys (read only unless == keys_out)
  BufferRange keys_out;                     //!< n keys in order, raw bits unchanged (-0.0 stays -0.0)
  BufferRange values_in;                    //!< optional n uint32 values; absent with values_out: row ids 0..n-1
  BufferRange values_out;                   //!< optional: the values in key order (absent: keys only)
  //! radix_sort_scratch_bytes(device, n, values_out present, tmp_keys absent)
  BufferRange scratch;
  //! Optional: the temporaries the passes ping-pong through (n keys; and n values when values_out
  //! is present, then tmp_values is required too), in the caller's buffers instead of the scratch.
  BufferRange tmp_keys, tmp_values;
  //! Onesweep: descriptor reads per digit and tile before the look-back gives up (0: every tile
  //! but the first gives up, which tests use to force the fallback); at most kMaxLookbackLimit.
  uint32_t lookback_limit = kMaxLookbackLimit;
  //! Keys one binding window holds; 0: Device::max_binding_elements(). At most the device's;
  //! rounded down to whole SORT_BLOCKs (at least one). Tests shrink it to force several windows.
  uint64_t binding_elements = 0;
  //! The largest look-back bound (and the default), ONESWEEP_MAX_LOOKBACK: milliseconds of
  //! waiting on a GPU, and within lavapipe's budget of loop iterations per shader run.
  static constexpr uint32_t kMaxLookbackLimit = 16384;
  //! The most binding windows a sort spans (SORT_OUT_WINDOWS).
  static constexpr uint32_t kMaxWindows = 8;
};

//! Which path a recorded sort took and how it ended (radix_sort_status).
struct RadixSortStatus {
  bool onesweep = false;     //!< the onesweep path was recorded (else reduce-then-scan)
  uint32_t failed_pass = 4;  //!< onesweep: first pass that gave up (look-back bound, subgroups; 4: none)
  uint32_t windows = 1;      //!< binding windows the keys span (reduce-then-scan when > 1)
  uint64_t window_keys = 0;  //!< keys per binding window (W)
  uint32_t tile_keys = 0;    //!< onesweep: keys per digit-pass tile
  //! Whether record_radix_sort_fallback still has passes to record.
  bool needs_fallback() const noexcept { return onesweep && failed_pass < 4; }
  //! What ran, for execution reports, e.g. "onesweep LSD radix sort (one 4-digit histogram pass +
  //! 4 decoupled look-back passes over 8192-key tiles)" or "reduce-then-scan LSD radix sort over 3 binding windows of
  //! 33554432 keys (...)".
  std::string describe() const;
};

//! Bytes of scratch record_radix_sort needs (caller-owned, no contents required; 0 for n == 0);
//! `temporaries`: the scratch holds the temporaries (RadixSortArgs::tmp_keys absent).
//! Error(Unsupported) when n exceeds kMaxWindows bindings of the device (or 2^32 - 1).
uint64_t radix_sort_scratch_bytes(const Device& device, uint64_t n, bool with_values, bool temporaries = true);

//! Records a stable radix sort. Example: U32 ascending, keys_in {3,1,2,1}, values_in absent,
//! values_out present -> keys_out {1,1,2,3}, values_out {1,3,2,0}.
void record_radix_sort(Device& device, VkCommandBuffer cmd, const RadixSortArgs& args);

//! After the commands of record_radix_sort(args) have completed (and before the scratch is reused):
//! which path ran and whether a look-back pass gave up. Reads one word of the scratch back to the
//! host (a submission of its own) when the onesweep path ran; none otherwise.
RadixSortStatus radix_sort_status(Device& device, const RadixSortArgs& args);

//! When status.needs_fallback(): records the reduce-then-scan passes from the failed pass on, which
//! complete the sort exactly (the failed pass's input is intact). No-op otherwise.
void record_radix_sort_fallback(Device& device, VkCommandBuffer cmd, const RadixSortArgs& args,
                                const RadixSortStatus& status);

namespace detail {

//! One stable counting pass over n keys, shared by radix sort and split: each key's digit is
//! (x >> shift) & mask where x is its sort key (hash == false) or its hash partition
//! hi32(fmix32(sort key ^ seed) * fanout) (hash == true); keys (and values) are scattered from
//! *_in to *_out grouped by digit, stable. mask + 1 (the bins) is a power of two <= 256. With
//! window_keys set and n > window_keys, every key/value range spans ceil(n / window_keys) <=
//! SORT_OUT_WINDOWS windows of window_keys keys (a multiple of SORT_BLOCK), each bound alone.
struct DigitPass {
  uint64_t n = 0;                           //!< keys
  SortKeyType key_type = SortKeyType::U32;  //!< key order
  bool descending = false;                  //!< sort key inverted
  bool hash = false;                        //!< digits of the hash partition instead of the key
  uint32_t shift = 0;                       //!< lowest digit bit
  uint32_t mask = 255;                      //!< digit mask, 2^b - 1 with b <= 8
  uint32_t fanout = 1;                      //!< hash: partitions
  uint32_t seed = 0;                        //!< hash: seed
  BufferRange keys_in, keys_out;            //!< n keys each; must not overlap
  BufferRange values_in, values_out;        //!< optional, as in RadixSortArgs
  //! Up to SORT_MORE_VALUES further value columns moved with the same keys in the same pass
  //! (pairs in/out, n values each; needs values_in and values_out and one binding window).
  std::vector<std::pair<BufferRange, BufferRange>> more_values;
  BufferRange block_hist;    //!< pass_hist_bytes(n)
  BufferRange totals;        //!< 256 words: per-digit key counts after the pass
  uint64_t window_keys = 0;  //!< keys per binding window; 0: one binding holds all
};

//! Bytes of DigitPass::block_hist for n keys.
uint64_t pass_hist_bytes(uint64_t n);
//! Records one DigitPass (three dispatches, 2w + 1 over w windows, with barriers between; none
//! before or after).
void record_digit_pass(Device& device, VkCommandBuffer cmd, const DigitPass& pass);
//! Error(Unsupported) unless n 4-byte elements fit one storage binding.
void check_fits_binding(const Device& device, uint64_t n, const char* what);
//! Error(Unsupported) unless the device can run the sort kernels (subgroups) and n fits one binding.
void check_sort_support(const Device& device, uint64_t n, const char* what);
//! Error(Unsupported) unless the device can run the sort kernels (subgroups).
void check_sort_device(const Device& device, const char* what);
//! Error(Internal) unless r holds `bytes` bytes (a BufferRange with a buffer).
void check_range_holds(const BufferRange& r, uint64_t bytes, const char* what);
//! Whether two present ranges of `bytes` bytes each share any byte.
bool ranges_overlap(const BufferRange& a, const BufferRange& b, uint64_t bytes);
//! Whether two present ranges are the very same bytes.
bool same_range(const BufferRange& a, const BufferRange& b);
//! Rounds up to a multiple of 256 bytes (a valid storage-buffer offset on every device).
constexpr uint64_t align256(uint64_t bytes) {
  return (bytes + 255) / 256 * 256;
}

//! record_radix_sort of a sort that takes the onesweep path, up to its `stages`-th stage (1: the
//! control-word fill and the histogram pass; 1 + p: also digit passes 0..p-1; 5 is the whole
//! sort, which alone leaves the sorted output): what the benchmark times to give each stage's
//! share. Error(InvalidInput) for stages outside 1..5 or a sort that does not take onesweep.
void record_radix_sort_stages(Device& device, VkCommandBuffer cmd, const RadixSortArgs& args, uint32_t stages);

//! Pipeline `base` of a kernel compiled once per key type (onesweep's histogram and digit passes,
//! the sampled select's scan): `base` + "_u32", "_i32" or "_f32".
std::string keyed_pipeline(std::string_view base, SortKeyType type);
//! What the kernels compiled per key type XOR into a raw key after the F32 order transform
//! (sort_key_flip in sort_keys.glsl): the sign bit of I32 keys, all bits when descending.
uint32_t key_flip(SortKeyType type, SortOrder order);

//! Keys per tile of the onesweep digit passes of a sort without or with values: ONESWEEP_TILE_K or
//! ONESWEEP_TILE_KV. A sort of at most this many keys never looks back.
uint32_t onesweep_tile_keys(bool with_values);

}  // namespace detail
}  // namespace gfxq::vk
