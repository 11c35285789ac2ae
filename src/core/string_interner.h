#pragma once
// Building STRING columns in parallel: each worker interns the strings of its part of the input
// into a StringInterner (local codes in first-seen order, no allocation per repeated value), then
// merge_dictionaries() turns the workers' interners into one sorted gfxq::Dictionary and a table
// per worker from its local codes to the dictionary's codes.

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "gfxq/table.h"

namespace gfxq::detail {

//! Distinct strings in first-seen order, found again by hash (open addressing, linear probing).
class StringInterner {
 public:
  //! The local code of `s`, adding a copy of it when new (kept together in the interner's memory,
  //! so that finding a repeated string reads no scattered input).
  int32_t intern(std::string_view s);
  //! The distinct strings, indexed by local code.
  const std::vector<std::string_view>& values() const noexcept { return values_; }
  //! Forgets every string (the copies' storage is kept for reuse).
  void clear();

 private:
  void grow();
  std::string_view keep(std::string_view s);

  std::vector<std::string_view> values_;
  // A power of two in size; 0 when empty, else the hash's high 32 bits above the local code + 1.
  std::vector<uint64_t> slots_;
  std::vector<std::unique_ptr<char[]>> blocks_;  // 64 KiB each, reused after clear()
  std::vector<std::unique_ptr<char[]>> long_;    // one per long string
  size_t block_used_ = 0, blocks_in_use_ = 0;
};

//! The sorted dictionary of every interner's strings, and for each interner the dictionary code of
//! each of its local codes. Error(InvalidInput) naming `column` past 2^31 - 1 distinct strings.
struct MergedDictionary {
  std::shared_ptr<const Dictionary> dictionary;  //!< sorted, distinct
  std::vector<std::vector<int32_t>> code_of;     //!< code_of[part][local code] = dictionary code
};

//! Merges the interners on up to `threads` threads: a sample sort of every interner's strings into
//! key ranges, each range sorted and its repeats given one code.
MergedDictionary merge_dictionaries(const std::vector<const StringInterner*>& parts, unsigned threads,
                                    std::string_view column);

//! A 64-bit hash of a string (8 bytes at a time).
uint64_t hash_string(std::string_view s) noexcept;

}  // namespace gfxq::detail
