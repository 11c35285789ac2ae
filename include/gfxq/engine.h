#pragma once
//! \file engine.h
//! The Engine: runs query specs on the CPU reference engine or a GPU backend.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gfxq/capabilities.h"
#include "gfxq/query.h"
#include "gfxq/result.h"
#include "gfxq/table.h"

namespace gfxq {

//! Faults to inject, to test that failures come back as typed errors and leave the engine usable
//! (docs/RELIABILITY.md). Counts start when the GPU context starts; 0 injects nothing.
struct FaultInjection {
  //! The k-th device allocation (1-based) fails: Error(OutOfDeviceMemory) naming the bytes.
  //! Compute: a Vulkan buffer; raster: a GL texture, renderbuffer or buffer store.
  uint64_t fail_device_allocation = 0;
  //! The k-th GPU wait (1-based) times out: Error(Timeout) naming the wait. Compute: a Vulkan
  //! submission; raster: a wait for the GL context before a read of results (occlusion counts,
  //! pixels, textures) or between a sort's stages.
  uint64_t time_out_gpu_wait = 0;
  //! The k-th GPU wait (a Vulkan submission, or the start of a raster query) finds the device
  //! lost: Error(DeviceLost), and every later query on that backend of the engine too.
  uint64_t lose_device = 0;
};

//! How Backend::Auto places the nodes of a plan.
enum class Placement {
  //! Compute when the Vulkan device is a GPU and the compute backend runs the node, else the CPU
  //! engine (the default: on the H200 it was the fastest choice in every case measured).
  ComputeFirst,
  //! The backend whose claim the cost models predict cheapest (raster from its calibration, compute
  //! and the CPU engine from documented figures; docs/RASTER.md "Placement by cost"). Not the
  //! default: on the H200 its predictions were off by up to 400x (BENCHMARKS.md).
  Cost,
};

//! Whether queries run partitioned across the devices of a device set (EngineOptions::vk_devices;
//! docs/MULTI_GPU.md).
enum class Partitioning {
  //! Partitioned when the set has two or more devices and the plan splits into exact per-device
  //! partials and a merge; otherwise on the set's first device, the report saying why.
  Auto,
  //! Partitioned, or Error(Unsupported) naming what the split cannot answer exactly (a requested CPU
  //! engine or raster backend still runs unpartitioned).
  Required,
};

//! How the compute backend's one-pass row-id kernel (a selection's row ids by decoupled look-back)
//! has its workgroups find their tiles (ComputeOptions::select_tiles).
enum class SelectTiles {
  //! Launch on devices known to start workgroups in id order (NVIDIA's), else Counter.
  Auto,
  //! The next tile from a counter in the control words: start order on any device.
  Counter,
  //! The workgroup id: no atomic and no barrier before the loads. Where workgroups start out of order
  //! a look-back may wait on one not yet started: it hits its bound and the selection reruns by the
  //! three-kernel path (slow, still exact).
  Launch,
};

//! Knobs of the compute backend (docs/COMPUTE.md). The defaults suit every device; tests shrink the
//! sizes to run many chunks, windows and rounds on small tables, and force each variant. Each knob
//! but star_aggregate has an environment variable that overrides it where set, read once when the
//! Engine is created (never during a query); a value that is not valid there makes the Engine's
//! constructor throw Error(InvalidInput) naming the variable and the value.
struct ComputeOptions {
  //! Rows per chunk of a scan (rounded down to a multiple of 2048, at least 2048); 0: as many as
  //! one storage binding holds. GFXQ_COMPUTE_CHUNK_ROWS.
  uint64_t chunk_rows = 0;
  //! Workgroups per chunk of a scan; 0: 2048. Workgroups own at most 2^24 rows whatever
  //! it says. GFXQ_COMPUTE_MAX_GROUPS (capped at 2^32 - 1).
  uint32_t max_groups = 0;
  //! Most look-back steps per tile of the one-pass row-id kernel (at most 16384 are taken); 0 makes
  //! every chunk of several tiles rerun by the three-kernel path. GFXQ_COMPUTE_SELECT_LOOKBACK
  //! (capped at 2^32 - 1).
  uint32_t select_lookback = UINT32_MAX;
  //! How the one-pass row-id kernel's workgroups find their tiles.
  //! GFXQ_COMPUTE_SELECT_TILES=auto|counter|launch.
  SelectTiles select_tiles = SelectTiles::Auto;
  //! The exact FLOAT SUM keeps its register bin in int64 even where the device has shaderFloat64 (as
  //! on devices without it). GFXQ_COMPUTE_FLOAT_SUM_INT64 (a number; not 0: on).
  bool float_sum_int64 = false;
  //! Keys per binding window of ORDER BY's radix sort and top-k select and of the quantiles' radix
  //! select, as if one storage binding held that many; 0: the device's binding.
  //! GFXQ_COMPUTE_SORT_WINDOW.
  uint64_t sort_window = 0;
  //! Whether radix selects (quantiles, ORDER BY's top-k threshold) sample a bracket around the rank
  //! first; unset: sampled from 2^25 keys (docs/COMPUTE.md). GFXQ_SELECT_SAMPLE=0|1.
  std::optional<bool> select_sample;
  //! Most pairs in one output chunk of a join; 0: as many as one storage binding holds.
  //! GFXQ_COMPUTE_JOIN_CHUNK_PAIRS.
  uint64_t join_chunk_pairs = 0;
  //! Most pairs in one chunk of a CROSS JOIN; 0: as many as one storage binding holds.
  //! GFXQ_COMPUTE_PRODUCT_CHUNK.
  uint64_t product_chunk_pairs = 0;
  //! Rows in host memory up to which a Sort is run on the host (no GPU passes).
  //! GFXQ_COMPUTE_HOST_SORT_ROWS.
  uint64_t host_sort_rows = 4096;
  //! Whether an Aggregate over joins of a fact table with dimension tables on unique keys runs as one
  //! star aggregate (docs/COMPUTE.md "Star aggregate"); off: a join fragment per join, then the
  //! aggregate (tests and benchmarks compare the two). No environment variable.
  bool star_aggregate = true;

