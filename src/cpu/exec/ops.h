#pragma once
//! \file ops.h
//! The CPU engine's physical operators, one per logical node kind (plan/logical.h): simple and
//! obviously right, the oracle every GPU operator is compared with. Each takes the node and its
//! inputs' relations, returns the output relation, and writes a one-line description of how it ran
//! into `how` (the execution report's algorithm for the node).

#include <string>
#include <vector>

#include "cpu/exec/relation.h"
#include "plan/logical.h"

namespace gfxq::cpu {

//! Scan: the catalog table's columns in place.
HostRelation run_scan(const plan::Node& node, std::string& how);
//! Filter: the rows where the predicate is true, in order.
HostRelation run_filter(const plan::Node& node, const HostRelation& in, std::string& how);
//! Project: one column per expression.
HostRelation run_project(const plan::Node& node, const HostRelation& in, std::string& how);
//! Join: pairs in (left row, right row) order; a hash table on the right side's keys for equi-joins,
//! sorted right keys and a binary search per left row for band joins, every pair otherwise; the
//! residual condition filters the pairs. NULL keys match nothing.
HostRelation run_join(const plan::Node& node, const HostRelation& left, const HostRelation& right, std::string& how);
//! Aggregate: one row per group, groups ascending by key (NULL first), or one row without keys.
HostRelation run_aggregate(const plan::Node& node, const HostRelation& in, std::string& how);
//! Sort: stable, by the keys in order; NULL first ascending, last descending.
HostRelation run_sort(const plan::Node& node, const HostRelation& in, std::string& how);
//! Limit: rows [offset, offset + limit).
HostRelation run_limit(const plan::Node& node, const HostRelation& in, std::string& how);
//! Distinct: the first row of each set of equal rows, in order.
HostRelation run_distinct(const plan::Node& node, const HostRelation& in, std::string& how);
//! SetOp: UNION / INTERSECT / EXCEPT, set or bag (ALL) semantics, left rows first.
HostRelation run_set_op(const plan::Node& node, const HostRelation& left, const HostRelation& right, std::string& how);

//! The cells of `rows` of `src` as a new column named `name` (NULL flags and dictionary kept).
Column gather_column(const Column& src, const std::vector<uint64_t>& rows, const std::string& name);
//! A key per cell whose unsigned order is gfxq's total order within one column (strings by code, so
//! within one dictionary; equal values have equal keys: FLOAT −0.0 and 0.0, every NaN), and which
//! cells are NULL (`null` empty when none is; a NULL cell's key is 0).
struct CellKeys {
  std::vector<uint64_t> key;  //!< per cell
  std::vector<uint8_t> null;  //!< per cell 1 = NULL, or empty
  //! Whether cell `r` is NULL.
  bool is_null(uint64_t r) const noexcept { return !null.empty() && null[r]; }
  //! Three-way comparison of cells r and s, NULL before every value.
  int compare(uint64_t r, uint64_t s) const noexcept;
};
//! The keys of a column's cells.
CellKeys cell_keys(const Column& c);
//! `c` with its string codes moved to `dictionary` (which must hold every string `c` uses).
Column recode(const Column& c, const std::shared_ptr<const Dictionary>& dictionary);

}  // namespace gfxq::cpu
