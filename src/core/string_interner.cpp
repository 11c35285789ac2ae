#include "core/string_interner.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/huge_pages.h"
#include "core/parallel.h"
#include "gfxq/error.h"

namespace gfxq::detail {

uint64_t hash_string(std::string_view s) noexcept {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
  uint64_t h = s.size() * kMul;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  if (i < s.size()) {
    uint64_t w = 0;
    std::memcpy(&w, s.data() + i, s.size() - i);
    h = (h ^ w) * kMul;
  }
  // fmix64: every input bit reaches the low bits the table indexes with.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

namespace {

// Appends `x`, growing `v` by doubling, in huge pages once large.
template <class T>
void push_back_huge(std::vector<T>& v, const T& x) {
  if (v.size() == v.capacity()) {
    std::vector<T> grown;
    grown.reserve(std::max<size_t>(256, v.size() * 2));
    advise_huge_pages(grown.data(), grown.capacity() * sizeof(T));
    grown.assign(v.begin(), v.end());
    v.swap(grown);
  }
  v.push_back(x);
}

}  // namespace

const char* StringInterner::keep(std::string_view s) {
  // Blocks double from 64 KiB to 4 MiB: few allocations (each may take the process's memory map
  // lock, which stalls every other thread's page faults).
  const size_t bytes = sizeof(uint32_t) + s.size();
  char* at = nullptr;
  if (bytes > (64u << 10) / 4) {  // a long string gets storage of its own
    long_.push_back(std::make_unique_for_overwrite<char[]>(bytes));
    at = long_.back().get();
  } else {
    if (blocks_.empty() || block_used_ + bytes > block_size_) {
      block_size_ = blocks_.empty() ? (64u << 10) : std::min<size_t>(block_size_ * 2, 4u << 20);
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(block_size_));
      advise_huge_pages(blocks_.back().get(), block_size_);
      block_used_ = 0;
    }
    at = blocks_.back().get() + block_used_;
    block_used_ += bytes;
  }
  const auto size = static_cast<uint32_t>(s.size());
  std::memcpy(at, &size, sizeof size);
  std::memcpy(at + sizeof size, s.data(), s.size());
  return at;
}

void StringInterner::grow() {
  const size_t size = slots_.empty() ? 1024 : slots_.size() * 2;
  slots_.clear();
  resize_huge(slots_, size);
  const size_t mask = size - 1;
  // Every string so far is in the table (it grows only before it is full), and its hash is kept:
  // growing reads no string.
  for (size_t code = 0; code < hashes_.size(); ++code) {
    const uint64_t h = hashes_[code];
    size_t slot = h & mask;
    while (slots_[slot].record) slot = (slot + 1) & mask;
    slots_[slot] = {(h & 0xffffffff00000000ull) | code, values_[code].data() - sizeof(uint32_t)};
  }
}

int32_t StringInterner::intern(std::string_view s, bool stable) {
  if (s.size() > UINT32_MAX)
    throw Error(ErrorCode::InvalidInput, "a string of " + std::to_string(s.size()) + " bytes (at most 2^32 - 1)");
  if (in_table_ < table_limit_ && (in_table_ + 1) * 2 > slots_.size()) grow();  // load factor at most 1/2
  const uint64_t h = hash_string(s);
  const uint64_t tag = h & 0xffffffff00000000ull;
  const size_t mask = slots_.size() - 1;
  size_t slot = h & mask;
  for (; slots_[slot].record; slot = (slot + 1) & mask) {
    const Slot& e = slots_[slot];
    if ((e.tag_code & 0xffffffff00000000ull) != tag) continue;
    uint32_t size = 0;
    std::memcpy(&size, e.record, sizeof size);
    if (size == s.size() && std::memcmp(e.record + sizeof size, s.data(), s.size()) == 0)
      return static_cast<int32_t>(e.tag_code & 0xffffffffu);
  }
  if (values_.size() >= static_cast<size_t>(INT32_MAX))
    throw Error(ErrorCode::InvalidInput, "more than 2^31 - 1 strings in one string column for one thread");
  const auto code = static_cast<int32_t>(values_.size());
  push_back_huge(hashes_, h);
  if (in_table_ < table_limit_) {
    const char* record = keep(s);
    push_back_huge(values_, std::string_view(record + sizeof(uint32_t), s.size()));
    slots_[slot] = {tag | static_cast<uint64_t>(code), record};
    ++in_table_;
  } else {  // the table is full: a new code each time; the merge finds the repeats
    push_back_huge(values_, stable ? s : std::string_view(keep(s) + sizeof(uint32_t), s.size()));
  }
  return code;
}

namespace {

// The first 8 bytes of a string as a big-endian number (zero-padded): most comparisons end there.
uint64_t prefix_of(std::string_view s) {
  unsigned char b[8] = {};
  std::memcpy(b, s.data(), std::min<size_t>(8, s.size()));
  uint64_t p = 0;
  for (unsigned char c : b) p = (p << 8) | c;
  return p;
}

// A string of a part, as the merge moves it to its key range: its prefix, its hash and whose it is.
struct Entry {
  uint64_t prefix;
  uint64_t hash;
  uint32_t part;
  int32_t local;
};

// A distinct string of a key range: its prefix, its bytes, and the number the range's hash table
// gave it (in first-seen order).
struct Item {
  uint64_t prefix;
  std::string_view view;
  uint32_t id;
};

// How many strings ahead the merge's loops ask for the memory they will read.
constexpr uint64_t kAhead = 16;

// Byte-wise (memcmp) order: the prefixes, then the whole strings when the prefixes are equal.
bool before(const Item& a, const Item& b) {
  if (a.prefix != b.prefix) return a.prefix < b.prefix;
  return a.view < b.view;
}

}  // namespace

MergedDictionary merge_dictionaries(const std::vector<const StringInterner*>& parts, const MergeOptions& options,
                                    std::string_view column) {
  const unsigned threads = worker_count(options.threads);
  MergedDictionary merged;
  merged.code_of.resize(parts.size());
  uint64_t total = 0;
  for (const StringInterner* part : parts) total += part->values().size();
  const auto value = [&](const Entry& e) { return parts[e.part]->values()[static_cast<size_t>(e.local)]; };

  // Key ranges from a sorted sample: range r holds the strings s with splitters[r-1] < s <= splitters[r].
  // Equal strings fall in the same range, so each range finds its repeats on its own.
  const uint64_t ranges =
      total == 0 ? 1
                 : (options.ranges ? options.ranges : std::clamp<uint64_t>(total / 32768, 1, 32 * uint64_t{threads}));
  std::vector<Item> splitters;
  if (ranges > 1) {
    const uint64_t step = std::max<uint64_t>(1, total / (ranges * 32));
    std::vector<Item> sample;
    uint64_t first = 0;  // the global index of the part's first string
    for (const StringInterner* part : parts) {
      const auto& values = part->values();
      for (uint64_t g = (first + step - 1) / step * step; g < first + values.size(); g += step) {
        const std::string_view s = values[static_cast<size_t>(g - first)];
        sample.push_back({prefix_of(s), s, 0});
      }
      first += values.size();
    }
    std::sort(sample.begin(), sample.end(), before);
    for (uint64_t r = 1; r < ranges; ++r) splitters.push_back(sample[r * sample.size() / ranges]);
  }

  // Each part's strings to their ranges: count, offsets, then write (range by range).
  std::vector<std::vector<uint64_t>> count(parts.size(), std::vector<uint64_t>(ranges, 0));
  std::vector<std::vector<uint32_t>> range(parts.size());
  parallel_for(parts.size(), threads, [&](size_t p) {
    const auto& values = parts[p]->values();
    resize_huge(merged.code_of[p], values.size());
    if (ranges == 1) {
      count[p][0] = values.size();
      return;
    }
    resize_huge(range[p], values.size());
    for (size_t k = 0; k < values.size(); ++k) {
      const Item item{prefix_of(values[k]), values[k], 0};
      range[p][k] =
          static_cast<uint32_t>(std::lower_bound(splitters.begin(), splitters.end(), item, before) - splitters.begin());
      ++count[p][range[p][k]];
    }
  });
  std::vector<uint64_t> range_start(ranges + 1, 0);
  std::vector<std::vector<uint64_t>> at(parts.size(), std::vector<uint64_t>(ranges));
  uint64_t offset = 0;
  for (uint64_t r = 0; r < ranges; ++r) {
    range_start[r] = offset;
    for (size_t p = 0; p < parts.size(); ++p) {
      at[p][r] = offset;
      offset += count[p][r];
    }
  }
  range_start[ranges] = offset;
  // Not zeroed: every entry is written below, its pages first touched by the threads that write them.
  const std::unique_ptr<Entry[]> entries(new Entry[std::max<uint64_t>(total, 1)]);
  advise_huge_pages(entries.get(), total * sizeof(Entry));
  parallel_for(parts.size(), threads, [&](size_t p) {
    const auto& values = parts[p]->values();
    const auto& hashes = parts[p]->hashes();
    for (size_t k = 0; k < values.size(); ++k)
      entries[at[p][ranges == 1 ? 0 : range[p][k]]++] = {prefix_of(values[k]), hashes[k], static_cast<uint32_t>(p),
                                                         static_cast<int32_t>(k)};
    range[p] = {};
  });

  // Each range: its distinct strings through a hash table (each entry's code_of holds its string's
  // number there for now), then sorted. Every range's table is small enough for the cache.
  const unsigned workers = worker_count(threads);
  std::vector<std::vector<uint32_t>> slots(workers);   // a worker's hash table: number + 1, 0 when empty
  std::vector<std::vector<uint64_t>> hashes(workers);  // a worker's hash of each number
  std::vector<std::vector<Item>> distinct(ranges);
  std::vector<uint64_t> code_start(ranges + 1, 0);
  parallel_for_workers(ranges, threads, [&](size_t r, unsigned worker) {
    const uint64_t n = range_start[r + 1] - range_start[r];
    size_t size = 16;
    while (size < 2 * n) size *= 2;
    std::vector<uint32_t>& table = slots[worker];
    table.assign(size, 0);
    std::vector<uint64_t>& hash = hashes[worker];
    hash.clear();
    hash.reserve(n);
    std::vector<Item>& items = distinct[r];
    items.reserve(n);  // one allocation (only the pages it fills are touched)
    const size_t mask = size - 1;
    for (uint64_t k = range_start[r]; k < range_start[r + 1]; ++k) {
      // A range's strings are spread over every part: fetch ahead where the next ones are said to be.
      if (k + kAhead < range_start[r + 1]) {
        const Entry& next = entries[k + kAhead];
        __builtin_prefetch(parts[next.part]->values().data() + next.local);
        __builtin_prefetch(merged.code_of[next.part].data() + next.local, 1);
      }
      const Entry& e = entries[k];
      const std::string_view s = value(e);
      size_t slot = e.hash & mask;
      uint32_t id = 0;
      for (;; slot = (slot + 1) & mask) {
        if (table[slot] == 0) {
          id = static_cast<uint32_t>(items.size());
          items.push_back({e.prefix, s, id});
          hash.push_back(e.hash);
          table[slot] = id + 1;
          break;
        }
        id = table[slot] - 1;
        if (hash[id] == e.hash && items[id].prefix == e.prefix && items[id].view == s) break;
      }
      merged.code_of[e.part][static_cast<size_t>(e.local)] = static_cast<int32_t>(id);
    }
    std::sort(items.begin(), items.end(), before);
    code_start[r + 1] = items.size();
  });
  for (uint64_t r = 0; r < ranges; ++r) code_start[r + 1] += code_start[r];
  if (code_start[ranges] > static_cast<uint64_t>(INT32_MAX))
    throw Error(ErrorCode::InvalidInput,
                "string column '" + std::string(column) + "' holds more than 2^31 - 1 distinct values");

  // Each range's strings into the dictionary after the ranges before it, and its entries' numbers
  // turned into dictionary codes.
  auto dictionary = std::make_shared<Dictionary>();
  std::vector<std::string>& strings = dictionary->values;
  // The strings' storage is faulted in on every thread (in huge pages where offered) before one
  // thread constructs the empty strings in it.
  strings.reserve(code_start[ranges]);
  const size_t storage = strings.capacity() * sizeof(std::string);
  advise_huge_pages(strings.data(), storage);
  constexpr size_t kPiece = 2u << 20, kPage = 4096;
  parallel_for((storage + kPiece - 1) / kPiece, threads, [&](size_t i) {
    auto* bytes = reinterpret_cast<volatile char*>(strings.data());
    for (size_t b = i * kPiece; b < std::min(storage, (i + 1) * kPiece); b += kPage) bytes[b] = 0;
  });
  strings.resize(code_start[ranges]);
  parallel_for_workers(ranges, threads, [&](size_t r, unsigned worker) {
    std::vector<Item>& items = distinct[r];
    std::vector<uint32_t>& code = slots[worker];  // the dictionary code of each number
    code.resize(items.size());
    for (size_t k = 0; k < items.size(); ++k) {
      if (k + kAhead < items.size()) __builtin_prefetch(items[k + kAhead].view.data());  // sorted: scattered bytes
      const auto c = static_cast<uint32_t>(code_start[r] + k);
      strings[c].assign(items[k].view);
      code[items[k].id] = c;
    }
    for (uint64_t k = range_start[r]; k < range_start[r + 1]; ++k) {
      if (k + kAhead < range_start[r + 1])
        __builtin_prefetch(merged.code_of[entries[k + kAhead].part].data() + entries[k + kAhead].local, 1);
      int32_t& c = merged.code_of[entries[k].part][static_cast<size_t>(entries[k].local)];
      c = static_cast<int32_t>(code[static_cast<size_t>(c)]);
    }
    items = {};
  });
  merged.dictionary = std::move(dictionary);
  return merged;
}

}  // namespace gfxq::detail
