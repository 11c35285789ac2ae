#pragma once
// Building STRING columns in parallel: each worker interns the strings of its part of the input
// into a StringInterner (local codes in first-seen order; repeats found in a table bounded to stay
// in the cache; no allocation per value), then merge_dictionaries() turns the workers' interners
// into one sorted gfxq::Dictionary and a table per worker from its local codes to the dictionary's
// codes, every step on all threads. docs/SQL.md ("CSV") tells the steps.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "gfxq/table.h"

namespace gfxq::detail {

//! Strings in first-seen order with local codes, repeats found by hash (open addressing, linear
//! probing) while the table holds at most `table_limit` strings; once it is full, a string not in
//! it gets a new code each time (the table stays small enough for the cache, and a column of
//! mostly distinct strings is not hashed into a large table only to be merged again). Once full,
//! a table that finds few repeats is mostly passed by: only every kProbeEvery-th string looks
//! there (every kProbeRarest-th once such lookups find nothing for long), until such lookups find
//! repeats again (the merge finds the others).
class StringInterner {
 public:
  //! Strings the table holds at most, by default (1 MiB of slots).
  static constexpr size_t kTableLimit = size_t{1} << 15;
  //! While the full table is passed by, one string in this many still looks there.
  static constexpr uint32_t kProbeEvery = 16;
  //! While the table passed by finds nothing, the interval doubles up to this.
  static constexpr uint32_t kProbeRarest = 256;

  //! The most strings a table grows to hold (64 MiB of slots).
  static constexpr size_t kGrownLimit = size_t{1} << 21;

  //! `expected`: about how many strings the interner will be given (0: unknown). Once the table is
  //! full, a column whose repeats the table would find if it held every distinct string (the hit
  //! rate of the full table tells how many there are; its remaining strings are at least twice as
  //! many) grows the table to hold them, up to kGrownLimit (never below `table_limit`).
  explicit StringInterner(size_t table_limit = kTableLimit, uint64_t expected = 0)
      : table_limit_(std::max<size_t>(table_limit, 1)), expected_(expected) {}
  //! The local code of `s`. A string the table takes is copied into the interner's memory (so
  //! finding a repeated string reads no scattered input); one past the table is kept as a view when
  //! `stable` (its bytes stay valid until the merge is done, e.g. a field of the input read in
  //! place), else copied.
  int32_t intern(std::string_view s, bool stable = false) { return intern_hashed(s, stable, nullptr); }
  //! A string read in place (as intern()'s `stable`) and where its local code goes.
  struct Request {
    std::string_view s;
    int32_t* code;
  };
  //! The strings interned in order, as intern(s, true) each, and each local code written: the
  //! table's memory is fetched for several strings at a time (their lookups overlap their misses).
  void intern_batch(const Request* requests, size_t n);
  //! The requests intern_batch() looks up together.
  static constexpr size_t kBatch = 32;
  //! The first step of intern_batch() for n <= kBatch requests, when the table is looked in: each
  //! string's hash into `hashes`, and its slot fetched. Returns whether it did (else `hashes` is
  //! not written).
  bool hash_batch(const Request* requests, size_t n, uint64_t* hashes) const noexcept;
  //! The second step: the copies in the slots of the n hashes fetched (they are probably compared).
  void fetch_copies(const uint64_t* hashes, size_t n) const noexcept;
  //! The last step: the strings interned in order and their codes written (`hashes`: from
  //! hash_batch(), or nullptr when it did not hash them); the table may have changed since.
  void intern_hashed_batch(const Request* requests, size_t n, const uint64_t* hashes);
  //! The number of local codes given.
  size_t size() const noexcept { return size_; }
  //! The bytes of the strings of all local codes.
  uint64_t bytes() const noexcept { return bytes_; }
  //! The string of a local code (a string past the table may have more than one code).
  std::string_view value(size_t code) const noexcept {
    return unpack(values_[code >> kBlockBits][code & (kBlock - 1)]);
  }
  //! The 8 bytes value(code) reads first (where its string lies, and its size): a copy kept
  //! elsewhere (the merge's entries) gives the string by unpack() without that read.
  uint64_t packed(size_t code) const noexcept { return values_[code >> kBlockBits][code & (kBlock - 1)]; }
  //! The string of packed(code).
  std::string_view unpack(uint64_t v) const noexcept {
    const uint64_t size = v & kFar;
    if (size == kFar) [[unlikely]]
      return far_[v >> 24];
    return {reinterpret_cast<const char*>(base_ + (v >> 24)), size};
  }
  //! Calls f(code, value(code)) for every code in [from, to) (to <= size()) in increasing order.
  template <class F>
  void for_each(size_t from, size_t to, F&& f) const {
    for (size_t code = from; code < to;) {
      const uint64_t* block = values_[code >> kBlockBits].get();
      const size_t end = std::min(to, (code | (kBlock - 1)) + 1);
      for (; code < end; ++code) f(code, unpack(block[code & (kBlock - 1)]));
    }
  }
  //! Calls f(code, value(code)) for every code in increasing order.
  template <class F>
  void for_each(F&& f) const {
    for_each(0, size_, f);
  }

