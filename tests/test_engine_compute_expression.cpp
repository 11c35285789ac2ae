// Expressions of SQL plans on the compute backend (src/vk/engine/project_fragment.cpp,
// aggregate_fragment.cpp, group_by_fragment.cpp over src/vk/relational/expression.h): Projects of
// expressions, aggregates of expressions with and without GROUP BY, expression keys, over a table, a
// WHERE and a join's output; every result equals the CPU engine's exactly and the report shows the
// node ran on compute; errors carry the CPU engine's code and message; refusals name what is missing.
// Seeds are the loop counters, logged in each check.
#include <doctest/doctest.h>

#include <random>

#include "engine_compute_support.h"
#include "test_support.h"

namespace {

using namespace gfxq;
using test::check_sql;
using test::random_floats;
using test::random_ints;

Engine& engine() {
  return test::debug_engine();
}

// t(k, a, b, c, f, d) and u(k, x): a, b full-range or small INTs, c in [-3, 3], FLOAT f, DATE d.
Catalog tables(std::mt19937_64& rng, size_t rows, bool full_range) {
  const int32_t range = full_range ? 2000000000 : 100000;
  Catalog c;
  c.add(
      "t",
      Table{{Column::ints("k", random_ints(rng, rows, 0, 40)), Column::ints("a", random_ints(rng, rows, -range, range)),
             Column::ints("b", random_ints(rng, rows, -range, range)), Column::ints("c", random_ints(rng, rows, -3, 3)),
             Column::floats("f", random_floats(rng, rows, 1000, false)),
             Column::dates("d", random_ints(rng, rows, 8000, 11000))}});
  c.add("u", Table{{Column::ints("k", random_ints(rng, 60, 0, 50)), Column::ints("x", random_ints(rng, 60, -9, 9))}});
  return c;
}

void on_compute(const Result& r, const std::string& node) {
  const auto* n = test::plan_node(r, node);
  REQUIRE_MESSAGE(n, node << " not in the plan:\n" << r.report.text());
  CHECK_MESSAGE(n->backend == Backend::Compute, r.report.text());
}

// `sql` has FLOAT arithmetic: as on_compute(check_sql(...)) on a CPU Vulkan device; on a GPU the
// compute path refuses it, naming why (float32 denormals flushed to zero on the H200).
void check_float_sql(const std::string& sql, const Catalog& c, const std::string& what, const std::string& node) {
  if (engine().vk_capabilities().device_type != "cpu") {
    INFO(what << "\nsql: " << sql);
    CHECK_ERROR(engine().execute_sql(sql, c, Backend::Compute), ErrorCode::Unsupported, "FLOAT or DOUBLE");
    return;
  }
  on_compute(check_sql(engine(), sql, c, what), node);
}

// The compute backend raises the CPU engine's error for `sql`.
void same_error(const std::string& sql, const Catalog& c) {
  CAPTURE(sql);
  std::optional<Error> want, got;
  try {
    engine().execute_sql(sql, c, Backend::Cpu);
  } catch (const Error& e) {
    want = e;
  }
  try {
    engine().execute_sql(sql, c, Backend::Compute);
  } catch (const Error& e) {
    got = e;
  }
  REQUIRE(want);
  REQUIRE(got);
  CHECK(want->code() == got->code());
  CHECK(std::string(want->what()) == std::string(got->what()));
}

}  // namespace

TEST_CASE("engine-compute-expression: projects and aggregates of expressions equal the CPU engine's") {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed);
    const size_t rows = std::uniform_int_distribution<size_t>(1, 6000)(rng);
    const Catalog c = tables(rng, rows, false);
    const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(rows) + " rows";
    on_compute(
        check_sql(engine(), "SELECT a * b, a - b * c, a / (c + 10), -a, d + 7, d - d, EXTRACT(YEAR FROM d), k FROM t",
                  c, what),
        "Project");
    check_float_sql("SELECT a * b, f * 2 + a, k FROM t", c, what + ", FLOAT", "Project");
    check_float_sql("SELECT a * b AS p, f * 0.5 FROM t WHERE a > 0 AND c <> 1", c, what + ", WHERE", "Project");
    check_float_sql(
        "SELECT SUM(a * b), MIN(a - b), MAX(a * c), AVG(a + b), COUNT(f * 2) FROM t "
        "WHERE c BETWEEN -1 AND 2",
        c, what + ", aggregates", "Aggregate");
    on_compute(check_sql(engine(), "SELECT SUM(t.a * u.x) AS revenue FROM t, u WHERE t.k = u.k", c, what + ", join"),
               "Aggregate");
    on_compute(
        check_sql(engine(), "SELECT k, SUM(a - b), AVG(a - b), COUNT(a * b), MIN(a) FROM t GROUP BY k ORDER BY k", c,
                  what + ", GROUP BY"),
        "Aggregate");
    check_float_sql("SELECT k, MIN(d + 3), MAX(f * 2), SUM(f - 1), AVG(EXTRACT(MONTH FROM d)) FROM t GROUP BY k", c,
                    what + ", GROUP BY of 32-bit expressions", "Aggregate");
    on_compute(check_sql(engine(), "SELECT EXTRACT(YEAR FROM d), SUM(a), COUNT(*) FROM t GROUP BY EXTRACT(YEAR FROM d)",
                         c, what + ", expression key"),
               "Aggregate");
    on_compute(check_sql(engine(), "SELECT u.x, SUM(t.a - t.b) FROM t, u WHERE t.k = u.k GROUP BY u.x ORDER BY u.x", c,
                         what + ", GROUP BY over a join"),
               "Aggregate");
  }
}

