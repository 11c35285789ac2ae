#include "core/string_interner.h"

#include <algorithm>
#include <cstring>
#include <numeric>
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

void StringInterner::clear() {
  values_.clear();
  std::fill(slots_.begin(), slots_.end(), 0);
  long_.clear();
  block_used_ = 0;
  blocks_in_use_ = 0;
}

std::string_view StringInterner::keep(std::string_view s) {
  constexpr size_t kBlock = 64 * 1024;
  if (s.size() > kBlock / 4) {  // a long string gets storage of its own
    long_.push_back(std::make_unique<char[]>(s.size()));
    std::memcpy(long_.back().get(), s.data(), s.size());
    return {long_.back().get(), s.size()};
  }
  if (blocks_in_use_ == 0 || block_used_ + s.size() > kBlock) {
    if (blocks_in_use_ == blocks_.size()) blocks_.push_back(std::make_unique<char[]>(kBlock));
    ++blocks_in_use_;
    block_used_ = 0;
  }
  char* at = blocks_[blocks_in_use_ - 1].get() + block_used_;
  std::memcpy(at, s.data(), s.size());
  block_used_ += s.size();
  return {at, s.size()};
}

void StringInterner::grow() {
  const size_t size = slots_.empty() ? 1024 : slots_.size() * 2;
  slots_.clear();
  resize_huge(slots_, size);
  const size_t mask = size - 1;
  for (size_t code = 0; code < values_.size(); ++code) {
    const uint64_t h = hash_string(values_[code]);
    size_t slot = h & mask;
    while (slots_[slot] != 0) slot = (slot + 1) & mask;
    slots_[slot] = (h & 0xffffffff00000000ull) | (code + 1);
  }
}

int32_t StringInterner::intern(std::string_view s) {
  if ((values_.size() + 1) * 2 > slots_.size()) grow();  // load factor at most 1/2
  const uint64_t h = hash_string(s);
  const uint64_t tag = h & 0xffffffff00000000ull;
  const size_t mask = slots_.size() - 1;
  size_t slot = h & mask;
  for (;;) {
    const uint64_t e = slots_[slot];
    if (e == 0) break;
    if ((e & 0xffffffff00000000ull) == tag) {
      const size_t code = (e & 0xffffffffu) - 1;
      if (values_[code] == s) return static_cast<int32_t>(code);
    }
    slot = (slot + 1) & mask;
  }
  if (values_.size() >= static_cast<size_t>(INT32_MAX))
    throw Error(ErrorCode::InvalidInput, "more than 2^31 - 1 distinct strings in one string column");
  const auto code = static_cast<int32_t>(values_.size());
  if (values_.size() == values_.capacity()) {  // grow by doubling, in huge pages once large
    std::vector<std::string_view> grown;
    grown.reserve(std::max<size_t>(256, values_.size() * 2));
    advise_huge_pages(grown.data(), grown.capacity() * sizeof(std::string_view));
    grown.assign(values_.begin(), values_.end());
    values_.swap(grown);
  }
  values_.push_back(keep(s));
  slots_[slot] = tag | (static_cast<uint64_t>(code) + 1);
  return code;
}

namespace {

// A string of a part: its first 8 bytes as a big-endian number (most comparisons end there) and
// where the rest is.
struct Entry {
  uint64_t prefix;
  uint32_t part;
  int32_t local;
};

uint64_t prefix_of(std::string_view s) {
  unsigned char b[8] = {};
  std::memcpy(b, s.data(), std::min<size_t>(8, s.size()));
  uint64_t p = 0;
  for (unsigned char c : b) p = (p << 8) | c;
  return p;
}

}  // namespace

