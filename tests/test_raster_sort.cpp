// The raster sort (src/gl/sort.h): the pair network (sort_rows) and the blending network
// (sort_keys_blend) against std::stable_sort of the order keys, and ORDER BY through gl::execute
// against the CPU reference engine, exactly. Small tiles (7x5, rounded to 4x4 by the sort) make
// small tables span many tiles, so partners are fetched from other tiles.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/order_key.h"
#include "gfxq/cpu.h"
#include "gfxq/error.h"
#include "gfxq/sql.h"
#include "gl/select.h"
#include "gl/sort.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "raster_support.h"
#include "test_support.h"

using namespace gfxq;
using gfxq::test::gl_context;

namespace {

using test::kSmallTiles;

// Sizes around powers of two and the sort's 4x4 tiles (16 records), and the column's 7x5 tiles.
const std::vector<uint64_t> kSizes = {0,  1,  2,  3,  4,  5,  7,  15, 16, 17,  31,
                                      32, 33, 34, 35, 36, 63, 64, 65, 70, 127, 129};

// The order key of cell `row` of an INT or FLOAT column.
uint32_t key_of(const Column& c, uint64_t row) {
  return c.type == Type::Float32 ? float_key(c.as<float>()[row]) : int_key(c.as<int32_t>()[row]);
}

// The reference: `rows` (all rows when null) stably sorted by key, as the CPU engine sorts.
std::vector<uint64_t> reference_order(const Column& c, const std::vector<uint64_t>* rows, bool descending) {
  std::vector<uint64_t> order;
  if (rows) {
    order = *rows;
  } else {
    order.resize(c.size());
    std::iota(order.begin(), order.end(), 0);
  }
  std::stable_sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
    return descending ? key_of(c, a) > key_of(c, b) : key_of(c, a) < key_of(c, b);
  });
  return order;
}

// Sorts column `index` of `t` with sort_rows and compares rows and keys with the reference.
void check_pairs(const Table& t, size_t index, bool descending, const gl::RasterOptions& options,
                 const std::vector<uint64_t>* rows = nullptr, std::optional<uint64_t> limit = std::nullopt) {
  const gl::RasterInput input(gl_context(), t, {index}, options);
  const gl::SortOutput got = gl::sort_rows(gl_context(), input, 0, descending, options, rows, limit);
  std::vector<uint64_t> want = reference_order(t.columns[index], rows, descending);
  if (limit && want.size() > *limit) want.resize(*limit);
  CAPTURE(got.algorithm);
  REQUIRE(got.rows.size() == want.size());
  CHECK(got.rows == want);
  REQUIRE(got.keys.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (got.keys[i] != key_of(t.columns[index], want[i])) {
      CHECK_MESSAGE(false, "key at " << i);
      break;
    }
  CHECK(got.algorithm.rfind("raster sort:", 0) == 0);
}

}  // namespace

