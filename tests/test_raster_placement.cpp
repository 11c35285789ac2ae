// Auto placement by cost (src/engine/placement.h): decisions from injected cost tables (fixed figures,
// no timing), so they are the same on every machine; answers equal the CPU engine's whichever backend
// is chosen. The default table on this machine (llvmpipe, lavapipe) has no GPU candidate.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>

#include "engine/executor.h"
#include "engine/placement.h"
#include "gfxq/cpu.h"
#include "gfxq/gfxq.h"
#include "gfxq/placement.h"
#include "gfxq/sql.h"
#include "gl/calibration.h"
#include "gl/cost.h"
#include "gpu_support.h"
#include "plan/binder.h"
#include "random_queries.h"
#include "sql/parse_statement.h"
#include "test_support.h"

using namespace gfxq;

namespace {

// The process-wide backends of these tests (GL debug output and Vulkan validation on).
engine::Backends& backends() {
  return test::process_wide<engine::Backends>([] {
    EngineOptions options;
    options.debug = test::vk_validation_wanted();
    return std::make_unique<engine::Backends>(options);
  });
}

// A raster calibration scaled by `speed` (1: 10 G fragments/s fill, 20 us per pass).
gl::RasterCalibration raster_figures(double speed) {
  gl::RasterCalibration c;
  c.device = "test device";
  c.vertex_depth_exact = c.clear_depth_exact = true;
  c.fill_rate = 10e9 * speed;
  c.value_rate = 5e9 * speed;
  c.point_rate = 2e9 * speed;
  c.pass_overhead_s = 20e-6 / speed;
  c.readback_bytes_per_s = 10e9 * speed;
  c.query_s = 1e-3 / speed;
  return c;
}

engine::CpuFigures cpu_figures(double speed) {
  return {.values_per_s = 1e8 * speed,
          .hash_rows_per_s = 1e7 * speed,
          .sort_steps_per_s = 5e7 * speed,
          .source = "test figures"};
}

// A table of the raster and CPU models (no compute candidate): raster `raster_speed`, CPU `cpu_speed`.
engine::CostTable table(double raster_speed, double cpu_speed) {
  engine::CostTable t;
  t.cpu = std::make_shared<engine::CpuCostModel>(cpu_figures(cpu_speed));
  t.raster = std::make_shared<gl::RasterCostModel>(raster_figures(raster_speed));
  t.compute_absent = "not in this test's cost table";
  return t;
}

Catalog tables_of(uint64_t seed, uint64_t rows) {
  Catalog c;
  c.add("t", generate_table({{"k", Type::Int32, Distribution::Uniform, -1000, 1000},
                             {"v", Type::Int32, Distribution::Uniform, -50000, 50000},
                             {"f", Type::Float32, Distribution::Uniform, -1, 1},
                             {"g", Type::Int32, Distribution::Uniform, 0, 40}},
                            rows, seed));
  c.add("s", generate_table({{"k", Type::Int32, Distribution::Uniform, -1000, 1000},
                             {"w", Type::Int32, Distribution::Uniform, 0, 100}},
                            rows / 10 + 1, seed + 1));
  return c;
}

struct Run {
  Result result;
  std::unique_ptr<plan::Node> root;  // the report's nodes name it
};

Run run(const std::string& sql, const Catalog& catalog, Backend backend) {
  Run r;
  r.root = plan::bind(sql::parse_statement(sql).query, catalog);
  r.result = engine::execute_plan(*r.root, catalog, backend, backends());
  return r;
}

ExecutionReport explain(const std::string& sql, const Catalog& catalog, Backend backend) {
  const auto root = plan::bind(sql::parse_statement(sql).query, catalog);
  return engine::explain_plan(*root, catalog, backend, backends());
}

const PlanNodeReport* node(const ExecutionReport& report, const std::string& prefix) {
  const auto it = std::find_if(report.plan.begin(), report.plan.end(),
                               [&](const PlanNodeReport& n) { return n.node.rfind(prefix, 0) == 0; });
  return it == report.plan.end() ? nullptr : &*it;
}

void check_no_messages() {
  const auto messages = backends().take_debug_messages();
  CHECK_MESSAGE(messages.empty(), test::joined(messages));
}

// The queries of the differential runs: every raster operator family the engine places.
const char* const kQueries[] = {
    "SELECT COUNT(*) FROM t WHERE k < 300",
    "SELECT COUNT(*) FROM t WHERE (k < -200 OR v >= 1000) AND f < 0.25",
    "SELECT SUM(v), MIN(k), MAX(f) FROM t WHERE k >= 100",
    "SELECT g, COUNT(*), SUM(v), MIN(k), MAX(v) FROM t WHERE k < 500 GROUP BY g",
    "SELECT g, AVG(f) FROM t GROUP BY g ORDER BY g DESC",
    "SELECT k, v FROM t WHERE k < -900 ORDER BY v DESC LIMIT 7",
    "SELECT COUNT(*) FROM t JOIN s ON t.k = s.k WHERE t.v < 0",
};

}  // namespace