 private:
  // A slot of the table: empty when `record` is null, else the hash's high 32 bits above the local
  // code, and the string's copy (its length, then its bytes): a lookup reads the slot and the copy.
  struct Slot {
    uint64_t tag_code = 0;
    const char* record = nullptr;
  };
  // A value in 8 bytes: its address's offset from base_ above its size (24 bits); or, for a string
  // of kFar bytes or more, or before base_ or 2^40 bytes past it (the copies the table holds), kFar
  // in the size's bits below its index in far_.
  static constexpr uint64_t kFar = (uint64_t{1} << 24) - 1;
  // The values are kept in blocks of kBlock values: growing copies nothing.
  static constexpr unsigned kBlockBits = 16;
  static constexpr size_t kBlock = size_t{1} << kBlockBits;
  // Lookups in the full table between two decisions whether to pass it by.
  static constexpr uint32_t kWindow = 1u << 14;

  void grow();
  void decide();  // at the end of a window of lookups in the full table: grow it, pass it by, or not
  int32_t intern_hashed(std::string_view s, bool stable, const uint64_t* hash);  // hash: hash_string(s) if known
  const char* keep(std::string_view s);          // the copy of `s`: its length (uint32), then its bytes
  int32_t add(std::string_view s, bool stable);  // a new code for `s` (kept as given; `stable`: a view of the input)

  std::vector<std::unique_ptr<uint64_t[]>> values_;  // by local code, in blocks
  std::vector<std::string_view> far_;                // the values not kept in 8 bytes
  uintptr_t base_ = 0;                               // 2^39 bytes before the first view of the input
  bool based_ = false;
  size_t size_ = 0;
  uint64_t bytes_ = 0;
  std::vector<uint64_t> hashes_;      // hash_string() of each string in the table,
  std::vector<int32_t> table_codes_;  // and its code
  std::vector<Slot> slots_;           // a power of two in size
  size_t table_limit_ = kTableLimit, in_table_ = 0;
  // Once the table is full: lookups and repeats found in this window, whether it is passed by, and
  // the strings since the last one that looked there.
  uint32_t window_lookups_ = 0, window_hits_ = 0, skipped_ = 0;
  bool bypass_ = false;
  uint32_t probe_every_ = kProbeEvery;           // while passed by, one string in this many looks there
  uint64_t expected_ = 0, seen_ = 0;             // strings expected, and given so far
  std::vector<std::unique_ptr<char[]>> blocks_;  // the copies; the last one is being filled
  std::vector<std::unique_ptr<char[]>> long_;    // one per long string
  size_t block_size_ = 0, block_used_ = 0;       // of the last block
};

//! Strings read in place interned through a pipeline of three batches of kBatch: a batch's hashes
//! are computed and its slots fetched when it fills, the copies in those slots fetched when the next
//! one fills, and it is interned when the one after that fills (so the lookups find their memory
//! arrived while the caller did other work). Codes are written by finish() at the latest.
class InternPipeline {
 public:
  //! Interns `s` (read in place, as intern(s, true)) and writes its code to `*code` later.
  void add(StringInterner& interner, std::string_view s, int32_t* code) {
    if (!batches_) batches_ = std::make_unique<Batch[]>(3);
    Batch& b = batches_[filling_];
    b.requests[b.n++] = {s, code};
    if (b.n == StringInterner::kBatch) advance(interner);
  }
  //! Every request waiting interned, its code written.
  void finish(StringInterner& interner);
  //! Every request waiting dropped (its code not written).
  void clear() noexcept;

