#pragma once
// The GROUP BY optimizer (after Karnagel et al.'s rule-based one): it estimates the number of
// groups on the GPU, then picks the variant, the global table's size and the shared kernels'
// table size and launch shape by rules.
//
// Estimate: a sample of up to GB_SAMPLE_MAX rows, one at a hashed position in each of as many equal
// strata (evenly spaced rows would sample periodic input in step), is counted exactly in
// a small hash table (keys known by 64-bit fingerprints), giving the sample's distinct keys d and
// those seen once (f1) and twice (f2). When the sample is the whole input, d is the group count.
// Otherwise Chao1 (d + f1^2 / (2 f2)) estimates it, which is unbiased for groups of equal size and
// a lower bound under skew; where at least kMinDoubletons keys were seen once but fewer than
// kMinDoubletons twice (groups far more numerous than the sample shows), one HyperLogLog pass over
// every row (4096 registers, about 1.6% standard error) decides instead.
//
// Rules (the figures are constants below, to be tuned by the benchmark sweep on the GPU):
// quantile aggregates, more than two key columns, or two key columns without 64-bit atomics: the
// sort-based variant (the only one that can); at most kFewGroups groups (0: off) that the largest
// few-groups kernel has ids for: the private variant (its kernel the smallest whose every
// invocation keeps a copy of the groups' accumulators, else the largest); at most half the shared
// table's slots: the shared table; groups whose 2^8 hash partitions fill at most 1 / (2 x
// kPartitionedFill) of a shared table each: the partitioned variant with one digit pass; a global
// table of at most kCachedTableBytes (it stays in the GPU's L2 cache): the global table; more:
// sort. The
// global table gets twice the estimate's slots (fill factor at most one half, as the paper's rule;
// slots are addressed by the high word of hash * slots, so any count works), rounded up to a
// multiple of kMinTableSlots.

#include <cstdint>
#include <string>
#include <vector>

#include "group_by_config.glsl"
#include "vk/operators/group_by/common.h"
#include "vk/operators/group_by/global_table.h"

namespace gfxq::vk::gb {

//! Largest global table (bytes) the global-table variant is chosen with.
inline constexpr uint64_t kCachedTableBytes = uint64_t(32) << 20;
//! Smallest global table (slots).
inline constexpr uint64_t kMinTableSlots = 1024;
//! Keys seen twice in the sample below which (with at least as many seen once) HyperLogLog runs.
inline constexpr uint64_t kMinDoubletons = 64;
//! Workgroups the shared-table variants aim for (each merges its table into the global one): one
//! wave of resident workgroups on the H200 (132 SMs x 8 of 256 invocations; x 5 with the 44 KiB
//! table, as 228 KiB of shared memory per SM hold five), so no SM idles behind a partial wave.
inline constexpr uint64_t kSharedWorkgroups = 132 * 8;
inline constexpr uint64_t kSharedWorkgroupsLarge = 132 * 5;
//! Auto takes the partitioned variant while its 2^8 partitions' groups fill at most 1 / (2 x this)
//! of a shared table each (on the H200 over 2^28 rows it beat the global table from 2^11 to 2^16
//! groups, 6.5-6.8 ms against 12.4-7.5, and lost at 2^18, 10.5 against 6.9).
inline constexpr uint64_t kPartitionedFill = 4;
//! The shared-table variant's table: the smallest the groups fill to at most this share (on the
//! H200 over 2^28 rows, 1,024 groups took 1.81 ms in the 28 KiB table at 43 % and 1.66 ms in the
//! 44 KiB one at 36 %).
inline constexpr double kSharedFill = 0.375;
//! Auto takes the sort variant instead of the global table where the most frequent key holds at
//! least this share of the sample: every row of it updates one global slot (on the H200 over 2^28
//! rows of Zipf-1.0 keys over 2^20 values, whose hottest holds 7 %, the global table took 32.7 ms,
//! the sort variant 13.1).
inline constexpr double kSkewedShare = 0.01;
//! Workgroups of the shared-table kernels (GB_SHARED_WG invocations each): two per SM of the H200.
inline constexpr uint64_t kSharedTableWorkgroups = 132 * 2048 / GB_SHARED_WG;
//! Most groups the optimizer gives the few-groups (private) variant (issue 21's "few groups"): 0,
//! the rule is off. On the H200 over 2^28 rows the few-groups kernel took 3.16 / 3.03 / 4.34 / 5.04
//! ms at 2^4 / 2^6 / 2^8 / 2^10 groups where the shared table took 1.57 / 1.71 / 2.03 / 4.76 ms
//! (eighth session), so it is forced only.
inline constexpr uint64_t kFewGroups = 0;

//! What the optimizer decided.
struct Choice {
  GroupByVariant variant = GroupByVariant::Sort;  //!< the variant
  uint64_t table_slots = 0;                       //!< hash variants: the global table's hashed slots
  TableKernel shared = TableKernel::SharedS;      //!< shared and private variants: the kernel
  FewShape few;                                   //!< private variant: the kernel's layout
  uint32_t rows_per_group = 0;                    //!< shared variants: rows per workgroup
  uint32_t partition_passes = 2;                  //!< partitioned variant: 8-bit digit passes (1 or 2)
  std::string reason;                             //!< the rule that chose it
};

//! The estimate's GPU work over one input: the sample's counts, then, when they do not suffice
//! (or options.full_estimate), the HyperLogLog pass. Owns its buffers; the record_* steps let the
//! benchmark record the same work again into one command buffer.
class Estimator {
 public:
  //! The estimate of `input` (sample size and forcing from `options`): makes its buffers.
  Estimator(Device& device, const GroupByInput& input, const Layout& layout, const GroupByOptions& options);
  //! Records the sample's count (fills, insert per stride, statistics).
  void record_sample(VkCommandBuffer cmd);
  //! Records the HyperLogLog pass over every row.
  void record_hll(VkCommandBuffer cmd);
  //! Runs the sample, reads it, and the HyperLogLog pass when needed, into `runner`.
  GroupCountEstimate run(StageRunner& runner);
  //! Whether run() needed the HyperLogLog pass.
  bool used_hll() const noexcept { return used_hll_; }

