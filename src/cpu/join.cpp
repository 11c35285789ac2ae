// Equi and band joins: the right side sorted by key, each left row binary-searches its range.

#include <algorithm>
#include <numeric>

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

  Pairs pairs;
  std::vector<uint64_t> matches;
  for (uint64_t l = 0; l < left_key.size(); ++l) {
    const double key = cell_double(left_key, l);
    const double from = key + lo, to = key + hi;
    auto it = std::lower_bound(by_key.begin(), by_key.end(), from,
                               [&](uint64_t row, double bound) { return less(right_values[row], bound); });
    matches.clear();
    for (; it != by_key.end() && !less(to, right_values[*it]); ++it) matches.push_back(*it);
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
