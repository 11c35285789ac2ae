// The environment overrides of ComputeOptions and RasterOptions (engine/options.h).

#include "engine/options.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "gfxq/error.h"

namespace gfxq::engine {

namespace {

// The value of the environment variable `name`, or nullopt when it is unset or empty.
std::optional<std::string> env_value(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

[[noreturn]] void invalid(const char* name, const std::string& value, const char* expected, const char* knob) {
  throw Error(ErrorCode::InvalidInput,
              std::string(name) + "='" + value + "': expected " + expected + " (it overrides " + knob + ")");
}

// `knob` set to the unsigned number in `name` (capped at the knob's largest value) where set.
template <class T>
void override_number(const char* name, T& knob, const char* knob_name) {
  const auto v = env_value(name);
  if (!v) return;
  uint64_t n = 0;
  const char* end = v->data() + v->size();
  const auto [at, ec] = std::from_chars(v->data(), end, n);
  if (ec != std::errc() || at != end) invalid(name, *v, "an unsigned number", knob_name);
  knob = T(std::min<uint64_t>(n, std::numeric_limits<T>::max()));
}

}  // namespace

EngineOptions with_environment(EngineOptions options) {
  ComputeOptions& c = options.compute;
  override_number("GFXQ_COMPUTE_CHUNK_ROWS", c.chunk_rows, "ComputeOptions::chunk_rows");
  override_number("GFXQ_COMPUTE_MAX_GROUPS", c.max_groups, "ComputeOptions::max_groups");
  override_number("GFXQ_COMPUTE_SELECT_LOOKBACK", c.select_lookback, "ComputeOptions::select_lookback");
  if (const auto v = env_value("GFXQ_COMPUTE_SELECT_TILES")) {
    if (*v == "auto")
      c.select_tiles = SelectTiles::Auto;
    else if (*v == "counter")
      c.select_tiles = SelectTiles::Counter;
    else if (*v == "launch")
      c.select_tiles = SelectTiles::Launch;
    else
      invalid("GFXQ_COMPUTE_SELECT_TILES", *v, "counter, launch or auto", "ComputeOptions::select_tiles");
  }
  uint64_t int64_bin = c.float_sum_int64;
  override_number("GFXQ_COMPUTE_FLOAT_SUM_INT64", int64_bin, "ComputeOptions::float_sum_int64");
  c.float_sum_int64 = int64_bin != 0;
  override_number("GFXQ_COMPUTE_SORT_WINDOW", c.sort_window, "ComputeOptions::sort_window");
  if (const auto v = env_value("GFXQ_SELECT_SAMPLE")) {
    if (*v != "0" && *v != "1") invalid("GFXQ_SELECT_SAMPLE", *v, "0 or 1", "ComputeOptions::select_sample");
    c.select_sample = *v == "1";
  }
  override_number("GFXQ_COMPUTE_JOIN_CHUNK_PAIRS", c.join_chunk_pairs, "ComputeOptions::join_chunk_pairs");
  override_number("GFXQ_COMPUTE_PRODUCT_CHUNK", c.product_chunk_pairs, "ComputeOptions::product_chunk_pairs");
  override_number("GFXQ_COMPUTE_HOST_SORT_ROWS", c.host_sort_rows, "ComputeOptions::host_sort_rows");
  if (const auto v = env_value("GFXQ_RASTER_CALIBRATION")) options.raster.calibration = *v;
  return options;
}

}  // namespace gfxq::engine