TEST_CASE(
    "raster-placement: with raster predicted cheapest, auto places every raster fragment there and answers equal the "
    "CPU's") {
  backends().set_costs(table(1e3, 1e-3));
  for (uint64_t seed : {11u, 12u, 13u}) {
    const Catalog catalog = tables_of(seed, 3000 + seed * 37);
    for (const char* sql : kQueries) {
      INFO("seed " << seed << ": " << sql);
      const Run got = run(sql, catalog, Backend::Auto);
      const Run want = run(sql, catalog, Backend::Cpu);
      CHECK(test::table_difference(want.result.table, got.result.table) == "");
      const PlanNodeReport& root = got.result.report.plan.front();
      INFO(got.result.report.text());
      CHECK(root.backend == Backend::Raster);
      CHECK(root.reason.find("auto: raster predicted cheapest (raster ") != std::string::npos);
      CHECK(root.reason.find("cpu ") != std::string::npos);
      CHECK(root.reason.find("compute: not in this test's cost table") != std::string::npos);
      CHECK(root.reason.find("; this fragment ") != std::string::npos);
      // The report prints the reason, with the estimates, beside the node's measured times.
      CHECK(got.result.report.text().find(" ms; auto: raster predicted cheapest") != std::string::npos);
      // Forced backends are placed as before: reason "requested", no estimate.
      CHECK(want.result.report.plan.front().reason == "requested");
    }
  }
  check_no_messages();
}

TEST_CASE("raster-placement: random CNF queries placed on raster by auto equal the CPU engine's") {
  backends().set_costs(table(1e3, 1e-3));
  for (uint64_t seed = 101; seed <= 108; ++seed) {
    std::mt19937_64 rng(seed);
    const Table t =
        test::random_table(300 + seed * 97 % 900, seed % 2 ? Distribution::Uniform : Distribution::Skewed, seed);
    const Catalog catalog = test::catalog_of(t);
    const Cnf where = test::random_cnf(t, rng, 3, 3);
    std::vector<Query> queries(4);
    queries[0].items = {test::agg(AggKind::Count)};
    queries[1].items = {test::agg(AggKind::Sum, "b"), test::agg(AggKind::Min, "x"), test::agg(AggKind::Max, "a")};
    queries[2].items = {test::col("b"), test::agg(AggKind::Count), test::agg(AggKind::Sum, "a"),
                        test::agg(AggKind::Max, "y")};
    queries[2].group_by = test::col("b");
    queries[3].items = {test::col("a"), test::col("x")};
    queries[3].order_by = OrderBy{test::col("x"), true};
    queries[3].limit = 20;
    for (Query& q : queries) {
      q.table = "t";
      q.where = where;
      INFO("seed " << seed << ": " << q.text());
      const auto root = plan::bind(plan::to_ast(q), catalog);
      const Result got = engine::execute_plan(*root, catalog, Backend::Auto, backends());
      const Result want = engine::execute_plan(*root, catalog, Backend::Cpu, backends());
      CHECK(test::table_difference(want.table, got.table) == "");
      INFO(got.report.text());
      CHECK(got.report.plan.front().backend == Backend::Raster);
    }
  }
  check_no_messages();
}