  //! Equal when every knob is.
  bool operator==(const ComputeOptions&) const = default;
};

//! Knobs of the raster backend (docs/RASTER.md).
struct RasterOptions {
  //! Where the device's raster calibration is cached (docs/RASTER.md "Calibration"): empty, the
  //! user's cache folder ($XDG_CACHE_HOME/gfxq or ~/.cache/gfxq); "off", no calibration (the default
  //! tile options, nothing measured); else the path of the cache file. GFXQ_RASTER_CALIBRATION
  //! overrides it where set, read once when the Engine is created.
  std::string calibration;

  //! Equal when every knob is.
  bool operator==(const RasterOptions&) const = default;
};

//! How an Engine starts its GPU contexts and places plans.
struct EngineOptions {
  //! How Backend::Auto places plan nodes.
  Placement placement = Placement::ComputeFirst;
  //! Turns on synchronous GL debug output and the Vulkan validation layer. Every message is
  //! recorded (debug_messages()); tests fail on any. Error(Unsupported) if the layer is missing.
  bool debug = false;
  //! Vulkan device choice: an index or a substring of the device name. Empty: the environment
  //! variable GFXQ_VK_DEVICE, else the first discrete, then integrated, then CPU device.
  std::string vk_device;
  //! A Vulkan device set: one choice per device (index or name substring; the same index twice makes
  //! two logical devices over one physical device). With two or more entries, queries run
  //! partitioned across them (docs/MULTI_GPU.md); one entry is vk_device. Empty: vk_device, or a
  //! comma-separated list in GFXQ_VK_DEVICE (e.g. "0,1").
  std::vector<std::string> vk_devices;
  //! Whether queries over a device set run partitioned (ignored with one device).
  Partitioning partitioning = Partitioning::Auto;
  //! The longest one GPU wait may take (a Vulkan submission; on the raster backend every wait
  //! before a read of results) before the query fails with Error(Timeout).
  uint32_t gpu_timeout_ms = 60000;
  //! Whether the compute backend times each pass on the GPU (PassRecord::gpu_ms, plan nodes'
  //! gpu_ms). Timing waits for every pass to read its timestamps (a round trip each, 0.04 ms on the H200);
  //! untimed, passes are queued and the host waits only where it reads results back.
  bool gpu_timing = false;
  //! Whether the compute backend's Vulkan device keeps its compiler's statistics of each pipeline
  //! (registers, spills, shared memory; VK_KHR_pipeline_executable_properties) for
  //! Engine::pipeline_statistics(). A device without the extension then makes the compute backend
  //! unavailable, with that reason.
  bool pipeline_statistics = false;
  //! Faults to inject (tests); none by default.
  FaultInjection faults;
  //! Bytes of catalog columns the compute backend keeps on the device between queries, and the
  //! raster backend as tile textures (resident columns: a later query reading them uploads nothing;
  //! least recently used evicted first; a replaced table's columns are dropped). Unset: half of the
  //! device's largest device-local heap (raster: 1 GiB, as GL reports no memory size); 0: nothing
  //! stays resident (every query uploads its columns).
  std::optional<uint64_t> resident_bytes;
  //! Knobs of the compute backend (environment overrides read when the Engine is created).
  ComputeOptions compute;
  //! Knobs of the raster backend (environment overrides read when the Engine is created).
  RasterOptions raster;
};

class Engine;

//! A statement parsed, bound and placed once by Engine::prepare, run any number of times by
//! Engine::execute: a run skips the parser, the binder and the placement (its report says
//! `prepared: plan reused`). It belongs to the engine that prepared it, and keeps the catalog it
//! was prepared over and the versions of the tables it reads: run over another catalog, or after
//! one of those tables was replaced (Catalog::add), it is prepared again first (the report says
//! why). The catalog must outlive the statement's runs. Copies share one plan.
class PreparedStatement {
 public:
  PreparedStatement();
  ~PreparedStatement();
  PreparedStatement(const PreparedStatement&);
  PreparedStatement& operator=(const PreparedStatement&);
  PreparedStatement(PreparedStatement&&) noexcept;
  PreparedStatement& operator=(PreparedStatement&&) noexcept;

