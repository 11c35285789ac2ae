#include "vk/engine/column_facts.h"

#include <algorithm>
#include <vector>

namespace gfxq::vk {

namespace {

ColumnFacts facts_of(const std::vector<int32_t>& v) {
  ColumnFacts f;
  f.rows = v.size();
  if (v.empty()) return f;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  f.min = *lo;
  f.max = *hi;
  const uint64_t range = uint64_t(int64_t(f.max) - f.min) + 1;
  if (range < ColumnFacts::kUniqueCheckRange && range >= v.size()) {
    std::vector<uint64_t> seen((range + 63) / 64, 0);
    f.unique = true;
    for (int32_t x : v) {
      const uint64_t b = uint64_t(int64_t(x) - f.min);
      uint64_t& w = seen[b / 64];
      const uint64_t bit = uint64_t(1) << (b % 64);
      if (w & bit) {
        f.unique = false;
        break;
      }
      w |= bit;
    }
  }
  return f;
}

}  // namespace

const ColumnFacts& ColumnFactsCache::get(const ResidentKey& key, const Column& column) {
  if (auto it = facts_.find(key); it != facts_.end()) return it->second;
  std::erase_if(facts_, [&](const auto& e) { return e.first.table == key.table && e.first.version != key.version; });
  return facts_.emplace(key, facts_of(column.as<int32_t>())).first->second;
}

}  // namespace gfxq::vk