TEST_CASE("raster-placement: decisions follow the injected figures and are the same every time") {
  const Catalog catalog = tables_of(21, 4000);
  const std::string sql = "SELECT g, COUNT(*), SUM(v) FROM t WHERE k < 500 GROUP BY g";
  backends().set_costs(table(1e-3, 1e3));  // a slow raster device, a fast host
  const ExecutionReport slow = explain(sql, catalog, Backend::Auto);
  for (const auto& n : slow.plan) {
    INFO(n.node << ": " << n.reason);
    CHECK(n.backend == Backend::Cpu);
  }
  CHECK(slow.plan.front().reason.find("auto: cpu predicted cheapest") != std::string::npos);
  CHECK(slow.plan.front().reason.find("raster ") != std::string::npos);
  backends().set_costs(table(1e3, 1e-3));
  const ExecutionReport fast = explain(sql, catalog, Backend::Auto);
  const ExecutionReport again = explain(sql, catalog, Backend::Auto);
  REQUIRE(fast.plan.size() == again.plan.size());
  for (size_t i = 0; i < fast.plan.size(); ++i) {
    CHECK(fast.plan[i].backend == again.plan[i].backend);
    CHECK(fast.plan[i].reason == again.plan[i].reason);
  }
  const PlanNodeReport* agg = node(fast, "Aggregate");
  REQUIRE(agg);
  CHECK(agg->backend == Backend::Raster);
  CHECK(agg->algorithm.find("fused into") != std::string::npos);  // the raster fragment is rooted above it
  // Equal figures on both sides: the tie goes to raster before the CPU (compute, raster, CPU).
  engine::CostTable tie;
  struct Flat final : gl::CostModel {
    gl::CostEstimate estimate(const gl::PlanNodeShape&) const override { return {.seconds = 1e-3}; }
    std::string figures() const override { return "1 ms per fragment"; }
  };
  tie.cpu = tie.raster = std::make_shared<Flat>();
  tie.compute_absent = "none";
  backends().set_costs(tie);
  const ExecutionReport tied = explain("SELECT COUNT(*) FROM t WHERE k < 3", catalog, Backend::Auto);
  CHECK(tied.plan.front().backend == Backend::Raster);
  check_no_messages();
}

TEST_CASE("raster-placement: a node raster cannot claim goes to the CPU, the reason says why") {
  backends().set_costs(table(1e3, 1e-3));
  const Catalog catalog = tables_of(31, 2000);
  const std::string sql = "SELECT g, MEDIAN(v) FROM t WHERE k < 0 GROUP BY g";
  const Run got = run(sql, catalog, Backend::Auto);
  const Run want = run(sql, catalog, Backend::Cpu);
  CHECK(test::table_difference(want.result.table, got.result.table) == "");
  const PlanNodeReport* agg = node(got.result.report, "Aggregate");
  REQUIRE(agg);
  INFO(got.result.report.text());
  CHECK(agg->backend == Backend::Cpu);
  CHECK(agg->reason.find("raster cannot: ") != std::string::npos);
  // The root (the select list over the aggregate) is the fragment whose claim names the operator.
  CHECK(got.result.report.plan.front().backend == Backend::Cpu);
  CHECK(got.result.report.plan.front().reason.find("raster cannot: raster backend cannot run MEDIAN(v) per group") !=
        std::string::npos);
  // Its input, a Filter over the Scan, is a fragment raster claims, and is cheaper there.
  const PlanNodeReport* filter = node(got.result.report, "Filter");
  REQUIRE(filter);
  CHECK(filter->backend == Backend::Raster);
  check_no_messages();
}

TEST_CASE("raster-placement: with compute predicted cheapest, auto places compute (here lavapipe) and answers equal") {
  engine::CostTable t = table(1, 1e-3);
  t.compute = std::make_shared<engine::ComputeCostModel>(
      engine::ComputeFigures{.bytes_per_s = 1e15, .dispatch_s = 0, .submit_s = 0, .source = "test figures"});
  backends().set_costs(t);
  const Catalog catalog = tables_of(41, 3000);
  for (const char* sql : {"SELECT COUNT(*) FROM t WHERE k < 300", "SELECT g, COUNT(*), SUM(v) FROM t GROUP BY g"}) {
    INFO(sql);
    const Run got = run(sql, catalog, Backend::Auto);
    const Run want = run(sql, catalog, Backend::Cpu);
    CHECK(test::table_difference(want.result.table, got.result.table) == "");
    INFO(got.result.report.text());
    CHECK(got.result.report.plan.front().backend == Backend::Compute);
    CHECK(got.result.report.plan.front().reason.find("auto: compute predicted cheapest") != std::string::npos);
  }
  check_no_messages();
}

