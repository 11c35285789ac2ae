#pragma once
//! \file merge.h
//! The merge of a partitioned query: the partials combined exactly on the host by the CPU engine
//! (docs/MULTI_GPU.md "Merges").

#include "engine/executor.h"
#include "engine/partitioned/split.h"
#include "gfxq/result.h"

namespace gfxq::engine::partitioned {

//! The answer of `root` from `partials` (every partition's partial result concatenated in row-range
//! order, split.partial_schema's types), computed by `backends` on `on` (Auto: placed as any plan,
//! so on a GPU the compute backend merges many groups; the CPU engine otherwise): for an Aggregate
//! split, the partials aggregated again by key and AVG finished as SUM / COUNT on the host, then the
//! nodes above the split run over the merged rows. The report holds the merge's plan and passes.
Result merge_partials(const plan::Node& root, const Split& split, Table partials, Backends& backends, Backend on);

}  // namespace gfxq::engine::partitioned
