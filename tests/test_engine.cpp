// The Engine: backend choice, the report, errors that leave the engine usable.
#include <doctest/doctest.h>

#include <algorithm>

#include "gfxq/gfxq.h"
#include "gpu_support.h"
#include "random_queries.h"

namespace {

gfxq::Catalog small_catalog() {
  gfxq::Catalog c;
  c.add("t", gfxq::Table{
                 {gfxq::Column::ints("a", {5, 1, 4, 1, 3}), gfxq::Column::floats("x", {0.5f, 1.5f, -2.f, 0.f, 8.f})}});
  return c;
}

}  // namespace

TEST_CASE("engine: auto picks compute on a GPU, the CPU engine otherwise, and the report says why") {
  gfxq::Engine engine;
  const bool gpu = engine.vk_capabilities().available && engine.vk_capabilities().device_type != "cpu";
  auto r = engine.execute_sql("SELECT COUNT(*) FROM t WHERE a > 1", small_catalog());
  CHECK(r.report.backend == (gpu ? gfxq::Backend::Compute : gfxq::Backend::Cpu));
  CHECK(r.report.reason.find("auto") != std::string::npos);
  CHECK(r.table.columns.at(0).as<int64_t>().at(0) == 3);
  CHECK(!r.report.passes.empty());
  // GROUP BY runs on the compute backend on a GPU too.
  r = engine.execute_sql("SELECT a, COUNT(*) FROM t GROUP BY a", small_catalog());
  CHECK(r.report.backend == (gpu ? gfxq::Backend::Compute : gfxq::Backend::Cpu));
  CHECK(r.report.reason.find(gpu ? "compute" : "CPU implementation") != std::string::npos);
  // An expression key is not: the CPU engine runs that GROUP BY, and the reason names it on a GPU.
  r = engine.execute_sql("SELECT a + 1, COUNT(*) FROM t GROUP BY a + 1", small_catalog());
  const auto aggregate = std::find_if(r.report.plan.begin(), r.report.plan.end(),
                                      [](const gfxq::PlanNodeReport& n) { return n.node.rfind("Aggregate", 0) == 0; });
  REQUIRE(aggregate != r.report.plan.end());
  CHECK(aggregate->backend == gfxq::Backend::Cpu);
  CHECK(aggregate->reason.find(gpu ? "GROUP BY" : "CPU implementation") != std::string::npos);
}

TEST_CASE("engine: GPU backends without the operator say Unsupported and name it, and never a silent fallback") {
  gfxq::Engine engine;
  const auto catalog = small_catalog();
  for (auto b : {gfxq::Backend::Raster, gfxq::Backend::Compute}) {
    CAPTURE(gfxq::to_string(b));
    try {
      // Raster has no MEDIAN per group; compute has, but groups by columns only.
      engine.execute_sql(b == gfxq::Backend::Raster ? "SELECT a, MEDIAN(a) FROM t GROUP BY a"
                                                    : "SELECT a + 1, MEDIAN(a) FROM t GROUP BY a + 1",
                         catalog, b);
      FAIL("expected Unsupported");
    } catch (const gfxq::Error& e) {
      CHECK(e.code() == gfxq::ErrorCode::Unsupported);
      CHECK(std::string(e.what()).find(gfxq::to_string(b)) != std::string::npos);
      CHECK(std::string(e.what()).find("GROUP BY") != std::string::npos);
    }
  }
}

TEST_CASE("engine: after an error the next query works and the inputs are untouched") {
  gfxq::Engine engine;
  const auto catalog = small_catalog();
  const auto before = catalog.get("t").column("a").as<int32_t>();
  CHECK_THROWS_AS(engine.execute_sql("SELECT nope FROM t", catalog), gfxq::Error);
  CHECK_THROWS_AS(engine.execute_sql("SELECT KTH_LARGEST(a, 0) FROM t", catalog), gfxq::Error);
  auto r = engine.execute_sql("SELECT MAX(a) FROM t", catalog);
  CHECK(r.table.columns.at(0).as<int32_t>().at(0) == 5);
  CHECK(catalog.get("t").column("a").as<int32_t>() == before);
}

TEST_CASE("engine: backend names parse and print") {
  for (auto b : {gfxq::Backend::Cpu, gfxq::Backend::Raster, gfxq::Backend::Compute, gfxq::Backend::Auto})
    CHECK(gfxq::parse_backend(gfxq::to_string(b)) == b);
  CHECK_THROWS_WITH_AS(gfxq::parse_backend("gpu"), doctest::Contains("cpu, raster, compute, auto"), gfxq::Error);
}

TEST_CASE("engine: with debug on, both GPU backends answer like the CPU and record no debug messages") {
  gfxq::Engine engine({.debug = gfxq::test::vk_validation_wanted()});
  const auto catalog = small_catalog();
  for (const char* sql :
       {"SELECT COUNT(*) FROM t WHERE a > 1 AND x <= 1.5", "SELECT * FROM t WHERE a BETWEEN 1 AND 4"}) {
    CAPTURE(sql);
    const auto want = engine.execute_sql(sql, catalog, gfxq::Backend::Cpu);
    for (auto b : {gfxq::Backend::Raster, gfxq::Backend::Compute}) {
      const auto got = engine.execute_sql(sql, catalog, b);
      CHECK(got.report.backend == b);
      CHECK(gfxq::test::table_difference(want.table, got.table) == "");
    }
  }
  const auto messages = engine.take_debug_messages();
  CHECK_MESSAGE(messages.empty(), gfxq::test::joined(messages));
}

TEST_CASE("engine: filtered tables join first, SELECT * keeps FROM order, answers stay the CPU's") {
  gfxq::Catalog c;
  c.add("f", gfxq::Table{{gfxq::Column::ints("k1", {1, 2, 3, 1}), gfxq::Column::ints("k2", {5, 6, 5, 6})}});
  c.add("d1", gfxq::Table{{gfxq::Column::ints("a", {1, 2, 3}), gfxq::Column::ints("x", {10, 20, 30})}});
  c.add("d2", gfxq::Table{{gfxq::Column::ints("b", {5, 6}), gfxq::Column::ints("y", {0, 1})}});
  gfxq::Engine engine;
  const std::string sql = "SELECT * FROM f, d1, d2 WHERE f.k1 = d1.a AND f.k2 = d2.b AND d2.y = 1";
  // The plan joins d2 (it has a condition of its own) before d1.
  const gfxq::ExecutionReport plan = engine.explain_sql(sql, c, gfxq::Backend::Cpu);
  std::vector<std::string> joins;
  for (const auto& n : plan.plan)
    if (n.node.rfind("Join", 0) == 0) joins.push_back(n.node);
  REQUIRE(joins.size() == 2);
  CHECK(joins[0].find("d1") != std::string::npos);  // the upper join adds d1
  CHECK(joins[1].find("d2") != std::string::npos);  // the lower one d2
  const gfxq::Result r = engine.execute_sql(sql, c, gfxq::Backend::Cpu);
  std::vector<std::string> names;
  for (const auto& col : r.table.columns) names.push_back(col.name);
  CHECK(names == std::vector<std::string>{"f.k1", "f.k2", "d1.a", "d1.x", "d2.b", "d2.y"});
  REQUIRE(r.table.rows() == 2);
  CHECK(r.table.columns[0].as<int32_t>() == std::vector<int32_t>{2, 1});  // f rows 1 and 3 (k2 = 6)
  CHECK(r.table.columns[3].as<int32_t>() == std::vector<int32_t>{20, 10});
}
