// Faults on the raster path (issue 26): every GL allocation a query makes (gl/storage.h) can fail
// and every wait for the GPU (gl::Context::finish, before each blocking read) can time out,
// injected through EngineOptions::faults and swept over k; each failure is a typed error naming what
// failed, the inputs are untouched, and the next query on the same engine answers like the CPU
// engine. A real wait past gpu_timeout_ms = 0 is Timeout too.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "fault_support.h"
#include "gfxq/gfxq.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "test_support.h"

namespace {

using namespace gfxq;

//! No calibration: a new engine measures it at its first raster query unless a cache holds it, and its
//! allocations and waits would then be counted before the query's own.
const RasterOptions kNoCalibration{.calibration = "off"};

//! t (2,000 rows of every kind of value, one raster tile) and r, s (a join's sides).
Catalog raster_fault_catalog() {
  Catalog c = test::catalog_of(test::random_table(2000, Distribution::Uniform, 261));
  std::mt19937_64 rng(262);
  std::uniform_int_distribution<int32_t> key(0, 40), value(-50, 50);
  std::vector<int32_t> rk(600), ra(600), sk(200), sb(200);
  for (auto& v : rk) v = key(rng);
  for (auto& v : ra) v = value(rng);
  for (auto& v : sk) v = key(rng);
  for (auto& v : sb) v = value(rng);
  c.add("r", Table{{Column::ints("k", rk), Column::ints("a", ra)}});
  c.add("s", Table{{Column::ints("k", sk), Column::ints("b", sb)}});
  return c;
}

//! Queries over the raster operators: a filtered COUNT and SUM (occlusion counts, bit planes), an
//! ORDER BY (the sorting network), a join (a sort of the inner keys, probe counts), a median and
//! quantile (bitwise searches of occlusion counts) and a GROUP BY (blending into group targets,
//! MAX's high parts as a texture array).
const std::vector<std::string>& raster_fault_queries() {
  static const std::vector<std::string> q = {
      "SELECT COUNT(*), SUM(b) FROM t WHERE a < 0 AND x > 0.5",
      "SELECT a, b FROM t WHERE b > 0 ORDER BY b DESC LIMIT 40",
      "SELECT r.a, s.b FROM r JOIN s ON r.k = s.k WHERE r.a > 10",
      "SELECT MEDIAN(a), QUANTILE(y, 0.9) FROM t WHERE b < 500",
      "SELECT b, COUNT(*), SUM(a), MAX(x) FROM t WHERE y < 0.5 GROUP BY b ORDER BY b",
  };
  return q;
}

//! test::fault_sweep of `sql` on the raster backend (GL debug output checked empty).
template <class Inject>
void sweep(const std::string& sql, const Catalog& catalog, Inject inject, ErrorCode code, const char* words) {
  test::fault_sweep(sql, catalog, Backend::Raster, inject,
                    {.code = code, .words = words, .debug = true, .raster = kNoCalibration});
}

}  // namespace

TEST_CASE("raster-faults: every GL allocation of a raster query can fail: OutOfDeviceMemory naming the size") {
  const Catalog catalog = raster_fault_catalog();
  for (const std::string& sql : raster_fault_queries()) {
    sweep(
        sql, catalog, [](FaultInjection& f, uint64_t k) { f.fail_device_allocation = k; }, ErrorCode::OutOfDeviceMemory,
        "raster: out of GPU memory allocating ");
  }
}

TEST_CASE("raster-faults: the first allocation names its texture, its bytes and the injection") {
  const Catalog catalog = raster_fault_catalog();
  Engine engine({.debug = true, .faults = {.fail_device_allocation = 1}, .raster = kNoCalibration});
  // 2,000 rows in one tile 8192 texels wide: the first column is a 8192x1 R32UI texture.
  CHECK_ERROR(engine.execute_sql(raster_fault_queries()[0], catalog, Backend::Raster), ErrorCode::OutOfDeviceMemory,
              "raster: out of GPU memory allocating tile 0 of column 'a' (0 KiB of column textures held) (a 8192x1 "
              "R32UI texture) (32768 bytes): injected failure of GL allocation 1 (FaultInjection)");
}

TEST_CASE("raster-faults: every GPU wait of a raster query can time out: Timeout naming the wait") {
  const Catalog catalog = raster_fault_catalog();
  for (const std::string& sql : raster_fault_queries()) {
    sweep(
        sql, catalog, [](FaultInjection& f, uint64_t k) { f.time_out_gpu_wait = k; }, ErrorCode::Timeout,
        "did not finish within 60000 ms (injected: FaultInjection, wait ");
  }
}

TEST_CASE("raster-faults: a real GPU wait past gpu_timeout_ms = 0 is Timeout, and a new engine answers") {
  // 2^20 rows: the WHERE's passes take milliseconds even on a fast GPU, so the first wait (for the
  // occlusion counts) cannot find them done at once. (This needs a driver that draws after the
  // flush, as GPUs and llvmpipe's threads do; llvmpipe with LP_NUM_THREADS=0 draws inside it.)
  const Catalog catalog = test::catalog_of(test::random_table(1 << 20, Distribution::Uniform, 263));
  const auto before = test::snapshot(catalog);
  const std::string sql = "SELECT COUNT(*) FROM t WHERE a < 0 AND x > 0.5";
  {
    Engine engine({.debug = true, .gpu_timeout_ms = 0, .raster = kNoCalibration});
    CHECK_ERROR(engine.execute_sql(sql, catalog, Backend::Raster), ErrorCode::Timeout,
                "raster WHERE: occlusion counts: the GPU did not finish within 0 ms",
                "(EngineOptions::gpu_timeout_ms)");
    const auto messages = engine.take_debug_messages();
    CHECK_MESSAGE(messages.empty(), test::joined(messages));
  }  // the abandoned passes are still queued when the context is destroyed
  CHECK(test::snapshot(catalog) == before);
  Engine fresh({.debug = true, .raster = kNoCalibration});
  const Table want = Engine().execute_sql(sql, catalog, Backend::Cpu).table;
  CHECK(test::table_difference(want, fresh.execute_sql(sql, catalog, Backend::Raster).table) == "");
}
