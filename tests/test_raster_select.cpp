// The raster backend (src/gl/select.h): COUNT and selections with CNF WHEREs by depth and
// stencil tests, compared EXACTLY with the CPU reference engine. Small tiles (7x5 pixels) make
// small tables span many tiles, partial tiles and partial pixel rows.
#include <doctest/doctest.h>

#include <glad/gl.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <tuple>

#include "gfxq/cpu.h"
#include "gfxq/engine.h"
#include "gfxq/error.h"
#include "gfxq/sql.h"
#include "gl/count.h"
#include "gl/select.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "raster_support.h"

using namespace gfxq;
using gfxq::test::catalog_of;
using gfxq::test::gl_context;
using gfxq::test::table_difference;

namespace {

using test::kCmpOps;
using test::kSmallTile;
using test::kSmallTiles;
constexpr float kFloatInf = std::numeric_limits<float>::infinity();

// The raster plan of `q` (host only), with or without GL_EXT_depth_bounds_test.
gl::WhereResult plan_of(const Query& q, const Catalog& catalog, const gl::RasterOptions& options, bool extension) {
  const BoundQuery bq = bind(q, catalog);
  return gl::plan_where(*bq.left, bq.where, bq.aggregate ? gl::WhereOutput::Count : gl::WhereOutput::Rows, options,
                        extension);
}

// Runs `query` on the raster path and on the CPU; empty when the tables are identical and the
// report's algorithm is the host-only plan's for this driver (plan_where plans as execute does).
std::string difference(const Query& query, const Catalog& catalog, const gl::RasterOptions& options,
                       Result* raster_result = nullptr) {
  Result got;
  std::string diff = test::raster_difference(query, catalog, options, &got);
  if (!diff.empty()) return diff;
  const std::string planned = plan_of(query, catalog, options, gl_context().caps().depth_bounds_test).algorithm;
  if (got.report.algorithm != planned)
    return "algorithm '" + got.report.algorithm + "' but the host-only plan says '" + planned + "'";
  if (raster_result) *raster_result = std::move(got);
  return diff;
}

Query count_query(Cnf where) {
  Query q;
  q.items = {Aggregate{AggKind::Count, std::nullopt}};
  q.table = "t";
  q.where = std::move(where);
  return q;
}

Cnf single(std::string column, CmpOp op, Operand rhs) {
  Cnf cnf;
  cnf.clauses.push_back(Clause{{Comparison{ColumnRef{"", std::move(column)}, op, std::move(rhs)}}});
  return cnf;
}

// COUNT(*) and SELECT * of `column op literal` for every op and every literal, all exact, with
// the constants' depth written as gl_FragDepth and taken from the vertices' z.
void check_literals(const Catalog& catalog, const std::string& column, const std::vector<double>& literals,
                    gl::RasterOptions options) {
  for (bool vertex : {false, true}) {
    options.vertex_constant_depth = vertex;
    CAPTURE(vertex);
    for (double d : literals)
      for (CmpOp op : kCmpOps) {
        Query q = count_query(single(column, op, d));
        CAPTURE(q.text());
        CHECK(difference(q, catalog, options) == "");
        q.items = {Star{}};
        CHECK(difference(q, catalog, options) == "");
      }
  }
}

// The literals worth comparing with the values: each value, its neighbours and halves.
std::vector<double> literals_around(const std::vector<double>& values) {
  std::vector<double> out;
  for (double v : values) {
    out.push_back(v);
    if (std::isfinite(v)) {
      out.push_back(std::nextafter(v, INFINITY));
      out.push_back(std::nextafter(v, -INFINITY));
      out.push_back(v + 0.5);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("raster: random CNF queries match the CPU reference exactly") {
  // Tables of every distribution at sizes around the 7x5 tile (and empty), then larger tables in
  // 16x8 tiles; per table many CNFs of 1-6 clauses of 1-4 comparisons, each run as COUNT(*),
  // SELECT * or SELECT of some columns (sometimes with LIMIT).
  struct Run {
    uint64_t rows;
    gl::RasterOptions options;
    int queries;
  };
  const std::vector<Run> runs = {{0, kSmallTiles, 6},
                                 {1, kSmallTiles, 40},
                                 {kSmallTile - 1, kSmallTiles, 40},
                                 {kSmallTile, kSmallTiles, 40},
                                 {kSmallTile + 1, kSmallTiles, 40},
                                 {2 * kSmallTile + 3, kSmallTiles, 40},
                                 {7 * kSmallTile + 2, kSmallTiles, 40},
                                 {1000, {.tile_width = 16, .tile_height = 8}, 40},
                                 {3001, {.tile_width = 33, .tile_height = 32}, 40}};
  const Distribution dists[] = {Distribution::Uniform, Distribution::Skewed, Distribution::Sorted,
                                Distribution::AllEqual};
  const auto start = std::chrono::steady_clock::now();
  int queries = 0;
  uint64_t seed = 1000;
  for (const Run& run : runs)
    for (Distribution dist : dists) {
      ++seed;
      const Catalog catalog = catalog_of(test::random_table(run.rows, dist, seed));
      const Table& t = catalog.get("t");
      std::mt19937_64 rng(seed);
      for (int i = 0; i < run.queries; ++i) {
        Query q;
        q.table = "t";
        q.where = test::random_cnf(t, rng);
        switch (i % 3) {
          case 0: q.items = {Aggregate{AggKind::Count, std::nullopt}}; break;
          case 1: q.items = {Star{}}; break;
          default:
            for (uint64_t n = 1 + rng() % 3; n > 0; --n)
              q.items.push_back(ColumnRef{"", t.columns[rng() % t.columns.size()].name});
        }
        if (i % 3 != 0 && rng() % 6 == 0) q.limit = rng() % (run.rows + 2);
        // Every fourth query the passes of before: each column copied to depth, a stencil-only count pass.
        gl::RasterOptions options = run.options;
        options.constant_by_clear = options.fuse_count = i % 4 != 3;
        INFO("seed " << seed << ", query " << i << ", " << run.rows << " rows, " << to_string(dist) << ", tile "
                     << run.options.tile_width << "x" << run.options.tile_height << ", by clear and fused count "
                     << options.fuse_count);
        INFO(q.text());
        CHECK(difference(q, catalog, options) == "");
        ++queries;
      }
    }
  CHECK(queries >= 1000);
  MESSAGE(queries << " random queries in "
                  << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s");
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: INT encodings are exact at 2^24, INT32 min and max and around zero") {
  const std::vector<int32_t> values = {
      INT32_MIN, INT32_MIN + 1, -16777217, -16777216, -16777215,     -2,        -1, 0,       1, 2,
      16777215,  16777216,      16777217,  16777218,  INT32_MAX - 1, INT32_MAX, 0,  16777216};
  std::vector<float> floats;
  for (int32_t v : values) floats.push_back(std::bit_cast<float>(v ^ 0x5a5a5a5a));  // a second column to compare with
  const Catalog catalog = catalog_of(Table{{Column::ints("a", values), Column::floats("x", floats)}});
  std::vector<double> around(values.begin(), values.end());
  around.insert(around.end(), {0x1p31, -0x1p31 - 1, 1e12, -1e12, -0.0});
  check_literals(catalog, "a", literals_around(around), kSmallTiles);
  for (CmpOp op : kCmpOps) {
    const Query q = count_query(single("a", op, ColumnRef{"", "x"}));
    CAPTURE(q.text());
    CHECK(difference(q, catalog, kSmallTiles) == "");
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: FLOAT encodings are exact for -0.0, NaN, denormals and infinities") {
  const std::vector<float> values = {0.0f,
                                     -0.0f,
                                     std::numeric_limits<float>::quiet_NaN(),
                                     std::bit_cast<float>(0xffc00001u),  // negative NaN with a payload
                                     std::bit_cast<float>(0x7f800001u),  // signalling NaN
                                     kFloatInf,
                                     -kFloatInf,
                                     std::numeric_limits<float>::denorm_min(),
                                     -std::numeric_limits<float>::denorm_min(),
                                     2 * std::numeric_limits<float>::denorm_min(),
                                     std::numeric_limits<float>::min(),
                                     std::nextafter(std::numeric_limits<float>::min(), 0.0f),
                                     std::numeric_limits<float>::max(),
                                     -std::numeric_limits<float>::max(),
                                     1.0f,
                                     -1.0f,
                                     16777216.0f,
                                     0.1f};
  std::vector<int32_t> ints;
  for (size_t i = 0; i < values.size(); ++i) ints.push_back(i % 2 ? 16777217 : -16777219);
  const Catalog catalog = catalog_of(Table{{Column::floats("x", values), Column::ints("a", ints)}});
  std::vector<double> around(values.begin(), values.end());
  around.insert(around.end(), {0.1, 1e39, -1e39, 1e-50, -1e-50});
  check_literals(catalog, "x", literals_around(around), kSmallTiles);
  // Projections return the stored bits (NaN payloads, -0.0) unchanged.
  Query star = count_query(single("x", CmpOp::Ge, std::numeric_limits<double>::quiet_NaN()));
  star.items = {Star{}};
  Result r;
  CHECK(difference(star, catalog, kSmallTiles, &r) == "");
  CHECK(r.table.rows() == 3);
  for (CmpOp op : kCmpOps) {
    const Query q = count_query(single("x", op, ColumnRef{"", "a"}));
    CAPTURE(q.text());
    CHECK(difference(q, catalog, kSmallTiles) == "");
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: one pass when the keys fit a 24-bit window, two when they span 2^24") {
  // Keys base .. base + 2^24 - 1 fit one depth pass; depth values reach (2^24 - 1) * 2^-24.
  const int32_t base = -5000000;
  for (const int32_t span : {(1 << 24) - 1, 1 << 24}) {
    CAPTURE(span);
    const std::vector<int32_t> values = {base, base + 1, base + span / 2, base + span - 1, base + span, base + 7};
    const Catalog catalog = catalog_of(Table{{Column::ints("a", values)}});
    std::vector<double> literals;
    for (int32_t v : values) literals.push_back(v);
    check_literals(catalog, "a", literals, kSmallTiles);
    for (const bool by_clear : {false, true}) {
      CAPTURE(by_clear);
      gl::RasterOptions options = kSmallTiles;
      options.constant_by_clear = by_clear;
      Result r;
      CHECK(difference(count_query(single("a", CmpOp::Lt, double(base + span))), catalog, options, &r) == "");
      const bool window = span < (1 << 24);
      CHECK(r.report.algorithm.find(window ? "24-bit window" : "32-bit keys") != std::string::npos);
      const auto kind_count = [&](const char* kind) {
        return std::count_if(r.report.passes.begin(), r.report.passes.end(),
                             [&](const PassRecord& p) { return p.kind == kind; });
      };
      // One window part: a copy and a compare, or (by clear) the constant cleared in and one draw.
      CHECK(kind_count("copy-to-depth") == (window ? (by_clear ? 0 : 1) : 2));
      CHECK(kind_count("depth-clear") == (window && by_clear ? 1 : 0));
    }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: INT against FLOAT columns compare the mathematical values") {
  // Rows pair an INT with the floats around it, so the floor-float keys tie and the residue
  // (the INT minus the largest float below it) decides: 2^24 + 1 against 2^24, INT32 extremes
  // against +-2^31, odd values above 2^30 against their rounded floats.
  std::vector<int32_t> ints;
  std::vector<float> floats;
  for (int32_t a : {16777217, 16777216, 16777215, -16777217, -16777219, 33554435, -33554435, INT32_MAX, INT32_MIN,
                    INT32_MIN + 1, INT32_MAX - 64, (1 << 30) + 1, -(1 << 30) - 1, 123456789, -123456789, 0, 7}) {
    const float nearest = static_cast<float>(a);
    for (float x : {nearest, std::nextafter(nearest, kFloatInf), std::nextafter(nearest, -kFloatInf)}) {
      ints.push_back(a);
      floats.push_back(x);
    }
  }
  const Catalog catalog = catalog_of(Table{{Column::ints("a", ints), Column::floats("x", floats)}});
  for (CmpOp op : kCmpOps)
    for (const auto& [lhs, rhs] : {std::pair{"a", "x"}, std::pair{"x", "a"}}) {
      Query q = count_query(single(lhs, op, ColumnRef{"", rhs}));
      CAPTURE(q.text());
      Result r;
      CHECK(difference(q, catalog, kSmallTiles, &r) == "");
      CHECK(r.report.algorithm.find("+ residue") != std::string::npos);
      q.items = {Star{}};
      CHECK(difference(q, catalog, kSmallTiles) == "");
    }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: column against column for every type pair") {
  std::mt19937_64 rng(77);
  for (Distribution dist : {Distribution::Uniform, Distribution::Skewed}) {
    const Catalog catalog = catalog_of(test::random_table(3 * kSmallTile + 4, dist, 5));
    for (const char* lhs : {"a", "b", "x", "y"})
      for (const char* rhs : {"a", "b", "x", "y"})
        for (CmpOp op : kCmpOps) {
          const Query q = count_query(single(lhs, op, ColumnRef{"", rhs}));
          CAPTURE(q.text());
          CHECK(difference(q, catalog, kSmallTiles) == "");
        }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

namespace {

// The table of the range tests: b uniform in about [-1000, 1000] (176 rows, seed 9).
Table range_table() {
  return test::random_table(5 * kSmallTile + 1, Distribution::Uniform, 9);
}

// A WHERE with one range on b and the window values (keys of b minus the smallest) it keeps.
struct RangeWhere {
  std::string where;
  uint32_t lo, hi;  // window values kept, inclusive
};

// The smallest and largest b of `t`.
std::pair<int32_t, int32_t> b_range(const Table& t) {
  const auto& b = t.columns[1].as<int32_t>();
  return {*std::min_element(b.begin(), b.end()), *std::max_element(b.begin(), b.end())};
}

// WHEREs whose two b bounds lie strictly inside b's values, so neither folds to TRUE or FALSE on
// the host and the pair is a range: one depth-bounds pass with the extension, two comparisons
// without. Literal bounds first (checked to be inside), then bounds at the data's ends (the
// widest range there can be: [1, span - 1], as `b >= min` and `b <= max` fold to TRUE).
std::vector<RangeWhere> range_wheres(const Table& t) {
  const auto [lo, hi] = b_range(t);
  REQUIRE(lo < -301);  // the literal bounds below are inside b's values
  REQUIRE(hi > 401);
  const auto k = [lo = lo](int32_t v) { return uint32_t(int64_t(v) - lo); };
  const std::string min = std::to_string(lo), max = std::to_string(hi);
  return {{"b BETWEEN -300 AND 250", k(-300), k(250)},
          {"b BETWEEN 10 AND 10", k(10), k(10)},
          {"b <= 250 AND b >= -300", k(-300), k(250)},
          {"b >= -299.5 AND x < 0 AND b < 300", k(-299), k(299)},
          {"b > 17 AND b <= 400 AND (a < 0 OR y > 0.5)", k(18), k(400)},
          {"b < -299.5 AND b > -300.5", k(-300), k(-300)},
          {"b > " + min + " AND b < " + max, 1, k(hi) - 1},
          {"b >= " + std::to_string(lo + 1) + " AND x < 0 AND b <= " + std::to_string(hi - 1), 1, k(hi) - 1}};
}

// WHEREs whose b bounds fold on the host (they hold for every row of the table): no range is
// left to merge, on any driver, which is cheaper than a depth-bounds pass. The first two were
// once expected to run by depth bounds: b's values (-971 .. 993) lie inside both their ranges.
std::vector<std::string> folded_range_wheres(const Table& t) {
  const auto [lo, hi] = b_range(t);
  REQUIRE(lo >= -999);
  REQUIRE(hi <= 999);
  const std::string min = std::to_string(lo), max = std::to_string(hi);
  return {"b >= -999.5 AND x < 0 AND b < 1000", "b BETWEEN -1000 AND 999", "b BETWEEN " + min + " AND " + max,
          "b >= " + min + " AND x < 0 AND b <= " + max,
          "b > " + std::to_string(lo - 1) + " AND x < 0 AND b < " + std::to_string(hi + 1)};
}

size_t count_kind(const std::vector<PassRecord>& passes, const std::string& kind) {
  return size_t(std::count_if(passes.begin(), passes.end(), [&](const PassRecord& p) { return p.kind == kind; }));
}

std::string hex6(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%06x", v);
  return buf;
}

// `passes` (a plan's or a report's) hold exactly one depth-bounds pass, keeping window values
// lo..hi of b (bounds lo*2^-24 and hi*2^-24, inclusive), and the depth buffer then holds b's
// window values: the last pass before it that writes depth is a copy of key(b) - base.
void check_depth_bounds_pass(const std::vector<PassRecord>& passes, const RangeWhere& range) {
  REQUIRE(count_kind(passes, "depth-bounds") == 1);
  const auto bounds =
      std::find_if(passes.begin(), passes.end(), [](const PassRecord& p) { return p.kind == "depth-bounds"; });
  const std::string want = "depth bounds [" + hex6(range.lo) + ", " + hex6(range.hi) + "]*2^-24 on stored key(b) - 0x";
  CAPTURE(bounds->detail);
  CHECK(bounds->detail.find(want) != std::string::npos);
  CHECK(bounds->detail.find("stencil EQUAL") != std::string::npos);
  const auto copy = std::find_if(std::make_reverse_iterator(bounds), passes.rend(),
                                 [](const PassRecord& p) { return p.kind == "copy-to-depth"; });
  REQUIRE(copy != passes.rend());
  CHECK(copy->detail.rfind("depth <- key(b) - 0x", 0) == 0);
}

}  // namespace

TEST_CASE("raster: plan (host only): range clause pairs are one depth-bounds pass when the driver has the extension") {
  // No GL: the plans of drivers with GL_EXT_depth_bounds_test, checked on every driver (llvmpipe
  // has no extension, so the GPU test below skips there).
  const Catalog catalog = catalog_of(range_table());
  const Table& t = catalog.get("t");
  gl::RasterOptions bounds_off = kSmallTiles;
  bounds_off.depth_bounds = false;
  for (const RangeWhere& range : range_wheres(t)) {
    for (const char* items : {"COUNT(*)", "*"}) {
      const Query q = sql::parse(std::string("SELECT ") + items + " FROM t WHERE " + range.where);
      CAPTURE(q.text());
      const gl::WhereResult with = plan_of(q, catalog, kSmallTiles, true);
      CAPTURE(with.algorithm);
      CHECK(with.algorithm.find("1 range(s) by depth bounds") != std::string::npos);
      CHECK(with.algorithm.find("as two comparisons") == std::string::npos);
      CHECK(std::any_of(with.passes.begin(), with.passes.end(), [](const PassRecord& p) {
        return p.kind == "fold" && p.detail.find(": one depth-bounds pass") != std::string::npos;
      }));
      check_depth_bounds_pass(with.passes, range);
      // Without the extension, or with it turned off: the same pair as two comparisons.
      for (const auto& [extension, options, why] :
           {std::tuple{false, kSmallTiles, "no GL_EXT_depth_bounds_test on this driver"},
            std::tuple{true, bounds_off, "depth bounds turned off"}}) {
        const gl::WhereResult without = plan_of(q, catalog, options, extension);
        CAPTURE(without.algorithm);
        CHECK(without.algorithm.find("1 range(s) as two comparisons") != std::string::npos);
        CHECK(count_kind(without.passes, "depth-bounds") == 0);
        CHECK(std::any_of(without.passes.begin(), without.passes.end(), [&](const PassRecord& p) {
          return p.kind == "fold" && p.detail.find(std::string("two comparisons (") + why + ")") != std::string::npos;
        }));
      }
    }
  }
  // Bounds beyond b's values fold on the host: no range, no depth-bounds pass, with or without.
  for (const std::string& where : folded_range_wheres(t)) {
    const Query q = sql::parse("SELECT COUNT(*) FROM t WHERE " + where);
    CAPTURE(q.text());
    for (bool extension : {true, false}) {
      const gl::WhereResult plan = plan_of(q, catalog, kSmallTiles, extension);
      CAPTURE(plan.algorithm);
      CHECK(plan.algorithm.find("range(s)") == std::string::npos);
      CHECK(count_kind(plan.passes, "depth-bounds") == 0);
      CHECK(std::count_if(plan.passes.begin(), plan.passes.end(), [](const PassRecord& p) {
              return p.kind == "fold" && p.detail.find("is TRUE for every row") != std::string::npos;
            }) == 2);
    }
  }
  // An empty range is FALSE for every row with the extension (two comparisons without it).
  const Query empty = sql::parse("SELECT COUNT(*) FROM t WHERE b BETWEEN 300 AND -300");
  CHECK(plan_of(empty, catalog, kSmallTiles, true).algorithm.find("WHERE is FALSE for every row") != std::string::npos);
  CHECK(plan_of(empty, catalog, kSmallTiles, false).algorithm.find("1 range(s) as two comparisons") !=
        std::string::npos);
  // Ranges on columns that need 32-bit keys stay comparisons.
  for (const char* where : {"a BETWEEN -5 AND 5", "x BETWEEN -5 AND 5", "y BETWEEN 0.25 AND 0.5"}) {
    const gl::WhereResult plan =
        plan_of(sql::parse(std::string("SELECT COUNT(*) FROM t WHERE ") + where), catalog, kSmallTiles, true);
    CAPTURE(plan.algorithm);
    CHECK(count_kind(plan.passes, "depth-bounds") == 0);
  }
}

TEST_CASE("raster: plan (host only): random range queries get depth-bounds passes with the extension") {
  // The random range queries of the GPU test below: most of them are planned as depth-bounds
  // ranges with the extension, none without it.
  std::mt19937_64 rng(31);
  size_t by_bounds = 0, queries = 0;
  for (Distribution dist :
       {Distribution::Uniform, Distribution::Skewed, Distribution::Sorted, Distribution::AllEqual}) {
    const Catalog c = catalog_of(test::random_table(4 * kSmallTile + 3, dist, 17));
    const Table& t = c.get("t");
    for (int i = 0; i < 25; ++i, ++queries) {
      Query q = count_query(test::random_cnf(t, rng, 3, 3));
      double lo = test::random_constant(t, 1, rng), hi = test::random_constant(t, 1, rng);
      if (lo > hi) std::swap(lo, hi);
      q.where.clauses.push_back(Clause{{Comparison{ColumnRef{"", "b"}, CmpOp::Ge, lo}}});
      q.where.clauses.push_back(Clause{{Comparison{ColumnRef{"", "b"}, CmpOp::Le, hi}}});
      if (i % 2) q.items = {Star{}};
      CAPTURE(q.text());
      const gl::WhereResult with = plan_of(q, c, kSmallTiles, true);
      if (with.algorithm.find("by depth bounds") != std::string::npos) {
        ++by_bounds;
        CHECK(count_kind(with.passes, "depth-bounds") >= 1);
      }
      CHECK(count_kind(plan_of(q, c, kSmallTiles, false).passes, "depth-bounds") == 0);
    }
  }
  MESSAGE(by_bounds << " of " << queries << " random range queries planned with a depth-bounds pass");
  CHECK(by_bounds >= 20);  // 27 with these seeds
}

TEST_CASE("raster: range clause pairs run as two comparisons when depth bounds are off") {
  const Catalog catalog = catalog_of(range_table());
  gl::RasterOptions options = kSmallTiles;
  options.depth_bounds = false;
  std::vector<std::string> wheres = {"b BETWEEN 300 AND -300"};
  for (const RangeWhere& range : range_wheres(catalog.get("t"))) wheres.push_back(range.where);
  for (const std::string& where : wheres) {
    for (const char* items : {"COUNT(*)", "*"}) {
      const Query q = sql::parse(std::string("SELECT ") + items + " FROM t WHERE " + where);
      CAPTURE(q.text());
      Result r;
      CHECK(difference(q, catalog, options, &r) == "");
      CHECK(r.report.algorithm.find("1 range(s) as two comparisons") != std::string::npos);
      CHECK(count_kind(r.report.passes, "depth-bounds") == 0);
    }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: range clause pairs run in one depth-bounds pass where the driver has the extension") {
  // The planning is checked on every driver by the host-only plan tests above; this runs the pass.
  if (!gl_context().caps().depth_bounds_test) {
    MESSAGE("skipped: no GL_EXT_depth_bounds_test on " << gl_context().caps().renderer
                                                       << " (the two-comparison fallback is tested above)");
    return;
  }
  const Catalog catalog = catalog_of(range_table());
  for (const RangeWhere& range : range_wheres(catalog.get("t"))) {
    for (const char* items : {"COUNT(*)", "*"}) {
      const Query q = sql::parse(std::string("SELECT ") + items + " FROM t WHERE " + range.where);
      CAPTURE(q.text());
      Result r;
      CHECK(difference(q, catalog, kSmallTiles, &r) == "");
      CHECK(r.report.algorithm.find("by depth bounds") != std::string::npos);
      CHECK(r.report.algorithm == plan_of(q, catalog, kSmallTiles, true).algorithm);
      check_depth_bounds_pass(r.report.passes, range);
      // The GL state is reset: depth bounds test off, bounds back to GL's default [0, 1].
      CHECK(!glIsEnabled(GL_DEPTH_BOUNDS_TEST_EXT));
      GLdouble bounds[2] = {-1, -1};
      glGetDoublev(GL_DEPTH_BOUNDS_EXT, bounds);
      CHECK(bounds[0] == 0.0);
      CHECK(bounds[1] == 1.0);
    }
  }
  for (const std::string& where : folded_range_wheres(catalog.get("t"))) {
    const Query q = sql::parse("SELECT * FROM t WHERE " + where);
    CAPTURE(q.text());
    Result r;
    CHECK(difference(q, catalog, kSmallTiles, &r) == "");
    CHECK(count_kind(r.report.passes, "depth-bounds") == 0);
  }
  // Random range queries with other clauses, sorted and skewed data included; the driver plans
  // each exactly as the host-only plan with the extension says.
  std::mt19937_64 rng(31);
  size_t by_bounds = 0;
  for (Distribution dist :
       {Distribution::Uniform, Distribution::Skewed, Distribution::Sorted, Distribution::AllEqual}) {
    const Catalog c = catalog_of(test::random_table(4 * kSmallTile + 3, dist, 17));
    for (int i = 0; i < 25; ++i) {
      Query q = count_query(test::random_cnf(c.get("t"), rng, 3, 3));
      double lo = test::random_constant(c.get("t"), 1, rng), hi = test::random_constant(c.get("t"), 1, rng);
      if (lo > hi) std::swap(lo, hi);
      q.where.clauses.push_back(Clause{{Comparison{ColumnRef{"", "b"}, CmpOp::Ge, lo}}});
      q.where.clauses.push_back(Clause{{Comparison{ColumnRef{"", "b"}, CmpOp::Le, hi}}});
      if (i % 2) q.items = {Star{}};
      CAPTURE(q.text());
      Result r;
      CHECK(difference(q, c, kSmallTiles, &r) == "");
      CHECK(r.report.algorithm == plan_of(q, c, kSmallTiles, true).algorithm);
      if (count_kind(r.report.passes, "depth-bounds") > 0) ++by_bounds;
    }
  }
  MESSAGE(by_bounds << " of 100 random range queries ran a depth-bounds pass");
  CHECK(by_bounds >= 20);  // as planned on the host (27 with these seeds)
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: counts are exact when each occlusion query may count only a few fragments") {
  for (uint64_t cap : {1, 4, 13, 14, 34}) {
    for (const auto& band : gl::count_bands(7, 5, cap)) CHECK(uint64_t(band.width) * band.height <= cap);
    uint64_t area = 0;
    for (const auto& band : gl::count_bands(7, 5, cap)) area += uint64_t(band.width) * band.height;
    CHECK(area == 35);
  }
  const Catalog catalog = catalog_of(test::random_table(3 * kSmallTile + 5, Distribution::Skewed, 3));
  for (uint64_t cap : {1, 6, 14, 30}) {
    gl::RasterOptions options = kSmallTiles;
    options.max_fragments_per_query = cap;
    for (const char* where : {"b < 100", "x > 0 OR a < 0", "y <> 0.5 AND b >= -500"}) {
      const Query q = sql::parse(std::string("SELECT COUNT(*) FROM t WHERE ") + where);
      CAPTURE(cap);
      CAPTURE(q.text());
      CHECK(difference(q, catalog, options) == "");
    }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: the pass trace names every pass with counts and the encodings") {
  const Catalog catalog = catalog_of(test::random_table(2 * kSmallTile + 1, Distribution::Uniform, 4));
  Result r;
  const Query q = sql::parse("SELECT COUNT(*) FROM t WHERE (b < 3 OR x >= 0.25) AND a <> 7 AND y <= x");
  REQUIRE(difference(q, catalog, kSmallTiles, &r) == "");
  const auto& passes = r.report.passes;
  CHECK(r.report.algorithm.find("stencil CNF (3 clauses)") != std::string::npos);
  CHECK(r.report.algorithm.find("occlusion count") != std::string::npos);
  CHECK(r.report.algorithm.find("b: 24-bit window") != std::string::npos);
  CHECK(r.report.algorithm.find("x: 32-bit keys (hi16 + lo16, 2 passes)") != std::string::npos);
  for (const char* kind : {"upload", "stencil-init", "depth-clear", "copy-to-depth", "compare", "count"})
    CHECK(std::any_of(passes.begin(), passes.end(), [&](const PassRecord& p) { return p.kind == kind; }));
  // Clause 2 starts with a copy that also rejects clause 1's failures; clause 3 likewise.
  CHECK(std::count_if(passes.begin(), passes.end(),
                      [](const PassRecord& p) { return p.detail.find("clause resolve") != std::string::npos; }) == 2);
  for (const auto& p : passes)
    if (p.kind == "compare") {
      CHECK(p.items == 2 * kSmallTile + 7);  // two full 7x5 tiles and one pixel row
      CHECK(p.passed.has_value());
      CHECK(p.detail.find("stencil EQUAL") != std::string::npos);
    }
  CHECK(passes.back().passed == r.table.columns[0].as<int64_t>()[0]);
  // b < 3 is the only comparison of b: the constant by a clear, b drawn against it.
  CHECK(r.report.text().find("depth-clear [depth <- k*2^-24, k=") != std::string::npos);
  CHECK(r.report.text().find("b < 3: depth GL_LESS incoming key(b) - 0x") != std::string::npos);
  CHECK(r.report.text().find("copy-to-depth [depth <- key(x) >> 16") != std::string::npos);
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: LIMIT keeps the first qualifying rows and LIMIT 0 removes the COUNT row") {
  const Catalog catalog = catalog_of(test::random_table(4 * kSmallTile, Distribution::Uniform, 8));
  for (const char* sql : {"SELECT * FROM t WHERE b < 0 LIMIT 5", "SELECT a, y FROM t WHERE x > 0 OR b = 3 LIMIT 0",
                          "SELECT b FROM t LIMIT 3", "SELECT COUNT(*) FROM t WHERE b < 0 LIMIT 0",
                          "SELECT COUNT(*), COUNT(a) FROM t WHERE b < 0 LIMIT 1", "SELECT COUNT(*) FROM t",
                          "SELECT * FROM t WHERE b < 2000", "SELECT * FROM t WHERE b > 2000"}) {
    CAPTURE(sql);
    CHECK(difference(sql::parse(sql), catalog, kSmallTiles) == "");
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: operators beyond selection, ORDER BY, aggregates, GROUP BY and joins are Unsupported and named") {
  const Catalog catalog = catalog_of(test::random_table(10, Distribution::Uniform, 1));
  const std::pair<const char*, const char*> cases[] = {
      {"SELECT b, MEDIAN(x) FROM t GROUP BY b", "MEDIAN(x) per group"},
      {"SELECT b, KTH_LARGEST(a, 2) FROM t GROUP BY b ORDER BY b", "KTH_LARGEST(a, 2) per group"}};
  for (const auto& [sql, op] : cases) {
    CAPTURE(sql);
    try {
      gl::execute(gl_context(), sql::parse(sql), catalog, kSmallTiles);
      FAIL("expected Unsupported");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Unsupported);
      CHECK(std::string(e.what()).find(std::string("raster backend cannot run ") + op) != std::string::npos);
    }
  }
  // Binding errors stay what they are.
  CHECK_THROWS_AS(gl::execute(gl_context(), sql::parse("SELECT nope FROM t"), catalog, kSmallTiles), Error);
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: after a GL error the context is clean and the next query works") {
  gl::Context& context = gl_context();
  const Catalog catalog = catalog_of(test::random_table(2 * kSmallTile + 3, Distribution::Uniform, 6));
  const Query q = sql::parse("SELECT * FROM t WHERE b < 10 AND (x > 0 OR a <= 5)");
  glEnable(0x1234);  // leaves GL_INVALID_ENUM pending: the raster path's next check fails on it
  try {
    gl::execute(context, q, catalog, kSmallTiles);
    FAIL("expected the pending GL error to fail the query");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Internal);
    CHECK(std::string(e.what()).find("GL_INVALID_ENUM") != std::string::npos);
  }
  CHECK(!context.take_debug_messages().empty());  // the injected error, reported by the driver
  GLint value = -1;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &value);
  CHECK(value == 0);
  glGetIntegerv(GL_CURRENT_PROGRAM, &value);
  CHECK(value == 0);
  glGetIntegerv(GL_CLIP_DEPTH_MODE, &value);
  CHECK(value == GL_NEGATIVE_ONE_TO_ONE);
  CHECK(!glIsEnabled(GL_STENCIL_TEST));
  CHECK(!glIsEnabled(GL_DEPTH_TEST));
  CHECK(!glIsEnabled(GL_SCISSOR_TEST));
  CHECK(glGetError() == GL_NO_ERROR);
  CHECK(difference(q, catalog, kSmallTiles) == "");
  CHECK(difference(sql::parse("SELECT COUNT(*) FROM t WHERE y < 0.5"), catalog, kSmallTiles) == "");
  CHECK(catalog.get("t").rows() == 2 * kSmallTile + 3);
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: the Engine runs the raster backend with its default tile, debug output clean") {
  EngineOptions options;
  options.debug = true;
  Engine engine(options);
  const Catalog catalog = catalog_of(test::random_table(20000, Distribution::Skewed, 12));
  for (const char* sql : {"SELECT COUNT(*) FROM t WHERE a < 0 AND (x >= 12.5 OR b = 3)",
                          "SELECT b, y FROM t WHERE y BETWEEN 0.25 AND 0.75 AND b <> 0", "SELECT COUNT(*) FROM t"}) {
    CAPTURE(sql);
    const Result want = engine.execute_sql(sql, catalog, Backend::Cpu);
    const Result got = engine.execute_sql(sql, catalog, Backend::Raster);
    CHECK(table_difference(want.table, got.table) == "");
    CHECK(got.report.text().find("backend: raster") != std::string::npos);
    CHECK(got.report.algorithm.rfind("raster:", 0) == 0);
  }
  CHECK(engine.take_debug_messages().empty());
  GFXQ_CHECK_NO_GL_MESSAGES();
}
