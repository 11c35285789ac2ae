#pragma once
// What the join algorithms share: the stage runner (one timed submission per stage), the oriented
// condition (probe side a, build side b) and its term table, column bindings, and the preparation
// of a side (selection applied, keys normalised, rows that can never match dropped).

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gfxq/result.h"
#include "vk/device.h"
#include "vk/operators/join/join.h"

namespace gfxq::vk::join {

//! Runs a join's stages: each one submission between two GPU timestamps, recorded as a PassRecord.
class Stages {
 public:
  using Clock = std::chrono::steady_clock;
  //! Stages on `device`, appending to `passes`.
  Stages(Device& device, std::vector<PassRecord>& passes) : device_(device), passes_(passes) {}
  //! The device.
  Device& device() noexcept { return device_; }
  //! Runs record(cmd) as one pass (Device::run_pass: timed and waited for, or recorded into the batch) and
  //! appends a pass with its GPU time (when timed) and wall time.
  template <class F>
  PassRecord& run(std::string kind, std::string detail, uint64_t items, F&& record) {
    const auto start = Clock::now();
    const std::optional<double> gpu = device_.run_pass(record);
    PassRecord& p = add(std::move(kind), std::move(detail), items, start);
    p.gpu_ms = gpu;
    return p;
  }
  //! Downloads `count` values of T from `buffer` at byte `offset` (a "download" pass).
  template <class T>
  std::vector<T> download(const Buffer& buffer, uint64_t count, const std::string& what, uint64_t offset = 0) {
    const auto start = Clock::now();
    std::vector<T> out(count);
    if (count) device_.download(buffer, out.data(), count * sizeof(T), offset);
    add("download", what + " (" + std::to_string(count * sizeof(T)) + " bytes)", count, start);
    return out;
  }
  //! Appends a pass timed on the host from `start` to now.
  PassRecord& add(std::string kind, std::string detail, uint64_t items, Clock::time_point start);

 private:
  Device& device_;
  std::vector<PassRecord>& passes_;
};

//! The condition as the kernels see it: a is the probe side, b the build (indexed, hashed) side;
//! every term reads column `left` of a and column `right` of b.
struct Oriented {
  const JoinSide* a = nullptr;  //!< probe side
  const JoinSide* b = nullptr;  //!< build side
  bool swapped = false;         //!< a is the join's right side
  std::vector<JoinTerm> terms;  //!< the terms, oriented (flipped operators when swapped)
};

//! `terms` with a = left (swap false) or a = right (swap true; Error(Internal) for a band term).
Oriented orient(const JoinSide& left, const JoinSide& right, const std::vector<JoinTerm>& terms, bool swap);

//! JOIN_OP_* of an operator.
uint32_t op_code(JoinOp op);
//! A band offset's bits as the kernels add it: a double denormal becomes +-DBL_MIN, which pairs
//! exactly the same rows (a probe value v != 0 has |v| >= 2^-149, so v + d rounds to v for both; for
//! v = 0 every nonzero build value lies beyond both) and which no device flushes to zero.
uint64_t offset_bits(double d);
//! JOIN_TYPE_INT or JOIN_TYPE_FLOAT of a key.
uint32_t type_code(const JoinKey& key);
//! Whether any of `terms` is a band term (its kernels need shaderFloat64).
bool has_band(const std::vector<JoinTerm>& terms);
//! The term table (JOIN_TERM_WORDS words per term) of oriented `terms` over o's sides, as a device
//! buffer (at least one word).
Buffer upload_terms(Device& device, const Oriented& o, const std::vector<JoinTerm>& terms);

//! JOIN_MAX_COLUMNS ranges binding a side's key columns (the first repeated past its last).
std::vector<BufferRange> column_ranges(const JoinSide& side);

//! A device buffer of `elements` uint32 (at least 16 bytes, padded to whole 16-byte vectors).
Buffer words(Device& device, uint64_t elements);
//! A device buffer of `elements` uint64 (at least 16 bytes).
Buffer dwords(Device& device, uint64_t elements);
//! Elements [0, count) of `b` (uint32) as a binding range (at least 4 bytes).
BufferRange range32(const Buffer& b, uint64_t count);
//! Elements [0, count) of `b` (uint64) as a binding range (at least 8 bytes).
BufferRange range64(const Buffer& b, uint64_t count);

//! The exclusive uint64 prefix sums of n uint32 counts (the output routine's middle phase): offsets
//! and the total on the device, with the scan's scratch.
struct CountScan {
  uint64_t n = 0;       //!< counts
  Buffer offsets;       //!< n uint64: offsets[i] = counts[0] + ... + counts[i - 1]
  Buffer total_buffer;  //!< uint64 words: the sum of all at 0, the largest count at 32 (record_longest)
  Buffer scratch;       //!< the scan's
  //! Buffers for n counts.
  CountScan(Device& device, uint64_t n);
  //! Records the scan of counts[0..n) (vk::scan, 64-bit).
  void record(Device& device, VkCommandBuffer cmd, const Buffer& counts);
  //! Records the scan and the largest of counts[0..n) (a reduction, its scratch made now).
  void record_longest(Device& device, VkCommandBuffer cmd, const Buffer& counts);
  //! Downloads the total (after the scan has run).
  uint64_t total(Stages& stages, const std::string& what);
  //! Downloads the total and the largest count in one read (after record_longest has run).
  std::pair<uint64_t, uint64_t> total_and_longest(Stages& stages, const std::string& what);

