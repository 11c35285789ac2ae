// The backends' knobs (EngineOptions::compute, ::raster) and their environment overrides: each
// variable sets its knob, an Engine reads them once when it is made (a variable set or unset later
// changes nothing), and an invalid value is Error(InvalidInput) from the Engine's constructor naming
// the variable and the value.
#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/options.h"
#include "engine_compute_support.h"
#include "gfxq/gfxq.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "test_support.h"

namespace {

using namespace gfxq;

// The scan summary of the first pass of `r` that scanned in several chunks ("5 chunks, ..."), or
// empty when every scan was one chunk.
std::string chunked_scan(const Result& r) {
  for (const PassRecord& p : r.report.passes)
    if (const size_t at = p.detail.find(" chunks, "); at != std::string::npos) {
      const size_t from = p.detail.rfind(' ', at - 1);
      return p.detail.substr(from == std::string::npos ? 0 : from + 1);
    }
  return {};
}

}  // namespace

TEST_CASE("engine-options: each environment variable overrides its knob, and without them the options stay") {
  EngineOptions given;
  given.compute.chunk_rows = 4096;
  given.compute.host_sort_rows = 17;
  given.raster.calibration = "off";
  const EngineOptions unset = engine::with_environment(given);
  CHECK(unset.compute == given.compute);
  CHECK(unset.raster == given.raster);
  // Each variable with a valid value, and the one knob it changes.
  struct Case {
    const char* name;
    const char* value;
    std::function<void(EngineOptions&)> set;
  };
  const std::vector<Case> cases = {
      {"GFXQ_COMPUTE_CHUNK_ROWS", "8192", [](EngineOptions& o) { o.compute.chunk_rows = 8192; }},
      {"GFXQ_COMPUTE_CHUNK_ROWS", "0", [](EngineOptions& o) { o.compute.chunk_rows = 0; }},
      {"GFXQ_COMPUTE_MAX_GROUPS", "3", [](EngineOptions& o) { o.compute.max_groups = 3; }},
      {"GFXQ_COMPUTE_MAX_GROUPS", "99999999999", [](EngineOptions& o) { o.compute.max_groups = UINT32_MAX; }},
      {"GFXQ_COMPUTE_SELECT_LOOKBACK", "0", [](EngineOptions& o) { o.compute.select_lookback = 0; }},
      {"GFXQ_COMPUTE_SELECT_TILES", "counter", [](EngineOptions& o) { o.compute.select_tiles = SelectTiles::Counter; }},
      {"GFXQ_COMPUTE_SELECT_TILES", "launch", [](EngineOptions& o) { o.compute.select_tiles = SelectTiles::Launch; }},
      {"GFXQ_COMPUTE_SELECT_TILES", "auto", [](EngineOptions&) {}},
      {"GFXQ_COMPUTE_FLOAT_SUM_INT64", "1", [](EngineOptions& o) { o.compute.float_sum_int64 = true; }},
      {"GFXQ_COMPUTE_FLOAT_SUM_INT64", "0", [](EngineOptions&) {}},
      {"GFXQ_COMPUTE_SORT_WINDOW", "16384", [](EngineOptions& o) { o.compute.sort_window = 16384; }},
      {"GFXQ_SELECT_SAMPLE", "1", [](EngineOptions& o) { o.compute.select_sample = true; }},
      {"GFXQ_SELECT_SAMPLE", "0", [](EngineOptions& o) { o.compute.select_sample = false; }},
      {"GFXQ_COMPUTE_JOIN_CHUNK_PAIRS", "1024", [](EngineOptions& o) { o.compute.join_chunk_pairs = 1024; }},
      {"GFXQ_COMPUTE_PRODUCT_CHUNK", "7", [](EngineOptions& o) { o.compute.product_chunk_pairs = 7; }},
      {"GFXQ_COMPUTE_HOST_SORT_ROWS", "0", [](EngineOptions& o) { o.compute.host_sort_rows = 0; }},
      {"GFXQ_RASTER_CALIBRATION", "/tmp/gfxq-calibration-test",
       [](EngineOptions& o) { o.raster.calibration = "/tmp/gfxq-calibration-test"; }},
  };
  for (const Case& c : cases) {
    INFO(c.name << "=" << c.value);
    const test::ScopedEnv set{c.name, c.value};
    EngineOptions want = given;
    c.set(want);
    const EngineOptions got = engine::with_environment(given);
    CHECK(got.compute == want.compute);
    CHECK(got.raster == want.raster);
  }
  // An empty value is unset.
  const test::ScopedEnv empty{"GFXQ_COMPUTE_CHUNK_ROWS", ""};
  CHECK(engine::with_environment(given).compute == given.compute);
}

