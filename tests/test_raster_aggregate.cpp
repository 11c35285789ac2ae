// Raster aggregates (src/gl/aggregate.h): SUM/AVG of INT by bit planes, MIN/MAX/MEDIAN/QUANTILE/
// KTH_LARGEST by bitwise search on the order key, all under the WHERE's stencil, compared EXACTLY
// with the CPU reference engine. Small tiles (7x5) make small tables span many tiles.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "gfxq/cpu.h"
#include "gfxq/error.h"
#include "gfxq/sql.h"
#include "gl/select.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "raster_support.h"

using namespace gfxq;
using gfxq::test::catalog_of;
using gfxq::test::gl_context;
using gfxq::test::table_difference;

namespace {

constexpr gl::RasterOptions kTiles = test::kSmallTiles;
constexpr uint64_t kTile = test::kSmallTile;
constexpr double kQuantiles[] = {1e-9, 0.25, 0.5, 0.75, 1.0};

// Empty when the raster answer equals the CPU reference's exactly.
std::string difference(const Query& q, const Catalog& catalog, const gl::RasterOptions& options = kTiles,
                       Result* raster = nullptr) {
  return test::raster_difference(q, catalog, options, raster);
}

Aggregate agg(AggKind kind, const std::string& column, double q = 0.5, int64_t k = 1) {
  return Aggregate{kind, ColumnRef{"", column}, q, k};
}

// Every aggregate: SUM/AVG over INT column `int_col`, the others over `col`; q and k drawn from the sets.
std::vector<SelectItem> every_aggregate(const std::string& int_col, const std::string& col, uint64_t n,
                                        std::mt19937_64& rng) {
  const int64_t ks[] = {1, 2, int64_t(std::max<uint64_t>(n, 1)), int64_t(n + 1)};
  return {Aggregate{AggKind::Count, std::nullopt},
          agg(AggKind::Sum, int_col),
          agg(AggKind::Avg, int_col),
          agg(AggKind::Min, col),
          agg(AggKind::Max, col),
          agg(AggKind::Median, col),
          agg(AggKind::Quantile, col, kQuantiles[rng() % 5]),
          agg(AggKind::KthLargest, col, 0.5, ks[rng() % 4])};
}

}  // namespace

