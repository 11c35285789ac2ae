#include "core/string_interner.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "core/huge_pages.h"
#include "core/parallel.h"
#include "gfxq/error.h"

namespace gfxq::detail {

namespace {

// The n < 8 bytes at p as a little-endian number, zero above them: two loads of fixed size that
// may overlap (no call, no read past p + n).
uint64_t load_short(const char* p, size_t n) noexcept {
  if (n >= 4) {
    uint32_t low = 0, high = 0;
    std::memcpy(&low, p, 4);
    std::memcpy(&high, p + n - 4, 4);
    return low | uint64_t{high} << ((n - 4) * 8);
  }
  if (n >= 2) {
    uint16_t low = 0, high = 0;
    std::memcpy(&low, p, 2);
    std::memcpy(&high, p + n - 2, 2);
    return low | uint64_t{high} << ((n - 2) * 8);
  }
  return n == 1 ? static_cast<unsigned char>(*p) : 0;
}

// Copies n bytes from `from` to `to` by loads and stores of fixed size that may overlap (short
// strings: no call), writing nothing outside [to, to + n).
void copy_bytes(char* to, const char* from, size_t n) noexcept {
  if (n > 32) {
    std::memcpy(to, from, n);
  } else if (n >= 16) {
    char a[16], b[16];
    std::memcpy(a, from, 16);
    std::memcpy(b, from + n - 16, 16);
    std::memcpy(to, a, 16);
    std::memcpy(to + n - 16, b, 16);
  } else if (n >= 8) {
    uint64_t a = 0, b = 0;
    std::memcpy(&a, from, 8);
    std::memcpy(&b, from + n - 8, 8);
    std::memcpy(to, &a, 8);
    std::memcpy(to + n - 8, &b, 8);
  } else {
    for (size_t i = 0; i < n; ++i) to[i] = from[i];
  }
}

}  // namespace

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
  if (i < s.size()) h = (h ^ load_short(s.data() + i, s.size() - i)) * kMul;
  // fmix64: every input bit reaches the low bits the table indexes with.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

namespace {

// Whether the n bytes at a and at b are equal: short strings by a few word compares, no call.
bool same_bytes(const char* a, const char* b, size_t n) {
  if (n > 32) return std::memcmp(a, b, n) == 0;
  if (n >= 8) {
    uint64_t x = 0, y = 0;
    for (size_t i = 0; i + 8 < n; i += 8) {
      std::memcpy(&x, a + i, 8);
      std::memcpy(&y, b + i, 8);
      if (x != y) return false;
    }
    std::memcpy(&x, a + n - 8, 8);  // the last 8 bytes (overlapping the words before)
    std::memcpy(&y, b + n - 8, 8);
    return x == y;
  }
  if (n >= 4) {
    uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    std::memcpy(&x0, a, 4);
    std::memcpy(&y0, b, 4);
    std::memcpy(&x1, a + n - 4, 4);
    std::memcpy(&y1, b + n - 4, 4);
    return x0 == y0 && x1 == y1;
  }
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
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

int32_t StringInterner::add(std::string_view s, bool stable) {
  if (size_ >= static_cast<size_t>(INT32_MAX))
    throw Error(ErrorCode::InvalidInput, "more than 2^31 - 1 strings in one string column for one thread");
  if ((size_ & (kBlock - 1)) == 0) {
    // Only the pages written are touched (no huge pages: they cost more than they save where the
    // machine's memory is itself lent page by page, as in virtual machines).
    values_.push_back(std::make_unique_for_overwrite<uint64_t[]>(kBlock));
  }
  const auto address = reinterpret_cast<uintptr_t>(s.data());
  if (stable && !based_) {
    base_ = address - std::min<uintptr_t>(address, uintptr_t{1} << 39);
    based_ = true;
  }
  uint64_t packed = 0;
  if (based_ && address >= base_ && address - base_ < (uint64_t{1} << 40) && s.size() < kFar) {
    packed = static_cast<uint64_t>(address - base_) << 24 | s.size();
  } else {
    packed = static_cast<uint64_t>(far_.size()) << 24 | kFar;
    far_.push_back(s);
  }
  values_.back()[size_ & (kBlock - 1)] = packed;
  bytes_ += s.size();
  return static_cast<int32_t>(size_++);
}

void StringInterner::grow() {
  const size_t size = slots_.empty() ? 1024 : slots_.size() * 2;
  slots_.clear();
  resize_huge(slots_, size);
  const size_t mask = size - 1;
  // Every string so far is in the table (it grows only before it is full), and its hash is kept:
  // growing reads no string.
  for (size_t i = 0; i < hashes_.size(); ++i) {
    const uint64_t h = hashes_[i];
    const auto code = static_cast<size_t>(table_codes_[i]);
    size_t slot = h & mask;
    while (slots_[slot].record) slot = (slot + 1) & mask;
    slots_[slot] = {(h & 0xffffffff00000000ull) | code, value(code).data() - sizeof(uint32_t)};
  }
}

int32_t StringInterner::intern_hashed(std::string_view s, bool stable, const uint64_t* hash) {
  if (s.size() > UINT32_MAX)
    throw Error(ErrorCode::InvalidInput, "a string of " + std::to_string(s.size()) + " bytes (at most 2^32 - 1)");
  ++seen_;
  const bool full = in_table_ >= table_limit_;
  if (full && bypass_ && ++skipped_ < probe_every_)
    return add(stable ? s : std::string_view(keep(s) + sizeof(uint32_t), s.size()), stable);
  skipped_ = 0;
  if (!full && (in_table_ + 1) * 2 > slots_.size()) grow();  // load factor at most 1/2
  const uint64_t h = hash ? *hash : hash_string(s);
  const uint64_t tag = h & 0xffffffff00000000ull;
  const size_t mask = slots_.size() - 1;
  size_t slot = h & mask;
  int32_t found = -1;
  for (; slots_[slot].record; slot = (slot + 1) & mask) {
    const Slot& e = slots_[slot];
    if ((e.tag_code & 0xffffffff00000000ull) != tag) continue;
    uint32_t size = 0;
    std::memcpy(&size, e.record, sizeof size);
    if (size == s.size() && same_bytes(e.record + sizeof size, s.data(), s.size())) {
      found = static_cast<int32_t>(e.tag_code & 0xffffffffu);
      break;
    }
  }
  if (full) {
    // Each window of lookups ends in a decision: grow the table, pass it by or look there.
    ++window_lookups_;
    window_hits_ += found >= 0;
    if (window_lookups_ == (bypass_ ? kWindow / kProbeEvery : kWindow)) decide();
    if (found >= 0) return found;
    // The merge finds its repeats.
    return add(stable ? s : std::string_view(keep(s) + sizeof(uint32_t), s.size()), stable);
  }
  if (found >= 0) return found;
  const char* record = keep(s);
  const int32_t code = add(std::string_view(record + sizeof(uint32_t), s.size()), false);
  hashes_.push_back(h);
  table_codes_.push_back(code);
  slots_[slot] = {tag | static_cast<uint64_t>(code), record};
  ++in_table_;
  return code;
}

void StringInterner::decide() {
  const uint64_t lookups = window_lookups_, hits = window_hits_;
  window_lookups_ = window_hits_ = 0;
  // The full table holds a random part of the column's distinct strings (of the strings seen
  // before it filled): it finds about in_table_ / distinct of the lookups.
  if (hits > 0 && expected_ > seen_ && in_table_ < kGrownLimit) {
    const double distinct = static_cast<double>(in_table_) * static_cast<double>(lookups) / static_cast<double>(hits);
    // A table of every distinct string finds at least half of the remaining strings when they are
    // at least 1.6 times as many (with distinct values drawn at random, 1 - (1 - e^-x) / x >= 1/2).
    if (2 * distinct <= static_cast<double>(expected_ - seen_) && distinct > static_cast<double>(in_table_)) {
      table_limit_ = std::min(kGrownLimit, static_cast<size_t>(distinct * 1.5));
      bypass_ = false;
      return;
    }
  }
  // Passed by when fewer than a quarter are found there; while none are, more and more rarely.
  probe_every_ = bypass_ && hits == 0 ? std::min(2 * probe_every_, kProbeRarest) : kProbeEvery;
  bypass_ = hits * 4 < lookups;
}

bool StringInterner::hash_batch(const Request* requests, size_t n, uint64_t* hashes) const noexcept {
  // A batch passing the table by hashes none.
  if ((in_table_ >= table_limit_ && bypass_) || slots_.empty()) return false;
  const size_t mask = slots_.size() - 1;
  for (size_t k = 0; k < n; ++k) {
    hashes[k] = hash_string(requests[k].s);
    __builtin_prefetch(&slots_[hashes[k] & mask]);
  }
  return true;
}

void StringInterner::fetch_copies(const uint64_t* hashes, size_t n) const noexcept {
  if (slots_.empty()) return;
  const size_t mask = slots_.size() - 1;  // the table may have grown since: the fetches only guess
  for (size_t k = 0; k < n; ++k)
    if (const char* record = slots_[hashes[k] & mask].record) __builtin_prefetch(record);
}

void StringInterner::intern_hashed_batch(const Request* requests, size_t n, const uint64_t* hashes) {
  for (size_t k = 0; k < n; ++k) {
    const std::string_view s = requests[k].s;
    // Passing the full table by (as intern_hashed() does), without its call.
    if (bypass_ && in_table_ >= table_limit_ && skipped_ + 1 < probe_every_ && s.size() <= UINT32_MAX) {
      ++skipped_;
      ++seen_;
      *requests[k].code = add(s, true);
      continue;
    }
    *requests[k].code = intern_hashed(s, true, hashes ? &hashes[k] : nullptr);
  }
}

void StringInterner::intern_batch(const Request* requests, size_t n) {
  for (; n > kBatch; requests += kBatch, n -= kBatch) intern_batch(requests, kBatch);
  // The strings' hashes and their slots fetched, then the copies they probably compare with, all
  // requested before any lookup waits for one.
  uint64_t hashes[kBatch];
  const bool hashed = hash_batch(requests, n, hashes);
  if (hashed) fetch_copies(hashes, n);
  intern_hashed_batch(requests, n, hashed ? hashes : nullptr);
}

void InternPipeline::advance(StringInterner& interner) {
  Batch& filled = batches_[filling_];
  filled.hashed = interner.hash_batch(filled.requests, filled.n, filled.hashes);
  Batch& middle = batches_[(filling_ + 2) % 3];
  if (middle.hashed) interner.fetch_copies(middle.hashes, middle.n);
  Batch& oldest = batches_[(filling_ + 1) % 3];
  interner.intern_hashed_batch(oldest.requests, oldest.n, oldest.hashed ? oldest.hashes : nullptr);
  oldest.n = 0;
  oldest.hashed = false;
  filling_ = (filling_ + 1) % 3;
}

void InternPipeline::finish(StringInterner& interner) {
  if (!batches_) return;
  // Oldest first: the batch after the one being filled, then the middle one, then the one filling.
  for (unsigned k = 1; k <= 3; ++k) {
    Batch& b = batches_[(filling_ + k) % 3];
    interner.intern_hashed_batch(b.requests, b.n, b.hashed ? b.hashes : nullptr);
    b.n = 0;
    b.hashed = false;
  }
  filling_ = 0;
}

void InternPipeline::clear() noexcept {
  if (batches_)
    for (size_t k = 0; k < 3; ++k) {
      batches_[k].n = 0;
      batches_[k].hashed = false;
    }
  filling_ = 0;
}

namespace {

// The bytes [at, at + 8) of a string of `size` bytes at `p` as a big-endian number, zero past its end.
uint64_t key_at(const char* p, size_t size, size_t at) {
  uint64_t w = 0;
  if (at + 8 <= size)
    std::memcpy(&w, p + at, 8);
  else if (at < size)
    w = load_short(p + at, size - at);
  return __builtin_bswap64(w);
}

// A splitter of the key ranges (or a string looked up among them): its first 16 bytes as two keys,
// and the string.
struct Splitter {
  uint64_t key0, key1;
  std::string_view view;
};

Splitter splitter_of(std::string_view s, size_t depth = 0) {
  return {key_at(s.data(), s.size(), depth), key_at(s.data(), s.size(), depth + 8), s};
}

// How many bytes `a` and `b` share at their start.
size_t common_prefix(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  return static_cast<size_t>(std::mismatch(a.begin(), a.begin() + static_cast<ptrdiff_t>(n), b.begin()).first -
                             a.begin());
}

// Byte-wise (memcmp) order: the keys, then the whole strings when the keys are equal.
bool before(const Splitter& a, const Splitter& b) {
  if (a.key0 != b.key0) return a.key0 < b.key0;
  if (a.key1 != b.key1) return a.key1 < b.key1;
  return a.view < b.view;
}

// How many of the n ascending keys are below x (or, with `or_equal`, not above x); no branches.
size_t search_keys(const uint64_t* keys, size_t n, uint64_t x, bool or_equal) {
  if (n == 0) return 0;
  const uint64_t* base = keys;
  for (size_t len = n; len > 1; len -= len / 2)
    base = (or_equal ? base[len / 2] <= x : base[len / 2] < x) ? base + len / 2 : base;
  return static_cast<size_t>(base - keys) + (or_equal ? *base <= x : *base < x);
}

// A string of a part as the merge sorts it (24 bytes): 8 of its bytes as a key; in one word its
// index among all parts' strings (part after part), whether it is the first of its string once
// sorted, and its size (kLongSize for a size of kLongSize or more: then read from the part); and
// where its bytes lie (the part's 8-byte value of it, read in order when the entry is written, so
// that reading its bytes in sorted order waits for one scattered read, not two in a row).
struct Entry {
  uint64_t key;     // bytes [depth, depth + 8) (big-endian, zero past the end) while sorted at `depth`
  uint64_t id;      // index << kIndexShift | kFirstBit | size
  uint64_t packed;  // StringInterner::packed() of the string: its bytes found without another read
};

constexpr unsigned kIndexShift = 25;
constexpr uint64_t kFirstBit = uint64_t{1} << 24;
constexpr uint64_t kLongSize = kFirstBit - 1;
// Flags a code in MergedDictionary::codes whose string's copy is its part's to write.
constexpr uint32_t kFirst = 0x80000000u;

// The parts' strings by their index (Entry::id).
struct Strings {
  const std::vector<const StringInterner*>& parts;
  const std::vector<uint64_t>& starts;

  std::string_view view(const Entry& e) const {
    const uint64_t index = e.id >> kIndexShift;
    const auto p = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), index) - starts.begin()) - 1;
    return parts[p]->unpack(e.packed);
  }
  uint64_t size(const Entry& e) const {
    const uint64_t size = e.id & kLongSize;
    return size == kLongSize ? view(e).size() : size;
  }
};

// How many strings ahead the merge's loops ask for the memory they will read.
constexpr size_t kAhead = 16;
// Runs of at most this many entries are sorted by insertion.
constexpr size_t kSmall = 32;
// The widest digit of sort_keys() (its counts fill 32 KiB of the stack).
constexpr int kDigitBits = 11;

// Sets whether an entry is the first of its string.
void mark(Entry& e, bool first) {
  e.id = (e.id & ~kFirstBit) | (first ? kFirstBit : 0);
}

// Calls f(i, view) for i in [0, n) in order with the string of entry at(i), its bytes from `from`
// on asked for kAhead strings before (the entries' strings lie scattered: their misses overlap).
template <class At, class F>
void visit_strings(size_t n, At&& at, size_t from, const Strings& strings, F&& f) {
  std::string_view ahead[kAhead];
  const auto fetch = [&](size_t i) {
    const std::string_view s = strings.view(at(i));
    __builtin_prefetch(s.data() + std::min(from, s.size()));
    ahead[i % kAhead] = s;
  };
  for (size_t i = 0; i < std::min(n, kAhead); ++i) fetch(i);
  for (size_t i = 0; i < n; ++i) {
    const std::string_view s = ahead[i % kAhead];
    if (i + kAhead < n) fetch(i + kAhead);
    f(i, s);
  }
}

// Sorts the n entries at `e` by their keys alone (tied keys in any order; no string read). `other`
// is as many entries in the other of two buffers, at the same place; the sorted entries end in
// `e`'s buffer when `home`, else in `other`'s. Most significant bits first: the bits every key
// shares are skipped at once, the entries are scattered by the next bits (a digit of about
// log2(n) - 3 bits, 4 to kDigitBits: about 8 entries a bucket where keys spread evenly, so most
// buckets go to insertion next, and a digit need not stop at a byte's end, where the bytes of text
// use few of their values) into the other buffer (no copy back: the buffers swap roles), and each
// bucket is sorted likewise (the largest by the loop; each call sorts on later bits, so the
// recursion is at most 16 deep).
void sort_keys(Entry* e, Entry* other, size_t n, bool home) {
  for (;;) {
    uint64_t diff = 0;
    for (size_t i = 1; i < n; ++i) diff |= e[i].key ^ e[0].key;
    if (n <= kSmall || diff == 0) {
      for (size_t i = 1; i < n && diff != 0; ++i) {
        const Entry x = e[i];
        size_t j = i;
        for (; j > 0 && x.key < e[j - 1].key; --j) e[j] = e[j - 1];
        e[j] = x;
      }
      if (!home) std::copy(e, e + n, other);
      return;
    }
    const int top = 64 - __builtin_clzll(diff);  // keys differ in bit top - 1, agree above it
    const int width = std::min(top, std::clamp(static_cast<int>(std::bit_width(n)) - 3, 4, kDigitBits));
    const int shift = top - width;
    const size_t buckets = size_t{1} << width, mask = buckets - 1;
    size_t start[(1 << kDigitBits) + 1];
    std::fill(start, start + buckets + 1, 0);
    for (size_t i = 0; i < n; ++i) ++start[((e[i].key >> shift) & mask) + 1];
    for (size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
    size_t at[1 << kDigitBits];
    std::copy(start, start + buckets, at);
    for (size_t i = 0; i < n; ++i) other[at[(e[i].key >> shift) & mask]++] = e[i];
    std::swap(e, other);
    home = !home;
    size_t largest = 0;
    for (size_t b = 1; b < buckets; ++b)
      if (start[b + 1] - start[b] > start[largest + 1] - start[largest]) largest = b;
    for (size_t b = 0; b < buckets; ++b)
      if (b != largest && start[b + 1] > start[b])
        sort_keys(e + start[b], other + start[b], start[b + 1] - start[b], home);
    e += start[largest];
    other += start[largest];
    n = start[largest + 1] - start[largest];
  }
}

// A worker's memory for sort_strings(), kept across its ranges.
struct TieScratch {
  struct Work {
    size_t from, n, depth;  // entries [from, from + n) of the range, their strings agreeing before `depth`
  };
  std::vector<Work> work;
  std::vector<size_t> tied;        // where the entries compared lie
  std::unique_ptr<Entry[]> other;  // the other buffer of sort_keys()
};

// Sorts the n entries at `e` (in a range's entries, each key holding its string's bytes [depth,
// depth + 8); the strings agree before `depth`) by their strings, and marks the first entry of each
// string. First by keys alone (sort_keys), then each run of tied keys: its strings that end within
// the key (size <= depth + 8) are whole in their key and size, so they come first, by size, with no
// string read; of the others, a lone one is first of its string too. Where there are more, every
// one is compared with the run's first, those compares of all the runs in one pass whose scattered
// reads overlap (visit_strings): a run whose strings all agree is done (the repeats that reach the
// merge: many when each thread's table is passed by). One that does not is sorted again from the
// bytes all its strings share (their common prefix with the first), its keys refilled; there, and
// further down, runs of tied keys are sorted again 8 bytes further on without compares (a compare
// at every level would read a long string's bytes again at each; refills read each 8 bytes once).
// The work is kept in a list rather than done by recursion (strings sharing a long prefix would
// otherwise recurse once per 8 bytes).
void sort_strings(Entry* e, size_t n, size_t depth, const Strings& strings, TieScratch& scratch) {
  Entry* const other = scratch.other.get();
  std::vector<TieScratch::Work>& work = scratch.work;
  std::vector<size_t>& tied = scratch.tied;
  work.assign(1, {0, n, depth});
  bool first = true;  // the first work: its keys are filled, its runs compared
  while (!work.empty()) {
    const TieScratch::Work w = work.back();
    work.pop_back();
    Entry* const x = e + w.from;
    if (!first)
      visit_strings(
          w.n, [&](size_t i) -> const Entry& { return x[i]; }, w.depth, strings,
          [&](size_t i, std::string_view s) { x[i].key = key_at(s.data(), s.size(), w.depth); });
    sort_keys(x, other + w.from, w.n, true);
    const uint64_t whole = w.depth + 8;  // strings of at most this many bytes are whole in key and size
    tied.clear();
    for (size_t b = 0; b < w.n;) {
      size_t t = b + 1;
      while (t < w.n && x[t].key == x[b].key) ++t;
      if (t - b == 1) {
        mark(x[b], true);
        b = t;
        continue;
      }
      Entry* const rest = std::partition(x + b, x + t, [&](const Entry& y) { return strings.size(y) <= whole; });
      const auto by_size = [&](const Entry& p, const Entry& q) { return strings.size(p) < strings.size(q); };
      if (rest - (x + b) <= static_cast<ptrdiff_t>(kSmall)) {
        for (Entry* y = x + b + 1; y < rest; ++y)
          for (Entry* z = y; z > x + b && by_size(*z, z[-1]); --z) std::swap(*z, z[-1]);
      } else {
        std::sort(x + b, rest, by_size);
      }
      for (Entry* y = x + b; y < rest; ++y) mark(*y, y == x + b || by_size(y[-1], *y));
      const auto first_long = static_cast<size_t>(rest - x);
      if (t - first_long == 1) mark(x[first_long], true);
      if (t - first_long > 1) {
        if (first)
          for (size_t k = first_long; k < t; ++k) tied.push_back(k);
        else
          work.push_back({w.from + first_long, t - first_long, whole});
      }
      b = t;
    }
    first = false;
    // Each run's long strings compared with its first (runs in `tied` differ in key from their
    // neighbours); a run with a string unlike its first becomes work at the bytes they all share.
    size_t lead = 0;  // where the run's first lies in `tied`
    std::string_view lead_view;
    bool mixed = false;
    size_t shared = 0;  // in a mixed run, the least common prefix of its first with the strings compared since
    const auto close = [&](size_t end) {
      if (mixed) work.push_back({w.from + tied[lead], end - lead, shared});
    };
    visit_strings(
        tied.size(), [&](size_t i) -> const Entry& { return x[tied[i]]; }, whole, strings,
        [&](size_t i, std::string_view s) {
          Entry& y = x[tied[i]];
          if (i == 0 || x[tied[i - 1]].key != y.key) {
            if (i > 0) close(i);
            lead = i;
            lead_view = s;
            mixed = false;
            mark(y, true);
            return;
          }
          mark(y, false);
          // Both are longer than `whole`.
          if (!mixed && s.size() == lead_view.size() &&
              same_bytes(s.data() + whole, lead_view.data() + whole, s.size() - whole))
            return;
          const size_t common = whole + common_prefix(s.substr(whole), lead_view.substr(whole));
          shared = mixed ? std::min(shared, common) : common;
          mixed = true;
        });
    if (!tied.empty()) close(tied.size());
  }
}

}  // namespace

void* MergeWorkspace::bytes(size_t bytes, bool huge) {
  if (bytes > size_) {
    memory_.reset();
    memory_ = std::make_unique_for_overwrite<char[]>(bytes);
    if (huge) advise_huge_pages(memory_.get(), bytes);
    size_ = bytes;
  }
  return memory_.get();
}

std::unique_ptr<char[]> MergeWorkspace::take(size_t bytes) {
  if (!memory_ || bytes > size_ || bytes < size_ / 2) return nullptr;
  release_pages(memory_.get() + bytes, size_ - bytes);
  size_ = 0;
  return std::move(memory_);
}

void MergeWorkspace::release(unsigned threads) noexcept {
  advise_parallel(memory_.get(), size_, MADV_DONTNEED, threads);
  memory_.reset();
  size_ = 0;
}

MergedDictionary merge_dictionaries(const std::vector<const StringInterner*>& parts, const MergeOptions& options,
                                    std::string_view column) {
  const unsigned threads = worker_count(options.threads);
  const bool huge = threads >= kHugePageThreads;  // for the codes, the workspace, the offsets and the bytes
  MergedDictionary merged;
  uint64_t total = 0, total_bytes = 0;
  for (const StringInterner* part : parts) {
    merged.starts.push_back(total);
    total += part->size();
    total_bytes += part->bytes();
  }
  if (total >= (uint64_t{1} << (64 - kIndexShift)))
    throw Error(ErrorCode::Internal, "string merge: more than 2^39 strings");
  const Strings strings{parts, merged.starts};
  resize_parallel(merged.codes, total, threads, huge);
  // The entries, then each string's range (by its index), in memory kept between merges; as large as
  // the strings' bytes at least, so that the dictionary's bytes can be written there at the end.
  MergeWorkspace own;
  MergeWorkspace& workspace = options.workspace ? *options.workspace : own;
  const uint64_t entry_bytes = std::max<uint64_t>(total, 1) * sizeof(Entry);
  auto* const memory =
      static_cast<unsigned char*>(workspace.bytes(std::max(entry_bytes + total * sizeof(uint16_t), total_bytes), huge));
  Entry* const entries = reinterpret_cast<Entry*>(memory);
  uint16_t* const range = reinterpret_cast<uint16_t*>(memory + entry_bytes);

  // Key ranges from a sorted sample: range r holds the strings s with splitters[r-1] < s <= splitters[r].
  // Equal strings fall in the same range, so each range finds its repeats on its own. One range per
  // 32768 strings, up to 32 per thread but at least 512 (with few threads, ranges of 32 per thread
  // outgrow the cache: sorting 2^24 unique strings on 2 threads took 13% longer in 64 than in 512).
  const uint64_t ranges =
      total == 0
          ? 1
          : std::min<uint64_t>(UINT16_MAX, options.ranges
                                               ? options.ranges
                                               : std::clamp<uint64_t>(total / 32768, 1,
                                                                      std::max<uint64_t>(512, 32 * uint64_t{threads})));
  std::vector<Splitter> splitters;
  if (ranges > 1) {
    const uint64_t step = std::max<uint64_t>(1, total / (ranges * 32));
    std::vector<Splitter> sample;
    uint64_t first = 0;  // the global index of the part's first string
    for (const StringInterner* part : parts) {
      for (uint64_t g = (first + step - 1) / step * step; g < first + part->size(); g += step) {
        const std::string_view s = part->value(static_cast<size_t>(g - first));
        sample.push_back(splitter_of(s));
      }
      first += part->size();
    }
    std::sort(sample.begin(), sample.end(), before);
    for (uint64_t r = 1; r < ranges; ++r) splitters.push_back(sample[r * sample.size() / ranges]);
  }
  // Every splitter starts with the bytes the first and the last share (`prefix`): a string is
  // searched for by its next 16 bytes, keyed from there, and one that does not start with `prefix`
  // sorts before or after every splitter.
  const size_t common = splitters.empty() ? 0 : common_prefix(splitters.front().view, splitters.back().view);
  const std::string_view prefix = splitters.empty() ? std::string_view() : splitters.front().view.substr(0, common);
  std::vector<uint64_t> keys0, keys1;  // the splitters' bytes [common, common + 8) and the 8 after
  for (Splitter& splitter : splitters) {
    splitter = splitter_of(splitter.view, common);
    keys0.push_back(splitter.key0);
    keys1.push_back(splitter.key1);
  }
  // The bytes every string of a range starts with: those its two splitters share (a string between
  // two strings shares their common prefix). A range is sorted from there on, so strings that
  // differ only further on (numbered names, URLs) are told apart by their first keys.
  std::vector<uint32_t> depth(ranges, 0);
  for (uint64_t r = 1; r + 1 < ranges; ++r)
    depth[r] = static_cast<uint32_t>(common_prefix(splitters[r - 1].view, splitters[r].view));

  // The loops over the parts' strings run in pieces of one part's consecutive strings, about 16 per
  // thread: the parts differ in size (a thread may have parsed more chunks than another), and one
  // thread per part would leave the others waiting for the largest.
  struct Piece {
    size_t part, from, to;
  };
  std::vector<Piece> pieces;
  const uint64_t piece_size = std::max<uint64_t>(uint64_t{1} << 16, total / (16 * uint64_t{threads}) + 1);
  for (size_t p = 0; p < parts.size(); ++p)
    for (size_t from = 0; from < parts[p]->size(); from += piece_size)
      pieces.push_back({p, from, std::min<size_t>(parts[p]->size(), from + piece_size)});

  // Each piece's strings to their ranges: count, offsets, then write (range by range).
  std::vector<std::vector<uint64_t>> count(pieces.size(), std::vector<uint64_t>(ranges, 0));
  parallel_for(pieces.size(), threads, [&](size_t i) {
    const Piece piece = pieces[i];
    if (ranges == 1) {
      count[i][0] = piece.to - piece.from;
      return;
    }
    const size_t p = piece.part;
    uint16_t* const part_range = range + merged.starts[p];
    // The range of a string: the splitters below it by its 8 bytes after `prefix`, found by a search
    // without branches (strings in random order would mispredict them) run for kLanes strings at
    // once (one search is a chain of dependent loads); among splitters that share those bytes, by
    // the next 8 bytes likewise; only among splitters that share both are whole strings compared.
    constexpr size_t kLanes = 8;
    const size_t splitter_count = keys0.size();
    for (size_t first = piece.from; first < piece.to; first += kLanes) {
      const size_t lanes = std::min(kLanes, piece.to - first);
      Splitter item[kLanes] = {};
      size_t base[kLanes] = {}, r[kLanes];
      bool searched[kLanes];
      for (size_t j = 0; j < lanes; ++j) {
        const std::string_view s = parts[p]->value(first + j);
        const size_t shared = std::min(s.size(), common);
        const int order = shared == 0 ? 0 : std::memcmp(s.data(), prefix.data(), shared);
        searched[j] = order == 0 && s.size() >= common;
        r[j] = order > 0 ? splitter_count : 0;  // without `prefix`: after every splitter, or before
        item[j] = searched[j] ? splitter_of(s, common) : Splitter{0, 0, s};
      }
      for (size_t len = splitter_count; len > 1; len -= len / 2)
        for (size_t j = 0; j < kLanes; ++j)
          base[j] = keys0[base[j] + len / 2] < item[j].key0 ? base[j] + len / 2 : base[j];
      for (size_t j = 0; j < lanes; ++j) {
        if (!searched[j]) continue;
        r[j] = base[j] + (keys0[base[j]] < item[j].key0);
        if (r[j] < splitter_count && keys0[r[j]] == item[j].key0) {
          const size_t end0 = search_keys(keys0.data(), splitter_count, item[j].key0, true);
          const size_t low = r[j] + search_keys(keys1.data() + r[j], end0 - r[j], item[j].key1, false);
          r[j] = low;
          if (low < end0 && keys1[low] == item[j].key1) {
            const size_t high = low + search_keys(keys1.data() + low, end0 - low, item[j].key1, true);
            r[j] = static_cast<size_t>(std::lower_bound(splitters.begin() + static_cast<ptrdiff_t>(low),
                                                        splitters.begin() + static_cast<ptrdiff_t>(high), item[j],
                                                        before) -
                                       splitters.begin());
          }
        }
      }
      for (size_t j = 0; j < lanes; ++j) {
        part_range[first + j] = static_cast<uint16_t>(r[j]);
        ++count[i][r[j]];
      }
    }
  });
  std::vector<uint64_t> range_start(ranges + 1, 0);
  std::vector<std::vector<uint64_t>> at(pieces.size(), std::vector<uint64_t>(ranges));
  uint64_t offset = 0, largest = 0;
  for (uint64_t r = 0; r < ranges; ++r) {
    range_start[r] = offset;
    for (size_t i = 0; i < pieces.size(); ++i) {
      at[i][r] = offset;
      offset += count[i][r];
    }
    largest = std::max(largest, offset - range_start[r]);
  }
  range_start[ranges] = offset;
  // The entries are not zeroed: every one is written below (fresh pages first touched by the threads
  // that write them).
  parallel_for(pieces.size(), threads, [&](size_t i) {
    const Piece piece = pieces[i];
    const uint16_t* const part_range = range + merged.starts[piece.part];
    const uint64_t start = merged.starts[piece.part];
    std::vector<uint64_t>& piece_at = at[i];
    const StringInterner* const part = parts[piece.part];
    part->for_each(piece.from, piece.to, [&](size_t k, std::string_view s) {
      const size_t r = ranges == 1 ? 0 : part_range[k];
      entries[piece_at[r]++] = {key_at(s.data(), s.size(), depth[r]),
                                (start + k) << kIndexShift | std::min<uint64_t>(s.size(), kLongSize), part->packed(k)};
    });
  });

  // Each range: its strings sorted, the first entry of each string marked, and its distinct strings
  // and their bytes counted.
  const unsigned workers = worker_count(threads);
  std::vector<TieScratch> scratch(workers);
  std::vector<uint64_t> code_start(ranges + 1, 0), byte_start(ranges + 1, 0);
  parallel_for_workers(ranges, threads, [&](size_t r, unsigned worker) {
    Entry* e = entries + range_start[r];
    const size_t n = range_start[r + 1] - range_start[r];
    TieScratch& tie = scratch[worker];
    if (!tie.other) tie.other = std::make_unique_for_overwrite<Entry[]>(std::max<uint64_t>(largest, 1));
    sort_strings(e, n, depth[r], strings, tie);
    uint64_t distinct = 0, bytes = 0;
    for (size_t k = 0; k < n; ++k) {
      if (e[k].id & kFirstBit) {
        ++distinct;
        bytes += strings.size(e[k]);
      }
    }
    code_start[r + 1] = distinct;
    byte_start[r + 1] = bytes;
  });
  scratch.clear();
  for (uint64_t r = 0; r < ranges; ++r) {
    code_start[r + 1] += code_start[r];
    byte_start[r + 1] += byte_start[r];
  }
  const uint64_t distinct = code_start[ranges], text_bytes = byte_start[ranges];
  if (distinct > static_cast<uint64_t>(INT32_MAX))
    throw Error(ErrorCode::InvalidInput,
                "string column '" + std::string(column) + "' holds more than 2^31 - 1 distinct values");

  // Every local code given its string's dictionary code, each range numbering its distinct strings
  // after the ranges before it (the code of a string's first entry flagged by kFirst), and each
  // distinct string its place in the dictionary's bytes (offsets, in code order).
  std::vector<uint64_t> offsets;
  resize_parallel(offsets, distinct + 1, threads, huge);
  offsets[distinct] = text_bytes;
  int32_t* const codes = merged.codes.data();
  parallel_for(ranges, threads, [&](size_t r) {
    const Entry* e = entries + range_start[r];
    const size_t n = range_start[r + 1] - range_start[r];
    uint64_t code = code_start[r], at = byte_start[r];
    for (size_t k = 0; k < n; ++k) {
      if (k + kAhead < n) __builtin_prefetch(codes + (e[k + kAhead].id >> kIndexShift), 1);  // sorted: scattered
      const bool first = (e[k].id & kFirstBit) != 0;
      if (first) {
        offsets[code] = at;
        at += strings.size(e[k]);
        ++code;
      }
      codes[e[k].id >> kIndexShift] = static_cast<int32_t>(static_cast<uint32_t>(code - 1) | (first ? kFirst : 0));
    }
  });

  // The dictionary's bytes: each part copies the strings whose codes it holds flagged, in the order
  // it interned them (so their bytes are read in about the input's order, not scattered). They go
  // into the workspace (the entries are done with) when they fill at least half of it.
  std::unique_ptr<char[]> text = text_bytes ? workspace.take(text_bytes) : nullptr;
  if (!text && text_bytes) {
    text = std::make_unique_for_overwrite<char[]>(text_bytes);
    if (huge) advise_huge_pages(text.get(), text_bytes);
  }
  parallel_for(pieces.size(), threads, [&](size_t i) {
    const Piece piece = pieces[i];
    int32_t* const part_codes = codes + merged.starts[piece.part];
    const size_t n = parts[piece.part]->size();
    parts[piece.part]->for_each(piece.from, piece.to, [&](size_t k, std::string_view s) {
      if (k + kAhead < n)  // sorted codes: scattered offsets
        __builtin_prefetch(&offsets[static_cast<uint32_t>(part_codes[k + kAhead]) & ~kFirst]);
      if (k + kAhead / 2 < n) {  // and scattered places to write (their offsets asked for earlier)
        const auto ahead = static_cast<uint32_t>(part_codes[k + kAhead / 2]);
        if (ahead & kFirst) __builtin_prefetch(text.get() + offsets[ahead & ~kFirst], 1);
      }
      const auto code = static_cast<uint32_t>(part_codes[k]);
      if (code & kFirst) {
        copy_bytes(text.get() + offsets[code & ~kFirst], s.data(), s.size());
        part_codes[k] = static_cast<int32_t>(code & ~kFirst);
      }
    });
  });
  merged.dictionary = std::make_shared<const Dictionary>(std::move(text), std::move(offsets));
  return merged;
}

}  // namespace gfxq::detail
