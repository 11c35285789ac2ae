#pragma once
// Cost estimates of plan nodes for a planner (docs/RASTER.md "Calibration and cost estimates").
// The node description (PlanNodeShape), the estimate (CostEstimate) and the interface (CostModel)
// name no backend, so compute and CPU models can implement the same interface from their own
// calibrations (the integrator may move these three to core/ when the planner consumes them);
// RasterCostModel is the raster path's, from its calibration (gl/calibration.h) and the pass
// structure of its operators: time = passes x pass overhead + fragments / the rate of their kind.

#include <cstdint>
#include <string>

#include "gl/calibration.h"

namespace gfxq::gl {

//! What a planner knows of one plan node before running it.
struct PlanNodeShape {
  //! The node's operator.
  enum class Kind {
    Filter,     //!< a WHERE in CNF: count or selected row ids
    Aggregate,  //!< aggregates without GROUP BY over a selection
    GroupBy,    //!< GROUP BY with aggregates
    Sort,       //!< ORDER BY one column
    Join,       //!< an equi or band join
    Scan,       //!< rows passed through (a scan, projection or limit): columns read or gathered
  };
  Kind kind = Kind::Filter;
  uint64_t rows = 0;             //!< input rows (Join: the outer side, the probes)
  uint64_t inner_rows = 0;       //!< Join: the inner side
  uint32_t columns = 1;          //!< columns the node reads per row (uploads, bytes moved)
  bool upload = false;           //!< a whole query: its columns are uploaded for it, and it has a round trip
  uint32_t comparisons = 1;      //!< Filter: comparisons in the CNF
  uint32_t parts = 1;            //!< Filter: 24-bit parts per comparison (1 for 24-bit windows, 2 for 32-bit keys)
  uint32_t clauses = 1;          //!< Filter: clauses in the CNF
  bool row_ids = false;          //!< Filter: the selected row ids are wanted (a readback), not a count
  uint32_t sums = 0;             //!< Aggregate, GroupBy: SUM/AVG aggregates
  uint32_t sum_planes = 32;      //!< Aggregate, GroupBy: bit planes per SUM (32 for INT, 10-60 for FLOAT data)
  uint32_t searches = 0;         //!< Aggregate: MIN/MAX/MEDIAN/QUANTILE/KTH_LARGEST (32 passes each); GroupBy: MIN/MAX
  uint64_t groups = 0;           //!< GroupBy: the number of group ids (direct: the key range)
  bool rank_ids = false;         //!< GroupBy: ids from a sort of the keys (the range is wider than the target)
  uint64_t distinct_probes = 0;  //!< Join: distinct probe bounds (0: every probe)
  bool probe_passes = false;     //!< Join: the paper's passes per probe instead of the batched search
};

//! A cost model's prediction for one node.
struct CostEstimate {
  double seconds = 0;      //!< predicted GPU (or CPU) seconds
  uint64_t passes = 0;     //!< passes or kernel launches it counts
  uint64_t fragments = 0;  //!< fragments (raster) or elements (compute, CPU) it counts
  std::string basis;       //!< how it was made, for the report: the figures and the formula
};

//! A backend's cost model. Implementations hold their own calibration.
class CostModel {
 public:
  virtual ~CostModel() = default;
  //! The predicted cost of `node` on this backend.
  virtual CostEstimate estimate(const PlanNodeShape& node) const = 0;
  //! The figures the model uses, one line (for `gfxq info` and the placement report).
  virtual std::string figures() const = 0;
};

//! The raster path's model, from its calibration.
class RasterCostModel final : public CostModel {
 public:
  //! A model over `calibration`'s figures.
  explicit RasterCostModel(RasterCalibration calibration) : c_(std::move(calibration)) {}
  //! passes x the small-pass overhead + fragments / the rate of each pass kind (a constant-depth
  //! pass at the fill rate, a column-value pass at the value rate, GROUP BY points at the point
  //! rate), plus readbacks at the readback rate; a whole query (`upload`) adds its columns' upload at
  //! that rate and the calibration's small-query time.
  CostEstimate estimate(const PlanNodeShape& node) const override;
  //! The calibration's rates and overhead.
  std::string figures() const override;
  //! The calibration the model uses.
  const RasterCalibration& calibration() const noexcept { return c_; }

 private:
  RasterCalibration c_;
};

}  // namespace gfxq::gl
