#pragma once
// GROUP BY on the compute backend, as a physical operator over device columns (Karnagel, Müller
// and Lohman, ADMS 2015; Red Fox's sort-based skeleton for the sort variant). Independent of the
// query and plan classes: the caller hands device columns, aggregates and an optional selection,
// and receives the groups in ascending key order as host columns, with the report of what ran.
//
// Variants (one file each in this folder; how they work: docs/COMPUTE.md, "GROUP BY"):
// - Private (few groups, up to 2^10): a small shared table maps keys to dense group ids; each
//   group's accumulators have a copy per invocation in shared memory where they fit (no atomics
//   per row), else a few copies updated by shared atomics; added up and merged into the global
//   table once per workgroup.
// - SharedTable: workgroup-private hash tables in shared memory, merged into the global table
//   (up to a few thousand groups).
// - GlobalTable: one hash table in device memory; open addressing, linear probing, CAS-claimed
//   keys, atomic states (64-bit atomics where the device has them, else 32-bit ones with carry).
// - Partitioned: rows radix-partitioned by the key's hash (two 8-bit digit passes), then the
//   shared-table kernel over the clustered rows (many groups).
// - Sort: radix sort by key + segmented reduction; the only variant that gives MEDIAN, QUANTILE
//   and KTH_LARGEST per group.
// The optimizer (optimizer.h) estimates the group count on the GPU and picks a variant, its table
// size and launch shape; GroupByOptions::variant forces one.
//
// Semantics equal the CPU reference (src/cpu/group_by.cpp, aggregate.cpp) bit for bit: groups in
// ascending order of their keys (composite keys lexicographically; FLOAT keys in the total order:
// -0.0 and 0.0 one group, every NaN one group, output canonical), COUNT as int64, INT SUM exact in
// 64 bits (int_sum_result; with fewer than 2^32 rows it cannot overflow), AVG(INT) int_average, MIN
// and MAX canonical, FLOAT SUM the exact sum rounded once to the nearest double (every variant,
// every run: a 320-bit fixed point per group updated by integer atomics), AVG(FLOAT) that sum / n.

#include <cstdint>
#include <string>
#include <vector>

#include "gfxq/query.h"
#include "gfxq/result.h"
#include "gfxq/table.h"
#include "vk/device.h"
#include "vk/relational/select.h"

