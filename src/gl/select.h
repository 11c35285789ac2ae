#pragma once
// The raster path's selection, after Govindaraju et al. (SIGMOD 2004): a WHERE in CNF evaluated
// by depth and stencil tests, tile by tile (docs/RASTER.md):
//   1. plan: each comparison is lowered to depth parts (depth_encode.h) or folded to TRUE/FALSE;
//      pairs of clauses `c >= lo`, `c <= hi` on a 24-bit-window column become one range;
//   2. per tile: the stencil is set to 1 on the tile's records (0 beyond), then every clause runs
//      as stencil passes (EvalCNF: valid records alternate between the values 1 and 2 per clause,
//      0 is rejected), each comparison as copy-to-depth and depth-test passes;
//   3. the qualifying records (stencil == the last clause's value) are counted by occlusion
//      queries or read back as stencil bytes and turned into row ids on the host.
// Stencil budget: bits 0-1 hold the clause state (1 or 2; 0 rejected), bit 2 the "tied so far"
// flag of a multi-part comparison; 3 of the 8 bits, whatever the size of the CNF.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/bind.h"
#include "gfxq/result.h"
#include "gfxq/table.h"
#include "gl/raster_input.h"

namespace gfxq::gl {

//! What evaluate_where computes.
enum class WhereOutput {
  Count,  //!< only the number of qualifying rows (occlusion queries)
  Rows,   //!< the qualifying row ids (stencil readback), and their number
  //! As Count, and every tile's stencil is kept (WhereResult::kept) for follow-up passes that test
  //! the selection, e.g. the aggregates of gl/aggregate.h. One depth-stencil buffer per tile.
  Keep,
};

//! The answer of evaluate_where and how it was computed.
struct WhereResult {
  uint64_t count = 0;              //!< qualifying rows (with Rows and a limit: the ids returned)
  std::vector<uint64_t> rows;      //!< Rows: qualifying row ids ascending, at most `limit`
  std::string algorithm;           //!< e.g. "raster: copy-to-depth + stencil CNF (2 clauses) + occlusion count; ..."
  std::vector<PassRecord> passes;  //!< planning folds, then each GPU pass summed over the tiles
  //! Keep: the tiles' stencil; null when no record qualifies for certain (empty input, WHERE FALSE).
  std::shared_ptr<KeptStencil> kept;
};

//! Evaluates `where` (over the input's table; every column it names uploaded) on the GPU.
//! The GL state is reset and every object released on return and on error.
WhereResult evaluate_where(Context& context, const RasterInput& input, const BoundCnf& where, WhereOutput output,
                           const RasterOptions& options, std::optional<uint64_t> limit = std::nullopt);

//! The table columns `where` reads, each once, in order of first use: what execute uploads.
std::vector<size_t> where_columns(const BoundCnf& where);

//! The plan evaluate_where would run for `where` over `table`, made on the host only: no GL call,
//! no upload, no draw. Returns its `algorithm` and `passes` (the planning notes, then one record
//! per planned GPU pass of a tile with its kind and GL state; no stencil-init or count/readback
//! records, no counts or timings); `count` and `rows` stay empty. `depth_bounds_test` stands for
//! the driver's GL_EXT_depth_bounds_test (evaluate_where uses the context's caps().depth_bounds_test),
//! so the plans of drivers with the extension are testable on drivers without it.
WhereResult plan_where(const Table& table, const BoundCnf& where, WhereOutput output, const RasterOptions& options,
                       bool depth_bounds_test);

}  // namespace gfxq::gl
