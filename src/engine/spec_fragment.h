#pragma once
//! \file spec_fragment.h
//! Plan fragments that the Query spec (gfxq/query.h) expresses, for the GPU backends' operators that
//! run whole Query-shaped pipelines in fused passes: one table or a two-table equi/band join, a WHERE
//! of comparisons (CNF), plain columns or aggregates of columns, at most one GROUP BY column, one ORDER
//! BY column and a LIMIT, over INT and FLOAT columns without NULLs.

#include <optional>
#include <string>

#include "engine/backend.h"
#include "gfxq/query.h"
#include "plan/logical.h"

namespace gfxq::engine {

//! A fragment rooted at a node, covering it down to its Scans, and the Query spec that computes it.
struct SpecFragment {
  Fragment fragment;  //!< the nodes covered (no inputs: it reads base tables)
  Query query;        //!< the same result, column for column (names may differ)
};

//! The fragment rooted at `node` that a Query spec expresses, or nullopt with `why` naming the first
//! construct it cannot express.
std::optional<SpecFragment> spec_fragment(const plan::Node& node, std::string& why);

//! The condition of `filter`, a Filter over a Scan, as a Query spec over that table (unqualified
//! columns; its items: the columns the condition reads), or nullopt with `why` when the condition is
//! not comparisons of NULL-free INT, FLOAT, STRING (codes) and DATE columns and number literals (the CNF kernels'
//! shape).
std::optional<Query> scan_filter_spec(const plan::Node& filter, std::string& why);

}  // namespace gfxq::engine
