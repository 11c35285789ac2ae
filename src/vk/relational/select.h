#pragma once
// WHERE on the compute backend, and what the other operator families share: device columns,
// the chunked scan geometry of the CNF kernels, the per-query context that uploads columns and
// records passes, and the selection operators (COUNT, row ids, projections, LIMIT).
//
// A selection runs in three stages (GDB's count / prefix sum / write, on a bitmask):
//  1. cnf_flags (shaders/vk/cnf_scan.comp): the whole CNF per row, reading each slot column once;
//     one bit per row (n/8 bytes) and a count per 2048-row block (n/512 bytes). A group of 32
//     invocations tests a block (16 vectors of 128 rows) and stores its 64 mask words in one
//     coalesced store and its count, from its ballots (layout: shaders/common/cnf_mask_config.glsl).
//  2. scan() (vk/primitives/scan.h) of the per-block counts: each block's output offset.
//  3. cnf_compact: each subgroup takes whole blocks, ranks their marked rows from the mask bits
//     (ballots), stages them at their ranks in shared memory and writes their row ids (or order
//     keys, or both) at the block's offset, in row order, consecutive lanes to consecutive
//     positions.
// Stages 1 and 3 run a few thousand workgroups that take 16384-row tiles (8 blocks) in turn
// (tile g + r * G in round r), so all of them stream through one window of the column.
// Row ids (select_row_ids) run first in one pass instead (cnf_select, shaders/vk/cnf_select.comp:
// single-pass stream compaction with decoupled look-back over per-tile descriptors); the three
// stages above are its fallback when the look-back hits its bound.
// COUNT(*) is stage 1 without the mask (cnf_count). Projections are gathered on the host from the
// selected row ids: the table lives in host memory, so this moves 4 bytes per selected row over
// the bus instead of uploading every projected column and downloading its gathered copy.

#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/bind.h"
#include "gfxq/engine.h"
#include "gfxq/result.h"
#include "vk/device.h"
#include "vk/relational/cnf_program.h"

