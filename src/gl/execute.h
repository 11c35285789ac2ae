#pragma once
// The raster backend's router (docs/RASTER.md): binds a query and runs it on the raster operators,
// which know nothing of each other or of this router:
//   - join: gl/join.h;
//   - aggregates other than COUNT without GROUP BY: gl/aggregate.h;
//   - ORDER BY: the WHERE's row ids (gl/select.h), then gl/sort.h;
//   - COUNT and selections: gl/select.h, projections gathered on the host at the row ids.

#include "gfxq/query.h"
#include "gfxq/result.h"
#include "gfxq/table.h"
#include "gl/raster_input.h"

namespace gfxq::gl {

class Context;

//! Runs `query` on the raster path: a selection of `*` or columns, or aggregates without GROUP BY
//! (COUNT here; SUM/AVG, MIN/MAX/MEDIAN/QUANTILE/KTH_LARGEST by gl/aggregate.h), with an
//! optional WHERE and LIMIT; ORDER BY (gl/sort.h); or a join (gl/join.h). Anything else is
//! Error(Unsupported) naming the operator.
Result execute(Context& context, const Query& query, const Catalog& catalog, const RasterOptions& options = {});

//! Why the raster path cannot run `query` whatever the data (the operators it lacks), or empty. Limits
//! that depend on the data (more groups than the group target holds, keys too wide for a blending
//! sort) are still Error(Unsupported) when the query runs.
std::string unsupported_operator(const Query& query, const Catalog& catalog);

}  // namespace gfxq::gl
