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

// The error `sql` raises on `backend`, if any.
std::optional<Error> error_of(const std::string& sql, const Catalog& c, Backend backend) {
  try {
    engine().execute_sql(sql, c, backend);
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

// The compute backend raises the CPU engine's error for `sql`.
void same_error(const std::string& sql, const Catalog& c) {
  CAPTURE(sql);
  const std::optional<Error> want = error_of(sql, c, Backend::Cpu), got = error_of(sql, c, Backend::Compute);
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
  refused("SELECT CASE WHEN a > 0 THEN 1 END FROM t", "no ELSE");
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

namespace {

// w(k, a, b, c, f, g, d, s, s2): INTs with duplicates and extremes, FLOATs with -0.0, NaN and
// +-inf, a DATE, STRINGs (s2 a second column of s's dictionary: s = s2 compares codes).
Catalog condition_tables(std::mt19937_64& rng, size_t rows) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> specials{0.0f, -0.0f, nan, inf, -inf, 1.5f, -2.0f, 3.0f};
  auto floats = [&]() {
    std::vector<float> v = random_floats(rng, rows, 100, false);
    for (auto& x : v)
      if (rng() % 4 == 0) x = specials[rng() % specials.size()];
    return v;
  };
  auto ints = [&](int32_t lo, int32_t hi) {
    std::vector<int32_t> v = random_ints(rng, rows, lo, hi);
    for (auto& x : v)
      if (rng() % 16 == 0) x = rng() % 2 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::min();
    return v;
  };
  const std::vector<std::string> words{"apple", "fig", "kiwi", "lime", "pear", "plum", "a,b", "\"q\""};
  std::vector<std::string> s(rows);
  for (auto& x : s) x = words[rng() % words.size()];
  Column sc = Column::strings("s", s);
  std::vector<int32_t> codes(rows);
  for (auto& x : codes) x = int32_t(rng() % sc.dictionary->size());
  Catalog c;
  c.add("w",
        Table{{Column::ints("k", random_ints(rng, rows, 0, 9)), Column::ints("a", ints(-50, 50)),
               Column::ints("b", ints(-50, 50)), Column::ints("c", random_ints(rng, rows, -3, 3)),
               Column::floats("f", floats()), Column::floats("g", floats()),
               Column::dates("d", random_ints(rng, rows, 8000, 8100)), sc, Column::coded("s2", codes, sc.dictionary)}});
  return c;
}

std::string random_condition(std::mt19937_64& rng, int depth);

// A random SQL value over w: integer, FLOAT and DOUBLE arithmetic, DATE arithmetic, CASE.
std::string random_value(std::mt19937_64& rng, int depth) {
  const char* const leaves[] = {"a", "b", "c", "k", "f", "g", "2", "-1", "0.5", "2147483647", "EXTRACT(DAY FROM d)"};
  if (depth <= 0 || rng() % 3 == 0) return leaves[rng() % std::size(leaves)];
  const char* const ops[] = {" + ", " - ", " * "};
  switch (rng() % 5) {
    case 0: return std::string("(") + (rng() % 2 ? "a" : "b * 3") + " / (c + " + (rng() % 2 ? "1)" : "10)") + ")";
    case 1: return "-" + random_value(rng, depth - 1);
    case 2: {
      std::string e = "CASE";
      for (int i = 0, n = 1 + int(rng() % 2); i < n; ++i)
        e += " WHEN " + random_condition(rng, depth - 1) + " THEN " + random_value(rng, depth - 1);
      return e + " ELSE " + random_value(rng, depth - 1) + " END";
    }
    default: return "(" + random_value(rng, depth - 1) + ops[rng() % 3] + random_value(rng, depth - 1) + ")";
  }
}

// A random SQL condition over w: comparisons of values, STRING comparisons with literals and within
// one dictionary, IN, BETWEEN, DATE comparisons, NOT, OR, AND.
std::string random_condition(std::mt19937_64& rng, int depth) {
  const char* const cmp[] = {" = ", " <> ", " < ", " <= ", " > ", " >= "};
  const char* const strings[] = {
      "s < 'kiwi'",           "s = 'fig'", "s >= 'l'", "s <> s2", "s <= s2", "s > 'zzz'", "s IN ('plum', 'a,b')",
      "s BETWEEN 'b' AND 'm'"};
  switch (rng() % (depth <= 0 ? 4 : 7)) {
    case 0:
    case 1: return random_value(rng, 1) + cmp[rng() % 6] + random_value(rng, 1);
    case 2: return strings[rng() % std::size(strings)];
    case 3: return rng() % 2 ? "d + c < d" : "d - 30 >= d - k * 7";
    case 4: return "NOT (" + random_condition(rng, depth - 1) + ")";
    case 5: return "(" + random_condition(rng, depth - 1) + " OR " + random_condition(rng, depth - 1) + ")";
    default: return "(" + random_condition(rng, depth - 1) + " AND " + random_condition(rng, depth - 1) + ")";
  }
}

}  // namespace

TEST_CASE("engine-compute-expression: random WHERE conditions and CASE equal the CPU engine's") {
  // Filters that are no CNF of column comparisons run on compute (covered over the Scan: an
  // expression program selects the row ids); SUM/COUNT/AVG/MIN/MAX of integer expressions under them
  // are one fused pass; CASE in select items, aggregates and GROUP BY keys. Errors must be the CPU
  // engine's. Sizes around the kernel's 2048 rows per workgroup.
  const size_t sizes[] = {0, 1, 2047, 2048, 2049, 5000};
  int ran = 0, fused = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed);
    const size_t rows = sizes[seed - 1];
    const Catalog c = condition_tables(rng, rows);
    for (int q = 0; q < 10; ++q) {
      const std::string cond = random_condition(rng, 2);
      const std::string value = random_value(rng, 2);
      const std::string sqls[] = {
          "SELECT k, a, s FROM w WHERE " + cond,
          "SELECT COUNT(*), SUM(a * b), MIN(a - c), MAX(k), AVG(b) FROM w WHERE " + cond,
          "SELECT SUM(CASE WHEN " + cond + " THEN a ELSE 0 END), COUNT(f * 2) FROM w WHERE a < b",
          "SELECT " + value + " FROM w WHERE " + cond,
      };
      for (const std::string& sql : sqls) {
        const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(rows) + " rows";
        CAPTURE(sql);
        const std::optional<Error> want = error_of(sql, c, Backend::Cpu), got = error_of(sql, c, Backend::Compute);
        if (got && got->code() == ErrorCode::Unsupported) {
          // Only the program limits may refuse a random query.
          const std::string m = got->what();
          CHECK_MESSAGE((m.find("instructions") != std::string::npos || m.find("stack slots") != std::string::npos ||
                         m.find("columns (the compute expression kernel") != std::string::npos),
                        m);
          continue;
        }
        REQUIRE(want.has_value() == got.has_value());
        if (want) {
          CHECK(want->code() == got->code());
          CHECK(std::string(want->what()) == std::string(got->what()));
          continue;
        }
        const std::optional<Result> r = check_sql(engine(), sql, c, what);
        ++ran;
        const auto* filter = test::plan_node(*r, "Filter");
        if (filter) CHECK_MESSAGE(filter->backend == Backend::Compute, r->report.text());
        const auto* agg = test::plan_node(*r, "Aggregate");
        if (agg && agg->algorithm.find("one fused expression pass") != std::string::npos) {
          // One fused pass: no CNF or selection pass, one expression pass.
          CHECK_MESSAGE(test::passes_of(*r, "expression") == 1, r->report.text());
          ++fused;
        }
      }
    }
  }
  MESSAGE(ran << " random queries ran on compute, " << fused << " fused aggregates");
  CHECK(ran >= 150);
  CHECK(fused >= 30);
}

