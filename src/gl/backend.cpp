// The raster backend (OpenGL, after Govindaraju et al. 2004): selections with a WHERE in CNF, every
// comparison done by depth and stencil tests; aggregates without GROUP BY over the WHERE's stencil
// (COUNT; SUM/AVG by bit planes; MIN/MAX/MEDIAN/QUANTILE/KTH_LARGEST by bitwise search); GROUP BY by
// blending; ORDER BY by sorting networks; equi and band joins by sorted inner keys and occlusion
// counts (src/gl/execute.h routes to src/gl/select.h, aggregate.h, group_by.h, sort.h, join.h;
// docs/RASTER.md). Other operators are Error(Unsupported) naming the operator.
//
// Its RasterOptions come from the device's calibration (gl/calibration.h), made at the first query
// and cached in the user's cache folder. The one environment variable of the raster path is read
// here, once, when the backend is created: GFXQ_RASTER_CALIBRATION=off runs with the default
// options and measures nothing; GFXQ_RASTER_CALIBRATION=PATH caches in PATH instead of
// $XDG_CACHE_HOME/gfxq or ~/.cache/gfxq.
#include <cstdlib>
#include <optional>
#include <string>

#include "gfxq/error.h"
#include "gl/calibration.h"
#include "gl/execute.h"
#include "plan/backend.h"
#include "plan/engine_state.h"

namespace gfxq {

namespace {

class RasterBackend final : public BackendImpl {
 public:
  RasterBackend(EngineState& state, bool calibrate, std::string cache_path)
      : state_(state), calibrate_(calibrate), cache_path_(std::move(cache_path)) {}
  Backend kind() const noexcept override { return Backend::Raster; }
  Result execute(const Query& query, const Catalog& catalog) override {
    gl::Context* context = state_.gl();
    if (!context)
      throw Error(ErrorCode::Unsupported, "raster backend unavailable: " + state_.gl_caps.unavailable_reason);
    context->check_alive();
    if (!options_) {
      if (calibrate_) calibration_ = gl::calibrate(*context, cache_path_);
      options_ = calibration_ ? gl::calibrated_options(*calibration_) : gl::RasterOptions{};
    }
    Result result = gl::execute(*context, query, catalog, *options_);
    context->finish("raster query");
    return result;
  }

 private:
  EngineState& state_;
  bool calibrate_;
  std::string cache_path_;
  std::optional<gl::RasterCalibration> calibration_;  // measured or read at the first query
  std::optional<gl::RasterOptions> options_;          // the raster knobs, made once
};

}  // namespace

std::unique_ptr<BackendImpl> create_raster_backend(EngineState& state) {
  const char* setting = std::getenv("GFXQ_RASTER_CALIBRATION");
  const std::string value = setting ? setting : "";
  if (value == "off") return std::make_unique<RasterBackend>(state, false, std::string());
  return std::make_unique<RasterBackend>(state, true, value.empty() ? gl::default_calibration_path() : value);
}

}  // namespace gfxq
