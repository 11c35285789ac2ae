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
//! mostly distinct strings is not hashed into a large table only to be merged again).
class StringInterner {
 public:
  //! Strings the table holds at most, by default (1 MiB of slots).
  static constexpr size_t kTableLimit = size_t{1} << 15;

  explicit StringInterner(size_t table_limit = kTableLimit) : table_limit_(std::max<size_t>(table_limit, 1)) {}
  //! The local code of `s`. A string the table takes is copied into the interner's memory (so
  //! finding a repeated string reads no scattered input); one past the table is kept as a view when
  //! `stable` (its bytes stay valid until the merge is done, e.g. a field of the input read in
  //! place), else copied.
  int32_t intern(std::string_view s, bool stable = false);
  //! The strings, indexed by local code (a string past the table may appear more than once).
  const std::vector<std::string_view>& values() const noexcept { return values_; }
  //! hash_string() of each string, indexed by local code.
  const std::vector<uint64_t>& hashes() const noexcept { return hashes_; }

 private:
  // A slot of the table: empty when `record` is null, else the hash's high 32 bits above the local
  // code, and the string's copy (its length, then its bytes): a lookup reads the slot and the copy.
  struct Slot {
    uint64_t tag_code = 0;
    const char* record = nullptr;
  };

  void grow();
  const char* keep(std::string_view s);  // the copy of `s`: its length (uint32), then its bytes

  std::vector<std::string_view> values_;
  std::vector<uint64_t> hashes_;
  std::vector<Slot> slots_;  // a power of two in size
  size_t table_limit_ = kTableLimit, in_table_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_;  // the copies; the last one is being filled
  std::vector<std::unique_ptr<char[]>> long_;    // one per long string
  size_t block_size_ = 0, block_used_ = 0;       // of the last block
};

//! The sorted dictionary of every interner's strings, and for each interner the dictionary code of
//! each of its local codes. Error(InvalidInput) naming `column` past 2^31 - 1 distinct strings.
struct MergedDictionary {
  std::shared_ptr<const Dictionary> dictionary;  //!< sorted, distinct
  std::vector<std::vector<int32_t>> code_of;     //!< code_of[part][local code] = dictionary code
};

//! How merge_dictionaries() splits its work (the result does not depend on it).
struct MergeOptions {
  unsigned threads = 0;  //!< threads; 0: std::thread::hardware_concurrency()
  uint64_t ranges = 0;   //!< key ranges the strings are split into; 0: automatic (tests force a count)
};

//! Merges the interners on all threads: every interner's strings are split into key ranges by a
//! sorted sample; each range drops its repeats through a hash table, sorts what is left and numbers
//! it after the ranges before it.
MergedDictionary merge_dictionaries(const std::vector<const StringInterner*>& parts, const MergeOptions& options,
                                    std::string_view column);

//! A 64-bit hash of a string (8 bytes at a time).
uint64_t hash_string(std::string_view s) noexcept;

}  // namespace gfxq::detail
