// GROUP BY: rows bucketed by the order key of their group value.

#include <map>

#include "cpu/internal.h"

namespace gfxq::cpu {

std::vector<Group> group_rows(const Column& key, const std::vector<uint64_t>& rows) {
  // Order keys are equal exactly when values are equal in the total order (FLOAT values are
  // canonicalised first), and an ordered map yields them ascending.
  std::map<uint32_t, std::vector<uint64_t>> buckets;
  for (uint64_t row : rows) buckets[order_key(key, row)].push_back(row);
  std::vector<Group> groups;
  groups.reserve(buckets.size());
  for (auto& [k, members] : buckets) groups.push_back(Group{k, std::move(members)});
  return groups;
}

std::vector<MultiGroup> group_rows(const std::vector<const Column*>& keys, const std::vector<uint64_t>& rows) {
  // Vectors of order keys compare lexicographically, each key in the total order.
  std::map<std::vector<uint32_t>, std::vector<uint64_t>> buckets;
  std::vector<uint32_t> k(keys.size());
  for (uint64_t row : rows) {
    for (size_t c = 0; c < keys.size(); ++c) k[c] = order_key(*keys[c], row);
    buckets[k].push_back(row);
  }
  std::vector<MultiGroup> groups;
  groups.reserve(buckets.size());
  for (auto& [key, members] : buckets) groups.push_back(MultiGroup{key, std::move(members)});
  return groups;
}

}  // namespace gfxq::cpu
