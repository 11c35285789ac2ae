#pragma once
// What every raster operator shares (docs/RASTER.md): the options a caller passes in
// (RasterOptions: tile sizes, caps, algorithm choices; no operator reads the environment), the
// columns of a table uploaded as tile textures (RasterInput), the per-tile stencil a WHERE leaves
// for later passes (KeptStencil), the pass observer, and the GL state helpers the operators use
// to leave a context clean. Operators (select, aggregate, sort, join, group_by) include this
// header; the router (gl/execute.h) includes the operators.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gfxq/capabilities.h"
#include "gfxq/result.h"
#include "gfxq/table.h"
#include "gl/texture_store.h"

namespace gfxq::gl {

class TextureCache;

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

//! How a raster GROUP BY makes its dense group ids (gl/group_by.h).
enum class GroupIds {
  Auto,    //!< Direct when the key ranges' product fits the group target, else Rank
  Direct,  //!< from the keys: sum_i (key_i - lo_i) * stride_i (Error(Unsupported) when it does not fit)
  Rank,    //!< the rank of the key tuple, from the raster sort
};

//! Settings of the raster path, passed in by the caller (the backend makes one when it is
//! created; tests force small tiles, caps and chunks to cover many tiles, bands and chunks with
//! small tables). No raster operator reads an environment variable.
struct RasterOptions {
  uint32_t tile_width = 0;   //!< tile width in pixels; 0: min(8192, the driver's texture/framebuffer limits)
  uint32_t tile_height = 0;  //!< tile height in pixels; 0: as the default width
  //! Range clause pairs in one GL_EXT_depth_bounds_test pass where the driver has the extension;
  //! false always runs them as two comparisons.
  bool depth_bounds = true;
  //! Fragments one occlusion query may count; 0: 2^counter bits - 1. Smaller caps split count passes.
  uint64_t max_fragments_per_query = 0;
  //! Join probes whose passes are issued before their counts are read (gl/join.h); 0: 4096, or
  //! 2^18 for the batched search.
  uint64_t join_probe_batch = 0;
  //! Join probes batched: the counts of a batch of probes in one draw, one fragment per count running
  //! a bitwise search of the sorted inner keys (gl/join.h, JoinRoute::Search); false: the paper's
  //! occlusion-counted passes per probe (depth test, depth bounds or key compare).
  bool join_search = true;
  //! Join probes with equal bounds share one count (a bound counted once per query); false runs
  //! the paper's passes for every probe.
  bool join_share_counts = true;
  //! Per-pass occlusion and timer queries for the pass trace (PassRecord passed, gpu_ms).
  bool pass_queries = true;
  //! Constant comparisons take their depth from the vertices' z (raster_empty.frag: early depth
  //! tests possible) instead of writing gl_FragDepth (raster_constant.frag: exact by the GL spec).
  //! Exact only where the rasteriser reproduces a constant z exactly; tests check it per driver.
  bool vertex_constant_depth = false;
  //! ORDER BY / sorts, pair network: texel comparator steps per pass, 1 to 3; 0: 2. A pass of s
  //! steps reads 2^s texels per fragment and writes one (s one-step passes read 2s and write s).
  uint32_t sort_steps_per_pass = 0;
  //! GROUP BY: the group target's largest width and height in pixels (one pixel per group, so
  //! at most width * height groups); 0: 8192, capped by the driver's texture/framebuffer limits.
  uint32_t group_width = 0;
  uint32_t group_height = 0;  //!< see group_width
  //! GROUP BY: records drawn into the additive targets before they are read back and cleared;
  //! 0 or more than 2^24: 2^24, so no pixel exceeds 2^24 and float32 sums stay exact.
  uint64_t group_chunk_rows = 0;
  //! GROUP BY: how group ids are made (Auto; tests force Direct or Rank).
  GroupIds group_ids = GroupIds::Auto;
  //! GROUP BY: colour attachments per blending pass at most; 0: the driver's GL_MAX_DRAW_BUFFERS,
  //! at most 8 and within 1 GiB of targets. Tests force 1 to run many passes.
  uint32_t group_attachments = 0;
  //! WHERE: a comparison of a column with a constant whose column no neighbouring comparison
  //! reads puts the constant in the depth buffer by a clear and draws the column as the incoming
  //! side (one draw instead of a copy-to-depth and a compare); false: always copy the column.
  bool constant_by_clear = true;
  //! WHERE with a count (COUNT, aggregates): the occlusion queries go around the last clause's
  //! satisfying passes instead of a count pass after them; false: a stencil-only count pass.
  bool fuse_count = true;
  //! COUNT whose WHERE is one comparison of a 24-bit-window column with a constant (with
  //! constant_by_clear and fuse_count): no stencil at all, per tile one clear of the constant
  //! into depth and one `fused-count` draw of the column over the tile's records only
  //! (scissored), its passing fragments counted. Not with an observer (its snapshots follow the
  //! stencil states); false: stencil-init, depth-clear and the counted compare pass.
  bool single_pass_count = true;
  //! COUNT whose WHERE is one range (`c >= lo AND c <= hi`, BETWEEN) on a 24-bit-window column, with
  //! single_pass_count's conditions: two draws without stencil, the records <= hi minus the records
  //! < lo, each a clear and a `fused-count` draw; false (the default until it is measured against
  //! the depth-bounds pass): the stencil plan (depth bounds or two comparisons).
  bool range_by_counts = false;
  //! When set, sees each pass of each tile with the tile's buffers read back (a GPU stall per
  //! pass: for demos and tests). Null (the default): no readback, nothing else changes.
  PassObserver* observer = nullptr;
  //! Catalog columns kept as textures between queries (gl/texture_cache.h), with the catalog whose
  //! versions key them; null (calibration, the operators' own tests): every query uploads.
  TextureCache* textures = nullptr;
  const Catalog* catalog = nullptr;  //!< see textures
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
  //! The same for catalog table `name`: columns kept in options.textures are reused, the others
  //! uploaded and kept there (the pass is "resident" when nothing was uploaded).
  RasterInput(Context& context, const Table& table, const std::string& name, const std::vector<size_t>& columns,
              const RasterOptions& options);
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

//! The selection a WHERE leaves for later passes (select.h, WhereOutput::Keep): per tile a
//! framebuffer whose stencil holds `state` (under `mask`) on exactly the qualifying records. A
//! WHERE keeps it in GL_DEPTH32F_STENCIL8 textures (`textures`, GL_DEPTH_STENCIL_TEXTURE_MODE
//! GL_STENCIL_INDEX, nearest filtering), so later passes may also read a record's stencil with
//! texelFetch on a usampler2D (gl/group_by.h); `renderbuffers` hold the depth-stencil buffers of
//! other users (the join's inner tiles). Owns the GL objects (deleted with it; the context must be
//! current).
struct KeptStencil {
  std::vector<uint32_t> framebuffers;   //!< per tile (GLuint)
  std::vector<uint32_t> textures;       //!< per tile, GL_DEPTH32F_STENCIL8 textures (GLuint), or empty
  std::vector<uint32_t> renderbuffers;  //!< per tile, GL_DEPTH32F_STENCIL8 renderbuffers (GLuint), or empty
  int32_t state = 1;                    //!< stencil value of the qualifying records
  uint32_t mask = 0x3;                  //!< stencil bits holding it
  KeptStencil() = default;
  KeptStencil(const KeptStencil&) = delete;
  KeptStencil& operator=(const KeptStencil&) = delete;
  ~KeptStencil();
};

}  // namespace gfxq::gl
