#pragma once
//! \file backend.h
//! The interface every backend implements for the executor (executor.h), and the table of creators.
//!
//! A backend claims fragments of a logical plan: a node and the nodes below it that it runs as one
//! unit (the compute path fuses a WHERE into its aggregate kernel, for instance). It says per node
//! whether it can, from its capability record and the node's shape, never by trial; then it runs the
//! fragment over the relations its inputs produced. A backend owns its GPU context or device and
//! starts it on first use.

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

//! A part of a plan one backend runs as one unit.
struct Fragment {
  const plan::Node* root = nullptr;       //!< its top node
  std::vector<const plan::Node*> nodes;   //!< the nodes it covers, root first
  std::vector<const plan::Node*> inputs;  //!< nodes below it whose results it reads, in order
  std::string algorithm;                  //!< how the backend will run it (one line)
  std::optional<Query> spec;              //!< the Query spec it computes, for a spec fragment (spec_fragment.h)
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
  cpu::HostRelation result;                    //!< the root's output
  std::map<const plan::Node*, NodeRun> nodes;  //!< per covered node
  std::vector<PassRecord> passes;              //!< GPU passes, uploads and downloads, in order
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
  //! Runs `fragment` (a claim of this backend) over its inputs' results, in `fragment.inputs` order.
  virtual FragmentRun run(const Fragment& fragment, const Catalog& catalog, std::vector<cpu::HostRelation> inputs) = 0;
  //! Debug/validation messages recorded since the last call (EngineOptions::debug).
  virtual std::vector<std::string> take_debug_messages() { return {}; }
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
