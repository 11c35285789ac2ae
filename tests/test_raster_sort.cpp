// The raster sort (src/gl/sort.h): the pair network (sort_rows) and the blending network
// (sort_keys_blend) against std::stable_sort of the order keys, and ORDER BY through gl::execute
// against the CPU reference engine, exactly. Small tiles (7x5, rounded to 4x4 by the sort) make
// small tables span many tiles, so partners are fetched from other tiles.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/order_key.h"
#include "gfxq/cpu.h"
#include "gfxq/error.h"
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