TEST_CASE("raster: random aggregate queries match the CPU reference exactly") {
  const uint64_t sizes[] = {0, 1, kTile - 1, kTile, kTile + 1, 3 * kTile + 4, 7 * kTile + 2};
  const Distribution dists[] = {Distribution::Uniform, Distribution::Skewed, Distribution::Sorted,
                                Distribution::AllEqual};
  const auto start = std::chrono::steady_clock::now();
  uint64_t seed = 500;
  int queries = 0;
  for (uint64_t rows : sizes)
    for (Distribution dist : dists) {
      ++seed;
      const Catalog catalog = catalog_of(test::random_table(rows, dist, seed));
      const Table& t = catalog.get("t");
      std::mt19937_64 rng(seed);
      for (int i = 0; i < 6; ++i) {
        Query q;
        q.table = "t";
        const std::string int_col = rng() % 2 ? "a" : "b";
        const std::string col = t.columns[rng() % t.columns.size()].name;
        q.items = every_aggregate(int_col, col, rows, rng);
        if (i % 2 == 1) q.where = test::random_cnf(t, rng, 3, 3);
        INFO("seed " << seed << ", " << rows << " rows, " << to_string(dist));
        INFO(q.text());
        CHECK(difference(q, catalog) == "");
        ++queries;
      }
    }
  // A larger table in larger tiles, every column.
  const Catalog big = catalog_of(test::random_table(300, Distribution::Uniform, 77));
  std::mt19937_64 rng(77);
  for (const char* col : {"a", "b", "x", "y"}) {
    Query q;
    q.table = "t";
    q.items = every_aggregate("a", col, 300, rng);
    q.where = test::random_cnf(big.get("t"), rng, 2, 3);
    INFO(q.text());
    CHECK(difference(q, big, {.tile_width = 16, .tile_height = 8}) == "");
    ++queries;
  }
  MESSAGE(queries << " random aggregate queries in "
                  << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s");
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: quantiles and k-th largest at every rank, with the CPU reference") {
  const Catalog catalog = catalog_of(test::random_table(2 * kTile + 3, Distribution::Skewed, 41));
  const uint64_t n = 2 * kTile + 3;
  for (const char* col : {"a", "x"}) {
    Query q;
    q.table = "t";
    for (double quantile : kQuantiles) q.items.push_back(agg(AggKind::Quantile, col, quantile));
    for (int64_t k : {int64_t(1), int64_t(2), int64_t(n), int64_t(n + 1)})
      q.items.push_back(agg(AggKind::KthLargest, col, 0.5, k));
    INFO(q.text());
    CHECK(difference(q, catalog) == "");
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: aggregates are exact at INT32 min and max, negatives, duplicates and all-equal") {
  constexpr int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  const std::vector<std::vector<int32_t>> cases = {{lo},
                                                   {hi},
                                                   {lo, hi},
                                                   {lo, lo, lo, hi, hi},
                                                   {-1, -1, -2, 0, 1, -1},
                                                   {-5, -7, -3},
                                                   std::vector<int32_t>(kTile + 1, hi),
                                                   std::vector<int32_t>(kTile - 1, lo),
                                                   std::vector<int32_t>(2 * kTile, -3)};
  for (const auto& values : cases) {
    Table t;
    t.columns.push_back(Column::ints("a", values));
    const Catalog catalog = catalog_of(std::move(t));
    for (const char* sql : {"SELECT COUNT(*), SUM(a), AVG(a), MIN(a), MAX(a), MEDIAN(a), KTH_LARGEST(a, 2) FROM t",
                            "SELECT SUM(a), MIN(a), MAX(a), QUANTILE(a, 0.75) FROM t WHERE a < 0",
                            "SELECT SUM(a), AVG(a), MAX(a) FROM t WHERE a >= 2147483647"}) {
      INFO(sql << " over " << values.size() << " values");
      CHECK(difference(sql::parse(sql), catalog) == "");
    }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: FLOAT MIN, MAX and median are exact for NaN, -0.0 and infinities") {
  constexpr float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<std::vector<float>> cases = {{-0.0f},
                                                 {nan},
                                                 {-0.0f, 0.0f, -0.0f},
                                                 {nan, -nan, 1.0f, -inf},
                                                 {inf, -inf, -0.0f, 0.0f, nan, 2.5f, -2.5f, 1e-45f, -1e-45f},
                                                 std::vector<float>(kTile + 1, -0.0f)};
  for (const auto& values : cases) {
    Table t;
    t.columns.push_back(Column::floats("x", values));
    const Catalog catalog = catalog_of(std::move(t));
    for (const char* sql : {"SELECT MIN(x), MAX(x), MEDIAN(x), QUANTILE(x, 1), KTH_LARGEST(x, 2) FROM t",
                            "SELECT MIN(x), MAX(x), MEDIAN(x) FROM t WHERE x <= 0"}) {
      INFO(sql << " over " << values.size() << " values");
      CHECK(difference(sql::parse(sql), catalog) == "");
    }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: aggregate counts are exact when each occlusion query may count only a few fragments") {
  const Catalog catalog = catalog_of(test::random_table(2 * kTile + 5, Distribution::Uniform, 3));
  for (uint64_t cap : {uint64_t(1), uint64_t(4), uint64_t(7), uint64_t(11)}) {
    gl::RasterOptions options = kTiles;
    options.max_fragments_per_query = cap;
    const Query q = sql::parse("SELECT SUM(a), AVG(b), MEDIAN(x), MAX(y) FROM t WHERE b > -500");
    INFO("cap " << cap);
    CHECK(difference(q, catalog, options) == "");
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: aggregate passes are in the trace with their counts and GPU times") {
  const Catalog catalog = catalog_of(test::random_table(2 * kTile + 1, Distribution::Uniform, 4));
  Result r;
  REQUIRE(difference(sql::parse("SELECT COUNT(*), SUM(b), AVG(b), KTH_LARGEST(x, 3), SUM(y) FROM t WHERE b < 200"),
                     catalog, kTiles, &r) == "");
  CHECK(r.report.algorithm.find("bit-plane counts") != std::string::npos);
  CHECK(r.report.algorithm.find("bitwise search") != std::string::npos);
  const bool timed = gl_context().caps().timer_counter_bits > 0;
  int planes = 0, steps = 0, float_planes = 0;
  uint64_t count = 0;
  for (const auto& p : r.report.passes) {
    if (p.kind == "count") count = p.passed.value_or(0);
    if (p.kind == "bit-plane count" || p.kind == "bitwise search" || p.kind == "float bit-plane count") {
      CAPTURE(p.detail);
      CHECK(p.items == 2 * kTile + 1 + (kTiles.tile_width - (2 * kTile + 1) % kTiles.tile_width) % kTiles.tile_width);
      CHECK(p.gpu_ms.has_value() == timed);
      if (p.gpu_ms) CHECK(*p.gpu_ms >= 0.0);
    }
    if (p.kind == "float bit-plane count") {
      ++float_planes;
      CHECK(p.passed.has_value());
    }
    if (p.kind == "bit-plane count") {
      ++planes;
      CHECK(p.passed.has_value());
      CHECK(p.detail.find("bit ") != std::string::npos);
    }
    if (p.kind == "bitwise search") {
      ++steps;
      CHECK(p.passed.has_value());
      CHECK(p.detail.find("candidate key 0x") != std::string::npos);
    }
  }
  CHECK(planes == 32);  // SUM and AVG of one column share the bit planes
  CHECK(steps == 32);
  CHECK(float_planes > 0);
  CHECK(count == uint64_t(r.table.columns[0].as<int64_t>()[0]));
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: empty selections give NULL and LIMIT 0 no row") {
  const Catalog catalog = catalog_of(test::random_table(20, Distribution::Uniform, 1));
  for (const char* sql :
       {"SELECT COUNT(*), SUM(a), MIN(x), KTH_LARGEST(b, 1) FROM t WHERE b > 5000",
        "SELECT SUM(x), AVG(y), COUNT(*) FROM t WHERE b > 5000", "SELECT SUM(a), MEDIAN(y) FROM t LIMIT 0",
        "SELECT SUM(x), AVG(x) FROM t LIMIT 0", "SELECT MAX(a), KTH_LARGEST(a, 21) FROM t"}) {
    INFO(sql);
    CHECK(difference(sql::parse(sql), catalog) == "");
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}
