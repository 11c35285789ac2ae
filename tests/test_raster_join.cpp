// Raster joins (src/gl/join.h): the inner keys sorted on the GPU, probes counted by occlusion
// queries, compared EXACTLY with the CPU reference engine (pairs in (left row, right row) order).
// Small tiles, small probe batches and small occlusion caps make small tables cover many tiles,
// batches and bands. The depth-bounds route needs GL_EXT_depth_bounds_test, which llvmpipe lacks:
// its plan is tested on the host (plan_join), as the selection's plan_where.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/order_key.h"
#include "gfxq/cpu.h"
#include "gfxq/error.h"
#include "gfxq/sql.h"
#include "gl/join.h"
#include "gl/select.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "raster_support.h"
#include "test_support.h"

using namespace gfxq;
using gfxq::test::gl_context;
using gfxq::test::join_catalog;
using gfxq::test::kInf;
using gfxq::test::kNaN;

namespace {

// Small tiles, probes issued 5 at a time; `share`: probes with equal bounds share counts;
// `search`: the batched search, else the occlusion-counted passes per probe.
gl::RasterOptions join_options(uint64_t cap = 0, bool share = true, bool search = false) {
  gl::RasterOptions o = test::kSmallTiles;
  o.join_probe_batch = 5;
  o.max_fragments_per_query = cap;
  o.join_share_counts = share;
  o.join_search = search;
  return o;
}

// How join keys are drawn.
enum class Keys {
  Unique,    // a permutation: one match per key
  Few,       // a small domain: many matches per key
  Disjoint,  // left and right ranges apart: no match
  Skewed,    // one key in half the rows
  Wide,      // full int32 range (32-bit keys: the key compare route)
  Floats,    // FLOAT keys with -0.0, NaN, infinities, duplicates
};

const char* keys_name(Keys k) {
  const char* names[] = {"unique", "few", "disjoint", "skewed", "wide", "floats"};
  return names[int(k)];
}

int32_t int_key_value(Keys keys, uint64_t i, uint64_t n, bool right, std::mt19937_64& rng) {
  switch (keys) {
    case Keys::Unique: return int32_t(i * 7 % (n + 3)) - 5;
    case Keys::Few: return int32_t(rng() % 5) - 2;
    case Keys::Disjoint: return int32_t(rng() % 100) + (right ? 1000 : 0);
    case Keys::Skewed: return rng() % 2 ? 42 : int32_t(rng() % 60);
    case Keys::Wide: {
      const int32_t edges[] = {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), 0, -1};
      return rng() % 4 == 0 ? edges[rng() % 4] : int32_t(uint32_t(rng()));
    }
    case Keys::Floats: break;
  }
  return 0;
}

float float_key_value(std::mt19937_64& rng) {
  const float some[] = {0.0f, -0.0f, kNaN, kInf, -kInf, 1.5f, -2.0f, 3.0f, 1e-45f};
  return rng() % 3 == 0 ? some[rng() % 9] : float(int(rng() % 9) - 4) * 0.5f;
}

// A table with join key k (INT, or FLOAT for Keys::Floats), FLOAT v and INT w.
Table join_table(uint64_t rows, Keys keys, bool right, std::mt19937_64& rng) {
  std::vector<int32_t> k(rows), w(rows);
  std::vector<float> fk(rows), v(rows);
  for (uint64_t i = 0; i < rows; ++i) {
    if (keys == Keys::Floats)
      fk[i] = float_key_value(rng);
    else
      k[i] = int_key_value(keys, i, rows, right, rng);
    v[i] = float(rng() % 1000) / 1000.0f;
    w[i] = int32_t(rng() % 100);
  }
  Table t;
  t.columns.push_back(keys == Keys::Floats ? Column::floats("k", std::move(fk)) : Column::ints("k", std::move(k)));
  t.columns.push_back(Column::floats("v", std::move(v)));
  t.columns.push_back(Column::ints("w", std::move(w)));
  return t;
}

// Empty when the raster answer equals the CPU reference's exactly (rows, order, values).
std::string difference(const Query& q, const Catalog& catalog, const gl::RasterOptions& options,
                       Result* raster = nullptr) {
  return test::raster_difference(q, catalog, options, raster);
}

Query join_query(std::vector<SelectItem> items, double lo, double hi) {
  Query q;
  q.table = "r";
  q.items = std::move(items);
  q.join = JoinSpec{"s", ColumnRef{"r", "k"}, ColumnRef{"s", "k"}, lo, hi};
  return q;
}

}  // namespace

