#pragma once
// The sort-based variant (Red Fox's skeleton): the rows sorted by their key columns (onesweep radix
// sort; several key columns by stable sorts from the last column to the first, carrying a
// permutation, then gathered), then the segmented reduction (src/vk/primitives/segmented_reduce.h)
// writes each group's key, count and states straight into the result arrays in key order.
// MEDIAN / QUANTILE / KTH_LARGEST: the rows sorted by (keys, value) the same way, and for each
// group the value at its rank within the group's run (group_by_quantile.comp), exact; the ranks
// come from the host (quantile_rank() of each group's count), so every backend shares one rule.
// One key column with at most one value column and no quantile sorts (key, value) pairs directly,
// with no permutation and no gathers. The whole input is sorted at once (no strides; the sort spans
// binding windows, the segmented reduction needs the rows in one binding). With a selection the
// selected rows are first gathered into dense columns.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vk/operators/group_by/common.h"
#include "vk/primitives/radix_sort.h"
#include "vk/primitives/segmented_reduce.h"

namespace gfxq::vk::gb {

//! A step of the sort-based variant: one submission in run(), with a radix sort to check after it.
struct SortStep {
  std::string kind;                             //!< pass kind for the report
  std::string detail;                           //!< pass detail
  uint64_t items = 0;                           //!< rows
  std::function<void(VkCommandBuffer)> record;  //!< the commands (no barrier before or after)
  std::optional<RadixSortArgs> sort;            //!< the radix sort it ends with, to check
};

//! The sort-based GROUP BY of one input.
class SortGroupBy {
 public:
  //! Makes the buffers and the ordering steps; Error(Unsupported) past one binding of rows.
  SortGroupBy(Device& device, const GroupByInput& input, const Layout& layout, const GroupByOptions& options);
  //! Records ordering the rows and counting the groups (the count lands in segments()).
  void record_order(VkCommandBuffer cmd);
  //! Sets the group count (read from segments()) and makes the result arrays.
  void set_groups(uint64_t groups);
  //! Records the reduction and the quantiles (after set_groups; the quantiles' ranks are those
  //! run() computed, so this repeats run()'s work on the same input).
  void record_reduce(VkCommandBuffer cmd);
  //! Runs it all stage by stage into `runner`, sorts checked and completed by their fallback.
  void run(StageRunner& runner);
  //! Whether the radix sorts recorded by record_order / record_reduce into one command buffer all
  //! completed by onesweep (only the last sort of each is checkable: false when several sorts
  //! shared the scratch).
  bool sorts_completed();
  //! The buffer holding the group count (a uint64 at byte 0).
  const Buffer& segments() const noexcept { return segments_; }
  //! The result arrays (after set_groups).
  const Buffer& result() const noexcept { return result_; }
  //! Their layout.
  const ResultLayout& result_layout() const noexcept { return out_; }
  //! For the report: the sorts, e.g. "onesweep LSD radix sort (...) of (key, value) pairs".
  std::string describe() const;

 private:
  void build_order_steps();
  void build_reduce_steps();
  //! Steps that sort the rows by `columns` (raw ranges, types) from the last to the first into a
  //! permutation `perm_`, or with `values` carried directly when it is the only column.
  void add_permutation_steps(std::vector<SortStep>& steps, const std::vector<BufferRange>& columns,
                             const std::vector<SortKeyType>& types, const std::string& what);
  SegmentedReduceArgs reduce_args() const;
  //! The quantiles' per-group ranks from the groups' counts (downloaded), uploaded to ranks_.
  void fill_ranks(StageRunner& runner);

  Device& device_;
  const GroupByInput& input_;
  const Layout& layout_;
  bool atomic64_;
  uint64_t n_;
  bool direct_ = false;  //!< one key column, at most one value column, no quantile: pairs sorted directly
  std::vector<BufferRange> keys_, values_, quantile_values_;  //!< dense inputs (raw)
  std::vector<Buffer> dense_;                                 //!< gathered selected rows
  std::vector<Buffer> sorted_keys_, sorted_values_;           //!< in key order
  Buffer perm_, tmp_key_, sorted_q_, scratch_, seg_scratch_, segments_, firsts_, result_;
  std::vector<Buffer> ranks_;  //!< per quantile aggregate: each group's 1-based rank (0: NULL)
  ResultLayout out_;
  std::vector<SortStep> order_steps_, reduce_steps_;
  std::vector<std::string> sort_texts_;
};

}  // namespace gfxq::vk::gb
