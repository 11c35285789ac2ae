// CNF size limits (issue 26, item 5): conditions past CnfLimits are refused before expansion with
// the limit named; a condition at the limits answers on every backend as the CPU does, and its
// time is reported (not asserted).
#include <doctest/doctest.h>

#include <chrono>
#include <random>
#include <string>

#include "gfxq/gfxq.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "test_support.h"

namespace {

using namespace gfxq;

//! (c < k AND c > k + 100) OR ... for `pairs` pairs, OR-ed with `singles` comparisons `c = k`:
//! 2^pairs clauses of pairs + singles comparisons each, over the columns a, b, x.
std::string exploding_condition(int pairs, int singles) {
  const char* columns[] = {"a", "b", "x"};
  std::string s;
  for (int i = 0; i < pairs; ++i)
    s += std::string(s.empty() ? "" : " OR ") + "(" + columns[i % 3] + " < " + std::to_string(i) + " AND " +
         columns[(i + 1) % 3] + " > " + std::to_string(i + 100) + ")";
  for (int i = 0; i < singles; ++i) s += std::string(" OR ") + columns[i % 3] + " = " + std::to_string(1000 + i);
  return s;
}

}  // namespace

TEST_CASE("cnf-limits: the 4096 x 16 and 4096 x 244 conditions of issue 26 are refused by the GPU paths before expanding") {
  // The CPU engine evaluates a condition as written (no CNF), so it answers; the GPU paths need the
  // CNF and refuse past CnfLimits' defaults, naming the limit: the clause count in the message is
  // counted, not expanded (4096 x 244 expanded took 90 s and 4.7 GB). No wall-time check: tests assert
  // results (issue 26, item 7); an expansion would show as a test taking that long.
  const std::string q16 = "SELECT COUNT(*) FROM t WHERE " + exploding_condition(12, 4);
  const std::string q244 = "SELECT COUNT(*) FROM t WHERE " + exploding_condition(12, 232);
  CHECK(q16.size() < 400);
  CHECK(q244.size() > 2500);
  const Catalog catalog = test::catalog_of(test::random_table(5, Distribution::Uniform, 26));
  Engine engine;
  for (const std::string& sql : {q16, q244}) {
    const Result cpu = engine.execute_sql(sql, catalog, Backend::Cpu);
    CHECK(test::table_difference(cpu.table, engine.execute_sql(sql, catalog, Backend::Auto).table) == "");
    for (Backend b : {Backend::Raster, Backend::Compute}) {
      CAPTURE(to_string(b));
      CHECK_ERROR(engine.execute_sql(sql, catalog, b), ErrorCode::Unsupported,
                  "condition's CNF would have 4096 clauses (limit 256)");
    }
  }
  // Within the clause limit but past the comparison limit: 16 clauses of 17.
  CHECK_ERROR(sql::parse("SELECT COUNT(*) FROM t WHERE " + exploding_condition(4, 13)), ErrorCode::InvalidQuery,
              "condition's CNF would have 272 comparisons (limit 256 in all)");
}

TEST_CASE("cnf-limits: a condition at the limits answers on every backend as the CPU does") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const Catalog catalog = test::catalog_of(test::random_table(1000, Distribution::Uniform, seed));
  Engine& engine = test::debug_engine();
  // 16 clauses of 16 comparisons, 64 of 4 and one of 256 (256 in all each).
  for (const auto& [clauses, terms] : {std::pair{16, 16}, std::pair{64, 4}, std::pair{1, 256}}) {
    std::string where;
    for (int c = 0; c < clauses; ++c) {
      std::string clause;
      for (int t = 0; t < terms; ++t) {
        const Cnf one = test::random_cnf(catalog.get("t"), rng, 1, 1);
        const Comparison& cmp = one.clauses[0].terms[0];
        const std::string rhs = std::holds_alternative<ColumnRef>(cmp.rhs) ? std::get<ColumnRef>(cmp.rhs).name
                                                                           : format_value(std::get<double>(cmp.rhs));
        if (rhs == "nan" || rhs == "inf" || rhs == "-inf") continue;
        clause += (clause.empty() ? "" : " OR ") + cmp.lhs.name + " " + to_string(cmp.op) + " " + rhs;
      }
      if (!clause.empty()) where += (where.empty() ? "(" : " AND (") + clause + ")";
    }
    const std::string sql = "SELECT COUNT(*), SUM(b) FROM t WHERE " + where;
    CAPTURE(sql.substr(0, 300));
    const Result want = engine.execute_sql(sql, catalog, Backend::Cpu);
    for (Backend b : {Backend::Cpu, Backend::Raster, Backend::Compute}) {
      const auto start = std::chrono::steady_clock::now();
      const Result got = engine.execute_sql(sql, catalog, b);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      CHECK(test::table_difference(want.table, got.table) == "");
      MESSAGE(std::string(to_string(b)) << ": " << clauses << " x " << terms << " comparisons over 1000 rows in " << ms
                                        << " ms (" << got.report.passes.size() << " passes)");
    }
  }
  const auto messages = engine.take_debug_messages();
  CHECK_MESSAGE(messages.empty(), test::joined(messages));
}
