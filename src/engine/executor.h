#pragma once
//! \file executor.h
//! Placement and execution of a logical plan over the backends.
//!
//! Placement: with a requested backend, every fragment is that backend's claim, and a node it cannot
//! claim is Error(Unsupported) naming the node and why. With Auto and Placement::ComputeFirst (the
//! default), each node goes to the compute backend when the Vulkan device is a GPU and it claims the
//! node, else to the CPU engine; with Placement::Cost, to the backend whose claim is predicted cheapest
//! by the cost models (placement.h: compute on a GPU Vulkan device, raster on a GPU GL renderer with
//! its calibration, the CPU engine always). The report's per-node reason says which and why (the
//! estimates compared, under Placement::Cost). Execution
//! runs the fragments bottom-up; a fragment's inputs reach it as Relations (backend.h): a result held
//! by a backend (the compute backend's device columns) goes to a fragment of the same backend in
//! place, and is downloaded by its owner (a "download" pass naming the consumer) for a fragment of
//! another backend and for the query's result. Base tables are read by each backend through its own
//! device cache.

#include <array>
#include <memory>
#include <optional>

#include "engine/backend.h"
#include "engine/options.h"
#include "engine/placement.h"
#include "gfxq/result.h"
#include "plan/logical.h"

namespace gfxq::engine {

//! The backends of one Engine, each created on first use.
class Backends {
 public:
  //! Backends with `options`, the environment's overrides of their knobs read now (with_environment:
  //! Error(InvalidInput) for an invalid value).
  explicit Backends(EngineOptions options) : options_(with_environment(std::move(options))) {}
  //! The backend `b` (not Auto).
  BackendImpl& get(Backend b);
  //! Debug messages of every backend created so far.
  std::vector<std::string> take_debug_messages();
  //! BackendImpl::finish() of every backend created so far.
  void finish();
  //! EngineOptions::gpu_timing for backends created from now on and those created so far.
  void set_gpu_timing(bool on);
  //! BackendImpl::submits() summed over every backend created so far.
  GpuSubmits submits() const noexcept;
  //! The compute backend's pipelines and their statistics (BackendImpl::pipeline_statistics), if it
  //! was created.
  std::vector<std::pair<std::string, std::string>> pipeline_statistics();
  //! The cost models Auto compares: those set, else default_cost_table's (made on first use).
  const CostTable& costs();
  //! Replaces the cost models, and Auto places by them from then on (tests: fixed figures for
  //! deterministic placement).
  void set_costs(CostTable costs) { costs_ = std::move(costs); }
  //! Whether Auto places by the cost models (EngineOptions::placement, or set_costs was called).
  bool cost_placement() const noexcept { return options_.placement == Placement::Cost || costs_.has_value(); }

 private:
  EngineOptions options_;
  std::optional<CostTable> costs_;
  std::array<std::unique_ptr<BackendImpl>, 3> slots_;  // by Backend: Cpu, Raster, Compute
};

//! A plan's placement: its fragments, each on its backend (place_plan), to be run by run_plan any
//! number of times while the tables it reads keep their versions (prepared statements).
struct PlacedPlan;
//! Places `root` over `catalog` on `requested` (Error(Unsupported) as execute_plan). The placement
//! refers to `root` and to the catalog's tables: both must outlive it.
std::shared_ptr<const PlacedPlan> place_plan(const plan::Node& root, const Catalog& catalog, Backend requested,
                                             Backends& backends);
//! Runs `root`, placed as `placed` (place_plan of the same root and catalog), as execute_plan does.
Result run_plan(const plan::Node& root, const PlacedPlan& placed, const Catalog& catalog, Backends& backends);
//! Places and runs `root` over `catalog` on `requested`: the result table (named as the root's schema)
//! and its report (plan nodes with placement, passes, algorithm summary).
Result execute_plan(const plan::Node& root, const Catalog& catalog, Backend requested, Backends& backends);

//! The placement of `root` without running it, as a report whose nodes carry backend, algorithm and
//! reason but no rows or times (EXPLAIN, `gfxq sql --plan`).
ExecutionReport explain_plan(const plan::Node& root, const Catalog& catalog, Backend requested, Backends& backends);

}  // namespace gfxq::engine
