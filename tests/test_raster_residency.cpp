// The raster backend's texture cache (gl/texture_cache.h): catalog columns stay as tile textures
// between queries, a replaced table is read anew, a small budget evicts and still answers right.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "gfxq/cpu.h"
#include "gfxq/gfxq.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "test_support.h"

namespace {

using namespace gfxq;

size_t passes_of(const Result& r, const std::string& kind) {
  size_t n = 0;
  for (const auto& p : r.report.passes) n += p.kind == kind;
  return n;
}

// The raster result of `sql`, checked against the CPU engine's.
Result raster_checked(Engine& engine, const std::string& sql, const Catalog& catalog) {
  INFO(sql);
  const Result want = engine.execute_sql(sql, catalog, Backend::Cpu);
  Result got = engine.execute_sql(sql, catalog, Backend::Raster);
  CHECK(test::table_difference(want.table, got.table) == "");
  return got;
}

Table random_table(std::mt19937_64& rng, size_t rows) {
  std::vector<int32_t> a(rows), b(rows);
  std::vector<float> x(rows);
  for (size_t i = 0; i < rows; ++i) {
    a[i] = int32_t(rng() % 1000);
    b[i] = int32_t(rng() % 50) - 25;
    x[i] = float(rng() % 400) / 8.0f;
  }
  return Table{{Column::ints("a", a), Column::ints("b", b), Column::floats("x", x)}};
}

}  // namespace

TEST_CASE("raster residency: the second query uploads nothing, a replaced table is read anew") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  Engine engine({.debug = test::vk_validation_wanted()});
  REQUIRE_MESSAGE(engine.gl_capabilities().available, engine.gl_capabilities().unavailable_reason);
  Catalog catalog;
  catalog.add("t", random_table(rng, 5000));
  const std::string count = "SELECT COUNT(*) FROM t WHERE a < 300 AND b > 0";
  const Result first = raster_checked(engine, count, catalog);
  CHECK(passes_of(first, "upload") == 1);
  CHECK(passes_of(first, "resident") == 0);
  const Result second = raster_checked(engine, count, catalog);
  CHECK(passes_of(second, "upload") == 0);
  CHECK(passes_of(second, "resident") == 1);
  // A column not read before: uploaded beside the resident ones.
  const Result third = raster_checked(engine, "SELECT COUNT(*) FROM t WHERE a < 300 AND x > 10", catalog);
  REQUIRE(passes_of(third, "upload") == 1);
  for (const auto& p : third.report.passes)
    if (p.kind == "upload") CHECK(p.detail.find("resident: a") != std::string::npos);
  // ORDER BY and aggregates read the same textures.
  CHECK(passes_of(raster_checked(engine, "SELECT a FROM t WHERE b > 20 ORDER BY a LIMIT 7", catalog), "upload") == 0);
  CHECK(passes_of(raster_checked(engine, "SELECT SUM(a) FROM t WHERE b < -20", catalog), "upload") == 0);
  // Replaced: new rows (a new version), uploaded again and answered from them.
  catalog.add("t", random_table(rng, 3001));
  const Result replaced = raster_checked(engine, count, catalog);
  CHECK(passes_of(replaced, "upload") == 1);
  CHECK(passes_of(raster_checked(engine, count, catalog), "upload") == 0);
  CHECK(engine.take_debug_messages().empty());
}

TEST_CASE("raster residency: budgets of none, one column and some evict and give the same answers") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  Catalog catalog;
  catalog.add("t", random_table(rng, 4000));
  catalog.add("u", random_table(rng, 2500));
  const std::vector<std::string> queries = {
      "SELECT COUNT(*) FROM t WHERE a < 500 AND b > 0", "SELECT COUNT(*) FROM u WHERE x < 20",
      "SELECT COUNT(*) FROM t WHERE x > 5 AND a > 100", "SELECT MIN(b), MAX(b) FROM u WHERE a < 700",
      "SELECT COUNT(*) FROM t WHERE a < 500 AND b > 0"};
  // A column of t or u is one tile row of the default 8192-pixel width: 32 KiB of texture.
  for (const uint64_t budget : {uint64_t(0), uint64_t(40000), uint64_t(1) << 20}) {
    CAPTURE(budget);
    Engine engine({.debug = test::vk_validation_wanted(), .resident_bytes = budget});
    REQUIRE_MESSAGE(engine.gl_capabilities().available, engine.gl_capabilities().unavailable_reason);
    size_t uploads = 0;
    std::string last_upload;
    for (int round = 0; round < 2; ++round)
      for (const std::string& q : queries) {
        const Result r = raster_checked(engine, q, catalog);
        uploads += passes_of(r, "upload");
        for (const auto& p : r.report.passes)
          if (p.kind == "upload") last_upload = p.detail;
      }
    INFO(last_upload);
    if (budget == 0) {
      CHECK(uploads == 2 * queries.size());  // nothing kept
    } else if (budget == 40000) {
      CHECK(last_upload.find(" 0 evicted so far") == std::string::npos);  // one column kept at a time
    } else {
      CHECK(uploads <= queries.size());  // the second round reads only kept columns
      CHECK(last_upload.find(" 0 evicted so far") != std::string::npos);
    }
    CHECK(engine.take_debug_messages().empty());
  }
}
