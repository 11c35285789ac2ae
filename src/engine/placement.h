#pragma once
//! \file placement.h
//! Auto placement by predicted cost (docs/RASTER.md "Placement by cost").
//!
//! Each backend that can be chosen has a cost model (gl/cost.h's CostModel): the raster path's from
//! its per-device calibration, the compute path's a bandwidth model, the CPU engine's a model of its
//! per-value rates. For a node, every candidate backend is asked to claim the fragment rooted there;
//! each claim is costed as its own estimate plus the cheapest placement of its inputs, and the
//! cheapest claim wins (ties: compute, raster, CPU). A backend without a model is no candidate, and
//! the reason says why. The models' figures come from a CostTable, made from the devices by
//! default_cost_table or injected by the caller (tests: fixed figures, deterministic decisions).

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/backend.h"
#include "gl/cost.h"

namespace gfxq::gl {
struct RasterCalibration;
}

namespace gfxq::engine {

class Backends;

//! What the compute model knows of its device.
struct ComputeFigures {
  double bytes_per_s = 0;  //!< device memory bandwidth, bytes read or written per second
  double dispatch_s = 0;   //!< seconds a kernel launch costs beyond its bytes
  double submit_s = 0;     //!< seconds of one submission and wait (one per fragment)
  std::string source;      //!< where the figures come from
};

//! The compute path's model: bytes each operator moves (its kernels' reads and writes, GDB/CUB
//! shapes) over the bandwidth, plus a launch per kernel and one submission. Columns are taken as
//! resident on the device (the compute backend keeps them between queries).
class ComputeCostModel final : public gl::CostModel {
 public:
  //! A model over `figures`.
  explicit ComputeCostModel(ComputeFigures figures) : f_(std::move(figures)) {}
  //! The predicted cost of `node` on the compute path.
  gl::CostEstimate estimate(const gl::PlanNodeShape& node) const override;
  //! The bandwidth, launch and submission figures and their source.
  std::string figures() const override;

 private:
  ComputeFigures f_;
};

//! What the CPU model knows of the host.
struct CpuFigures {
  double values_per_s = 0;      //!< column values a scan, filter or aggregate evaluates per second
  double hash_rows_per_s = 0;   //!< rows a hash join or hash GROUP BY inserts or probes per second
  double sort_steps_per_s = 0;  //!< comparison steps (n log2 n in all) a sort makes per second
  std::string source;           //!< where the figures come from
};

//! The CPU reference engine's model: values evaluated, rows hashed and sort steps at its rates.
class CpuCostModel final : public gl::CostModel {
 public:
  //! A model over `figures`.
  explicit CpuCostModel(CpuFigures figures) : f_(std::move(figures)) {}
  //! The predicted cost of `node` on the CPU engine.
  gl::CostEstimate estimate(const gl::PlanNodeShape& node) const override;
  //! The rates and their source.
  std::string figures() const override;

 private:
  CpuFigures f_;
};

//! The models auto placement compares. A null model's backend is no candidate; `*_absent` says why.
struct CostTable {
  std::shared_ptr<const gl::CostModel> cpu;      //!< the CPU engine's (always set by default_cost_table)
  std::shared_ptr<const gl::CostModel> raster;   //!< the raster path's, or null
  std::shared_ptr<const gl::CostModel> compute;  //!< the compute path's, or null
  std::string raster_absent;                     //!< why raster is no candidate, when null
  std::string compute_absent;                    //!< why compute is no candidate, when null
  //! One line per backend: its model's figures or why it has none (`gfxq info`).
  std::string text() const;
};

//! The CPU engine's default figures (measured with the reference engine on one core of the
//! development machine; docs/RASTER.md).
CpuFigures default_cpu_figures();

//! The compute figures of a Vulkan device of type `device_type` ("discrete", "integrated", ...):
//! Vulkan reports no bandwidth, so these are documented defaults per type (docs/RASTER.md).
ComputeFigures default_compute_figures(const std::string& device_type);

//! The table made from the devices: the CPU model; compute's when the Vulkan device is a GPU;
//! raster's from its calibration when the GL renderer is a GPU (not llvmpipe, softpipe or swrast)
//! and calibration is on. Starts both contexts; calibrates the raster path (cached) when it counts.
CostTable default_cost_table(Backends& backends);

//! The shape of `fragment` for the cost models: its main operator (join, GROUP BY, aggregate, sort,
//! filter, else a scan), rows from the tables below it (a filter over a table keeps the fraction of a
//! sample of at most 4096 rows its condition keeps; other filters every row), comparisons and clauses of its filters,
//! 24-bit parts from the compared columns' key spans and group ids from the key column's span (both from a sample of at
//! most 2^16 values).
gl::PlanNodeShape fragment_shape(const Fragment& fragment, const Catalog& catalog);

//! The raster backend's calibration (measured or read from its cache on first call), or null when
//! calibration is off or no context exists. Implemented by the raster backend (gl/backend.cpp).
const gl::RasterCalibration* raster_calibration(BackendImpl& raster);

//! Auto's choice for one node.
struct AutoChoice {
  Backend backend = Backend::Cpu;  //!< the chosen backend
  Fragment fragment;               //!< its claim
  std::string reason;              //!< the estimates compared and what could not claim
};

//! Chooses backends by cost over one plan; remembers each subtree's cheapest cost.
class AutoPlacer {
 public:
  //! A placer over `backends` with `costs`.
  AutoPlacer(Backends& backends, const Catalog& catalog, const CostTable& costs)
      : backends_(backends), catalog_(catalog), costs_(costs) {}
  //! The cheapest claim of `node` (with its inputs placed at their cheapest).
  AutoChoice choose(const plan::Node& node);

 private:
  struct Option {
    Backend backend;
    Fragment fragment;
    gl::CostEstimate own;
    double total = 0;  // own + the inputs' cheapest
  };
  std::vector<Option> options(const plan::Node& node, std::string& refused);
  double cheapest(const plan::Node& node);

  Backends& backends_;
  const Catalog& catalog_;
  const CostTable& costs_;
  std::map<const plan::Node*, double> cheapest_;
};

}  // namespace gfxq::engine
