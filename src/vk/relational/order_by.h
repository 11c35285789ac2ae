#pragma once
// ORDER BY col [ASC|DESC] [LIMIT n] on the compute backend, stable in both directions.
//
// Full sort: the (order key, row id) pairs of the selected rows (cnf_compact_pairs from the WHERE
// bitmask, or the column itself with implicit row ids when every row passes) go through the
// stable LSD radix sort (vk/primitives/radix_sort.h; over several binding windows when the pairs
// exceed one binding); the first n row ids come back and the rows are gathered on the host
// (select.h says why).
// Top-k, for LIMIT n <= kTopK below the selected count m (any m: radix select reads the keys
// over binding windows when they exceed one binding): radix select (radix_select.h) finds the
// n-th key T in the sort direction and how many keys precede it (L < n). The rows strictly before
// T (WHERE AND key < T, or > T for DESC: exactly L rows) and the first n - L rows equal to T
// (WHERE AND key = T, in row order) are compacted; the L rows are sorted stably on the host (at
// most kTopK - 1 keys) and the tie rows follow in row order, which is exactly the stable order.

#include <cstdint>
#include <string>

#include "vk/relational/select.h"

namespace gfxq::vk {

//! The largest LIMIT the top-k path takes.
inline constexpr uint64_t kTopK = 1024;

//! The result of a plain query with ORDER BY (WHERE, sort, LIMIT, projection). `algorithm`
//! receives its description. `limits`: keys per binding window of the full sort and of the top-k
//! path's radix select, and whether that select is sampled (tests shrink the one and force the
//! other).
Table run_order_by(QueryContext& ctx, std::string& algorithm, const SortLimits& limits = {});

}  // namespace gfxq::vk
