// The raster path's calibration (src/gl/calibration.h: micro-benchmarks, the exactness probe of the
// constant-depth shortcuts, the cache file) and its cost model (src/gl/cost.h). Figures measured on
// llvmpipe mean nothing for speed: the tests check what is exact (the probe), the cache, and the
// model's structure, never a timing.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gl/calibration.h"
#include "gl/cost.h"
#include "gpu_support.h"

using namespace gfxq;
using gfxq::test::gl_context;

namespace {

// A fixed calibration (no GPU): 10 G fragments/s fill, 5 G values, 2 G points, 20 us per pass.
gl::RasterCalibration fixed() {
  gl::RasterCalibration c;
  c.device = "test device";
  c.vertex_depth_exact = c.clear_depth_exact = true;
  c.fill_rate = 10e9;
  c.value_rate = 5e9;
  c.point_rate = 2e9;
  c.pass_overhead_s = 20e-6;
  c.readback_bytes_per_s = 10e9;
  c.query_s = 1e-3;
  return c;
}

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "gfxq_raster_calibration_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::filesystem::remove(path);
  return path.string();
}

}  // namespace

TEST_CASE("raster-calibration: the probe finds vertex z and depth clears exact here, the rates are measured") {
  const gl::RasterCalibration c = gl::calibrate(gl_context(), "");
  INFO(c.text());
  CHECK(c.measured);
  // The shortcuts compare k - 1, k, k + 1 exactly at 24-bit boundaries on every pixel (llvmpipe
  // and, in the GPU session, NVIDIA): the backend then runs them by default.
  CHECK(c.vertex_depth_exact);
  CHECK(c.clear_depth_exact);
  CHECK(c.fill_rate > 0);
  CHECK(c.value_rate > 0);
  CHECK(c.point_rate > 0);
  CHECK(c.readback_bytes_per_s > 0);
  CHECK(c.query_s > 0);
  CHECK(c.pass_overhead_s >= 0);
  CHECK(c.device.find(gl_context().caps().renderer) != std::string::npos);
  const gl::RasterOptions options = gl::calibrated_options(c);
  CHECK(options.vertex_constant_depth == c.vertex_depth_exact);
  CHECK(options.constant_by_clear == c.clear_depth_exact);
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster-calibration: the cache file is read back, and a damaged file or another device's is measured again") {
  const std::string path = scratch("calibration.txt");
  const gl::RasterCalibration first = gl::calibrate(gl_context(), path);
  CHECK(first.measured);
  REQUIRE(std::filesystem::exists(path));
  const gl::RasterCalibration second = gl::calibrate(gl_context(), path);
  CHECK_FALSE(second.measured);
  CHECK(second.device == first.device);
  CHECK(second.fill_rate == first.fill_rate);
  CHECK(second.value_rate == first.value_rate);
  CHECK(second.point_rate == first.point_rate);
  CHECK(second.pass_overhead_s == first.pass_overhead_s);
  CHECK(second.readback_bytes_per_s == first.readback_bytes_per_s);
  CHECK(second.query_s == first.query_s);
  CHECK(second.vertex_depth_exact == first.vertex_depth_exact);
  CHECK(second.clear_depth_exact == first.clear_depth_exact);
  CHECK(second.text().find("from the cache") != std::string::npos);
  // Another device's figures are not this device's.
  std::string text;
  {
    std::ifstream in(path);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto device = text.find(first.device);
  REQUIRE(device != std::string::npos);
  {
    std::ofstream out(path);
    out << text.substr(0, device) << "another GPU" << text.substr(device + first.device.size());
  }
  CHECK(gl::calibrate(gl_context(), path).measured);
  {
    std::ofstream out(path);
    out << "# gfxq raster calibration v1\ndevice " << first.device << "\nfill_rate x\n";
  }
  CHECK(gl::calibrate(gl_context(), path).measured);
  CHECK_FALSE(gl::calibrate(gl_context(), path).measured);  // rewritten by the last measurement
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster-cost: estimates follow the passes the operators run") {
  const gl::RasterCostModel model(fixed());
  using Kind = gl::PlanNodeShape::Kind;
  const auto cost = [&](gl::PlanNodeShape node) {
    const gl::CostEstimate e = model.estimate(node);
    CHECK(e.seconds > 0);
    CHECK(!e.basis.empty());
    return e;
  };
  gl::PlanNodeShape filter{.kind = Kind::Filter, .rows = 1 << 20};
  const auto one = cost(filter);
  // A one-clause COUNT: one column-value pass per tile (the constant by a clear, the count fused).
  CHECK(one.passes == 1);
  CHECK(one.fragments == uint64_t(1) << 20);
  CHECK(one.seconds == doctest::Approx(20e-6 + double(1 << 20) / 5e9));
  // A whole query (placement) adds its columns' upload and the small-query round trip.
  const gl::PlanNodeShape whole{.kind = Kind::Filter, .rows = 1 << 20, .columns = 2, .upload = true};
  CHECK(cost(whole).seconds == doctest::Approx(one.seconds + 2.0 * 4 * (1 << 20) / 10e9 + 1e-3));
  // A scan runs no pass: the host gathers its columns.
  const gl::PlanNodeShape scan{.kind = Kind::Scan, .rows = 1 << 20, .columns = 3};
  CHECK(cost(scan).passes == 0);
  CHECK(cost(scan).seconds == doctest::Approx(3.0 * 4 * (1 << 20) / 10e9));
  filter.rows = 1 << 24;
  CHECK(cost(filter).seconds > one.seconds);
  filter.comparisons = 3;
  filter.parts = 2;
  const auto three = cost(filter);
  CHECK(three.passes == 3 * 2 + 3 * 3);  // a copy per part, strict + tie + final per comparison
  filter.row_ids = true;
  CHECK(cost(filter).seconds > three.seconds);

  gl::PlanNodeShape aggregate{.kind = Kind::Aggregate, .rows = 1 << 20, .sums = 1};
  CHECK(cost(aggregate).passes == 1 + 32);
  aggregate.searches = 1;
  CHECK(cost(aggregate).passes == 1 + 32 + 32);

  gl::PlanNodeShape group{.kind = Kind::GroupBy, .rows = 1 << 20, .groups = 1024};
  const auto count_only = cost(group);
  CHECK(count_only.passes == 1);
  group.sums = 1;
  group.sum_planes = 24;
  CHECK(cost(group).passes == 1);  // 25 channels fit 7 attachments: one pass
  group.sums = 2;
  group.sum_planes = 32;
  CHECK(cost(group).passes == 3);  // 65 channels: 17 attachments, 3 passes
  group.rank_ids = true;
  CHECK(cost(group).seconds > count_only.seconds);

  const auto sort = cost({.kind = Kind::Sort, .rows = 1 << 20});
  CHECK(sort.passes == 101);  // 1 + sum over s = 2..20 of ceil((s - 1) / 2)
  CHECK(sort.seconds > one.seconds);

  gl::PlanNodeShape join{.kind = Kind::Join, .rows = 1 << 20, .inner_rows = 1 << 10, .probe_passes = true};
  const auto per_probe = cost(join);
  join.distinct_probes = 1000;
  const auto shared = cost(join);
  CHECK(shared.seconds < per_probe.seconds);
  join.probe_passes = false;
  const auto search = cost(join);
  CHECK(search.passes == 26 + 4);  // the inner sort of 2^10 keys, 4 search draws of 2^18 probes
  CHECK(search.seconds < shared.seconds);
}