 private:
  struct Batch {
    StringInterner::Request requests[StringInterner::kBatch];
    uint64_t hashes[StringInterner::kBatch];
    size_t n = 0;
    bool hashed = false;
  };
  void advance(StringInterner& interner);  // the filled batch hashed, the one before fetched, the oldest interned

  std::unique_ptr<Batch[]> batches_;  // three, from the first add() on (a parser has a pipeline per column)
  unsigned filling_ = 0;              // the batch being filled; the one after it (mod 3) is the oldest
};

//! The sorted dictionary of every interner's strings, and for each interner the dictionary code of
//! each of its local codes. Error(InvalidInput) naming `column` past 2^31 - 1 distinct strings.
struct MergedDictionary {
  std::shared_ptr<const Dictionary> dictionary;  //!< sorted, distinct
  std::vector<int32_t> codes;                    //!< every part's local codes' dictionary codes, part after part
  std::vector<uint64_t> starts;                  //!< where each part's codes start in `codes` (one per part)
  //! The dictionary codes of part `part`'s local codes: code_of(part)[local code].
  const int32_t* code_of(size_t part) const noexcept { return codes.data() + starts[part]; }
};

//! Memory merge_dictionaries() works in, kept between the merges of one load (the columns of a
//! CSV file): fresh memory costs the kernel a page of zeros for every page. A merge sorts its
//! strings in it and then, when the dictionary's bytes fill at least half of it, writes them there
//! and hands it over (the next merge takes fresh memory); otherwise the next merge reuses it.
class MergeWorkspace {
 public:
  //! At least `bytes` bytes (16-byte aligned), kept for the next call; earlier contents are lost.
  //! New memory is asked for in huge pages when `huge`.
  void* bytes(size_t bytes, bool huge);
  //! The memory, handed over, when `bytes` fill at least half of it (its pages past them given
  //! back); else nullptr.
  std::unique_ptr<char[]> take(size_t bytes);
  //! Gives the memory back, its pages dropped on up to `threads` threads first.
  void release(unsigned threads) noexcept;

 private:
  std::unique_ptr<char[]> memory_;
  size_t size_ = 0;
};

//! How merge_dictionaries() splits its work (the result does not depend on it).
struct MergeOptions {
  unsigned threads = 0;                 //!< threads; 0: std::thread::hardware_concurrency()
  uint64_t ranges = 0;                  //!< key ranges the strings are split into; 0: automatic (tests force a count)
  MergeWorkspace* workspace = nullptr;  //!< memory to reuse; nullptr: the merge's own
};

//! Merges the interners on all threads: every interner's strings are split into key ranges by a
//! sorted sample; each range sorts its strings (radix sort on 8 bytes at a time), numbers the
//! distinct ones after the ranges before it and gives every local code its string's number; each
//! interner then copies the strings first met in it into the dictionary, in its own order.
MergedDictionary merge_dictionaries(const std::vector<const StringInterner*>& parts, const MergeOptions& options,
                                    std::string_view column);

//! A 64-bit hash of a string (8 bytes at a time).
uint64_t hash_string(std::string_view s) noexcept;

}  // namespace gfxq::detail
