#pragma once
//! \file split.h
//! The split of a logical plan into a per-partition plan and a merge (docs/MULTI_GPU.md).
//!
//! One table of the plan (the partitioned table) is cut into row ranges, one per partition; every
//! other table is broadcast (each partition reads all its rows). Each partition runs the partial
//! plan over its range; the merge combines the partials exactly on the host:
//! - Concat: the plan is row-wise (scans, filters, projections, inner joins): the answer is the
//!   partials concatenated in row-range order.
//! - Aggregate: each partition aggregates its rows (COUNT, SUM, MIN, MAX; AVG as SUM and COUNT);
//!   the merge aggregates the partials by the same keys (counts and sums added, MIN of MINs, ...),
//!   finishes AVG as SUM / COUNT, and runs the nodes above the aggregate.
//! - Reapply: a Sort (each partition sorts and keeps the first OFFSET + LIMIT rows when a LIMIT is
//!   above), a Distinct or a Limit runs per partition and again over the partials concatenated in
//!   row-range order; a stable sort of runs in partition order is the k-way merge.
//! Concat and Reapply keep the one-device row order only when the partitioned table is the
//! leftmost scan (joins give (left row, right row) order), so those splits partition it.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plan/logical.h"

namespace gfxq::engine::partitioned {

//! How the partials are merged.
enum class MergeKind { Concat, Aggregate, Reapply };

//! One aggregate of the partial Aggregate and how the merge combines its column.
struct PartialAgg {
  AggKind merge = AggKind::Sum;  //!< SUM (of COUNTs and SUMs), MIN or MAX over the partials' column
  Type type = Type::Int64;       //!< the partial column's type
};

//! How the original aggregate `index` is finished from the merged partial columns.
struct AggFinish {
  AggKind kind = AggKind::Sum;  //!< the original function
  size_t column = 0;            //!< its merged column (AVG: the SUM)
  size_t count_column = 0;      //!< AVG: the merged COUNT of the argument
  Type arg = Type::Int32;       //!< AVG: the argument's type
};

//! A plan split into partitions and a merge.
struct Split {
  MergeKind kind = MergeKind::Concat;  //!< how the partials merge
  //! The plan each partition runs (its Scans still point at the whole catalog's tables: the caller
  //! points them at the partition's).
  std::unique_ptr<plan::Node> partial;
  std::string partitioned_table;       //!< the table cut into row ranges
  std::vector<std::string> broadcast;  //!< the other tables scanned, read whole by every partition
  //! Child indices from the root to the node the merge replaces by a Scan of its input (the split
  //! Aggregate itself; a Sort, Distinct or Limit's child; the root for Concat).
  std::vector<size_t> replaced_path;
  plan::Schema partial_schema;  //!< the partial plan's output
  //! Aggregate: the partial aggregates after the keys, each once (AVG(x) shares SUM(x) and COUNT(x)
  //! with the query's own).
  std::vector<PartialAgg> partial_aggs;
  std::vector<AggFinish> finish;  //!< Aggregate: one per original aggregate
  size_t group_keys = 0;          //!< Aggregate: number of key columns
  std::string description;        //!< e.g. "lineorder by row ranges; date broadcast; GROUP BY merged by key"
};

//! The split of `root`, or nullopt with `why` naming what cannot be merged exactly (a MEDIAN, a
//! COUNT(DISTINCT), a set operation, a table scanned twice, ...). With `partitioned` set, that table
//! is the one cut into row ranges (the split fails when the plan cannot partition it).
std::optional<Split> split_plan(const plan::Node& root, std::string& why,
                                const std::optional<std::string>& partitioned = std::nullopt);

//! The node at `path` (child indices) below `root`.
plan::Node& node_at(plan::Node& root, const std::vector<size_t>& path);

}  // namespace gfxq::engine::partitioned