TEST_CASE("engine-compute-expression: the fused WHERE and aggregates: one submission, errors in order") {
  std::mt19937_64 rng(31);
  const Catalog c = tables(rng, 5000, false);
  // Warm: the columns resident, then one submission and one wait for the whole query.
  const std::string sql = "SELECT SUM(a * b), COUNT(*), AVG(a - b), MIN(a * c), MAX(d) FROM t WHERE a < b AND c <> 0";
  check_sql(engine(), sql, c, "cold");
  const Result r = check_sql(engine(), sql, c, "warm");
  CHECK_MESSAGE(test::passes_of(r, "expression") == 1, r.report.text());
  CHECK_MESSAGE(test::passes_of(r, "upload") == 0, r.report.text());
  CHECK_MESSAGE(r.report.gpu_waits == 1, r.report.text());
  CHECK_MESSAGE(r.report.gpu_submissions == 1, r.report.text());
  const auto* agg = test::plan_node(r, "Aggregate");
  REQUIRE(agg);
  CHECK_MESSAGE(agg->algorithm.find("one fused expression pass") != std::string::npos, agg->algorithm);
  // A CNF WHERE as well as an expression one; a condition's error at a row of the table; an
  // argument's at its position among the rows kept; an error in a CASE branch not taken.
  check_sql(engine(), "SELECT SUM(a * c) FROM t WHERE a + b < c * 2", c, "expression WHERE");
  check_sql(engine(), "SELECT COUNT(*) FROM t WHERE a * 2 = b OR c = 3", c, "COUNT(*) only");
  check_sql(engine(), "SELECT SUM(d - d), MIN(d + 1) FROM t WHERE a > 2100000000", c, "no row kept");
  same_error("SELECT SUM(a) FROM t WHERE a / (c - c) > 0", c);
  same_error("SELECT SUM(a * b * a * b), COUNT(*) FROM t WHERE c > 0", c);
  same_error("SELECT SUM(a), SUM(a / c) FROM t WHERE c >= 0", c);
  same_error("SELECT SUM(a * b + 4000000000000000000) FROM t WHERE b > 0", c);
  same_error("SELECT COUNT(*) FROM t WHERE CASE WHEN c = 0 THEN 0 ELSE a / c END > 0", c);
  same_error("SELECT SUM(CASE WHEN c <> 0 THEN a / c ELSE 0 END) FROM t", c);
  check_sql(engine(), "SELECT a - b FROM t WHERE a < b", c, "after the errors");
  // An expression WHERE under a GROUP BY and on a join's side: covered, its row ids selected on the
  // device by the program.
  for (const std::string sql : {"SELECT k, SUM(a * b), COUNT(*) FROM t WHERE a + b < c * 2 GROUP BY k",
                                "SELECT SUM(t.a * u.x) FROM t, u WHERE t.k = u.k AND t.a * 2 > t.b"}) {
    const Result g = check_sql(engine(), sql, c, "covered expression WHERE");
    on_compute(g, "Filter");
    CHECK_MESSAGE(g.report.text().find("an expression program selecting row ids") != std::string::npos,
                  g.report.text());
  }
}

