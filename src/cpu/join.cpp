// Equi and band joins: the right side sorted by key, each left row binary-searches its range.

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "core/host_memory.h"
#include "core/order_key.h"
#include "cpu/internal.h"

namespace gfxq::cpu {

Pairs join_pairs(const Column& left_key, const Column& right_key, double lo, double hi) {
  const uint64_t n_right = right_key.size();
  std::vector<double> right_values(n_right);
  for (uint64_t row = 0; row < n_right; ++row) right_values[row] = cell_double(right_key, row);
  const auto less = [](double a, double b) { return compare_total(a, b) < 0; };

  // Right row ids ascending by key in the total order.
  std::vector<uint64_t> by_key(n_right);
  std::iota(by_key.begin(), by_key.end(), uint64_t{0});
  std::stable_sort(by_key.begin(), by_key.end(),
                   [&](uint64_t a, uint64_t b) { return less(right_values[a], right_values[b]); });

  // The range of right rows (in key order) that left row l pairs with.
  const auto range = [&](uint64_t l) {
    const double key = cell_double(left_key, l);
    const double from = key + lo, to = key + hi;
    const auto first = std::lower_bound(by_key.begin(), by_key.end(), from,
                                        [&](uint64_t row, double bound) { return less(right_values[row], bound); });
    const auto last = std::upper_bound(first, by_key.end(), to,
                                       [&](double bound, uint64_t row) { return less(bound, right_values[row]); });
    return std::pair{first, last};
  };
  // Count first: a result larger than the host can hold is refused before anything is allocated.
  uint64_t total = 0;
  for (uint64_t l = 0; l < left_key.size(); ++l) {
    const auto [first, last] = range(l);
    total += static_cast<uint64_t>(last - first);
  }
  check_host_bytes(total, 2 * sizeof(uint64_t), 0, "the join's " + std::to_string(total) + " row pairs");

  Pairs pairs;
  pairs.left.reserve(total);
  pairs.right.reserve(total);
  std::vector<uint64_t> matches;
  for (uint64_t l = 0; l < left_key.size(); ++l) {
    const auto [first, last] = range(l);
    matches.assign(first, last);
    // Matches come in key order; the result order is (left row, right row).
    std::sort(matches.begin(), matches.end());
    for (uint64_t r : matches) {
      pairs.left.push_back(l);
      pairs.right.push_back(r);
    }
  }
  return pairs;
}

}  // namespace gfxq::cpu