namespace gfxq::vk {

//! Granularity of the rows each workgroup of a CNF pass owns (ScanChunk::rows_per_group).
inline constexpr uint32_t kCnfRound = 4096;
//! Rows of one mask block (CNF_MASK_BLOCK, cnf_mask_config.glsl): 32 invocations of cnf_flags x 16
//! vectors of 4 rows, 64 mask words. cnf_flags counts and cnf_compact writes per block.
inline constexpr uint32_t kCnfBlock = 2048;
//! Most workgroups of one CNF pass over one chunk (each loops over its share of the tiles).
inline constexpr uint32_t kCnfMaxGroups = 2048;
//! Chunk lengths are multiples of this (whole mask blocks), so each chunk's mask words start at an
//! offset that any minStorageBufferOffsetAlignment (at most 256 bytes) divides.
inline constexpr uint64_t kChunkAlign = kCnfBlock;

//! A column on the device: the raw 32-bit values (int32 or float32 bits) of `rows` rows, in a
//! buffer padded to whole 16-byte vectors.
struct DeviceColumn {
  Buffer buffer;            //!< the values
  Type type = Type::Int32;  //!< Int32 or Float32
  uint64_t rows = 0;        //!< number of values
};

//! Bytes of a buffer of `elements` 4-byte values padded to whole 16-byte vectors (at least 16).
uint64_t padded_bytes(uint64_t elements) noexcept;

//! Uploads a 32-bit column (synchronously): INT, FLOAT, or the int32 storage of STRING codes and
//! DATE days (typed Int32 on the device).
DeviceColumn upload_column(Device& device, const Column& column);

//! One chunk of a CNF pass: rows one binding holds.
struct ScanChunk {
  uint64_t first_row = 0;       //!< row id of the chunk's first row
  uint32_t rows = 0;            //!< rows in the chunk
  uint32_t first_group = 0;     //!< index of its first workgroup among all chunks' workgroups
  uint32_t groups = 0;          //!< its workgroups
  uint32_t rows_per_group = 0;  //!< rows per workgroup (a multiple of kCnfRound, at most 2^24)
  uint32_t first_block = 0;     //!< index of its first mask block among all chunks' blocks
  uint32_t blocks = 0;          //!< its mask blocks (the last may be partial)
};

//! How a CNF pass covers `rows` rows.
struct ScanPlan {
  uint64_t rows = 0;              //!< rows in all
  uint64_t chunk_rows = 0;        //!< rows per chunk (a multiple of kChunkAlign)
  std::vector<ScanChunk> chunks;  //!< in row order
  uint32_t groups = 0;            //!< workgroups over all chunks: one partial each (count, aggregates)
  //! kCnfBlock-row mask blocks over all chunks: one count each (cnf_flags).
  uint64_t blocks() const noexcept;
  //! Mask words of all chunks (kCnfBlock / 32 per block).
  uint64_t mask_words() const noexcept { return blocks() * (kCnfBlock / 32); }
  //! E.g. "2048 workgroups x 131072 rows" or "5 chunks, 5 workgroups x 4096 rows".
  std::string summary() const;
};

//! Limits of a scan plan; the defaults suit every device, tests shrink them.
struct ScanLimits {
  //! Rows per chunk; 0: as many as one binding holds. Rounded down to a multiple of kChunkAlign
  //! (at least kChunkAlign).
  uint64_t chunk_rows = 0;
  //! Workgroups per chunk; 0: kCnfMaxGroups. Workgroups own at most 2^24 rows whatever it says
  //! (the bound the exact FLOAT sum relies on).
  uint32_t max_groups = 0;
  //! Most look-back steps per tile of the one-pass kernel (at most kSelectMaxLookback); tests force
  //! its fallback with 0.
  uint32_t select_lookback = UINT32_MAX;
  //! How the one-pass kernel's workgroups find their tiles (gfxq::SelectTiles: a tile's look-back
  //! waits on the tiles before it, so their workgroups must have started no later); tests force each
  //! way.
  SelectTiles select_tiles = SelectTiles::Auto;
  //! The exact FLOAT SUM keeps its register bin in int64 even where the device has shaderFloat64
  //! (tests run that path on every device with it).
  bool float_sum_int64 = false;
};

//! Limits of the radix sorts and selects of ORDER BY and the quantiles; the defaults suit every
//! device, tests shrink the window and force the sampled select.
struct SortLimits {
  //! Keys per binding window of the sorts and selects (RadixSortArgs::binding_elements,
  //! RadixSelectArgs::binding_elements), as if one binding held that many; 0: the device's binding.
  uint64_t window = 0;
  //! Whether the selects are sampled (RadixSelectArgs::sample: true On, false Off, unset Auto).
  std::optional<bool> select_sample;
};

//! Most look-back steps per tile of the one-pass selection (cnf_select_config.glsl).
inline constexpr uint32_t kSelectMaxLookback = 16384;

//! The plan for `rows` rows. Error(Unsupported) past 2^32 - 1 rows (row ids are 32-bit).
ScanPlan plan_scan(const Device& device, uint64_t rows, const ScanLimits& limits = {});

//! Shader loop iterations one invocation of the CNF kernels (cnf_scan in every mode, cnf_select)
//! runs at most for a program of `terms` terms when workgroups own `rows_per_group` rows: each
//! evaluation of four rows walks the term loop once.
uint64_t cnf_loop_iterations(uint64_t terms, uint64_t rows_per_group) noexcept;

//! `limits` for scanning `rows` rows with a program of `terms` terms on `device`: unchanged where
//! the device has no shader loop limit (VkCapabilities::shader_loop_limit) or the kernels stay under
//! it, else with the fewest rows per workgroup; Error(Unsupported) naming the limit and the most
//! terms this device runs when even that is over it (the driver would end the term loop early and
//! rows would be wrongly kept or rejected).
ScanLimits fit_shader_loop_limit(const Device& device, uint64_t rows, uint64_t terms, ScanLimits limits);

//! A CNF program bound to device columns.
struct CnfInput {
  const CnfProgram* program = nullptr;       //!< the program (Outcome::Rows or All)
  const Buffer* words = nullptr;             //!< upload_program(): words() (+ key intervals), >= 16 bytes
  std::vector<const DeviceColumn*> columns;  //!< the column of each slot
};

//! The program's term table as a device buffer (at least 16 bytes).
Buffer upload_program(Device& device, const CnfProgram& program);

namespace detail {
//! Most raw-bit intervals cnf_scan tests in place of a program's terms.
inline constexpr size_t kMaxRawIntervals = 4;

//! The raw 32-bit patterns (INT or FLOAT bits) of a single-column program of literal comparisons
//! whose order keys the program accepts, as at most kMaxRawIntervals disjoint intervals
//! (first, last - first) taken modulo 2^32 (the last may wrap past 2^32 - 1); nullopt for other
//! programs, programs accepting no key, or more intervals (cnf_scan then evaluates the terms).
std::optional<std::vector<std::pair<uint32_t, uint32_t>>> raw_intervals(const CnfProgram& program);

//! Each slot's raw-bit intervals (as raw_intervals() gives them for that slot alone; empty for a
//! slot no clause tests) for a program of several slots whose every clause compares one column
//! with literals; for a one-slot program raw_intervals() as the only entry; nullopt for other
//! programs or when a slot needs more than kMaxRawIntervals intervals or accepts no value.
std::optional<std::vector<std::vector<std::pair<uint32_t, uint32_t>>>> slot_intervals(const CnfProgram& program);

//! The `intervals` push constant of the CNF kernels for `program` uploaded as `words_bytes` bytes
//! by upload_program(): one slot, its interval count; several slots (the SLOTS=8 kernels), each
//! slot's count in 4 bits (slot s at bit 4s); 0 when the kernels must run the terms.
uint32_t interval_word(const CnfProgram& program, uint64_t words_bytes);

//! The float test of a program (cnf_interval_config.glsl): `shape` is one of CNF_FLOAT_LE, _GE,
//! _RANGE, _GE_NAN; `lo`, `hi` are the bounds' float bits (the unused one 0).
struct FloatTest {
  uint32_t shape = 0;
  uint32_t lo = 0, hi = 0;
};

//! The float test that accepts exactly the rows raw_intervals() accepts, for a program on a FLOAT
//! column whose keys form one interval with normal or infinite float bounds; nullopt otherwise (zero
//! or denormal bounds, several intervals, NaN alone, no raw intervals).
std::optional<FloatTest> float_test(const CnfProgram& program);

//! Records the cnf_scan variant `mode` ("count", "flags", "agg_{int,float}[_sum][_min|_max|_minmax]":
//! COUNT with SUM and/or MIN, MAX or both) over every chunk of `plan`: per-group partials into
//! `partials`, the bitmask into `mask` (flags only, else null); `value_slot`: the aggregated slot
//! (agg only); `suffix` follows the slot variant in the kernel's name ("_f64"). Returns the name,
//! with its float test if it has one (float_test()).
std::string record_cnf_scan(Device& device, VkCommandBuffer cmd, const std::string& mode, const CnfInput& input,
                            const ScanPlan& plan, const Buffer& partials, const Buffer* mask, uint32_t value_slot,
                            const std::string& suffix = {});
}  // namespace detail

//! Records cnf_count: counts[first_group + g] (uint32) = rows of workgroup g passing the program.
//! `counts` holds plan.groups words. The caller owes barriers as for the primitives (map.h).
void record_cnf_count(Device& device, VkCommandBuffer cmd, const CnfInput& input, const ScanPlan& plan,
                      const Buffer& counts);
//! Records cnf_flags: counts[b] (uint32) = rows of mask block b (in row order over all chunks)
//! passing the program (`counts` holds plan.blocks() words) and the bitmask of passing rows
//! (plan.mask_words() words, layout in cnf_mask_config.glsl).
void record_cnf_flags(Device& device, VkCommandBuffer cmd, const CnfInput& input, const ScanPlan& plan,
                      const Buffer& counts, const Buffer& mask);

//! The layout of a block-offsets buffer: plan.blocks() uint32 exclusive offsets, then the uint64
//! total at total_offset().
struct BlockOffsets {
  uint64_t blocks = 0;  //!< per-block counts scanned
  //! Byte offset of the uint64 total.
  uint64_t total_offset() const noexcept { return (blocks * 4 + 255) / 256 * 256; }
  //! Bytes of the offsets buffer.
  uint64_t bytes() const noexcept { return total_offset() + 16; }
};

//! Scratch bytes record_block_offsets needs.
uint64_t block_offsets_scratch_bytes(const Device& device, const ScanPlan& plan);
//! Records the exclusive scan of the per-block counts into `offsets` (BlockOffsets layout).
void record_block_offsets(Device& device, VkCommandBuffer cmd, const ScanPlan& plan, const Buffer& counts,
                          const Buffer& offsets, const Buffer& scratch);

//! What record_cnf_compact writes.
struct CompactTarget {
  const Buffer* ids = nullptr;           //!< row ids (uint32), or nullptr
  const Buffer* keys = nullptr;          //!< order keys of `values`, or nullptr
  const DeviceColumn* values = nullptr;  //!< the column whose keys are written (with `keys`)
  uint32_t limit = UINT32_MAX;           //!< only the first `limit` selected rows are written
  //! Output position of each chunk's first selected row (downloaded offsets). Empty: the outputs
  //! are bound whole, which needs them to fit one binding.
  std::vector<uint32_t> chunk_starts;
};

//! Records cnf_compact: the rows marked in `mask` in row order, at their blocks' offsets (staged in
//! shared memory per subgroup, written coalesced). The outputs are padded_bytes()-sized buffers of
//! at least the number of rows written.
void record_cnf_compact(Device& device, VkCommandBuffer cmd, const ScanPlan& plan, const Buffer& mask,
                        const Buffer& offsets, const CompactTarget& target);

//! The one-pass selection's geometry: tiles, control words and each chunk's output region.
struct SelectLayout {
  uint32_t tile_rows = 0;            //!< rows per tile: CNF_SELECT_TILE_* (cnf_select_config.glsl)
  std::vector<uint32_t> first_tile;  //!< per chunk: index of its first tile among all chunks' tiles
  std::vector<uint32_t> tiles;       //!< per chunk: its tiles
  std::vector<uint64_t> out_start;   //!< per chunk: element of its output region (a multiple of 64)
  std::vector<uint32_t> out_rows;    //!< per chunk: length of its region (ids written at most)
  uint64_t all_tiles = 0;            //!< tiles over all chunks
  uint64_t out_elements = 0;         //!< elements of the ids buffer
  //! Words of the control buffer: status, counter, one descriptor per tile.
  uint64_t ctrl_words() const noexcept;
};

//! The layout of the one-pass selection of `input` (tiles of 8192 rows with one column, 2048 with
//! several) keeping at most `limit` rows per chunk; nullopt where it cannot run (a chunk past its
//! 30-bit descriptor counts).
std::optional<SelectLayout> plan_select(const CnfInput& input, const ScanPlan& plan, uint64_t limit);

//! `tiles`, with Auto resolved for `device` (Launch or Counter).
SelectTiles resolve_select_tiles(const Device& device, SelectTiles tiles) noexcept;

//! How the reports name a resolved tile order, after "N-row tiles": " in launch order" or " taken
//! from a counter".
const char* select_tiles_words(SelectTiles tiles) noexcept;

//! Records cnf_select over every chunk: zeroes `ctrl` (layout.ctrl_words() words), then writes the
//! ids of the passing rows of chunk c, in row order, from element layout.out_start[c] of `ids`
//! (at most out_rows[c]). Afterwards ctrl holds the status word (nonzero: a look-back hit
//! `lookback`, nothing is valid; rerun by the three-kernel path) and each tile's descriptor; the
//! last tile's of a chunk holds its passing rows (PREFIX). Workgroups find their tiles as `tiles`
//! says. The caller owes barriers as for the primitives (map.h).
void record_cnf_select(Device& device, VkCommandBuffer cmd, const CnfInput& input, const ScanPlan& plan,
                       const SelectLayout& layout, const Buffer& ctrl, const Buffer& ids, uint32_t lookback,
                       SelectTiles tiles);

//! Passing rows per chunk from the downloaded control words, or nullopt when a look-back hit its
//! bound (or a chunk's last descriptor is not PREFIX).
std::optional<std::vector<uint32_t>> select_counts(const SelectLayout& layout, const std::vector<uint32_t>& ctrl);

class ResidentColumns;  // vk/engine/resident.h

//! Where a QueryContext finds its columns resident: the cache and the Catalog::version of the
//! query's tables (the catalog names are the BoundQuery's).
struct ResidentTables {
  ResidentColumns* cache = nullptr;  //!< nullptr: every column is uploaded for this query alone
  uint64_t left_version = 0;         //!< version of BoundQuery::left_name
  uint64_t right_version = 0;        //!< version of BoundQuery::right_name (joins)
};

//! One query's execution on the device: the columns uploaded (or found resident) so far, the chunk
//! limit, and the passes of its report (one per dispatch stage, upload, resident read and download).
class QueryContext {
 public:
  using Clock = std::chrono::steady_clock;

