#pragma once
//! \file backend.h
//! The interface every backend implements for the executor (executor.h), and the table of creators.
//!
//! A backend claims fragments of a logical plan: a node and the nodes below it that it runs as one
//! unit (the compute path fuses a WHERE into its aggregate kernel, for instance). It says per node
//! whether it can, from its capability record and the node's shape, never by trial; then it runs the
//! fragment over the relations its inputs produced. A backend owns its GPU context or device and
//! starts it on first use.
//!
//! Fragments exchange Relations: rows in host memory, or data a backend keeps in its own memory (the
//! compute backend's device columns, vk/engine/inputs.h). The executor hands a backend's own data to
//! the next fragment of the same backend untouched; for any other consumer, and for the query's
//! result, it asks the owning backend to download it (a "download" pass in the report).

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cpu/exec/relation.h"
#include "gfxq/capabilities.h"
#include "gfxq/engine.h"
#include "gfxq/query.h"
#include "gfxq/result.h"
#include "plan/logical.h"

namespace gfxq::engine {

//! What a backend worked out while claiming a fragment (bound queries, compiled conditions) and reuses
//! when running it, so that a plan pays for it once.
class FragmentState {
 public:
  virtual ~FragmentState() = default;
};

//! A part of a plan one backend runs as one unit.
struct Fragment {
  const plan::Node* root = nullptr;            //!< its top node
  std::vector<const plan::Node*> nodes;        //!< the nodes it covers, root first
  std::vector<const plan::Node*> inputs;       //!< nodes below it whose results it reads, in order
  std::string algorithm;                       //!< how the backend will run it (one line)
  std::optional<Query> spec;                   //!< the Query spec it computes, for a spec fragment (spec_fragment.h)
  std::shared_ptr<const FragmentState> state;  //!< the backend's claim-time work, or null
};

//! A relation a backend holds in its own memory (e.g. columns on a GPU); only that backend reads it.
class BackendData {
 public:
  virtual ~BackendData() = default;
  //! Number of rows.
  virtual uint64_t rows() const noexcept = 0;
};

//! A fragment's result as the fragments above it receive it: rows in host memory, or a backend's own
//! data (BackendData) that the executor moves to the host only when another backend reads it.
class Relation {
 public:
  //! An empty relation in host memory.
  Relation() = default;
  //! Rows in host memory (implicit: a fragment that returns host rows assigns them as before).
  Relation(cpu::HostRelation host) : host_(std::move(host)) {}  // NOLINT(google-explicit-constructor)
  //! Data held by backend `owner`.
  Relation(Backend owner, std::shared_ptr<const BackendData> data) : owner_(owner), data_(std::move(data)) {}

  //! True when the rows are in host memory.
  bool on_host() const noexcept { return !data_; }
  //! The rows in host memory; Error(Internal) when a backend holds them.
  const cpu::HostRelation& host() const;
  //! The backend holding the data (meaningful when !on_host()).
  Backend owner() const noexcept { return owner_; }
  //! The backend's data, or null when the rows are in host memory.
  const std::shared_ptr<const BackendData>& data() const noexcept { return data_; }
  //! Number of rows.
  uint64_t rows() const noexcept { return data_ ? data_->rows() : host_.rows(); }

 private:
  cpu::HostRelation host_;
  Backend owner_ = Backend::Cpu;
  std::shared_ptr<const BackendData> data_;
};

//! What running one node of a fragment did, for the report.
struct NodeRun {
  std::string algorithm;         //!< the physical algorithm
  uint64_t rows_in = 0;          //!< rows read
  uint64_t rows_out = 0;         //!< rows produced
  double wall_ms = 0;            //!< host time
  std::optional<double> gpu_ms;  //!< GPU time, when measured
};

//! A fragment's result and the report of each node it covers.
struct FragmentRun {
  Relation result;                             //!< the root's output (host rows or the backend's own data)
  std::map<const plan::Node*, NodeRun> nodes;  //!< per covered node
  std::vector<PassRecord> passes;              //!< GPU passes, uploads and downloads, in order
};

//! Counts of GPU submissions (ExecutionReport::gpu_submissions, gpu_waits).
struct GpuSubmits {
  uint64_t submissions = 0;  //!< command buffers submitted
  uint64_t waits = 0;        //!< host waits for them
};

//! One backend.
class BackendImpl {
 public:
  virtual ~BackendImpl() = default;
  //! Which backend this is.
  virtual Backend kind() const noexcept = 0;
  //! The fragment rooted at `node` this backend runs, or nullopt with `why` saying what it lacks
  //! (e.g. "compute backend cannot run Join with a residual condition").
  virtual std::optional<Fragment> claim(const plan::Node& node, const Catalog& catalog, std::string& why) = 0;
  //! Runs `fragment` (a claim of this backend) over its inputs' results, in `fragment.inputs` order:
  //! host relations, or this backend's own data (never another backend's: the executor downloads it).
  virtual FragmentRun run(const Fragment& fragment, const Catalog& catalog, std::vector<Relation> inputs) = 0;
  //! Moves `relation` (this backend's own data) to host memory, appending a "download" pass that
  //! names `what` (e.g. "Join result for the CPU engine") to `passes`.
  virtual cpu::HostRelation download(const Relation& relation, const std::string& what,
                                     std::vector<PassRecord>& passes);
  //! Debug/validation messages recorded since the last call (EngineOptions::debug).
  virtual std::vector<std::string> take_debug_messages() { return {}; }
  //! Waits for GPU work the query queued and nothing waited for, so that its errors belong to it.
  virtual void finish() {}
  //! Turns GPU timing of passes on or off (EngineOptions::gpu_timing).
  virtual void set_gpu_timing(bool) {}
  //! Command buffers submitted and host waits for them since the backend was created.
  virtual GpuSubmits submits() const noexcept { return {}; }
  //! Each pipeline created so far with its compiler statistics (EngineOptions::pipeline_statistics).
  virtual std::vector<std::pair<std::string, std::string>> pipeline_statistics() { return {}; }
};

//! The CPU reference engine's backend.
std::unique_ptr<BackendImpl> create_cpu_backend(const EngineOptions& options);
//! The raster backend (OpenGL); its context starts on first use.
std::unique_ptr<BackendImpl> create_raster_backend(const EngineOptions& options);
//! The compute backend (Vulkan); its device starts on first use.
std::unique_ptr<BackendImpl> create_compute_backend(const EngineOptions& options);

//! The raster backend's capability record (starts its context; available=false with the reason).
const GlCapabilities& raster_capabilities(BackendImpl& raster);
//! The compute backend's capability record (starts its device; available=false with the reason).
const VkCapabilities& compute_capabilities(BackendImpl& compute);

}  // namespace gfxq::engine