  //! The statement's text.
  const std::string& sql() const;
  //! The backend it was placed on (as given to prepare).
  Backend backend() const;

  struct State;  //!< the plan and its placement; defined in src/

 private:
  friend class Engine;
  std::shared_ptr<State> state_;
};

//! Runs queries. GPU contexts start lazily, on the first query or capability request that
//! needs them. An Engine is not thread-safe; use one per thread. After an Error the engine
//! stays usable and the inputs are untouched; after Error(DeviceLost) that backend keeps failing
//! with DeviceLost until the Engine is destroyed and a new one made.
class Engine {
 public:
  //! An engine with the given options; starts no GPU context yet.
  explicit Engine(EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  //! Runs `query` over `catalog` on `backend`. A forced backend that cannot run a node of the plan
  //! exactly throws Error(Unsupported) naming the node; it never falls back silently. Auto places each
  //! node: on the compute backend on a GPU Vulkan device when it has an operator for it, else on the
  //! CPU reference engine; the report says per node which backend ran it and why.
  Result execute(const Query& query, const Catalog& catalog, Backend backend = Backend::Auto);
  //! Parses `sql` (the language of docs/SQL.md) and executes it. `EXPLAIN query` runs nothing: its
  //! table holds the placed plan's lines (column `plan`) and its report the plan.
  Result execute_sql(std::string_view sql, const Catalog& catalog, Backend backend = Backend::Auto);
  //! Parses, binds and places `sql` on `backend` for execute(PreparedStatement&, ...), with the
  //! errors execute_sql would give (Error(InvalidQuery), Error(Unsupported)). `EXPLAIN` statements
  //! are not prepared (Error(InvalidQuery)).
  PreparedStatement prepare(std::string_view sql, const Catalog& catalog, Backend backend = Backend::Auto);
  //! Runs `statement` over `catalog` as execute_sql would run its text; prepares it again first when
  //! the catalog or a table it reads changed (see PreparedStatement). Error(InvalidInput) for a
  //! statement of another engine or an empty one.
  Result execute(PreparedStatement& statement, const Catalog& catalog);
  //! The placed plan of `sql` without running it: each node with the backend and algorithm it would
  //! run on and why (what `gfxq sql --plan` prints). Error(Unsupported) as execute_sql would.
  ExecutionReport explain_sql(std::string_view sql, const Catalog& catalog, Backend backend = Backend::Auto);

  //! The OpenGL capability record (starts the context on first call; available=false with the
  //! reason when no context can be created).
  const GlCapabilities& gl_capabilities();
  //! The Vulkan capability record (starts the device on first call; available=false with the
  //! reason when none can be created).
  const VkCapabilities& vk_capabilities();

  //! Debug/validation messages recorded since the last call (only with EngineOptions::debug).
  std::vector<std::string> take_debug_messages();
  //! Turns EngineOptions::gpu_timing on or off for the queries that follow (`gfxq shell`'s .timer).
  void set_gpu_timing(bool on);
  //! With EngineOptions::pipeline_statistics: each compute pipeline created so far (sorted by name)
  //! with its driver's statistics ("name = value" pairs per executable); empty otherwise or before
  //! the compute backend ran.
  std::vector<std::pair<std::string, std::string>> pipeline_statistics();

  struct Impl;  //!< backend state (contexts, devices); defined in src/

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gfxq