 private:
  std::optional<Buffer> reduce_scratch_;  // record_longest's
};

//! How join_prepare makes a side's key: one (column, JOIN_NORM_*) per key column; one column gives
//! its normalised value, several the hash of their normalised values; none writes no key.
struct KeySpec {
  std::vector<std::pair<uint32_t, uint32_t>> columns;  //!< (column index, JOIN_NORM_*)
  //! Whether some column drops rows (JOIN_NORM_INT_OF_FLOAT).
  bool filters() const noexcept;
};

//! A side after join_prepare: the rows that take part and may match, in row order.
struct Prepared {
  uint64_t count = 0;  //!< rows kept
  Buffer rid;          //!< their row ids
  Buffer key;          //!< their keys (when the KeySpec named columns)
};

//! Prepares `side`: the selection applied, keys made as `spec` says, rows that cannot match dropped
//! (a count pass, a scan, then a pack pass, when `spec` filters; else one write pass). `name` ("left",
//! "right") labels the stages.
Prepared prepare(Stages& stages, const JoinSide& side, const KeySpec& spec, const std::string& name);

//! A prepared side's (key, row id) pairs sorted by key (uint32 order, stable: equal keys keep their
//! row order), in buffers of at least `capacity` elements (the CSS-tree pads its keys to whole nodes).
struct Sorted {
  Buffer key;  //!< keys ascending
  Buffer rid;  //!< their row ids
};
//! Sorts `side` (onesweep radix sort of pairs; its fallback when a look-back gave up); `what` names it.
Sorted sort_by_key(Stages& stages, const Prepared& side, uint64_t capacity, const std::string& what);

//! The KeySpec pair of the equi terms of `o` (both sides' keys in one domain): each Eq term's two
//! columns normalised to a common order key (INT against FLOAT: the FLOAT side as int_key of its
//! int32 value, other rows dropped). `hashed` is set when there are several equi terms (the keys
//! are then hashes: every equi term must be tested on the candidates).
std::pair<KeySpec, KeySpec> equi_keys(const Oriented& o, bool& hashed);
//! The oriented terms a candidate pair from equal keys of equi_keys() must still pass: the non-equi
//! terms, and every term when the keys are hashed.
std::vector<JoinTerm> residual_terms(const Oriented& o, bool hashed);

//! Rows that can take part, checked against 32-bit row ids and one binding. Error(Unsupported).
void check_side(const Device& device, const JoinSide& side, const char* name);

}  // namespace gfxq::vk::join