TEST_CASE("engine-options: an environment override is read when the engine is made, never during a query") {
  // 10000 rows: chunks of 2048 rows make 5, chunks of 8192 make 2, the default one.
  const Catalog catalog = test::catalog_of(test::random_table(10000, Distribution::Uniform, 31));
  const std::string sql = "SELECT COUNT(*), SUM(b) FROM t WHERE a < 0 OR y > 0.5";
  const EngineOptions given{.debug = test::vk_validation_wanted(), .compute = {.chunk_rows = 8192}};
  std::unique_ptr<Engine> made_with;
  {
    const test::ScopedEnv rows{"GFXQ_COMPUTE_CHUNK_ROWS", "2048"};
    made_with = std::make_unique<Engine>(given);
  }
  // The variable is unset now; the engine made while it was set still scans in 2048-row chunks (the
  // override wins over the option).
  const Result r = test::check_sql(*made_with, sql, catalog, "made with GFXQ_COMPUTE_CHUNK_ROWS=2048");
  CHECK(chunked_scan(r).find("5 chunks, ") == 0);
  Engine made_without(given);
  const Result o = test::check_sql(made_without, sql, catalog, "made after it was unset");
  CHECK(chunked_scan(o).find("2 chunks, ") == 0);
  // Set after the engine was made: no effect on its queries.
  Engine plain({.debug = test::vk_validation_wanted()});
  const test::ScopedEnv late{"GFXQ_COMPUTE_CHUNK_ROWS", "2048"};
  const Result p = test::check_sql(plain, sql, catalog, "GFXQ_COMPUTE_CHUNK_ROWS set after the engine was made");
  CHECK(chunked_scan(p).empty());
}

TEST_CASE("engine-options: an invalid override is Error(InvalidInput) naming it, where the engine is made") {
  const Catalog catalog = test::catalog_of(test::random_table(3000, Distribution::Skewed, 32));
  const std::pair<const char*, const char*> bad[] = {
      {"GFXQ_COMPUTE_CHUNK_ROWS", "many"},     {"GFXQ_COMPUTE_CHUNK_ROWS", "12abc"},
      {"GFXQ_COMPUTE_CHUNK_ROWS", "-1"},       {"GFXQ_COMPUTE_MAX_GROUPS", " 4"},
      {"GFXQ_COMPUTE_SELECT_LOOKBACK", "1.5"}, {"GFXQ_COMPUTE_SELECT_TILES", "first"},
      {"GFXQ_COMPUTE_FLOAT_SUM_INT64", "on"},  {"GFXQ_COMPUTE_SORT_WINDOW", "99999999999999999999"},
      {"GFXQ_SELECT_SAMPLE", "yes"},           {"GFXQ_COMPUTE_JOIN_CHUNK_PAIRS", "0x10"},
      {"GFXQ_COMPUTE_PRODUCT_CHUNK", "1e3"},   {"GFXQ_COMPUTE_HOST_SORT_ROWS", "4k"},
  };
  for (const auto& [name, value] : bad) {
    const test::ScopedEnv set{name, value};
    CHECK_ERROR(Engine(), ErrorCode::InvalidInput, std::string(name) + "='" + value + "': expected ",
                "(it overrides ComputeOptions::");
  }
  // Unset again, an engine is made and answers as the CPU engine.
  Engine after({.debug = test::vk_validation_wanted()});
  test::check_sql(after, "SELECT b, x FROM t WHERE a < 0 ORDER BY x LIMIT 20", catalog, "after the errors");
}
