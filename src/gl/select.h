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
#include <utility>
#include <vector>

#include "core/bind.h"
#include "gfxq/capabilities.h"
#include "gfxq/query.h"
#include "gfxq/result.h"
#include "gfxq/table.h"
#include "gl/texture_store.h"

namespace gfxq::gl {

class Context;

//! The depth and stencil buffers of one tile right after one pass, for RasterOptions::observer.
//! Pixel (x, y) of the tile, row 0 at the bottom, is element y * width + x: the tile's record of
//! that index (texture_store.h), or no record at indices >= records.
struct PassSnapshot {
  PassRecord record;     //!< kind and detail as in the report; items: the tile's pixels; passed: this tile's
                         //!< fragments that passed (occlusion queries), when the pass counts them
  size_t pass = 0;       //!< pass index in the tile: 0 stencil-init, 1..n the plan's passes, n+1 count or readback
  uint64_t tile = 0;     //!< the tile
  uint32_t width = 0;    //!< tile width in pixels
  uint32_t height = 0;   //!< pixel rows of this tile
  uint64_t records = 0;  //!< records in this tile
  //! Stencil state (bits 0-1) of the records that satisfy the pass's clause so far (at count or
  //! readback: the qualifying records); 0 is rejected, the other value alive but not yet satisfying it.
  uint8_t satisfied = 1;
  std::vector<float> depth;      //!< the depth buffer (GL_DEPTH_COMPONENT, GL_FLOAT), width * height
  std::vector<uint8_t> stencil;  //!< the stencil buffer (GL_STENCIL_INDEX, GL_UNSIGNED_BYTE), width * height
};

//! Watches the raster passes (RasterOptions::observer), e.g. the visual demo.
class PassObserver {
 public:
  virtual ~PassObserver() = default;
  //! Called after every pass of every tile, in execution order, with the tile's buffers.
  virtual void on_pass(const PassSnapshot& snapshot) = 0;
};

//! Settings of the raster path. The backend uses the defaults; tests force small tiles and
//! small per-query fragment caps to cover many tiles and bands with small tables.
struct RasterOptions {
  uint32_t tile_width = 0;   //!< tile width in pixels; 0: min(8192, the driver's texture/framebuffer limits)
  uint32_t tile_height = 0;  //!< tile height in pixels; 0: as the default width
  //! Range clause pairs in one GL_EXT_depth_bounds_test pass where the driver has the extension;
  //! false always runs them as two comparisons.
  bool depth_bounds = true;
  //! Fragments one occlusion query may count; 0: 2^counter bits - 1. Smaller caps split count passes.
  uint64_t max_fragments_per_query = 0;
  //! Join probes whose passes are issued before their counts are read (gl/join.h); 0: 4096.
  uint64_t join_probe_batch = 0;
  //! Join probes with equal bounds share one count (a bound counted once per query); false runs
  //! the paper's passes for every probe.
  bool join_share_counts = true;
  //! Per-pass occlusion and timer queries for the pass trace (PassRecord passed, gpu_ms).
  bool pass_queries = true;
  //! Constant comparisons take their depth from the vertices' z (raster_empty.frag: early depth
  //! tests possible) instead of writing gl_FragDepth (raster_constant.frag: exact by the GL spec).
  //! Exact only where the rasteriser reproduces a constant z exactly; tests check it per driver.
  bool vertex_constant_depth = false;
  //! When set, sees each pass of each tile with the tile's buffers read back (a GPU stall per
  //! pass: for demos and tests). Null (the default): no readback, nothing else changes.
  PassObserver* observer = nullptr;
};

//! Sets the GL state raster passes touch back to GL's defaults (framebuffer, program, depth,
//! stencil, scissor, clip control, and the depth-bounds test when `depth_bounds`).
void restore_default_state(bool depth_bounds);

//! Stencil 1 on the first `records` pixels (row-major) of `framebuffer`'s width x height stencil
//! buffer, 0 past them (scissored clears; the scissor test is left disabled).
void init_stencil(unsigned framebuffer, uint32_t width, uint32_t height, uint64_t records);

//! The tile width and height `options` ask for, checked against the driver's limits
//! (Error(InvalidQuery) for a tile larger than the driver allows).
std::pair<uint32_t, uint32_t> tile_size(const GlCapabilities& caps, const RasterOptions& options);

//! Some columns of a table uploaded for the raster path, with their ColumnInfo.
class RasterInput {
 public:
  //! Uploads columns `columns` (indices into `table`, Int32 or Float32) in the tile layout of
  //! `options`. Error(OutOfDeviceMemory) naming the sizes when the GPU runs out.
  RasterInput(Context& context, const Table& table, const std::vector<size_t>& columns, const RasterOptions& options);
  //! The uploaded textures and their layout.
  const TextureStore& store() const noexcept { return store_; }
  //! The slot of table column `index`; Error(Internal) when it was not uploaded.
  size_t slot(size_t index) const;
  //! The table column index of each slot.
  const std::vector<size_t>& columns() const noexcept { return columns_; }
  //! The upload as a pass record (host wall time; items = cells uploaded).
  const PassRecord& upload() const noexcept { return upload_; }
  //! The host table the columns came from (it must outlive this input).
  const Table& table() const noexcept { return *table_; }

 private:
  const Table* table_;
  TextureStore store_;
  std::vector<size_t> columns_;  // table column index per slot
  PassRecord upload_;
};

//! What evaluate_where computes.
enum class WhereOutput {
  Count,  //!< only the number of qualifying rows (occlusion queries)
  Rows,   //!< the qualifying row ids (stencil readback), and their number
  //! As Count, and every tile's stencil is kept (WhereResult::kept) for follow-up passes that test
  //! the selection, e.g. the aggregates of gl/aggregate.h. One depth-stencil buffer per tile.
  Keep,
};

//! The selection of a WhereOutput::Keep evaluation: per tile a framebuffer whose stencil holds
//! `state` (under `mask`) on exactly the qualifying records. Owns the GL objects (deleted with it;
//! the context must be current).
struct KeptStencil {
  std::vector<uint32_t> framebuffers;   //!< per tile (GLuint)
  std::vector<uint32_t> renderbuffers;  //!< per tile, GL_DEPTH32F_STENCIL8 (GLuint)
  int32_t state = 1;                    //!< stencil value of the qualifying records
  uint32_t mask = 0x3;                  //!< stencil bits holding it
  KeptStencil() = default;
  KeptStencil(const KeptStencil&) = delete;
  KeptStencil& operator=(const KeptStencil&) = delete;
  ~KeptStencil();
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

//! Runs `query` on the raster path: a selection of `*` or columns, or aggregates without GROUP BY
//! (COUNT here; SUM/AVG, MIN/MAX/MEDIAN/QUANTILE/KTH_LARGEST by gl/aggregate.h), with an
//! optional WHERE and LIMIT; ORDER BY (gl/sort.h); or a join (gl/join.h). Anything else is Error(Unsupported) naming
//! the operator.
Result execute(Context& context, const Query& query, const Catalog& catalog, const RasterOptions& options = {});

}  // namespace gfxq::gl