 private:
  Device& device_;
  bool full_;
  uint64_t rows_, samples_, cap_;
  uint32_t config_;
  std::vector<RowSource> strides_;
  Buffer table_, ctrl_, registers_;
  bool used_hll_ = false;
};

//! Slots of a global table for `groups` groups: twice as many, a multiple of kMinTableSlots.
uint64_t table_slots_for(uint64_t groups);

//! The Chao1 estimate of the groups of `rows` rows from a sample of `sample` rows with `distinct`
//! keys, `f1` seen once and `f2` twice (the distinct count when the sample is every row), at most
//! `rows`.
uint64_t sample_estimate(uint64_t rows, uint64_t sample, uint64_t distinct, uint64_t f1, uint64_t f2);

//! The row sample `i` of `samples` reads among `count` rows: a hashed one of its stratum
//! [i * count / samples, (i + 1) * count / samples) (the host mirror of group_by_sample's choice).
uint64_t sample_position(uint64_t i, uint64_t count, uint64_t samples);

//! The share of the sample's rows its most frequent key holds (0 without a sample).
inline double top_share(const GroupCountEstimate& e) {
  return e.sample ? double(e.top) / double(e.sample) : 0.0;
}

//! The HyperLogLog estimate of GB_HLL_REGISTERS registers (with the small-range correction).
uint64_t hll_estimate(const std::vector<uint32_t>& registers);

//! Whether `caps` allows workgroups of GB_SHARED_WG invocations, those of the shared-table kernel
//! (the SharedTable and Partitioned variants): where not, auto takes the other variants and
//! forcing those two is Error(Unsupported).
bool shared_table_workgroups(const VkCapabilities& caps);

//! The largest shared kernel the device's shared memory holds.
TableKernel largest_shared_kernel(const Device& device);
//! The few-groups (private) kernel for `groups` groups: forced by `shared_size` (1, 2, 3: 16, 28,
//! 44 KiB), else the smallest the device holds whose every invocation keeps a copy of the groups'
//! accumulators, else the largest the device holds.
TableKernel few_kernel(const Device& device, const Layout& layout, uint64_t groups, uint32_t shared_size);

//! Picks the variant and its sizes for `estimate` groups whose most frequent key holds `top_share`
//! of the rows (the sample's; 0 unknown); a forced variant (options.variant) only gets its sizes.
//! Error(Unsupported) when a forced variant cannot run the input (why).
Choice choose(const Device& device, const GroupByInput& input, const Layout& layout, const GroupByOptions& options,
              uint64_t estimate, double top_share = 0);

}  // namespace gfxq::vk::gb
