// Expressions of SQL plans on the compute backend (src/vk/engine/project_fragment.cpp,
// aggregate_fragment.cpp, group_by_fragment.cpp over src/vk/relational/expression.h): Projects of
// expressions, aggregates of expressions with and without GROUP BY, expression keys, over a table, a
// WHERE and a join's output; every result equals the CPU engine's exactly and the report shows the
// node ran on compute; errors carry the CPU engine's code and message; refusals name what is missing.
// Seeds are the loop counters, logged in each check.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
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
    on_compute(check_sql(engine(), "SELECT a * b, f * 2 + a, k FROM t", c, what + ", FLOAT"), "Project");
    on_compute(check_sql(engine(), "SELECT a * b AS p, f * 0.5 FROM t WHERE a > 0 AND c <> 1", c, what + ", WHERE"),
               "Project");
    on_compute(check_sql(engine(),
                         "SELECT SUM(a * b), MIN(a - b), MAX(a * c), AVG(a + b), COUNT(f * 2) FROM t "
                         "WHERE c BETWEEN -1 AND 2",
                         c, what + ", aggregates"),
               "Aggregate");
    on_compute(check_sql(engine(), "SELECT SUM(t.a * u.x) AS revenue FROM t, u WHERE t.k = u.k", c, what + ", join"),
               "Aggregate");
    on_compute(
        check_sql(engine(), "SELECT k, SUM(a - b), AVG(a - b), COUNT(a * b), MIN(a) FROM t GROUP BY k ORDER BY k", c,
                  what + ", GROUP BY"),
        "Aggregate");
    on_compute(check_sql(engine(),
                         "SELECT k, MIN(d + 3), MAX(f * 2), SUM(f - 1), AVG(EXTRACT(MONTH FROM d)) FROM t GROUP BY k",
                         c, what + ", GROUP BY of 32-bit expressions"),
               "Aggregate");
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

TEST_CASE("engine-compute-expression: FLOAT edge values run on compute on every device, bit for bit") {
  // Denormals, -0.0, FLT_MAX, infinities, products, quotients and differences that fall among the
  // denormals or overflow, inf - inf, 0 * inf, x / 0, 0 / 0 and inf / inf, BIGINT values past 2^53
  // rounded to FLOAT, DOUBLE denormals: the kernels compute on the bits with integer operations (float
  // instructions only where exact), so every device gives the CPU engine's bits (results compare
  // bits, NaNs included). No NaN in the columns: which of two NaN operands x86 returns depends on the
  // C++ compiler's operand order.
  const float den = std::numeric_limits<float>::denorm_min(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> pool{0.0f,
                                -0.0f,
                                den,
                                -den,
                                3 * den,
                                std::bit_cast<float>(0x007FFFFFu),
                                std::numeric_limits<float>::min(),
                                std::numeric_limits<float>::max(),
                                -std::numeric_limits<float>::max(),
                                inf,
                                -inf,
                                std::ldexp(1.0f, -75),
                                std::ldexp(1.5f, -75),
                                1.0f,
                                0.1f};
  for (uint64_t seed = 21; seed <= 22; ++seed) {
    std::mt19937_64 rng(seed);
    const size_t rows = 5000;
    auto edge = [&]() {
      if (rng() % 3 == 0) return pool[rng() % pool.size()];
      // A random sign and fraction with an exponent among the denormals, where products fall among
      // them (2^-90 .. 2^-41), near 1, or where products overflow (2^60 ..).
      const uint32_t kind = uint32_t(rng() % 4);
      const uint32_t exponent = kind == 0   ? 0
                                : kind == 1 ? 37 + rng() % 50
                                : kind == 2 ? 120 + rng() % 15
                                            : 187 + rng() % 20;
      return std::bit_cast<float>(uint32_t(rng() & 0x807FFFFFu) | (exponent << 23));
    };
    std::vector<float> f(rows), g(rows);
    for (size_t r = 0; r < rows; ++r) {
      f[r] = edge();
      // -f or a neighbour of it nearer zero: a difference that cancels into the denormals or to zero.
      uint32_t near = std::bit_cast<uint32_t>(-f[r]);
      const auto step = uint32_t(rng() % 3);
      if ((near & 0x7FFFFFFFu) >= step) near -= step;
      g[r] = rng() % 3 == 0 ? std::bit_cast<float>(near) : edge();
    }
    Catalog c;
    c.add("e", Table{{Column::ints("k", random_ints(rng, rows, 0, 20)),
                      Column::ints("a", random_ints(rng, rows, -2000000000, 2000000000)),
                      Column::ints("b", random_ints(rng, rows, -2000000000, 2000000000)), Column::floats("f", f),
                      Column::floats("g", g)}});
    const std::string what = "seed " + std::to_string(seed);
    on_compute(check_sql(engine(), "SELECT f * g, f + g, f - g, -f, f - f, f * 2 FROM e", c, what), "Project");
    on_compute(check_sql(engine(), "SELECT a * b + f, f * g + a, f * 1e-300, f * 0.5 + g FROM e WHERE a > 0", c, what),
               "Project");
    // Division: quotients among the denormals and past FLT_MAX, x / 0 = +-inf, 0 / 0 and inf / inf NaN.
    on_compute(check_sql(engine(), "SELECT f / g, g / f, f / 3, 1 / f, f / (g - g), a / f, f / 1e-300 FROM e", c, what),
               "Project");
    on_compute(check_sql(engine(), "SELECT (f * g) / (f + g), f / a / b, f * 0.1 / g FROM e WHERE a > 0", c, what),
               "Project");
    on_compute(check_sql(engine(), "SELECT k, MIN(f / g), MAX(g / f), COUNT(f / g) FROM e GROUP BY k", c, what),
               "Aggregate");
    on_compute(check_sql(engine(), "SELECT k, SUM(f / 2), AVG(a / f) FROM e WHERE a > 0 GROUP BY k", c, what),
               "Aggregate");
    on_compute(check_sql(engine(), "SELECT k, MIN(f * g), MAX(f - g), COUNT(f + g) FROM e GROUP BY k", c, what),
               "Aggregate");
    // Without GROUP BY: SUM and AVG exact (one group of the GROUP BY operator), MIN and MAX canonical.
    on_compute(check_sql(engine(), "SELECT SUM(f * g), AVG(f + g), MIN(f * 2), MAX(f - g), COUNT(*) FROM e", c, what),
               "Aggregate");
    on_compute(check_sql(engine(), "SELECT SUM(f * 2), SUM(g), AVG(g - f) FROM e WHERE a > 0 AND k < 5", c, what),
               "Aggregate");
    on_compute(check_sql(engine(), "SELECT SUM(f * g), MIN(f) FROM e WHERE a > 2100000000", c, what + ", no row"),
               "Aggregate");
  }
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
  refused("SELECT n + 1 FROM t", "may be NULL");
  refused("SELECT SUM(f * 0.5) FROM t WHERE a > 0", "reduce INT, BIGINT, DATE and FLOAT values");
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
