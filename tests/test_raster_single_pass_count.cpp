// The raster path's one-pass COUNT (RasterOptions::single_pass_count, src/gl/select.cpp): a
// COUNT whose WHERE is one comparison of a 24-bit-window column with a constant runs without
// stencil, as a clear of the constant into depth and one fused-count draw over the records only.
// Compared EXACTLY with the CPU reference engine, over tiles, partial pixel rows and forced small
// occlusion-query caps; the report names the fused pass, and the other plans keep their passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/bind.h"
#include "gfxq/cpu.h"
#include "gfxq/sql.h"
#include "gl/count.h"
#include "gl/select.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "raster_support.h"

using namespace gfxq;
using gfxq::test::catalog_of;
using gfxq::test::gl_context;

namespace {

using test::kCmpOps;
using test::kSmallTile;
using test::kSmallTiles;
constexpr const char* kOnePass = "raster: one-pass COUNT";

Query count_of(const std::string& column, CmpOp op, double literal) {
  Query q;
  q.items = {Aggregate{AggKind::Count, std::nullopt}};
  q.table = "t";
  q.where.clauses.push_back(Clause{{Comparison{ColumnRef{"", column}, op, literal}}});
  return q;
}

size_t kind_count(const Result& r, const std::string& kind) {
  return size_t(std::count_if(r.report.passes.begin(), r.report.passes.end(),
                              [&](const PassRecord& p) { return p.kind == kind; }));
}

// Runs `q` on the raster path and on the CPU; empty when the answers are identical and the
// report's algorithm is the host-only plan's. `one_pass`: the plan is the one-pass COUNT (its
// passes a depth-clear and a fused-count, no stencil-init), else it is not.
std::string difference(const Query& q, const Catalog& catalog, const gl::RasterOptions& options, Result& got) {
  std::string diff = test::raster_difference(q, catalog, options, &got);
  if (!diff.empty()) return diff;
  const BoundQuery bq = bind(q, catalog);
  const std::string planned =
      gl::plan_where(*bq.left, bq.where, gl::WhereOutput::Count, options, gl_context().caps().depth_bounds_test)
          .algorithm;
  if (got.report.algorithm != planned)
    return "algorithm '" + got.report.algorithm + "' but the host-only plan says '" + planned + "'";
  return "";
}

// Checks `q` against the CPU; when its WHERE reaches the GPU (no fold), that it ran as the one-pass
// COUNT with exactly one depth-clear and one fused-count pass and no stencil pass.
void check_one_pass(const Query& q, const Catalog& catalog, const gl::RasterOptions& options) {
  CAPTURE(q.text());
  Result got;
  CHECK(difference(q, catalog, options, got) == "");
  if (got.report.algorithm.find("GPU pass") != std::string::npos || catalog.get("t").rows() == 0) return;
  CHECK(got.report.algorithm.rfind(kOnePass, 0) == 0);
  CHECK(kind_count(got, "fused-count") == 1);
  CHECK(kind_count(got, "depth-clear") == 1);
  CHECK(kind_count(got, "stencil-init") == 0);
  CHECK(kind_count(got, "compare") == 0);
}

// Tile options with a small occlusion-query cap where `cap` is non-zero (bands within a tile and
// within its partial last row).
gl::RasterOptions with_cap(gl::RasterOptions options, uint64_t cap) {
  options.max_fragments_per_query = cap;
  return options;
}

}  // namespace