TEST_CASE("engine-compute-expression: full-range values, empty inputs, one row") {
  std::mt19937_64 rng(11);
  const Catalog c = tables(rng, 4099, true);
  check_sql(engine(), "SELECT a * b, a + b, a - b FROM t", c, "full range products");
  check_sql(engine(), "SELECT SUM(a * c), MIN(a * b), MAX(a * b), AVG(a * b) FROM t", c, "full range aggregates");
  check_sql(engine(), "SELECT k, SUM(a * c), AVG(a * b) FROM t GROUP BY k", c, "full range group sums");
  check_sql(engine(), "SELECT SUM(a * b), COUNT(*) FROM t WHERE a > 2000000000 AND b < -2000000000", c, "no row");
  check_sql(engine(), "SELECT k, SUM(a * b) FROM t WHERE a > 2000000000 AND b < -2000000000 GROUP BY k", c, "no group");
  Catalog one;
  one.add("t", Table{{Column::ints("a", {-7}), Column::ints("b", {2})}});
  check_sql(engine(), "SELECT a / b, a * b, -a FROM t", one, "one row");
  check_sql(engine(), "SELECT SUM(a * b), AVG(a / b), MIN(a - b) FROM t", one, "one row, aggregates");
  Catalog empty;
  empty.add("t", Table{{Column::ints("k", {}), Column::ints("a", {}), Column::ints("b", {})}});
  check_sql(engine(), "SELECT a * b FROM t", empty, "empty table");
  check_sql(engine(), "SELECT SUM(a * b), COUNT(a - b), MAX(a + 1) FROM t", empty, "empty table, aggregates");
  check_sql(engine(), "SELECT k, SUM(a * b) FROM t GROUP BY k", empty, "empty table, GROUP BY");
}

TEST_CASE("engine-compute-expression: errors are the CPU engine's, and the next query works") {
  std::mt19937_64 rng(12);
  const Catalog c = tables(rng, 3000, true);
  same_error("SELECT a * b * a FROM t", c);
  same_error("SELECT a / (c - c) FROM t", c);
  same_error("SELECT SUM(a * b * 4) FROM t", c);
  same_error("SELECT SUM(a * b + 4000000000000000000) FROM t", c);  // each value fits, their sum does not
  same_error("SELECT k, SUM(a * b + 4000000000000000000) FROM t GROUP BY k", c);
  same_error("SELECT SUM(a * 4611686018427387904) FROM t", c);
  same_error("SELECT k, SUM(a * 2147483647 * 2147483647 * 2) FROM t GROUP BY k", c);
  same_error("SELECT k, SUM(a / c), SUM(a * b * a) FROM t GROUP BY k", c);
  same_error("SELECT d + a * 2 FROM t", c);
  check_sql(engine(), "SELECT a - b FROM t", c, "after the errors");
}

TEST_CASE("engine-compute-expression: what the compute expressions refuse is named") {
  std::mt19937_64 rng(13);
  Catalog c = tables(rng, 300, false);
  Table t = c.get("t");
  Column n = Column::ints("n", random_ints(rng, 300, 0, 5));
  n.nulls.assign(300, 0);
  n.nulls[7] = 1;
  t.columns.push_back(n);
  c.add("t", t);
  auto refused = [&](const std::string& sql, const std::string& part) {
    CAPTURE(sql);
    try {
      engine().execute_sql(sql, c, Backend::Compute);
      FAIL("expected Unsupported");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Unsupported);
      CHECK_MESSAGE(std::string(e.what()).find(part) != std::string::npos, e.what());
    }
  };
  refused("SELECT f / 2 FROM t", "correctly rounded division");
  refused("SELECT n + 1 FROM t", "may be NULL");
  refused("SELECT SUM(f * 2) FROM t WHERE a > 0", "reduce INT, BIGINT and DATE values");
  refused("SELECT CASE WHEN a > 0 THEN 1 ELSE 2 END FROM t", "condition or CASE");
  refused("SELECT k + 1, COUNT(*) FROM t GROUP BY k + 1", "bigint expression");
  refused("SELECT k, MIN(a * b) FROM t GROUP BY k", "ranks 32-bit");
  refused("SELECT k, SUM(a * b), SUM(a - b), SUM(c) FROM t GROUP BY k", "value columns");
  CHECK(engine().take_debug_messages().empty());
}

TEST_CASE("engine-compute-expression: a STRING literal item carries its dictionary") {
  // Found by the analytic fuzzer (seed 1): `SELECT 'A' FROM v` on compute gave code 0 of an empty
  // dictionary (a malformed column: reading it crashed the comparison).
  Catalog c;
  c.add("v", Table{{Column::ints("k", {1, 2, 3})}});
  const Result r = test::check_sql(test::debug_engine(), "SELECT 'A', k * 2 AS twice FROM v", c, "a literal");
  REQUIRE(r.table.columns.size() == 2);
  REQUIRE(r.table.columns[0].dictionary);
  CHECK(r.table.columns[0].string_at(2) == "A");
}
