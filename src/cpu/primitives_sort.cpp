// CPU references of the sort-family primitives: std::stable_sort over sort keys.

#include "cpu/primitives_sort.h"

#include <algorithm>
#include <numeric>

#include "core/order_key.h"
#include "gfxq/error.h"

namespace gfxq::cpu {

namespace {

//! Input positions 0..n-1 stably sorted by the sort keys of keys[first, last).
std::vector<uint32_t> sorted_positions(const std::vector<uint32_t>& keys, size_t first, size_t last, SortKeyType type,
                                       SortOrder order) {
  std::vector<uint32_t> pos(last - first);
  std::iota(pos.begin(), pos.end(), uint32_t(first));
  std::stable_sort(pos.begin(), pos.end(), [&](uint32_t a, uint32_t b) {
    return sort_key(type, order, keys[a]) < sort_key(type, order, keys[b]);
  });
  return pos;
}

}  // namespace

uint32_t sort_key(SortKeyType type, SortOrder order, uint32_t raw) noexcept {
  uint32_t u = raw;
  if (type == SortKeyType::I32) u = int_key(std::bit_cast<int32_t>(raw));
  if (type == SortKeyType::F32) u = float_key(std::bit_cast<float>(raw));
  return order == SortOrder::Descending ? ~u : u;
}

uint32_t key_from_sort_key(SortKeyType type, SortOrder order, uint32_t key) noexcept {
  const uint32_t u = order == SortOrder::Descending ? ~key : key;
  if (type == SortKeyType::I32) return std::bit_cast<uint32_t>(int_from_key(u));
  if (type == SortKeyType::F32) return std::bit_cast<uint32_t>(float_from_key(u));
  return u;
}

uint32_t fmix32(uint32_t h) noexcept {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

uint32_t partition_of(const Partitioner& p, SortKeyType type, uint32_t raw) noexcept {
  const uint32_t u = sort_key(type, SortOrder::Ascending, raw);
  if (p.kind == PartitionKind::Hash) return uint32_t((uint64_t(fmix32(u ^ p.seed)) * p.fanout) >> 32);
  return (u >> p.shift) & (p.fanout - 1);
}

void radix_sort(std::vector<uint32_t>& keys, std::vector<uint32_t>* values, SortKeyType type, SortOrder order) {
  const std::vector<uint32_t> pos = sorted_positions(keys, 0, keys.size(), type, order);
  std::vector<uint32_t> k(keys.size()), v(values ? values->size() : 0);
  for (size_t i = 0; i < pos.size(); ++i) {
    k[i] = keys[pos[i]];
    if (values) v[i] = (*values)[pos[i]];
  }
  keys.swap(k);
  if (values) values->swap(v);
}

uint64_t chunk_sort_output_count(uint64_t n, uint32_t chunk, uint32_t keep) noexcept {
  if (chunk == 0) return 0;
  const uint64_t per = (keep == 0 || keep > chunk) ? chunk : keep;
  return n / chunk * per + std::min<uint64_t>(n % chunk, per);
}

void sort_chunks(const std::vector<uint32_t>& keys, const std::vector<uint32_t>* values, uint32_t chunk, uint32_t keep,
                 SortKeyType type, SortOrder order, std::vector<uint32_t>& keys_out,
                 std::vector<uint32_t>* values_out) {
  if (chunk == 0) throw Error(ErrorCode::InvalidInput, "sort_chunks: chunk must be at least 1");
  const uint64_t per = (keep == 0 || keep > chunk) ? chunk : keep;
  keys_out.clear();
  if (values_out) values_out->clear();
  for (size_t first = 0; first < keys.size(); first += chunk) {
    const size_t last = std::min(keys.size(), first + chunk);
    const std::vector<uint32_t> pos = sorted_positions(keys, first, last, type, order);
    for (size_t i = 0; i < pos.size() && i < per; ++i) {
      keys_out.push_back(keys[pos[i]]);
      if (values_out) values_out->push_back(values ? (*values)[pos[i]] : pos[i]);
    }
  }
}

SelectResult radix_select(const std::vector<uint32_t>& keys, uint64_t k, SortKeyType type, SortOrder order) {
  if (k == 0 || k > keys.size())
    throw Error(ErrorCode::InvalidInput,
                "radix_select: k = " + std::to_string(k) + " is not in 1.." + std::to_string(keys.size()));
  std::vector<uint32_t> u(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) u[i] = sort_key(type, order, keys[i]);
  std::nth_element(u.begin(), u.begin() + (k - 1), u.end());
  const uint32_t kth = u[k - 1];
  SelectResult r;
  r.key = key_from_sort_key(type, order, kth);
  for (uint32_t x : u) {
    r.less += x < kth;
    r.equal += x == kth;
  }
  return r;
}

std::vector<uint32_t> split(const std::vector<uint32_t>& keys, const std::vector<uint32_t>* values,
                            const Partitioner& p, SortKeyType type, std::vector<uint32_t>& keys_out,
                            std::vector<uint32_t>* values_out) {
  std::vector<uint32_t> part(keys.size());
  std::vector<uint32_t> offsets(size_t(p.fanout) + 1, 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    part[i] = partition_of(p, type, keys[i]);
    ++offsets[part[i] + 1];
  }
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  std::vector<uint32_t> next(offsets.begin(), offsets.end() - 1);
  keys_out.assign(keys.size(), 0);
  if (values_out) values_out->assign(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t at = next[part[i]]++;
    keys_out[at] = keys[i];
    if (values_out) (*values_out)[at] = values ? (*values)[i] : uint32_t(i);
  }
  return offsets;
}

}  // namespace gfxq::cpu
