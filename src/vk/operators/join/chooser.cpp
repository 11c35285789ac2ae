#include "vk/operators/join/chooser.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gfxq/error.h"

namespace gfxq::vk {

namespace {

bool has_op(const std::vector<JoinTerm>& terms, JoinOp op) {
  return std::any_of(terms.begin(), terms.end(), [&](const JoinTerm& t) { return t.op == op; });
}

std::string rows(uint64_t n) {
  return std::to_string(n);
}

}  // namespace

JoinChoice choose_join(const JoinShape& shape, JoinAlgorithm forced) {
  const bool equi = has_op(shape.terms, JoinOp::Eq);
  const bool band = has_op(shape.terms, JoinOp::Band);
  const uint64_t pairs_tested = shape.left_rows * shape.right_rows;
  const bool overflow = shape.left_rows != 0 && pairs_tested / shape.left_rows != shape.right_rows;
  const uint64_t smaller = std::min(shape.left_rows, shape.right_rows);
  // The smaller side is built (hash) or indexed (INLJ) unless a band term fixes the sides.
  const bool swap_smaller = !band && shape.left_rows < shape.right_rows;
  const std::string sizes = rows(shape.left_rows) + " x " + rows(shape.right_rows) + " rows";
  std::string band_text;
  for (const JoinTerm& t : shape.terms)
    if (t.op == JoinOp::Band) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "band of width %g", t.hi - t.lo);
      band_text = buf;
    }
  JoinChoice c;
  if (forced != JoinAlgorithm::Auto) {
    if ((forced == JoinAlgorithm::SortMerge || forced == JoinAlgorithm::HashPartitioned ||
         forced == JoinAlgorithm::HashGlobal) &&
        !equi)
      throw Error(ErrorCode::Unsupported, std::string("join: the ") + to_string(forced) +
                                              " join needs an equi term (=); this condition has none");
    if (forced == JoinAlgorithm::HashPartitioned && shape.hash_build_rows == 0)
      throw Error(ErrorCode::Unsupported, "join: the hash-partitioned join needs shared memory for its tables");
    c.algorithm = forced;
    c.swap = forced == JoinAlgorithm::NestedLoop || (forced == JoinAlgorithm::IndexedLoop && shape.ordered)
                 ? false
                 : swap_smaller;
    c.reason = std::string("forced: ") + to_string(forced) + " (JoinOptions::algorithm), " + sizes;
    return c;
  }
  if (!overflow && pairs_tested <= kNestedLoopPairs) {
    c.algorithm = JoinAlgorithm::NestedLoop;
    c.reason = sizes + ": at most " + rows(kNestedLoopPairs) +
               " row pairs, so the nested loop (two dispatches, no sort, no index or table)";
    return c;
  }
  if (!equi) {
    c.algorithm = JoinAlgorithm::IndexedLoop;
    c.swap = shape.ordered ? false : swap_smaller;
    c.reason = sizes + ", no equi term" + (band_text.empty() ? "" : " (" + band_text + ")") +
               ": indexed nested loop, two CSS-tree searches per probe give its run of inner keys";
    return c;
  }
  if (shape.ordered && !shape.count_only) {
    c.algorithm = JoinAlgorithm::IndexedLoop;
    c.reason = sizes +
               ", equi-join with pairs in (left row, right row) order: the indexed nested loop writes "
               "them in that order (hash and sort-merge would sort the pairs)";
    return c;
  }
  const auto& st = shape.stats;
  const bool right_built = !swap_smaller;
  const std::optional<int64_t> kmin = right_built ? st.right_min : st.left_min;
  const std::optional<int64_t> kmax = right_built ? st.right_max : st.left_max;
  const bool dense = kmin && kmax && *kmax >= *kmin && uint64_t(*kmax - *kmin) < 2 * smaller;
  const bool distinct = (right_built ? st.right_unique : st.left_unique) && smaller <= kGlobalUniqueRows;
  if (smaller <= kGlobalHashRows || dense || distinct) {
    c.algorithm = JoinAlgorithm::HashGlobal;
    c.swap = swap_smaller;
    c.reason = sizes + ", equi-join, build side " + rows(smaller) + " rows" +
               (dense      ? " with dense keys (range " + std::to_string(*kmax - *kmin + 1) + ")"
                : distinct ? " whose keys are known to be distinct"
                           : " <= " + rows(kGlobalHashRows)) +
               ": one global hash table, no partitioning passes";
    return c;
  }
  if (smaller >= kSortMergeRows || shape.hash_build_rows == 0) {
    c.algorithm = JoinAlgorithm::SortMerge;
    c.swap = swap_smaller;
    c.reason = sizes + ", equi-join, " +
               (shape.hash_build_rows == 0 ? std::string("no shared memory for hash tables")
                                           : "build side " + rows(smaller) + " rows >= " + rows(kSortMergeRows)) +
               ": sort-merge (both sides radix-sorted, merged by merge-path partitions)";
    return c;
  }
  c.algorithm = JoinAlgorithm::HashPartitioned;
  c.swap = swap_smaller;
  c.reason = sizes + ", equi-join, build side " + rows(smaller) + " rows > " + rows(kGlobalHashRows) +
             ": radix-partitioned hash join, partitions of about " + rows(shape.hash_build_rows / 2) +
             " build rows in shared-memory tables";
  return c;
}

}  // namespace gfxq::vk