TEST_CASE("raster: record bands cover exactly the first records, each within the cap") {
  // Host only: every pixel of a width x height grid is covered once by a band iff its row-major
  // index is below `records`, and no band exceeds the cap.
  for (const uint32_t width : {1u, 2u, 7u, 33u})
    for (const uint32_t height : {1u, 5u})
      for (uint64_t records = 0; records <= uint64_t(width) * height; ++records)
        for (const uint64_t cap : {uint64_t(1), uint64_t(3), uint64_t(width), uint64_t(width) + 1, uint64_t(1) << 40}) {
          CAPTURE(width);
          CAPTURE(height);
          CAPTURE(records);
          CAPTURE(cap);
          std::vector<int> covered(size_t(width) * height, 0);
          for (const gl::Band& b : gl::record_bands(width, records, cap)) {
            CHECK(uint64_t(b.width) * uint64_t(b.height) <= cap);
            CHECK(b.width > 0);
            CHECK(b.height > 0);
            for (GLint y = b.y; y < b.y + b.height; ++y)
              for (GLint x = b.x; x < b.x + b.width; ++x) {
                REQUIRE((x < GLint(width) && y < GLint(height)));
                ++covered[size_t(y) * width + size_t(x)];
              }
          }
          for (uint64_t i = 0; i < covered.size(); ++i) REQUIRE(covered[i] == (i < records ? 1 : 0));
        }
}