  //! A context over `query` (which must outlive it), planning its scans with `limits`, reading its
  //! columns through `resident` when it names a cache (which must outlive the context, untrimmed).
  QueryContext(Device& device, const BoundQuery& query, const ScanLimits& limits = {}, ResidentTables resident = {});

  //! The device.
  Device& device() noexcept { return device_; }
  //! The bound query.
  const BoundQuery& query() const noexcept { return query_; }
  //! The device copy of `c`: uploaded on first use (an "upload" pass), or the resident copy (a
  //! "resident" pass) when the context reads through a cache.
  const DeviceColumn& column(const BoundColumn& c);
  //! The scan plan over the query's input rows.
  const ScanPlan& plan() const noexcept { return plan_; }
  //! The limits the plan was made with (and the row-id path's settings).
  const ScanLimits& limits() const noexcept { return limits_; }
  //! The CnfInput of `program` (its columns uploaded); `words` receives the term table, whose bytes
  //! the next run() copies in at the start of its command buffer (so bind before the run that reads
  //! them; no submission of their own).
  CnfInput bind(const CnfProgram& program, Buffer& words);

  //! Runs record(cmd) as one pass (Device::run_pass: timed and waited for, or recorded into the batch) and
  //! appends a pass with its GPU time (when timed) and wall time; returns it so the caller can fill
  //! `passed`.
  template <class F>
  PassRecord& run(std::string kind, std::string detail, uint64_t items, F&& record) {
    const auto start = Clock::now();
    std::vector<PendingCopy> copies;  // their staging buffers: released once the pass has run
    const std::optional<double> gpu = device_.run_pass([&](VkCommandBuffer cmd) {
      record_pending(cmd, copies);
      record(cmd);
    });
    PassRecord& p = add(std::move(kind), std::move(detail), items, std::nullopt, start);
    p.gpu_ms = gpu;
    return p;
  }
  //! Downloads `count` values of T from `buffer` at byte `offset` (a "download" pass).
  template <class T>
  std::vector<T> download(const Buffer& buffer, uint64_t count, const std::string& what, uint64_t offset = 0) {
    const auto start = Clock::now();
    std::vector<T> out(count);
    device_.download(buffer, out.data(), count * sizeof(T), offset);
    add("download", what + " (" + std::to_string(count * sizeof(T)) + " bytes)", count, std::nullopt, start);
    return out;
  }
  //! Appends a pass timed on the host from `start` to now.
  PassRecord& add(std::string kind, std::string detail, uint64_t items, std::optional<uint64_t> passed,
                  Clock::time_point start);
  //! The passes so far.
  std::vector<PassRecord>& passes() noexcept { return passes_; }

