#pragma once
// MEDIAN, QUANTILE and KTH_LARGEST on the compute backend: radix select (vk/primitives/
// radix_select.h) of the k-th key, with no sort. Over the WHERE selection the order keys of the
// selected rows are compacted first (cnf_compact_keys from the selection's bitmask); without a
// condition the select reads the column itself. The k of each aggregate follows docs/SQL.md:
// QUANTILE(c, q) is the ascending rank quantile_rank(q, m) of the m selected rows, MEDIAN is q = 0.5,
// KTH_LARGEST(c, k) the k-th in descending order (NULL when k > m); no rows give NULL.

#include <cstdint>
#include <string>

#include "cpu/primitives_sort.h"
#include "vk/relational/select.h"

namespace gfxq::vk {

//! 32-bit keys on the device: a column's raw values, or compacted order keys.
struct DeviceKeys {
  Buffer owned;                         //!< the compacted keys, when they are not the column
  const Buffer* column = nullptr;       //!< the column's buffer, when the keys are the column
  uint64_t count = 0;                   //!< number of keys
  SortKeyType type = SortKeyType::U32;  //!< U32 for order keys, I32/F32 for a raw column
  //! The `count` keys as a range.
  BufferRange range() const noexcept { return {column ? column : &owned, 0, padded_bytes(count)}; }
};

//! The keys of column `c` over `selection`: the uploaded column itself when every row passes,
//! else the order keys of the selected rows compacted in row order.
DeviceKeys selected_keys(QueryContext& ctx, const DeviceSelection& selection, const BoundColumn& c);

//! The k-th key (1 <= k <= keys.count) in `order`, by radix select ({key, less, equal}; the key
//! as the order key whatever keys.type is). `limits`: the select's binding window and whether it is
//! sampled (tests shrink the one and force the other).
SelectResult select_kth(QueryContext& ctx, const DeviceKeys& keys, uint64_t k, SortOrder order,
                        const SortLimits& limits = {});

//! " over w binding windows of W keys" when radix select of n keys with `window` (as in select_kth)
//! spans several windows, else empty: for execution reports.
std::string select_windows_text(const Device& device, uint64_t n, uint64_t window);

//! The value of a MEDIAN, QUANTILE or KTH_LARGEST aggregate over `keys` of a column of `type`:
//! a value of that type, or NULL (no keys, or KTH_LARGEST's k above their number). `limits` as in
//! select_kth.
Value quantile_value(QueryContext& ctx, const DeviceKeys& keys, const BoundAggregate& agg, Type type,
                     const SortLimits& limits = {});

}  // namespace gfxq::vk
