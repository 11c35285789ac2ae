// Raster GROUP BY by blending (src/gl/group_by.h): rows drawn as points into a group target,
// COUNT and bit-plane SUM by additive blending in chunks, MIN/MAX by min/max blending of 24-bit key
// parts, compared EXACTLY with the CPU reference engine (FLOAT SUM: with the exact sum rounded
// once). Small input tiles, small group targets, small chunk caps and one attachment per pass
// make small tables cover many tiles, chunks, passes and both ways of making group ids.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>

#include "core/bind.h"
#include "core/order_key.h"
#include "cpu/internal.h"
#include "gfxq/cpu.h"
#include "gfxq/error.h"
#include "gfxq/sql.h"
#include "gl/group_by.h"
#include "gl/select.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "raster_support.h"
#include "test_support.h"

using namespace gfxq;
using gfxq::test::catalog_of;
using gfxq::test::gl_context;

namespace {

constexpr uint64_t kTile = test::kSmallTile;

// Small tiles, a 16 x 16 group target (256 groups), chunks of 5 records, `attachments` per pass.
gl::RasterOptions small_options(gl::GroupIds ids = gl::GroupIds::Auto, uint64_t chunk = 5, uint32_t attachments = 0) {
  gl::RasterOptions o = test::kSmallTiles;
  o.group_width = 16;
  o.group_height = 16;
  o.group_chunk_rows = chunk;
  o.group_ids = ids;
  o.group_attachments = attachments;
  return o;
}

std::string difference(const Query& q, const Catalog& catalog, const gl::RasterOptions& options,
                       Result* raster = nullptr) {
  return test::raster_difference(q, catalog, options, raster);
}

Aggregate agg(AggKind kind, const std::string& column) {
  return test::agg(kind, column);
}

// A grouped query over t: the group column, COUNT(*), SUM/AVG of INT column `int_col`, MIN/MAX of `col`.
Query grouped(const std::string& key, const std::string& int_col, const std::string& col) {
  Query q;
  q.table = "t";
  q.group_by = test::col(key);
  q.items = {test::col(key),
             Aggregate{AggKind::Count, std::nullopt},
             agg(AggKind::Sum, int_col),
             agg(AggKind::Avg, int_col),
             agg(AggKind::Min, col),
             agg(AggKind::Max, col)};
  return q;
}

// A table of small-range keys: k (INT 0..9), j (INT -3..3), f (FLOAT: -0.0, 0.0 and denormals, so
// its order keys span 7 values and direct ids apply),
// v (INT, full range with extremes), w (FLOAT, with NaN, infinities, denormals).
Table keyed_table(uint64_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const float d = std::numeric_limits<float>::denorm_min();
  const float floats[] = {-0.0f, 0.0f, d, 2 * d, -d, -3 * d};
  std::vector<int32_t> k(rows), j(rows), v(rows);
  std::vector<float> f(rows), w(rows);
  const auto& bounds = test::float_boundaries();
  for (uint64_t i = 0; i < rows; ++i) {
    k[i] = int32_t(rng() % 10);
    j[i] = int32_t(rng() % 7) - 3;
    f[i] = floats[rng() % 6];
    v[i] = rng() % 8 == 0 ? (rng() % 2 ? test::kMin : test::kMax) : int32_t(rng());
    w[i] = rng() % 4 == 0 ? float(bounds[rng() % bounds.size()]) : std::uniform_real_distribution<float>(-9, 9)(rng);
  }
  Table t;
  t.columns.push_back(Column::ints("k", std::move(k)));
  t.columns.push_back(Column::ints("j", std::move(j)));
  t.columns.push_back(Column::floats("f", std::move(f)));
  t.columns.push_back(Column::ints("v", std::move(v)));
  t.columns.push_back(Column::floats("w", std::move(w)));
  return t;
}

}  // namespace