TEST_CASE("raster-placement: the raster backend claims GROUP BY nodes of engine plans") {
  const Catalog catalog = tables_of(51, 1000);
  const ExecutionReport r =
      explain("SELECT g, COUNT(*), MAX(f) FROM t WHERE v > 0 GROUP BY g", catalog, Backend::Raster);
  const PlanNodeReport* agg = node(r, "Aggregate");
  REQUIRE(agg);
  CHECK(agg->backend == Backend::Raster);
  CHECK(agg->reason == "requested");
}

TEST_CASE("raster-placement: fragment shapes from plans (kinds, rows, comparisons, parts, groups)") {
  const Catalog catalog = tables_of(61, 5000);
  const auto shape = [&](const std::string& sql) {
    const auto root = plan::bind(sql::parse_statement(sql).query, catalog);
    std::string why;
    const auto f = backends().get(Backend::Raster).claim(*root, catalog, why);
    REQUIRE_MESSAGE(f, why);
    return engine::fragment_shape(*f, catalog);
  };
  using Kind = gl::PlanNodeShape::Kind;
  const uint64_t rows = catalog.get("t").rows();
  const auto count = shape("SELECT COUNT(*) FROM t WHERE k < 3 AND (v > 0 OR f < 0.5)");
  CHECK(count.kind == Kind::Aggregate);
  CHECK(count.rows == rows);
  CHECK(count.comparisons == 3);
  CHECK(count.clauses == 2);
  CHECK(count.parts == 2);  // f: FLOAT keys of both signs span more than 2^24
  const auto window = shape("SELECT k FROM t WHERE k < 3");
  CHECK(window.kind == Kind::Filter);
  CHECK(window.parts == 1);  // k spans 2001 keys
  CHECK(window.row_ids);
  const auto group = shape("SELECT g, COUNT(*), SUM(v), MIN(k) FROM t GROUP BY g");
  CHECK(group.kind == Kind::GroupBy);
  CHECK(group.groups == 41);
  CHECK_FALSE(group.rank_ids);
  CHECK(group.sums == 1);
  CHECK(group.searches == 1);
  CHECK(group.sum_planes == 17);  // v spans 100,001 values: 17 planes of value - min
  const auto sort = shape("SELECT k FROM t ORDER BY v");
  CHECK(sort.kind == Kind::Sort);
  CHECK(sort.rows == rows);
  // A filter's selectivity comes from a sample of at most 4096 rows: here every 2nd row.
  const Result selected = cpu::execute(sql::parse("SELECT COUNT(*) FROM t WHERE k < -500"), catalog);
  const auto filtered = shape("SELECT k FROM t WHERE k < -500 ORDER BY v");
  CHECK(filtered.kind == Kind::Sort);
  CHECK(double(filtered.rows) ==
        doctest::Approx(double(std::get<int64_t>(selected.table.columns[0].value(0)))).epsilon(0.1));
  // A fused aggregate reads every row of its table (its WHERE runs over all of them).
  const auto fused = shape("SELECT g, COUNT(*) FROM t WHERE k < -500 GROUP BY g");
  CHECK(fused.rows == rows);
  const auto join = shape("SELECT COUNT(*) FROM t JOIN s ON t.k = s.k");
  CHECK(join.kind == Kind::Join);
  CHECK(join.rows == rows);
  CHECK(join.inner_rows == catalog.get("s").rows());
}

TEST_CASE("raster-placement: the default table here has no GPU candidate, and says why") {
  engine::Backends fresh(EngineOptions{});
  const engine::CostTable& t = fresh.costs();
  REQUIRE(t.cpu);
  const GlCapabilities& gl = engine::raster_capabilities(fresh.get(Backend::Raster));
  if (gl.renderer.find("llvmpipe") != std::string::npos) {
    CHECK_FALSE(t.raster);
    CHECK(t.raster_absent.find("CPU implementation") != std::string::npos);
  }
  const std::string text = t.text();
  CHECK(text.find("raster: ") != std::string::npos);
  CHECK(text.find("cpu: ") != std::string::npos);
  // `gfxq info` prints the calibration and the table.
  const std::string figures = placement_figures();
  CHECK(figures.find("raster calibration") != std::string::npos);
  CHECK(figures.find("placement cost models") != std::string::npos);
}
