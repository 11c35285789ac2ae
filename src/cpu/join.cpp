// Equi and band joins: the right side sorted by key, each left row binary-searches its range.
// Conditions of several terms (multi-column equi keys, <, <=, >, >=): one Eq or band term as above,
// the others tested on its pairs; without one, every pair is tested.

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "core/host_memory.h"
#include "core/order_key.h"
#include "cpu/internal.h"
#include "gfxq/error.h"

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

namespace gfxq::cpu {

bool join_term_holds(const JoinTermRef& term, double l, double r) {
  if (term.band) return compare_total(l + term.lo, r) <= 0 && compare_total(r, l + term.hi) <= 0;
  return holds(term.op, compare_total(l, r));
}

Pairs join_pairs_terms(const std::vector<const Column*>& left, const std::vector<const Column*>& right,
                       const std::vector<JoinTermRef>& terms, const std::vector<uint64_t>* left_rows,
                       const std::vector<uint64_t>* right_rows) {
  if (terms.empty()) throw Error(ErrorCode::Internal, "join_pairs_terms: a join condition needs a term");
  const auto rows_of = [](const std::vector<const Column*>& cols, const std::vector<uint64_t>* rows) {
    if (rows) return *rows;
    std::vector<uint64_t> all(cols.empty() ? 0 : cols[0]->size());
    std::iota(all.begin(), all.end(), uint64_t{0});
    return all;
  };
  const std::vector<uint64_t> lrows = rows_of(left, left_rows), rrows = rows_of(right, right_rows);
  const auto satisfied = [&](uint64_t l, uint64_t r, size_t skip) {
    for (size_t t = 0; t < terms.size(); ++t)
      if (t != skip &&
          !join_term_holds(terms[t], cell_double(*left[terms[t].left], l), cell_double(*right[terms[t].right], r)))
        return false;
    return true;
  };
  Pairs out;
  size_t primary = terms.size();
  for (size_t t = 0; t < terms.size() && primary == terms.size(); ++t)
    if (terms[t].band || terms[t].op == CmpOp::Eq) primary = t;
  if (primary == terms.size()) {
    for (uint64_t l : lrows)
      for (uint64_t r : rrows)
        if (satisfied(l, r, terms.size())) {
          out.left.push_back(l);
          out.right.push_back(r);
        }
    return out;
  }
  // The primary term over the rows that take part, then the other terms on its pairs; the order
  // (left row, right row) carries over because the row lists ascend.
  const JoinTermRef& p = terms[primary];
  const Column lkey = gather(*left[p.left], lrows, "l"), rkey = gather(*right[p.right], rrows, "r");
  const Pairs candidates = join_pairs(lkey, rkey, p.band ? p.lo : 0.0, p.band ? p.hi : 0.0);
  for (size_t i = 0; i < candidates.left.size(); ++i) {
    const uint64_t l = lrows[candidates.left[i]], r = rrows[candidates.right[i]];
    if (satisfied(l, r, primary)) {
      out.left.push_back(l);
      out.right.push_back(r);
    }
  }
  return out;
}

}  // namespace gfxq::cpu