TEST_CASE("engine-compute-expression: a Filter over another fragment's result is its own fragment") {
  // HAVING on a group key: a Filter over the GROUP BY's result (host rows, uploaded), its rows
  // selected on the device and handed over as a device relation; the Project of columns and the
  // LIMIT above it are part of the fragment (also over a table: the Filter over its Scan).
  for (const size_t rows : {size_t(0), size_t(1), size_t(3000)}) {
    std::mt19937_64 rng(32 + rows);
    const Catalog c = condition_tables(rng, rows);
    const std::string what = std::to_string(rows) + " rows";
    for (const std::string sql : {"SELECT k FROM w GROUP BY k HAVING k * 2 > 7 OR k = 0",
                                  "SELECT c, k FROM w GROUP BY c, k HAVING c * k <> 2 LIMIT 5 OFFSET 2",
                                  "SELECT s FROM w GROUP BY s HAVING s < 'l' OR s = 'pear'",
                                  "SELECT a, s FROM w WHERE a * 2 > b OR s = s2 LIMIT 7 OFFSET 3"}) {
      const Result r = check_sql(engine(), sql, c, what);
      const auto* f = test::plan_node(r, "Filter");
      REQUIRE(f);
      CHECK_MESSAGE(f->backend == Backend::Compute, r.report.text());
      CHECK_MESSAGE(f->algorithm.find("flags compacted into row ids") != std::string::npos, f->algorithm);
    }
  }
  // Errors of the condition are the CPU engine's, at the same row.
  std::mt19937_64 rng(33);
  const Catalog c = condition_tables(rng, 500);
  same_error("SELECT c FROM w GROUP BY c HAVING 10 / c > 1", c);
}
