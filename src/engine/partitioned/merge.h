#pragma once
//! \file merge.h
//! The merge of a partitioned query: the partials combined exactly, on device 0's compute backend or
//! the CPU engine (docs/MULTI_GPU.md "The merge").

#include "engine/executor.h"
#include "engine/partitioned/split.h"
#include "gfxq/result.h"

namespace gfxq::engine::partitioned {

//! The answer of `root` from `partials` (every partition's partial result concatenated in row-range
//! order, split.partial_schema's types), computed by `backends`: for an Aggregate split, the partials
//! aggregated again by key (BIGINT columns merged by SUM split into 32-bit high and low words on the
//! host, so the compute GROUP BY can read them, and joined back exactly after) and AVG finished as
//! SUM / COUNT on the host, then the nodes above the split run over the merged rows. `on`: Cpu runs
//! everything on the CPU engine; Compute runs the merge's GROUP BY on the compute backend when it
//! claims it (else placed by Auto, the report's algorithm saying why), Auto places it as any plan
//! (on a GPU the compute backend takes it; on a CPU-type device the CPU engine). The report holds the
//! merge's plan and passes; its algorithm starts with the merge GROUP BY's backend and algorithm.
Result merge_partials(const plan::Node& root, const Split& split, Table partials, Backends& backends, Backend on);

}  // namespace gfxq::engine::partitioned