MergedDictionary merge_dictionaries(const std::vector<const StringInterner*>& parts, unsigned threads,
                                    std::string_view column) {
  MergedDictionary merged;
  merged.code_of.resize(parts.size());
  uint64_t total = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    resize_huge(merged.code_of[p], parts[p]->values().size());
    total += parts[p]->values().size();
  }
  const auto value = [&](const Entry& e) { return parts[e.part]->values()[static_cast<size_t>(e.local)]; };
  const auto before = [&](const Entry& a, const Entry& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    return value(a) < value(b);
  };
  // Key ranges from a sorted sample: range r holds the strings s with splitters[r-1] < s <= splitters[r].
  const uint64_t ranges = std::clamp<uint64_t>(total / 16384, 1, 8 * uint64_t{threads});
  std::vector<Entry> splitters;
  if (ranges > 1) {
    const uint64_t step = std::max<uint64_t>(1, total / (ranges * 32));
    std::vector<Entry> sample;
    uint64_t i = 0;
    for (size_t p = 0; p < parts.size(); ++p)
      for (size_t k = 0; k < parts[p]->values().size(); ++k)
        if (i++ % step == 0)
          sample.push_back({prefix_of(parts[p]->values()[k]), static_cast<uint32_t>(p), static_cast<int32_t>(k)});
    std::sort(sample.begin(), sample.end(), before);
    for (uint64_t r = 1; r < ranges; ++r) splitters.push_back(sample[r * sample.size() / ranges]);
  }
  // Scatter every part's strings to their ranges: count, offsets, then write.
  std::vector<std::vector<uint64_t>> count(parts.size(), std::vector<uint64_t>(ranges, 0));
  std::vector<std::vector<uint32_t>> range(parts.size());
  parallel_for(parts.size(), threads, [&](size_t p) {
    const auto& values = parts[p]->values();
    range[p].resize(values.size());
    for (size_t k = 0; k < values.size(); ++k) {
      const Entry e{prefix_of(values[k]), static_cast<uint32_t>(p), static_cast<int32_t>(k)};
      range[p][k] =
          static_cast<uint32_t>(std::lower_bound(splitters.begin(), splitters.end(), e, before) - splitters.begin());
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
  std::vector<Entry> entries;
  resize_huge(entries, total);
  parallel_for(parts.size(), threads, [&](size_t p) {
    const auto& values = parts[p]->values();
    for (size_t k = 0; k < values.size(); ++k)
      entries[at[p][range[p][k]]++] = {prefix_of(values[k]), static_cast<uint32_t>(p), static_cast<int32_t>(k)};
    range[p] = {};
  });
  // Sort each range, count its distinct strings, then number them after the ranges before it.
  std::vector<uint64_t> distinct(ranges + 1, 0);
  parallel_for(ranges, threads, [&](size_t r) {
    const auto first = entries.begin() + static_cast<ptrdiff_t>(range_start[r]);
    const auto last = entries.begin() + static_cast<ptrdiff_t>(range_start[r + 1]);
    std::sort(first, last, before);
    uint64_t n = 0;
    for (auto e = first; e != last; ++e)
      if (e == first || e->prefix != (e - 1)->prefix || value(*e) != value(*(e - 1))) ++n;
    distinct[r + 1] = n;
  });
  for (uint64_t r = 0; r < ranges; ++r) distinct[r + 1] += distinct[r];
  if (distinct[ranges] > static_cast<uint64_t>(INT32_MAX))
    throw Error(ErrorCode::InvalidInput,
                "string column '" + std::string(column) + "' holds more than 2^31 - 1 distinct values");
  auto dictionary = std::make_shared<Dictionary>();
  dictionary->values.resize(distinct[ranges]);
  parallel_for(ranges, threads, [&](size_t r) {
    int64_t code = static_cast<int64_t>(distinct[r]) - 1;
    for (uint64_t k = range_start[r]; k < range_start[r + 1]; ++k) {
      const Entry& e = entries[k];
      if (k == range_start[r] || e.prefix != entries[k - 1].prefix || value(e) != value(entries[k - 1]))
        dictionary->values[static_cast<size_t>(++code)] = value(e);
      merged.code_of[e.part][static_cast<size_t>(e.local)] = static_cast<int32_t>(code);
    }
  });
  merged.dictionary = std::move(dictionary);
  return merged;
}

}  // namespace gfxq::detail