namespace gfxq::vk {

//! The GROUP BY algorithms.
enum class GroupByVariant {
  Auto,         //!< the optimizer picks from the estimated group count
  Private,      //!< few groups: per-invocation (or a few shared) accumulators per group id in shared memory
  SharedTable,  //!< workgroup-private tables in shared memory, merged into the global table
  GlobalTable,  //!< one hash table in device memory
  Partitioned,  //!< hash-partitioned rows, then shared tables over the clusters
  Sort,         //!< radix sort + segmented reduction (quantiles too)
};

//! "auto", "private", "shared", "global", "partitioned", "sort".
const char* to_string(GroupByVariant v) noexcept;

//! One aggregate of a GROUP BY.
struct GroupByAggregate {
  AggKind kind = AggKind::Count;  //!< COUNT, SUM, AVG, MIN, MAX, MEDIAN, QUANTILE, KTH_LARGEST
  int value = -1;                 //!< index into GroupByInput::values; -1 only for COUNT(*)
  double q = 0.5;                 //!< QUANTILE's q in (0, 1] (MEDIAN: 0.5)
  int64_t k = 1;                  //!< KTH_LARGEST's k >= 1
  std::string name;               //!< result column name, used in errors (e.g. "SUM(a)")
};

//! What to group: columns of `rows` rows on the device, optionally only the rows a selection lists.
struct GroupByInput {
  std::vector<const DeviceColumn*> keys;     //!< 1..4 group columns (Int32 or Float32); hash variants take 1..2
  std::vector<const DeviceColumn*> values;   //!< columns the aggregates read (Int32 or Float32)
  std::vector<GroupByAggregate> aggregates;  //!< the result's aggregate columns, in order
  uint64_t rows = 0;                         //!< rows of every column (< 2^32)
  const Buffer* selection = nullptr;         //!< optional: ascending uint32 row ids to group
  uint64_t selected = 0;                     //!< number of ids in `selection`
};

//! Knobs (tests and benchmarks force variants and small sizes); the defaults suit every device.
struct GroupByOptions {
  GroupByVariant variant = GroupByVariant::Auto;  //!< force a variant
  //! Slots of the global table to start with (0: from the estimate). Tests force tiny tables to
  //! run the overflow, resize and rerun.
  uint64_t table_slots = 0;
  //! Rows (or selected ids) per stride: the input is aggregated stride by stride into one table
  //! (0: as many as one binding holds). Rounded down to a multiple of 1024, at least 1024.
  uint64_t stride_rows = 0;
  //! Estimate with the HyperLogLog pass over every row even where the sample suffices.
  bool full_estimate = false;
  //! Rows the optimizer samples (0: GB_SAMPLE_MAX, 65536; at most that). Tests shrink it to
  //! estimate from a sample on small inputs.
  uint64_t sample_rows = 0;
  //! Use the 32-bit atomic paths (INT sums with a carry word) even where the device has 64-bit
  //! buffer atomics (tests run those paths on every device).
  bool no_int64_atomics = false;
  //! Rows per workgroup of the shared-table kernels (0: the optimizer's); a multiple of 1024.
  uint32_t rows_per_group = 0;
  //! Shared-table size for the shared, subgroup and partitioned variants: 0 the optimizer's, else
  //! 1, 2 or 3 for the 16, 28 or 44 KiB table (Unsupported where the device has too little); the
  //! same sizes of the private variant's kernel.
  uint32_t shared_size = 0;
  //! 8-bit digit passes of the partitioned variant: 0 the optimizer's (one, into 2^8 partitions,
  //! while their groups fit half a shared table each; else two, into 2^16), or 1 or 2.
  uint32_t partition_passes = 0;
};

//! How the optimizer estimated the group count.
struct GroupCountEstimate {
  uint64_t value = 0;       //!< estimated groups
  std::string method;       //!< e.g. "exact count of all 4096 rows" or "HyperLogLog over 2^28 rows"
  uint64_t sample = 0;      //!< rows sampled
  uint64_t distinct = 0;    //!< distinct keys in the sample
  uint64_t f1 = 0, f2 = 0;  //!< keys seen once / twice in the sample
  uint64_t top = 0;         //!< rows of the sample's most frequent key
};

//! The groups, ascending by key, and what ran.
struct GroupByResult {
  std::vector<Column> keys;        //!< one host column per key column (canonical values), named key0, key1, ...
  std::vector<Column> aggregates;  //!< one host column per aggregate (aggregate_type; NULL: KTH_LARGEST k > n)
  uint64_t groups = 0;             //!< number of groups (rows of every column)
  GroupByVariant variant = GroupByVariant::Auto;  //!< the variant that ran
  std::string algorithm;                          //!< what ran: variant, table size, launch shape, strides, resizes
  std::string reason;                             //!< why this variant (the optimizer's rule or "forced")
  GroupCountEstimate estimate;     //!< the optimizer's estimate (value 0 and method "none" when forced without one)
  std::vector<PassRecord> passes;  //!< one per stage: kind, detail, items, passed, gpu_ms, wall_ms
};

//! What to group when the columns live on the host (larger than device memory, say): host columns
//! of equal length and optional host row ids, aggregates as in GroupByInput.
struct GroupByHostInput {
  std::vector<const Column*> keys;                   //!< 1..2 group columns (Int32 or Float32)
  std::vector<const Column*> values;                 //!< columns the aggregates read
  std::vector<GroupByAggregate> aggregates;          //!< the result's aggregate columns, in order
  const std::vector<uint32_t>* selection = nullptr;  //!< optional: ascending row ids to group
};

//! Groups `input` on `device`. Error(InvalidInput) for malformed input (no key, a column of
//! another type or length, an aggregate naming no value, SUM of nothing); Error(Unsupported)
//! naming what and why where the chosen (or forced) variant cannot run it (a quantile with a hash
//! variant, more key columns than it takes, two key columns in the global table without 64-bit
//! atomics, a table larger than an allocation, 2^32 rows or more); Error(OutOfDeviceMemory) from
//! allocations. Inputs are never modified.
GroupByResult group_by(Device& device, const GroupByInput& input, const GroupByOptions& options = {});

//! Groups host columns streamed through the device stride by stride (Karnagel et al.'s stride
//! scheme): each stride of options.stride_rows rows (0: 2^24, at most one binding) is uploaded into
//! staging columns and aggregated into the one global hash table (the shared and partitioned
//! variants merge their workgroups' tables into it), so the input never has to fit device memory,
//! only the table. The estimate is Chao1 of a sample gathered on the host (no HyperLogLog pass);
//! an overflow resizes the table and streams the input again. Uploads are not overlapped with the
//! kernels. The sort-based variant (so quantiles) needs every row on the device:
//! Error(Unsupported); other errors as group_by().
GroupByResult group_by_streamed(Device& device, const GroupByHostInput& input, const GroupByOptions& options = {});

}  // namespace gfxq::vk