TEST_CASE("raster join: probe intervals are the CPU's join condition for every key") {
  std::mt19937_64 rng(11);
  const double offsets[] = {0, -1, 1, 0.5, -0.5, 2.25, -1e-300, 3e9, -3e9};
  for (int round = 0; round < 3000; ++round) {
    const bool right_float = rng() % 2;
    const double left = rng() % 2 ? double(float_key_value(rng))
                                  : double(rng() % 2 ? int32_t(rng() % 11) - 5 : int32_t(uint32_t(rng())));
    double lo = offsets[rng() % 9], hi = offsets[rng() % 9];
    if (lo > hi) std::swap(lo, hi);
    const auto interval = gl::probe_interval(left, right_float ? Type::Float32 : Type::Int32, lo, hi);
    CAPTURE(left);
    CAPTURE(lo);
    CAPTURE(hi);
    for (int j = 0; j < 20; ++j) {
      const double right = right_float ? double(j < 10 ? float_key_value(rng) : std::bit_cast<float>(uint32_t(rng())))
                                       : double(j < 10 ? int32_t(rng() % 11) - 5 : int32_t(uint32_t(rng())));
      CAPTURE(right);
      const bool want = compare_total(left + lo, right) <= 0 && compare_total(right, left + hi) <= 0;
      const uint32_t key = right_float ? float_key(float(right)) : int_key(int32_t(right));
      const bool got = interval && interval->first <= key && key <= interval->second;
      CHECK(got == want);
    }
  }
}