TEST_CASE("raster sort: pair network of every boundary size matches std::stable_sort") {
  for (uint64_t n : kSizes)
    for (Distribution dist : {Distribution::Uniform, Distribution::Skewed, Distribution::AllEqual}) {
      const uint64_t seed = 1000 + n * 7 + uint64_t(dist);
      CAPTURE(n);
      CAPTURE(seed);
      CAPTURE(to_string(dist));
      const Table t = test::random_table(n, dist, seed);
      for (size_t column : {0, 1, 3})
        for (bool descending : {false, true}) {
          CAPTURE(column);
          CAPTURE(descending);
          check_pairs(t, column, descending, kSmallTiles);
        }
    }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster sort: 1, 2 and 3 texel steps per pass give std::stable_sort's order, within and across tiles") {
  // Tiles of 1x1, 2x1 and 4x4 texels: a pass's 2^s texels come from up to 2^s tiles.
  for (uint32_t steps : {1u, 2u, 3u})
    for (const auto& [w, h] : {std::pair<uint32_t, uint32_t>{1, 1}, {2, 1}, {7, 5}, {0, 0}})
      for (uint64_t n : {2, 3, 8, 17, 64, 65, 300}) {
        if (w < 3 && n > 65) continue;  // one draw per tile and pass: keep 1x1 tiles small
        const uint64_t seed = 3000 + n + 11 * w + steps;
        CAPTURE(steps);
        CAPTURE(w);
        CAPTURE(n);
        CAPTURE(seed);
        const gl::RasterOptions options{.tile_width = w, .tile_height = h, .sort_steps_per_pass = steps};
        const Table t = test::random_table(n, Distribution::Skewed, seed);
        for (bool descending : {false, true}) check_pairs(t, 1, descending, options);
      }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster sort: pair network of a subset of rows with LIMIT, small and default tiles") {
  const uint64_t seed = 4242;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (uint64_t n : {1, 2, 17, 35, 36, 100, 300}) {
    CAPTURE(n);
    const Table t = test::random_table(n, Distribution::Skewed, seed + n);
    std::vector<uint64_t> rows;
    for (uint64_t r = 0; r < n; ++r)
      if (rng() % 3) rows.push_back(r);
    const uint64_t m = rows.size();
    for (const gl::RasterOptions& options : {kSmallTiles, gl::RasterOptions{}})
      for (std::optional<uint64_t> limit : std::vector<std::optional<uint64_t>>{std::nullopt, 0, 1, m, m + 1})
        for (bool descending : {false, true}) {
          CAPTURE(options.tile_width);
          CAPTURE(limit.value_or(~0ull));
          CAPTURE(descending);
          check_pairs(t, 3, descending, options, &rows, limit);
          check_pairs(t, 1, descending, options, nullptr, limit);
        }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

namespace {

Query order_query(std::vector<SelectItem> items, const std::string& column, bool descending,
                  std::optional<uint64_t> limit = std::nullopt, Cnf where = {}) {
  Query q;
  q.items = std::move(items);
  q.table = "t";
  q.where = std::move(where);
  q.order_by = OrderBy{test::col(column), descending};
  q.limit = limit;
  return q;
}

// Runs `q` on the raster path and on the CPU: empty when the tables are identical (bits included);
// `algorithm` receives the raster report's algorithm.
std::string order_difference(const Query& q, const Catalog& catalog, const gl::RasterOptions& options,
                             std::string* algorithm = nullptr) {
  Result got;
  std::string diff = test::raster_difference(q, catalog, options, &got);
  if (algorithm) *algorithm = got.report.algorithm;
  if (!diff.empty()) return diff;
  const auto sort_pass = std::find_if(got.report.passes.begin(), got.report.passes.end(),
                                      [](const PassRecord& p) { return p.kind == "sort-network"; });
  const uint64_t sorted = got.table.rows() > 0 ? 1 : 0;
  if (sorted && sort_pass == got.report.passes.end()) return "no sort-network pass in the report";
  if (got.report.algorithm.find("ORDER BY") == std::string::npos) return "algorithm without ORDER BY";
  return {};
}

}  // namespace

TEST_CASE("raster ORDER BY: random tables, WHEREs and LIMITs match the CPU reference exactly") {
  const uint64_t seed = 20261121;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const char* columns[] = {"a", "b", "x", "y"};
  for (uint64_t n : kSizes) {
    for (Distribution dist : {Distribution::Uniform, Distribution::Skewed, Distribution::AllEqual}) {
      const uint64_t table_seed = rng();
      CAPTURE(n);
      CAPTURE(table_seed);
      const Catalog catalog = test::catalog_of(test::random_table(n, dist, table_seed));
      const Table& t = catalog.get("t");
      for (int i = 0; i < 4; ++i) {
        const std::string column = columns[rng() % 4];
        const bool descending = rng() % 2;
        std::optional<uint64_t> limit;
        switch (rng() % 5) {
          case 0: limit = 0; break;
          case 1: limit = 1; break;
          case 2: limit = n; break;
          case 3: limit = n + 1; break;
          default: break;
        }
        Cnf where = rng() % 2 ? test::random_cnf(t, rng, 2, 2) : Cnf{};
        std::vector<SelectItem> items{Star{}};
        if (rng() % 3 == 0) items = {test::col(columns[rng() % 4]), test::col(column)};
        const Query q = order_query(items, column, descending, limit, where);
        CAPTURE(q.text());
        CHECK(order_difference(q, catalog, kSmallTiles) == "");
      }
    }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster sort: pair network across tiles of 1x1, 3x1 and 6x3 pixels") {
  // 1x1 tiles: every partner lies in another tile; 3x1 rounds to 2x1, 6x3 to 4x2.
  for (const auto& [w, h] : {std::pair<uint32_t, uint32_t>{1, 1}, {3, 1}, {6, 3}})
    for (uint64_t n : {2, 9, 33}) {
      const uint64_t seed = 77 + n + w;
      CAPTURE(w);
      CAPTURE(h);
      CAPTURE(n);
      CAPTURE(seed);
      const gl::RasterOptions options{.tile_width = w, .tile_height = h};
      const Table t = test::random_table(n, Distribution::Skewed, seed);
      for (bool descending : {false, true}) {
        check_pairs(t, 0, descending, options);
        check_pairs(t, 3, descending, options);
      }
    }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster sort: ties keep ascending row ids in both directions") {
  // Few distinct keys, many ties: within each run of equal keys the row ids ascend, ASC and DESC.
  const uint64_t seed = 99;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<int32_t> values(200);
  for (auto& v : values) v = int32_t(rng() % 4) - 2;
  Table t;
  t.columns.push_back(Column::ints("k", values));
  for (bool descending : {false, true}) {
    CAPTURE(descending);
    const gl::RasterInput input(gl_context(), t, {0}, kSmallTiles);
    const gl::SortOutput got = gl::sort_rows(gl_context(), input, 0, descending, kSmallTiles);
    REQUIRE(got.rows.size() == values.size());
    for (size_t i = 1; i < got.rows.size(); ++i) {
      const uint32_t a = got.keys[i - 1], b = got.keys[i];
      CHECK((descending ? a >= b : a <= b));
      if (a == b) CHECK(got.rows[i - 1] < got.rows[i]);
      CHECK(got.keys[i] == int_key(values[got.rows[i]]));
    }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster sort: the normal-float mapping is monotone, normal and invertible") {
  constexpr uint32_t kPerSign = 0x7f000000u;                  // 2^31 - 2^24
  constexpr uint32_t kLast = 2 * kPerSign - 1;                // 2^32 - 2^25 - 1
  CHECK(gl::normal_float_bits(0) == 0xff7fffffu);             // -FLT_MAX
  CHECK(gl::normal_float_bits(kPerSign - 1) == 0x80800000u);  // -FLT_MIN
  CHECK(gl::normal_float_bits(kPerSign) == 0x00800000u);      // FLT_MIN
  CHECK(gl::normal_float_bits(kLast) == 0x7f7fffffu);         // FLT_MAX
  const uint64_t seed = 5;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> indices = {0, 1, kPerSign - 2, kPerSign - 1, kPerSign, kPerSign + 1, kLast - 1, kLast};
  for (int i = 0; i < 20000; ++i) indices.push_back(uint32_t(rng() % (uint64_t(kLast) + 1)));
  std::sort(indices.begin(), indices.end());
  float previous = -std::numeric_limits<float>::infinity();
  for (uint32_t index : indices) {
    const uint32_t bits = gl::normal_float_bits(index);
    const float f = std::bit_cast<float>(bits);
    CHECK(std::isnormal(f));
    CHECK(gl::normal_float_index(bits) == index);
    CHECK(previous <= f);  // equal only for a repeated index
    previous = f;
  }
  CHECK(gl::blend_applicable(0, kLast));
  CHECK(gl::blend_applicable(0x80000000u, 0x80000000u));
  CHECK_FALSE(gl::blend_applicable(0, kLast + 1));
  CHECK_FALSE(gl::blend_applicable(0, 0xffffffffu));
  CHECK_FALSE(gl::blend_applicable(5, 4));
}

namespace {

// Sorts column `index` of `t` with sort_keys_blend and compares the keys with std::sort's; where
// the keys span too much for the normal floats, checks that it is Unsupported instead.
void check_blend(const Table& t, size_t index, bool descending, const gl::RasterOptions& options,
                 const std::vector<uint64_t>* rows = nullptr, std::optional<uint64_t> limit = std::nullopt) {
  const gl::RasterInput input(gl_context(), t, {index}, options);
  std::vector<uint32_t> want;
  for (uint64_t r : reference_order(t.columns[index], rows, descending)) want.push_back(key_of(t.columns[index], r));
  const auto directed = [&](uint32_t k) { return descending ? ~k : k; };
  const bool applicable = want.empty() || gl::blend_applicable(directed(want.front()), directed(want.back()));
  if (limit && want.size() > *limit) want.resize(*limit);
  if (!applicable && !want.empty()) {
    CHECK_ERROR(gl::sort_keys_blend(gl_context(), input, 0, descending, options, rows, limit), ErrorCode::Unsupported,
                "2^32 - 2^25");
    return;
  }
  const gl::KeySortOutput got = gl::sort_keys_blend(gl_context(), input, 0, descending, options, rows, limit);
  CAPTURE(got.algorithm);
  CHECK(got.keys == want);
  CHECK(got.algorithm.find("by min/max blending") != std::string::npos);
}

}  // namespace

TEST_CASE("raster sort: blending network keys equal std::sort of the keys") {
  const uint64_t seed = 31337;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (uint64_t n : kSizes) {
    CAPTURE(n);
    // b: INT in [-1000, 1000]; x, y: FLOAT (y with -0.0, NaN, infinities, denormals).
    const Table t = test::random_table(n, n % 2 ? Distribution::Skewed : Distribution::Uniform, seed + n);
    std::vector<uint64_t> rows;
    for (uint64_t r = 0; r < n; ++r)
      if (rng() % 2) rows.push_back(r);
    for (size_t column : {1, 2, 3})
      for (bool descending : {false, true}) {
        CAPTURE(column);
        CAPTURE(descending);
        check_blend(t, column, descending, kSmallTiles);
        check_blend(t, column, descending, kSmallTiles, &rows, rows.size() / 2);
      }
  }
  // The widest span blending takes: the ends map to -FLT_MAX and +FLT_MAX.
  const int32_t top = int_from_key(0xfdffffffu);  // key span from INT32 min: 2^32 - 2^25 - 1
  Table wide;
  wide.columns.push_back(Column::ints("k", {top, test::kMin, 0, top, -1, test::kMin, 1}));
  for (bool descending : {false, true}) check_blend(wide, 0, descending, kSmallTiles);
  // One more and it is Unsupported; so is the full int32 range.
  for (int32_t past : {top + 1, test::kMax}) {
    Table t;
    t.columns.push_back(Column::ints("k", {past, test::kMin, 0}));
    const gl::RasterInput input(gl_context(), t, {0}, kSmallTiles);
    CHECK_ERROR(gl::sort_keys_blend(gl_context(), input, 0, false, kSmallTiles), ErrorCode::Unsupported, "2^32 - 2^25",
                "pair network");
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster ORDER BY: keys-only results use the blending network where keys give back the values") {
  const float denormal = std::numeric_limits<float>::denorm_min();
  struct Case {
    std::string what;
    Column column;
    bool blending;
  };
  const std::vector<Case> cases = {
      {"INT", Column::ints("k", {5, -3, test::kMin, 5, 0, 1 << 30, -3}), true},
      {"INT full range", Column::ints("k", {5, test::kMax, test::kMin, 5, 0}), false},
      {"FLOAT -0.0 only", Column::floats("k", {1.5f, -0.0f, -1e30f, denormal, -0.0f, test::kInf, test::kNaN}), true},
      {"FLOAT -inf to NaN", Column::floats("k", {1.5f, -test::kInf, test::kNaN, 0.0f}), false},
      {"FLOAT 0.0 only", Column::floats("k", {0.0f, -denormal, 2.0f, 0.0f, -1.0f}), true},
      {"FLOAT -0.0 and 0.0", Column::floats("k", {0.0f, 1.0f, -0.0f, 0.0f, -1.0f, -0.0f}), false},
      {"FLOAT NaN payloads", Column::floats("k", {test::kNaN, 1.0f, test::kNegNaN, test::kInf, test::kNaN}), false},
      {"FLOAT one NaN kind", Column::floats("k", {test::kNegNaN, 1.0f, test::kNegNaN, -1e30f}), true},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    Table t;
    t.columns.push_back(c.column);
    std::vector<int32_t> ids(c.column.size());
    std::iota(ids.begin(), ids.end(), 0);
    t.columns.push_back(Column::ints("id", ids));
    const Catalog catalog = test::catalog_of(std::move(t));
    for (bool descending : {false, true})
      for (std::optional<uint64_t> limit : std::vector<std::optional<uint64_t>>{std::nullopt, 0, 1, 3}) {
        CAPTURE(descending);
        std::string algorithm;
        const Query keys = order_query({test::col("k")}, "k", descending, limit);
        CAPTURE(keys.text());
        CHECK(order_difference(keys, catalog, kSmallTiles, &algorithm) == "");
        CAPTURE(algorithm);
        if (!limit || *limit > 0) CHECK((algorithm.find("by min/max blending") != std::string::npos) == c.blending);
        // With a WHERE (a subset of rows) and with every column (pairs, stable by row id).
        const Query where = order_query({test::col("k"), test::col("k")}, "k", descending, limit,
                                        sql::parse("SELECT * FROM t WHERE id <> 2").where);
        CHECK(order_difference(where, catalog, kSmallTiles) == "");
        const Query all = order_query({Star{}}, "k", descending, limit);
        CHECK(order_difference(all, catalog, kSmallTiles, &algorithm) == "");
        if (!limit || *limit > 0) CHECK(algorithm.find("pairs") != std::string::npos);
      }
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster ORDER BY: aggregates without GROUP BY are the CPU engine's error; ORDER BY the group column runs") {
  const Catalog catalog = test::catalog_of(test::random_table(10, Distribution::Uniform, 1));
  const Query q = sql::parse("SELECT COUNT(*) FROM t ORDER BY a");
  CHECK_ERROR(cpu::execute(q, catalog), ErrorCode::InvalidQuery, "ORDER BY");
  CHECK_ERROR(gl::execute(gl_context(), q, catalog, kSmallTiles), ErrorCode::InvalidQuery, "ORDER BY");
  CHECK(test::raster_difference(sql::parse("SELECT b FROM t GROUP BY b ORDER BY b DESC"), catalog, kSmallTiles) == "");
  GFXQ_CHECK_NO_GL_MESSAGES();
}
