#pragma once
// Per-device figures of the raster path (docs/RASTER.md "Calibration and cost estimates"): a few
// micro-benchmarks at first use (a plain depth pass, a column-value pass, many small draws, group-by
// points, a readback, a whole small query) and an exactness probe of the two constant-depth shortcuts (a depth clear
// and a constant taken from the vertices' z), cached in a text file keyed by the device, so later processes read the
// figures instead of measuring. The backend uses the probe to choose its RasterOptions; the cost model (gl/cost.h) uses
// the rates.

#include <cstdint>
#include <optional>
#include <string>

#include "gl/raster_input.h"

namespace gfxq::gl {

class Context;

//! What the micro-benchmarks measured on one device.
struct RasterCalibration {
  std::string device;               //!< GL_VENDOR / GL_RENDERER / GL_VERSION: the cache key
  bool measured = false;            //!< measured by this call (false: read from the cache)
  bool vertex_depth_exact = false;  //!< a constant from the vertices' z compares exactly at every probed k
  bool clear_depth_exact = false;   //!< a depth clear to k * 2^-24 stores k exactly at every probed k
  double fill_rate = 0;             //!< fragments/s of a constant-depth pass (depth test, stencil write)
  double value_rate = 0;            //!< fragments/s of a column-value pass (R32UI fetch, gl_FragDepth)
  double pass_overhead_s = 0;       //!< seconds a small pass costs beyond its fragments
  double point_rate = 0;            //!< records/s of GROUP BY blending (one point, one channel each)
  double readback_bytes_per_s = 0;  //!< bytes/s of glGetTextureSubImage into host memory
  double query_s = 0;               //!< wall seconds of a whole small query (upload, passes, count read back)
  double measure_ms = 0;            //!< how long the measurement took (0 when read from the cache)
  //! Multi-line text, for `gfxq info`.
  std::string text() const;
};

//! Where the calibration is cached by default: $XDG_CACHE_HOME/gfxq/raster-calibration.txt, else
//! $HOME/.cache/gfxq/raster-calibration.txt; empty when neither variable is set. Read where the
//! backend is created, never inside an operator.
std::string default_calibration_path();

//! The calibration of `context`'s device: read from `cache_path` when it holds this device's
//! figures, else measured (a fraction of a second on a GPU, about a second on llvmpipe) and written
//! there (a file that cannot be written is no error: the figures are then measured again next
//! time). Empty `cache_path`: always measured, nothing written. Leaves the GL state at its defaults.
RasterCalibration calibrate(Context& context, const std::string& cache_path);

//! The options the backend runs with on this device: the defaults, with the vertex-z constant
//! compare where the probe found it exact and the depth clear of constants only where it is exact.
RasterOptions calibrated_options(const RasterCalibration& calibration);

}  // namespace gfxq::gl