TEST_CASE("raster: one-pass COUNT matches the CPU for random window columns, every operator and tile edge") {
  struct Run {
    uint64_t rows;
    gl::RasterOptions options;
  };
  const std::vector<Run> runs = {{1, kSmallTiles},
                                 {2, kSmallTiles},
                                 {6, kSmallTiles},
                                 {7, kSmallTiles},
                                 {8, kSmallTiles},
                                 {kSmallTile - 1, kSmallTiles},
                                 {kSmallTile, kSmallTiles},
                                 {kSmallTile + 1, kSmallTiles},
                                 {7 * kSmallTile + 2, with_cap(kSmallTiles, 4)},
                                 {3 * kSmallTile + 13, with_cap(kSmallTiles, 7)},
                                 {1000, {.tile_width = 16, .tile_height = 8}},
                                 {3001, with_cap({.tile_width = 33, .tile_height = 32}, 100)}};
  uint64_t seed = 27000;
  for (const Run& run : runs) {
    ++seed;
    std::mt19937_64 rng(seed);
    // INT values in a window of 2^24 - 1 keys somewhere in int32 (the column's smallest and
    // largest decide the window); FLOAT values in [1, 2) and [-2, -1) (keys sharing their top bits).
    const int64_t lo = int64_t(rng() % (uint64_t(1) << 32)) - (int64_t(1) << 31);
    const int64_t base = std::min<int64_t>(lo, int64_t(INT32_MAX) - (1 << 24));
    const int64_t span = 1 + int64_t(rng() % (uint64_t(1) << 24));
    std::vector<int32_t> ints;
    std::vector<float> floats;
    const bool negative = rng() % 2;
    for (uint64_t i = 0; i < run.rows; ++i) {
      ints.push_back(int32_t(base + int64_t(rng() % uint64_t(std::min<int64_t>(span, (1 << 24) - 1)))));
      const float f = 1.0f + float(rng() % (1 << 23)) * 0x1p-23f;
      floats.push_back(negative ? -f : f);
    }
    const Catalog catalog = catalog_of(Table{{Column::ints("a", ints), Column::floats("x", floats)}});
    INFO("seed " << seed << ", " << run.rows << " rows, tile " << run.options.tile_width << "x"
                 << run.options.tile_height << ", cap " << run.options.max_fragments_per_query);
    for (int i = 0; i < 24; ++i) {
      const bool on_int = i % 2 == 0;
      const uint64_t row = rng() % run.rows;
      double literal = on_int ? double(ints[row]) : double(floats[row]);
      if (i % 3 == 1) literal += on_int ? 0.5 : 0x1p-30;  // between values
      check_one_pass(count_of(on_int ? "a" : "x", kCmpOps[i % 6], literal), catalog, run.options);
    }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: one-pass COUNT is exact at INT extremes, FLOAT +-0, denormals, infinities and NaN") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float denorm = std::numeric_limits<float>::denorm_min();
  const std::vector<std::vector<int32_t>> int_columns = {
      {INT32_MAX, INT32_MAX - 1, INT32_MAX - 7, INT32_MAX - 16777214, INT32_MAX, 5 - (1 << 24) + INT32_MAX},
      {INT32_MIN, INT32_MIN + 1, INT32_MIN + 16777214, INT32_MIN, INT32_MIN + 3},
      {-1, 0, 1, -1, 0, 2, -2}};
  for (const auto& values : int_columns) {
    const Catalog catalog = catalog_of(Table{{Column::ints("a", values)}});
    for (int32_t v : values)
      for (double d : {double(v), double(v) - 0.5, double(v) + 0.5})
        for (CmpOp op : kCmpOps) check_one_pass(count_of("a", op, d), catalog, kSmallTiles);
  }
  const std::vector<std::vector<float>> float_columns = {
      {0.0f, -0.0f, denorm, -denorm, 2 * denorm, std::numeric_limits<float>::min(), -0.0f, 0.0f},
      {std::numeric_limits<float>::max(), inf, nan, std::bit_cast<float>(0x7f800001u), inf, nan},
      {-std::numeric_limits<float>::max(), -inf, -inf, std::nextafter(-std::numeric_limits<float>::max(), 0.0f)}};
  for (const auto& values : float_columns) {
    const Catalog catalog = catalog_of(Table{{Column::floats("x", values)}});
    for (float v : values)
      for (double d : {double(v), std::nextafter(double(v), INFINITY), std::nextafter(double(v), -INFINITY)})
        for (CmpOp op : kCmpOps) check_one_pass(count_of("x", op, d), catalog, kSmallTiles);
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: one-pass COUNT on empty tables, no match and every row matching on the GPU") {
  // Values 0, 2, 4, ...: `= 3` matches no row and `<> 3` every row, neither folded on the host.
  for (const uint64_t rows : {uint64_t(0), uint64_t(1), uint64_t(2), kSmallTile, 5 * kSmallTile + 1}) {
    CAPTURE(rows);
    std::vector<int32_t> values;
    for (uint64_t i = 0; i < rows; ++i) values.push_back(int32_t(2 * i));
    const Catalog catalog = catalog_of(Table{{Column::ints("a", values)}});
    for (const CmpOp op : {CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Ge})
      for (const uint64_t cap : {uint64_t(0), uint64_t(3)}) {
        CAPTURE(cap);
        check_one_pass(count_of("a", op, 3.0), catalog, with_cap(kSmallTiles, cap));
      }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: the other WHEREs keep the stencil passes, and the option turns the one-pass COUNT off") {
  std::vector<int32_t> a;
  std::vector<float> x;
  std::mt19937_64 rng(2727);
  for (int i = 0; i < 200; ++i) {
    a.push_back(int32_t(rng() % 1000));
    x.push_back(float(rng() % 1000) / 7.0f - 70.0f);  // keys across the sign: 32-bit keys
  }
  const Catalog catalog = catalog_of(Table{{Column::ints("a", a), Column::floats("x", x)}});
  const auto stencil_plan = [&](const Query& q, const gl::RasterOptions& options) {
    CAPTURE(q.text());
    Result got;
    CHECK(difference(q, catalog, options, got) == "");
    CHECK(got.report.algorithm.rfind(kOnePass, 0) != 0);
    CHECK(kind_count(got, "fused-count") == 0);
    CHECK(kind_count(got, "stencil-init") >= 1);
  };
  stencil_plan(count_of("x", CmpOp::Lt, 1.5), kSmallTiles);  // two 16-bit parts
  Query two = count_of("a", CmpOp::Lt, 500);
  two.where.clauses.push_back(Clause{{Comparison{ColumnRef{"", "a"}, CmpOp::Ne, 7.0}}});
  stencil_plan(two, kSmallTiles);
  Query columns = count_of("a", CmpOp::Lt, 0);
  columns.where.clauses[0].terms[0].rhs = ColumnRef{"", "x"};
  stencil_plan(columns, kSmallTiles);
  gl::RasterOptions off = kSmallTiles;
  off.single_pass_count = false;
  stencil_plan(count_of("a", CmpOp::Lt, 500), off);
  gl::RasterOptions copies = kSmallTiles;
  copies.constant_by_clear = false;
  stencil_plan(count_of("a", CmpOp::Lt, 500), copies);
  // A selection reads the stencil back: never the one-pass COUNT.
  Query star = count_of("a", CmpOp::Lt, 500);
  star.items = {Star{}};
  Result got;
  CHECK(test::raster_difference(star, catalog, kSmallTiles, &got) == "");
  CHECK(kind_count(got, "fused-count") == 0);
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: a range COUNT by two passes (records <= hi minus records < lo) matches the CPU") {
  // Random ranges (both ends inclusive or exclusive, either clause first) on INT and FLOAT window
  // columns over tile edges and small caps, with RasterOptions::range_by_counts.
  const std::vector<std::pair<uint64_t, gl::RasterOptions>> runs = {
      {1, kSmallTiles},
      {2, kSmallTiles},
      {kSmallTile + 1, with_cap(kSmallTiles, 4)},
      {5 * kSmallTile + 3, kSmallTiles},
      {1000, with_cap({.tile_width = 16, .tile_height = 8}, 50)}};
  const char* lower_ops[] = {">=", ">"};
  const char* upper_ops[] = {"<=", "<"};
  uint64_t seed = 27100;
  size_t by_counts = 0;
  for (const auto& [rows, tiles] : runs) {
    ++seed;
    std::mt19937_64 rng(seed);
    std::vector<int32_t> ints;
    std::vector<float> floats;
    for (uint64_t i = 0; i < rows; ++i) {
      ints.push_back(int32_t(rng() % 2000) - 1000);
      floats.push_back(-1.0f - float(rng() % 4096) * 0x1p-12f);
    }
    const Catalog catalog = catalog_of(Table{{Column::ints("a", ints), Column::floats("x", floats)}});
    gl::RasterOptions options = tiles;
    options.range_by_counts = true;
    INFO("seed " << seed << ", " << rows << " rows, tile " << options.tile_width << "x" << options.tile_height
                 << ", cap " << options.max_fragments_per_query);
    for (int i = 0; i < 24; ++i) {
      const bool on_int = i % 2 == 0;
      double lo = on_int ? double(ints[rng() % rows]) : double(floats[rng() % rows]);
      double hi = on_int ? double(ints[rng() % rows]) : double(floats[rng() % rows]);
      if (lo > hi && i % 5 != 0) std::swap(lo, hi);  // every fifth range may be empty
      const std::string column = on_int ? "a" : "x";
      const std::string lower = column + " " + lower_ops[rng() % 2] + " " + std::to_string(lo);
      const std::string upper = column + " " + upper_ops[rng() % 2] + " " + std::to_string(hi);
      const std::string where = i % 3 == 0 ? upper + " AND " + lower : lower + " AND " + upper;
      const Query q = sql::parse("SELECT COUNT(*) FROM t WHERE " + where);
      CAPTURE(q.text());
      Result got;
      CHECK(difference(q, catalog, options, got) == "");
      if (got.report.algorithm.rfind("raster: range COUNT by two passes", 0) == 0) {
        ++by_counts;
        CHECK(kind_count(got, "fused-count") == 2);
        CHECK(kind_count(got, "depth-clear") == 2);
        CHECK(kind_count(got, "stencil-init") == 0);
      } else {
        // A bound at or beyond the column's values folds on the host: the other is one comparison.
        const bool folded = got.report.algorithm.find("GPU pass") != std::string::npos;
        CHECK((folded || got.report.algorithm.rfind(kOnePass, 0) == 0));
      }
    }
  }
  MESSAGE(by_counts << " ranges counted by two passes");
  CHECK(by_counts >= 40);
  GFXQ_CHECK_NO_GL_MESSAGES();
}
