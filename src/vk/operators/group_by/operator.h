#pragma once
// The GROUP BY operator behind group_by(): estimate, choice, the chosen variant (hash variants
// stride by stride into one global table, resized and rerun on overflow; the sort variant over the
// whole input), result arrays decoded on the host. After run() it can record the very same GPU work
// (same variant, table size, launch shape and group count) again into one command buffer: what the
// benchmark times, with the GPU kept busy.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vk/operators/group_by/common.h"
#include "vk/operators/group_by/global_table.h"
#include "vk/operators/group_by/optimizer.h"
#include "vk/operators/group_by/partitioned.h"
#include "vk/operators/group_by/sort_based.h"

namespace gfxq::vk::gb {

//! One GROUP BY of one input (which must outlive it).
class GroupByOperator {
 public:
  //! Checks the input and the device (as group_by() does); no GPU work yet.
  GroupByOperator(Device& device, const GroupByInput& input, const GroupByOptions& options);
  //! Frees the buffers.
  ~GroupByOperator();
  GroupByOperator(const GroupByOperator&) = delete;
  GroupByOperator& operator=(const GroupByOperator&) = delete;

  //! Runs it stage by stage (one submission each; host reads between), as group_by() does.
  GroupByResult run();
  //! After run(): records its GPU work again into `cmd`: the estimate's passes where run() needed
  //! them (and `estimate` is set), the aggregation over every stride with the final table size (no
  //! overflow check), and the ordering into the result arrays (no host read in between).
  void record(VkCommandBuffer cmd, bool estimate = true);
  //! After the commands of record() completed: whether they did the whole work (no table
  //! overflow; every radix sort completed by onesweep: only a single sort can be checked).
  bool completed();
  //! The result arrays written by the last record(), decoded (check completed() first).
  GroupByResult result();

 private:
  struct HashRun;
  std::string run_sort(StageRunner& runner, GroupByResult& out);
  std::optional<std::string> run_hash(StageRunner& runner, GroupByResult& out);

  Device& device_;
  const GroupByInput& input_;
  GroupByOptions options_;
  Layout layout_;
  std::unique_ptr<Estimator> estimator_;
  bool estimated_ = false;
  Choice choice_;
  GroupByVariant variant_ = GroupByVariant::Auto;
  std::unique_ptr<HashRun> hash_;
  std::unique_ptr<TableFinalizer> finalizer_;
  std::unique_ptr<SortGroupBy> sort_;
};

}  // namespace gfxq::vk::gb