 private:
  Device& device_;
  const BoundQuery& query_;
  ScanLimits limits_;
  ScanPlan plan_;
  ResidentTables resident_;
  std::map<std::pair<Side, size_t>, DeviceColumn> owned_;  // uploaded for this query alone
  std::map<std::pair<Side, size_t>, const DeviceColumn*> columns_;
  std::vector<PassRecord> passes_;
  // Term tables bind() staged, copied by the next run().
  struct PendingCopy {
    Buffer staging;
    VkBuffer dst = VK_NULL_HANDLE;
    uint64_t bytes = 0;
  };
  std::vector<PendingCopy> pending_;
  // Records the pending copies (moved to `copies`, which the caller keeps until the submission ends)
  // and a barrier after them.
  void record_pending(VkCommandBuffer cmd, std::vector<PendingCopy>& copies);
};

//! The rows of the query's input that pass a program, marked on the device (stages 1 and 2).
struct DeviceSelection {
  bool all = false;                    //!< every row passes (no mask; Outcome::All)
  uint64_t count = 0;                  //!< rows that pass
  Buffer mask;                         //!< the bitmask (unless `all` or count == 0)
  Buffer offsets;                      //!< BlockOffsets layout (unless `all` or count == 0)
  std::vector<uint32_t> chunk_starts;  //!< output position of each chunk's first passing row
};

//! Marks the rows passing `program`: cnf_flags, then the scan of the block counts, then a
//! download of the offsets (which gives the count). Outcome::All and None need no GPU work.
DeviceSelection mark_rows(QueryContext& ctx, const CnfProgram& program);

//! Ascending row ids on the device: the first `count` uint32 words of `ids` (padded_bytes()), or, with
//! `all`, the rows 0 .. count - 1 (no buffer).
struct DeviceRowIds {
  Buffer ids;          //!< the ids (empty when `all` or count == 0)
  uint64_t count = 0;  //!< number of ids
  bool all = false;    //!< every row up to `count` (no buffer)
};

//! The first `limit` rows of `selection`, ascending, as row ids on the device (cnf_compact, or no GPU
//! work when every row passes).
DeviceRowIds selected_row_ids_on_device(QueryContext& ctx, const DeviceSelection& selection,
                                        uint64_t limit = UINT64_MAX);

//! `ids` in host memory (a "download" pass, none for `all`).
std::vector<uint32_t> download_row_ids(QueryContext& ctx, const DeviceRowIds& ids);

//! The first `limit` rows of `selection`, ascending, as row ids (cnf_compact, or no GPU work when
//! every row passes).
std::vector<uint32_t> selected_row_ids(QueryContext& ctx, const DeviceSelection& selection,
                                       uint64_t limit = UINT64_MAX);

//! CompactTarget::chunk_starts for compacting `selection`: one output window per chunk when the
//! plan has several (so no output is ever bound whole past one binding), else none.
std::vector<uint32_t> output_windows(const QueryContext& ctx, const DeviceSelection& selection);

//! The first `limit` rows passing `program`, ascending, as row ids on the device: cnf_select in one
//! pass (the chunks' ids moved together when there are several), or, when it cannot run or its
//! look-back hit its bound, mark_rows then selected_row_ids_on_device. `how` (optional) receives
//! which path ran.
DeviceRowIds select_row_ids_on_device(QueryContext& ctx, const CnfProgram& program, uint64_t limit = UINT64_MAX,
                                      std::string* how = nullptr);

//! select_row_ids_on_device() downloaded to the host.
std::vector<uint32_t> select_row_ids(QueryContext& ctx, const CnfProgram& program, uint64_t limit = UINT64_MAX,
                                     std::string* how = nullptr);

//! COUNT of the rows passing `program` (cnf_count and a host sum of the per-group counts).
uint64_t count_rows(QueryContext& ctx, const CnfProgram& program);

//! The plain (non-aggregate, unordered) query: WHERE, LIMIT and the projection of the selected
//! rows, gathered on the host. Returns the result table; `algorithm` receives its description.
Table run_selection(QueryContext& ctx, std::string& algorithm);

//! The result table of the query's items for the host rows `rows` (in that order), as stored,
//! gathered on the host; records the "project" stage in `ctx` and names it in `algorithm`.
Table project_rows(QueryContext& ctx, const std::vector<uint32_t>& rows, std::string& algorithm);

}  // namespace gfxq::vk