TEST_CASE("raster-group-by: random GROUP BY queries match the CPU reference exactly") {
  const uint64_t sizes[] = {0, 1, kTile - 1, kTile, kTile + 1, 3 * kTile + 4, 7 * kTile + 2};
  const Distribution dists[] = {Distribution::Uniform, Distribution::Skewed, Distribution::Sorted,
                                Distribution::AllEqual};
  const auto start = std::chrono::steady_clock::now();
  uint64_t seed = 2700;
  int queries = 0;
  for (uint64_t rows : sizes)
    for (Distribution dist : dists) {
      ++seed;
      const Catalog catalog = catalog_of(test::random_table(rows, dist, seed));
      const Table& t = catalog.get("t");
      std::mt19937_64 rng(seed);
      for (int i = 0; i < 4; ++i) {
        const std::string key = t.columns[rng() % t.columns.size()].name;
        Query q = grouped(key, rng() % 2 ? "a" : "b", t.columns[rng() % t.columns.size()].name);
        if (i % 2 == 1) q.where = test::random_cnf(t, rng, 3, 3);
        if (rng() % 3 == 0) q.order_by = OrderBy{test::col(key), rng() % 2 == 0};
        if (rng() % 3 == 0) q.limit = rng() % 5;
        const gl::RasterOptions options =
            small_options(i == 2 ? gl::GroupIds::Rank : gl::GroupIds::Auto, 1 + rng() % 9, uint32_t(rng() % 3));
        INFO("seed " << seed << ", " << rows << " rows, " << to_string(dist) << ", chunk " << options.group_chunk_rows
                     << ", attachments " << options.group_attachments);
        INFO(q.text());
        CHECK(difference(q, catalog, options) == "");
        ++queries;
      }
    }
  MESSAGE(queries << " random GROUP BY queries in "
                  << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s");
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster-group-by: direct and rank ids, every chunk cap and attachment count give the CPU's groups") {
  const uint64_t seed = 2790;
  const Catalog catalog = catalog_of(keyed_table(4 * kTile + 3, seed));
  const uint64_t chunks[] = {1, 2, 3, 7, kTile, kTile + 1, 0};
  const char* sqls[] = {
      "SELECT k, COUNT(*), SUM(v), AVG(v), MIN(w), MAX(w), MIN(v), MAX(v) FROM t GROUP BY k",
      "SELECT j, COUNT(*), SUM(k), MIN(f), MAX(f) FROM t WHERE w < 3 OR v > 0 GROUP BY j ORDER BY j DESC",
      "SELECT f, COUNT(*), SUM(j), AVG(j), MAX(w) FROM t GROUP BY f",
      "SELECT k FROM t WHERE j >= 0 GROUP BY k LIMIT 4",
  };
  for (const char* sql : sqls)
    for (uint64_t chunk : chunks)
      for (gl::GroupIds ids : {gl::GroupIds::Direct, gl::GroupIds::Rank})
        for (uint32_t attachments : {1u, 0u}) {
          INFO("seed " << seed << ", " << sql << ", chunk " << chunk << ", ids " << int(ids) << ", attachments "
                       << attachments);
          Result got;
          CHECK(difference(sql::parse(sql), catalog, small_options(ids, chunk, attachments), &got) == "");
          CHECK(got.report.algorithm.find(ids == gl::GroupIds::Direct ? "direct group ids" : "rank group ids") !=
                std::string::npos);
        }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster-group-by: keys at INT32 min and max, -0.0 and 0.0, NaN payloads and infinities") {
  Table t;
  t.columns.push_back(Column::ints("i", {test::kMin, test::kMax, 0, test::kMin, -1, test::kMax, 1, 0, test::kMin}));
  t.columns.push_back(Column::floats("x", {-0.0f, 0.0f, test::kNaN, test::kNegNaN, test::kInf, -test::kInf,
                                           std::numeric_limits<float>::denorm_min(), -0.0f, test::kNaN}));
  t.columns.push_back(Column::ints("s", {test::kMax, test::kMax, test::kMax, test::kMin, test::kMin, 5, -5, 0, 1}));
  const Catalog catalog = catalog_of(std::move(t));
  for (const char* sql : {"SELECT i, COUNT(*), SUM(s), AVG(s), MIN(x), MAX(x) FROM t GROUP BY i",
                          "SELECT x, COUNT(*), SUM(s), MIN(i), MAX(i), MIN(x) FROM t GROUP BY x",
                          "SELECT x, COUNT(*) FROM t WHERE i <> 0 GROUP BY x ORDER BY x DESC",
                          "SELECT s, MAX(x), MIN(x) FROM t GROUP BY s"})
    for (gl::GroupIds ids : {gl::GroupIds::Auto, gl::GroupIds::Rank}) {
      INFO(sql);
      CHECK(difference(sql::parse(sql), catalog, small_options(ids, 2)) == "");
    }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster-group-by: multi-column keys through the operator API match a CPU grouping") {
  const uint64_t seed = 2791;
  const Table table = keyed_table(5 * kTile + 1, seed);
  const std::vector<std::vector<size_t>> key_sets = {{0, 1}, {1, 0}, {0, 2, 1}, {2, 3}, {4, 0}, {0, 1, 2, 4}};
  std::mt19937_64 rng(seed);
  for (const auto& keys : key_sets)
    for (gl::GroupIds ids : {gl::GroupIds::Auto, gl::GroupIds::Rank})
      for (const bool where : {false, true}) {
        const gl::RasterOptions options = small_options(ids, 1 + rng() % 6, uint32_t(rng() % 2));
        INFO("seed " << seed << ", keys " << keys.size() << " from column " << keys[0] << ", ids " << int(ids)
                     << ", WHERE " << where << ", chunk " << options.group_chunk_rows);
        const gl::RasterInput input(gl_context(), table, {0, 1, 2, 3, 4}, options);
        // The WHERE (k < 7 OR w >= 0): its kept stencil, and the rows it keeps on the CPU.
        const BoundCnf cnf = bind_where(sql::parse("SELECT * FROM t WHERE k < 7 OR w >= 0").where, table, "t");
        gl::WhereResult kept;
        gl::GroupSelection selection;
        std::vector<uint64_t> rows(table.rows());
        std::iota(rows.begin(), rows.end(), uint64_t{0});
        if (where) {
          kept = gl::evaluate_where(gl_context(), input, cnf, gl::WhereOutput::Keep, options);
          selection.stencil = kept.kept.get();
          rows = cpu::filter_rows(cpu::Input{&table, 0}, cnf);
        }
        const std::vector<gl::GroupAggregate> aggs = {{AggKind::Count, std::nullopt, "COUNT(*)"},
                                                      {AggKind::Sum, 3, "SUM(v)"},
                                                      {AggKind::Avg, 1, "AVG(j)"},
                                                      {AggKind::Min, 4, "MIN(w)"},
                                                      {AggKind::Max, 3, "MAX(v)"},
                                                      {AggKind::Max, 2, "MAX(f)"}};
        const gl::GroupByOutput got = gl::group_by(gl_context(), input, keys, aggs, selection, options);
        // The CPU grouping: rows by their tuple of order keys, ascending.
        std::map<std::vector<uint32_t>, std::vector<uint64_t>> want;
        for (uint64_t r : rows) {
          std::vector<uint32_t> tuple;
          for (size_t k : keys) tuple.push_back(cpu::order_key(table.columns[k], r));
          want[tuple].push_back(r);
        }
        REQUIRE(got.groups() == want.size());
        size_t g = 0;
        for (const auto& [tuple, members] : want) {
          for (size_t k = 0; k < keys.size(); ++k) CHECK(got.keys[k][g] == tuple[k]);
          for (size_t a = 0; a < aggs.size(); ++a) {
            BoundAggregate b;
            b.kind = aggs[a].kind;
            b.name = aggs[a].name;
            const Column* column = aggs[a].slot ? &table.columns[*aggs[a].slot] : nullptr;
            if (column) b.column = BoundColumn{Side::Left, *aggs[a].slot, column->type, column->name};
            b.type = aggregate_type(b.kind, column ? column->type : Type::Int32);
            const Table want_cell = [&] {
              Table w;
              w.columns.push_back(Column::make(b.name, b.type));
              w.columns[0].push(cpu::aggregate_rows(b, column, members));
              return w;
            }();
            Table got_cell;
            got_cell.columns.push_back(Column::make(b.name, b.type));
            got_cell.columns[0].push(got.value(a, g));
            INFO("group " << g << ", " << b.name);
            CHECK(test::table_difference(want_cell, got_cell) == "");
          }
          ++g;
        }
      }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster-group-by: a row-id selection and a kept stencil select the same groups") {
  const Table table = keyed_table(3 * kTile + 5, 2792);
  const gl::RasterOptions options = small_options(gl::GroupIds::Direct, 4, 1);
  const gl::RasterInput input(gl_context(), table, {0, 3}, options);
  const BoundCnf cnf = bind_where(sql::parse("SELECT * FROM t WHERE v > 0").where, table, "t");
  gl::WhereResult kept = gl::evaluate_where(gl_context(), input, cnf, gl::WhereOutput::Keep, options);
  const gl::WhereResult ids = gl::evaluate_where(gl_context(), input, cnf, gl::WhereOutput::Rows, options);
  const std::vector<gl::GroupAggregate> aggs = {{AggKind::Count, std::nullopt, "COUNT(*)"},
                                                {AggKind::Sum, 1, "SUM(v)"}};
  for (gl::GroupIds mode : {gl::GroupIds::Direct, gl::GroupIds::Rank}) {
    gl::RasterOptions o = options;
    o.group_ids = mode;
    const auto by_stencil = gl::group_by(gl_context(), input, {0}, aggs, {kept.kept.get(), nullptr}, o);
    const auto by_rows = gl::group_by(gl_context(), input, {0}, aggs, {nullptr, &ids.rows}, o);
    CHECK(by_stencil.keys == by_rows.keys);
    CHECK(by_stencil.counts == by_rows.counts);
    CHECK(by_stencil.sums[1] == by_rows.sums[1]);
    uint64_t total = 0;
    for (uint64_t c : by_rows.counts) total += c;
    CHECK(total == ids.rows.size());
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster-group-by: FLOAT SUM and AVG per group are the exact sums rounded once") {
  const uint64_t seed = 2793;
  std::mt19937_64 rng(seed);
  const uint64_t rows = 6 * kTile + 1;
  std::vector<int32_t> k(rows);
  std::vector<float> x(rows);
  for (uint64_t i = 0; i < rows; ++i) {
    k[i] = int32_t(rng() % 5);
    // Cancellation, denormals, magnitudes far apart.
    const int pick = int(rng() % 4);
    x[i] = pick == 0   ? std::uniform_real_distribution<float>(-1, 1)(rng)
           : pick == 1 ? float(std::ldexp(double(int32_t(rng() % 64) - 32), -140))
           : pick == 2 ? float(std::ldexp(1.0, int(rng() % 60)))
                       : -float(std::ldexp(1.0, int(rng() % 60)));
  }
  Table t;
  t.columns.push_back(Column::ints("k", k));
  t.columns.push_back(Column::floats("x", x));
  const Catalog catalog = catalog_of(std::move(t));
  for (const char* sql : {"SELECT k, SUM(x), AVG(x), COUNT(*) FROM t GROUP BY k",
                          "SELECT k, SUM(x), AVG(x), COUNT(*) FROM t WHERE x > -0.5 GROUP BY k"}) {
    INFO("seed " << seed << ", " << sql);
    const Query q = sql::parse(sql);
    const Result got = gl::execute(gl_context(), q, catalog, small_options(gl::GroupIds::Auto, 3, 2));
    const Result cpu = cpu::execute(q, catalog);
    REQUIRE(got.table.rows() == cpu.table.rows());
    const bool filtered = std::string(sql).find("WHERE") != std::string::npos;
    for (uint64_t g = 0; g < got.table.rows(); ++g) {
      const int32_t key = got.table.columns[0].as<int32_t>()[g];
      std::vector<double> values;
      double abs_sum = 0;
      for (uint64_t i = 0; i < rows; ++i)
        if (k[i] == key && (!filtered || x[i] > -0.5)) {
          values.push_back(x[i]);
          abs_sum += std::fabs(double(x[i]));
        }
      const double sum = got.table.columns[1].as<double>()[g], avg = got.table.columns[2].as<double>()[g];
      const double cpu_sum = cpu.table.columns[1].as<double>()[g], cpu_avg = cpu.table.columns[2].as<double>()[g];
      INFO("group " << key << ", " << values.size() << " values");
      CHECK(std::bit_cast<uint64_t>(sum) == std::bit_cast<uint64_t>(test::fsum(values) + 0.0));
      CHECK(got.table.columns[3].as<int64_t>()[g] == int64_t(values.size()));
      const double bound = double(values.size()) * std::ldexp(abs_sum, -53);
      CHECK(std::fabs(sum - cpu_sum) <= bound);
      CHECK(std::fabs(avg - cpu_avg) <= bound / double(values.size()) + std::ldexp(std::fabs(cpu_avg), -51));
    }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster-group-by: more groups than the group target, and aggregates it cannot run, are Unsupported") {
  const Catalog catalog = catalog_of(keyed_table(3 * kTile, 2794));
  gl::RasterOptions tiny = small_options();
  tiny.group_width = 3;
  tiny.group_height = 3;  // 9 groups; k has 10 values
  test::expect_error(
      [&] { gl::execute(gl_context(), sql::parse("SELECT k, COUNT(*) FROM t GROUP BY k"), catalog, tiny); },
      ErrorCode::Unsupported, {"groups", "group target of 3x3 pixels"});
  tiny.group_ids = gl::GroupIds::Direct;
  test::expect_error(
      [&] { gl::execute(gl_context(), sql::parse("SELECT v, COUNT(*) FROM t GROUP BY v"), catalog, tiny); },
      ErrorCode::Unsupported, {"key ranges' product", "group target of 3x3 pixels"});
  // Fewer groups than pixels after the WHERE: it fits (rank ids count the selected rows' groups).
  tiny.group_ids = gl::GroupIds::Auto;
  CHECK(difference(sql::parse("SELECT k, COUNT(*) FROM t WHERE k < 9 GROUP BY k"), catalog, tiny) == "");
  for (const char* sql : {"SELECT k, MEDIAN(v) FROM t GROUP BY k", "SELECT k, QUANTILE(w, 0.25) FROM t GROUP BY k",
                          "SELECT k, COUNT(*), KTH_LARGEST(v, 3) FROM t GROUP BY k"})
    test::expect_error([&] { gl::execute(gl_context(), sql::parse(sql), catalog, small_options()); },
                       ErrorCode::Unsupported, {"raster backend cannot run", "per group in GROUP BY"});
  // The next query after the errors works.
  CHECK(difference(sql::parse("SELECT j, COUNT(*), MAX(w) FROM t GROUP BY j"), catalog, small_options()) == "");
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster-group-by: INT SUM and AVG of INT32 extremes per group are exact") {
  // (A SUM past int64 needs 2^32 rows: the per-group sums go through int_sum_result as the CPU's do.)
  Table t;
  const uint64_t rows = 2 * kTile + 3;
  std::vector<int32_t> k(rows), v(rows);
  for (uint64_t i = 0; i < rows; ++i) {
    k[i] = int32_t(i % 3);
    v[i] = i % 3 == 0 ? test::kMax : (i % 3 == 1 ? test::kMin : (i % 2 ? test::kMax : test::kMin));
  }
  t.columns.push_back(Column::ints("k", k));
  t.columns.push_back(Column::ints("v", v));
  const Catalog catalog = catalog_of(std::move(t));
  for (uint64_t chunk : {uint64_t(1), uint64_t(4), uint64_t(0)}) {
    INFO("chunk " << chunk);
    CHECK(difference(sql::parse("SELECT k, SUM(v), AVG(v), MIN(v), MAX(v) FROM t GROUP BY k"), catalog,
                     small_options(gl::GroupIds::Auto, chunk)) == "");
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster-group-by: WHERE FALSE, WHERE TRUE, empty tables and the report") {
  const Catalog catalog = catalog_of(keyed_table(2 * kTile + 1, 2795));
  for (const char* sql : {"SELECT k, COUNT(*) FROM t WHERE k > 100 GROUP BY k",
                          "SELECT k, COUNT(*), SUM(v) FROM t WHERE k < 100 GROUP BY k",
                          "SELECT k, COUNT(*) FROM t WHERE v > 0 AND v < 0 GROUP BY k LIMIT 0"}) {
    INFO(sql);
    CHECK(difference(sql::parse(sql), catalog, small_options()) == "");
  }
  const Catalog empty = catalog_of(keyed_table(0, 1));
  CHECK(difference(sql::parse("SELECT k, COUNT(*), MIN(w) FROM t GROUP BY k"), empty, small_options()) == "");
  Result got;
  REQUIRE(difference(sql::parse("SELECT k, COUNT(*), SUM(v), MIN(w) FROM t WHERE j > 0 GROUP BY k"), catalog,
                     small_options(gl::GroupIds::Auto, 4), &got) == "");
  CHECK(got.report.algorithm.find("GROUP BY k: raster GROUP BY by blending (direct group ids") != std::string::npos);
  size_t blends = 0;
  uint64_t points = 0;
  for (const auto& p : got.report.passes)
    if (p.kind == "group-blend") {
      ++blends;
      points += p.items;
    }
  CHECK(blends == 2);  // round 1, and round 2 for MIN's low key parts
  CHECK(points % (2 * kTile + 1) == 0);
  GFXQ_CHECK_NO_GL_MESSAGES();
}