TEST_CASE("raster join: random equi and band joins match the CPU reference exactly") {
  const uint64_t sizes[][2] = {
      {0, 5}, {5, 0}, {1, 1}, {2, 3}, {test::kSmallTile + 1, test::kSmallTile - 1}, {17, 2 * test::kSmallTile + 3}};
  const Keys all_keys[] = {Keys::Unique, Keys::Few, Keys::Disjoint, Keys::Skewed, Keys::Wide, Keys::Floats};
  const double bands[][2] = {{0, 0}, {-1, 2}, {-0.5, 0.5}, {0, 0.25}, {-3, -1}};
  uint64_t seed = 7000, rows = 0;
  std::set<std::string> kinds;
  for (const auto& size : sizes)
    for (Keys keys : all_keys) {
      ++seed;
      std::mt19937_64 rng(seed);
      const Catalog catalog = join_catalog(join_table(size[0], keys, false, rng), join_table(size[1], keys, true, rng));
      for (int i = 0; i < 3; ++i) {
        const auto& band = bands[rng() % 5];
        Query q = join_query({}, band[0], band[1]);
        switch (i) {
          case 0: q.items = {Star{}}; break;
          case 1: q.items = {Aggregate{AggKind::Count, std::nullopt}}; break;
          default: q.items = {ColumnRef{"s", "w"}, ColumnRef{"r", "w"}, ColumnRef{"s", "k"}};
        }
        if (rng() % 2) q.where = sql::parse("SELECT * FROM r WHERE r.w < 70 AND (s.v >= 0.2 OR s.w > 90)").where;
        if (rng() % 3 == 0) q.limit = rng() % 7;
        INFO("seed " << seed << ", " << size[0] << " x " << size[1] << " rows, keys " << keys_name(keys));
        INFO(q.text());
        Result r;
        CHECK(difference(q, catalog, join_options(rng() % 2 ? 0 : 5, rng() % 2, i == 2), &r) == "");
        rows += r.table.rows();
        for (const auto& p : r.report.passes) kinds.insert(p.kind);
      }
    }
  // Every probe route this driver has ran, and the joins produced pairs.
  CHECK(kinds.count("probe depth-test") == 1);
  CHECK(kinds.count("probe key compare") == 1);
  CHECK(kinds.count("probe search") == 1);
  CHECK(rows > 1000);
  MESSAGE(rows << " result rows compared");
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster join: no, one and many matches per key and one key in half the rows, with SQL") {
  std::mt19937_64 rng(99);
  for (Keys keys : {Keys::Disjoint, Keys::Unique, Keys::Few, Keys::Skewed}) {
    const Catalog catalog =
        join_catalog(join_table(41, keys, false, rng), join_table(3 * test::kSmallTile, keys, true, rng));
    for (const char* sql : {"SELECT COUNT(*) FROM r JOIN s ON r.k = s.k", "SELECT r.w, s.w FROM r JOIN s ON r.k = s.k",
                            "SELECT * FROM r JOIN s ON s.k BETWEEN r.k - 2 AND r.k + 1 WHERE s.w < 50",
                            "SELECT COUNT(*) FROM r JOIN s ON s.k BETWEEN r.k - 1.5 AND r.k + 0.5",
                            "SELECT s.v FROM r JOIN s ON r.k = s.k WHERE r.v < 0.5 LIMIT 10"}) {
      INFO(keys_name(keys) << ": " << sql);
      CHECK(difference(sql::parse(sql), catalog, join_options()) == "");
      CHECK(difference(sql::parse(sql), catalog, join_options(0, false)) == "");
      CHECK(difference(sql::parse(sql), catalog, join_options(0, true, true)) == "");
      CHECK(difference(sql::parse(sql), catalog, {.tile_width = 16, .tile_height = 8}) == "");
    }
  }
  // INT against FLOAT keys: the shared literal translation makes fractional bounds exact.
  Catalog mixed = join_catalog(join_table(30, Keys::Floats, false, rng), join_table(40, Keys::Few, true, rng));
  for (const char* sql : {"SELECT * FROM r JOIN s ON r.k = s.k", "SELECT * FROM s JOIN r ON s.k = r.k",
                          "SELECT COUNT(*) FROM s JOIN r ON r.k BETWEEN s.k - 0.5 AND s.k + 0.25"}) {
    INFO(sql);
    CHECK(difference(sql::parse(sql), mixed, join_options()) == "");
    CHECK(difference(sql::parse(sql), mixed, join_options(0, true, true)) == "");
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster join: plan (host only): depth bounds for counts with the extension, depth tests, key compares") {
  // The default batches the probes into searches, for any key span and output.
  for (const gl::KeyRange keys : {gl::KeyRange{5, 9}, gl::KeyRange{0x10u, 0xfffffff0u}})
    for (const bool pairs : {false, true}) CHECK(gl::plan_join(keys, pairs, {}, true).route == gl::JoinRoute::Search);
  // The paper's passes per probe:
  gl::RasterOptions options;
  options.join_search = false;
  const gl::KeyRange window{0x80000000u, 0x80000000u + 12345};
  const gl::KeyRange wide{0x10u, 0xfffffff0u};
  const gl::JoinPlan count_bounds = gl::plan_join(window, false, options, true);
  CHECK(count_bounds.route == gl::JoinRoute::DepthBounds);
  CHECK(count_bounds.base == window.lo);
  REQUIRE(count_bounds.passes.size() == 1);
  CHECK(count_bounds.passes[0].kind == "probe depth-bounds");
  CHECK(count_bounds.passes[0].detail.find("glDepthBoundsEXT") != std::string::npos);
  CHECK(gl::plan_join(window, false, options, false).route == gl::JoinRoute::DepthTest);
  CHECK(gl::plan_join(window, true, options, true).route == gl::JoinRoute::DepthTest);
  gl::RasterOptions no_bounds = options;
  no_bounds.depth_bounds = false;
  CHECK(gl::plan_join(window, false, no_bounds, true).route == gl::JoinRoute::DepthTest);
  CHECK(gl::plan_join(wide, false, options, true).route == gl::JoinRoute::KeyCompare);
  CHECK(gl::plan_join(gl::KeyRange{0, (1u << 24) - 2}, true, options, false).route == gl::JoinRoute::DepthTest);
  CHECK(gl::plan_join(gl::KeyRange{0, (1u << 24) - 1}, true, options, false).route == gl::JoinRoute::KeyCompare);

  // What ran on this driver is the plan made for it, and every pass is in the report.
  std::mt19937_64 rng(5);
  const Catalog catalog = join_catalog(join_table(50, Keys::Few, false, rng), join_table(60, Keys::Few, true, rng));
  for (const char* sql : {"SELECT COUNT(*) FROM r JOIN s ON r.k = s.k", "SELECT * FROM r JOIN s ON r.k = s.k"}) {
    INFO(sql);
    Result r;
    REQUIRE(difference(sql::parse(sql), catalog, join_options(), &r) == "");
    const auto& keys = catalog.get("s").column("k").as<int32_t>();
    const gl::KeyRange range{int_key(*std::min_element(keys.begin(), keys.end())),
                             int_key(*std::max_element(keys.begin(), keys.end()))};
    const bool pairs = std::string(sql).find("COUNT") == std::string::npos;
    const gl::JoinPlan plan = gl::plan_join(range, pairs, join_options(), gl_context().caps().depth_bounds_test);
    CHECK(r.report.algorithm.find(plan.algorithm) != std::string::npos);
    bool sorted = false, probed = false, folded = false;
    for (const auto& p : r.report.passes) {
      sorted = sorted || p.kind == "sort-network";
      folded = folded || p.kind == "fold";
      if (p.kind == plan.passes[0].kind) {
        probed = true;
        CHECK(p.passed.has_value());
        CHECK(p.items > 0);
      }
    }
    CHECK(sorted);
    CHECK(probed);
    CHECK(folded);
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster join: what the raster join lacks is Unsupported and named") {
  std::mt19937_64 rng(3);
  const Catalog catalog = join_catalog(join_table(10, Keys::Few, false, rng), join_table(10, Keys::Few, true, rng));
  const std::pair<const char*, const char*> cases[] = {
      {"SELECT SUM(s.w) FROM r JOIN s ON r.k = s.k", "aggregate SUM over a join"},
      {"SELECT r.w, COUNT(*) FROM r JOIN s ON r.k = s.k GROUP BY r.w", "GROUP BY over a join"},
      {"SELECT * FROM r JOIN s ON r.k = s.k ORDER BY s.w", "ORDER BY"},
      {"SELECT * FROM r JOIN s ON r.k = s.k WHERE r.w < s.w", "a WHERE clause over a join that reads columns of both"},
      {"SELECT COUNT(*) FROM r JOIN s ON r.k = s.k WHERE r.w < 5 OR s.w < 5",
       "a WHERE clause over a join that reads columns of both"}};
  for (const auto& [sql, op] : cases) {
    CAPTURE(sql);
    try {
      gl::execute(gl_context(), sql::parse(sql), catalog, join_options());
      FAIL("expected Unsupported");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Unsupported);
      CHECK(std::string(e.what()).find(std::string("raster backend cannot run ") + op) != std::string::npos);
    }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}
