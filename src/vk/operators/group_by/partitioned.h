#pragma once
// The partition-then-aggregate variant (Karnagel et al., for group counts whose table does not fit
// in cache): each stride's rows are radix-partitioned by the hash of their first key column into
// 2^16 partitions (two stable 8-bit digit passes of the split primitive's counting pass over
// hi16(fmix32(order key)), each moving the key and every payload column (the second key column,
// the value columns) at once), or into 2^8 by one pass where 2^8 partitions' groups fit the shared
// tables (Choice::partition_passes), so all rows of a group lie in one partition; then the shared-table kernel runs
// over the clustered rows with workgroup runs sized so that a run holds about half its shared
// table's groups (optimizer.h), and merges them into the global table: about one global update
// per group instead of one per row. With a selection the stride's rows are first gathered into
// dense columns.

#include <cstdint>
#include <string>
#include <vector>

#include "vk/operators/group_by/common.h"

namespace gfxq::vk::gb {

//! The partitioning of strides of up to `stride_rows` rows: owns the clustered columns and the
//! pass temporaries, reused by every stride.
class StridePartitioner {
 public:
  //! Buffers for strides of up to `stride_rows` rows of `input`, partitioned by `passes` (1 or 2)
  //! 8-bit digit passes.
  StridePartitioner(Device& device, const GroupByInput& input, const Layout& layout, uint64_t stride_rows,
                    uint32_t passes);
  //! Records the partitioning of `source` (barriers between its passes, none before or after) and
  //! returns the source of its clustered rows.
  RowSource record(VkCommandBuffer cmd, const RowSource& source);
  //! For the report, e.g. "2 x 2 digit passes into 65536 hash partitions".
  std::string describe() const;

 private:
  Device& device_;
  const GroupByInput& input_;
  const Layout& layout_;
  uint64_t capacity_;
  uint32_t passes_;
  Buffer key0_, tmp_key_, hist_, totals_;
  std::vector<Buffer> tmp_values_;  //!< the payloads between the two passes
  std::vector<Buffer> payloads_;    //!< clustered key 1 (two key columns) then value bindings
  std::vector<Buffer> dense_;       //!< with a selection: the stride's rows of key 0, key 1, values
};

}  // namespace gfxq::vk::gb
