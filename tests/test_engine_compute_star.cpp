// The star aggregate on the compute backend (src/vk/engine/star_fragment.cpp,
// src/vk/operators/star): random star schemas, their aggregates over joins equal the CPU engine's
// exactly, the report names the star aggregate where the plan qualifies and the joins where it
// does not; seeds are logged.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "engine_compute_support.h"
#include "vk/operators/star/star.h"

namespace {

using namespace gfxq;
using test::check_sql;
using test::random_ints;

Engine& engine() {
  return test::debug_engine();
}

// The same, with ComputeOptions::star_aggregate off.
Engine& joins_engine() {
  return test::engine_with({.star_aggregate = false});
}

bool ran_star(const Result& r) {
  return r.report.algorithm.find("star aggregate") != std::string::npos;
}

// Keys `first`, `first + step`, ... shuffled: unique, with gaps when step > 1.
std::vector<int32_t> unique_keys(std::mt19937_64& rng, size_t n, int32_t first, int32_t step) {
  std::vector<int32_t> k(n);
  for (size_t i = 0; i < n; ++i) k[i] = first + int32_t(i) * step;
  std::shuffle(k.begin(), k.end(), rng);
  return k;
}

// f(k1, k2, k3, a, b) with keys into d1(k, g, s), d2(k, h, day), d3(k, c); some fact keys miss.
Catalog star_tables(std::mt19937_64& rng, size_t fact_rows, size_t d1_rows, size_t d2_rows, size_t d3_rows) {
  const int32_t step2 = std::uniform_int_distribution<int32_t>(1, 3)(rng);
  const int32_t first1 = std::uniform_int_distribution<int32_t>(-50, 50)(rng);
  std::vector<std::string> names = {"apple", "pear", "fig", "", "kiwi", "plum"};
  std::vector<std::string> s(d1_rows);
  for (auto& x : s) x = names[std::uniform_int_distribution<size_t>(0, names.size() - 1)(rng)];
  Catalog c;
  c.add("d1", Table{{Column::ints("k", unique_keys(rng, d1_rows, first1, 1)),
                     Column::ints("g", random_ints(rng, d1_rows, -3, 4)), Column::strings("s", s)}});
  c.add("d2", Table{{Column::ints("k", unique_keys(rng, d2_rows, 1000, step2)),
                     Column::ints("h", random_ints(rng, d2_rows, 1990, 1996)),
                     Column::dates("day", random_ints(rng, d2_rows, 9000, 9010))}});
  c.add("d3", Table{{Column::ints("k", unique_keys(rng, d3_rows, 0, 1)),
                     Column::ints("c", random_ints(rng, d3_rows, 0, 2))}});
  c.add("f", Table{{Column::ints("k1", random_ints(rng, fact_rows, first1 - 2, first1 + int32_t(d1_rows) + 1)),
                    Column::ints("k2", random_ints(rng, fact_rows, 990, 1000 + step2 * int32_t(d2_rows))),
                    Column::ints("k3", random_ints(rng, fact_rows, 0, int32_t(d3_rows) - 1)),
                    Column::ints("a", random_ints(rng, fact_rows, -100000, 100000)),
                    Column::ints("b", random_ints(rng, fact_rows, -50, 50))}});
  return c;
}

}  // namespace

TEST_CASE("engine-compute-star: aggregates over star joins equal the CPU engine's, by one probe pass") {
  const std::vector<std::string> queries = {
      "SELECT SUM(a * b) AS r FROM f, d1 WHERE f.k1 = d1.k AND d1.g > 0 AND f.b BETWEEN -10 AND 20",
      "SELECT COUNT(*), SUM(a), AVG(a - b) FROM f JOIN d2 ON f.k2 = d2.k JOIN d3 ON f.k3 = d3.k WHERE d3.c = 1",
      "SELECT d2.h, d1.s, SUM(a) AS v, COUNT(*) FROM f, d1, d2 WHERE f.k1 = d1.k AND f.k2 = d2.k "
      "GROUP BY d2.h, d1.s ORDER BY d2.h, d1.s",
      "SELECT d1.g, d2.day, d3.c, SUM(a * 3), SUM(b - a), AVG(a * 3), COUNT(b) FROM f JOIN d1 ON k1 = d1.k "
      "JOIN d2 ON k2 = d2.k JOIN d3 ON k3 = d3.k WHERE a > -50000 GROUP BY d1.g, d2.day, d3.c",
      "SELECT d1.s, SUM(a + 7) FROM f JOIN d1 ON f.k1 = d1.k WHERE d1.s <> 'fig' GROUP BY d1.s LIMIT 3",
      "SELECT d3.c, d2.h, SUM(-2 * a) FROM f JOIN d3 ON f.k3 = d3.k JOIN d2 ON f.k2 = d2.k "
      "GROUP BY d3.c, d2.h ORDER BY d3.c",
      // A fact condition the CNF kernels do not take (an expression program selects the rows first),
      // and an ORDER BY of the sums (a Sort fragment above the star).
      "SELECT d3.c, COUNT(*), SUM(b) AS s FROM f JOIN d3 ON f.k3 = d3.k WHERE f.a * 2 > f.b GROUP BY d3.c "
      "ORDER BY s DESC, d3.c",
      // Dimension conditions: an expression program, and one folded to false (INT = 1.5).
      "SELECT d1.s, COUNT(*), SUM(a) FROM f JOIN d1 ON f.k1 = d1.k JOIN d3 ON f.k3 = d3.k "
      "WHERE d1.g * 3 > d1.k AND d3.c <> 2 GROUP BY d1.s",
      "SELECT COUNT(*), SUM(a) FROM f JOIN d3 ON f.k3 = d3.k JOIN d2 ON f.k2 = d2.k WHERE d3.c = 1.5",
      // Dimension conditions on key ranges: fact keys outside a dimension's filled bounds miss
      // without the table; with a fact condition (the first dimension's keys read four at a time)
      // and without, one and two dimensions.
      "SELECT COUNT(*), SUM(a) FROM f JOIN d2 ON f.k2 = d2.k WHERE d2.k BETWEEN 1003 AND 1020 AND f.b > 0",
      "SELECT COUNT(*), SUM(a * b) FROM f JOIN d1 ON f.k1 = d1.k JOIN d2 ON f.k2 = d2.k "
      "WHERE d2.k < 1010 AND d1.k > 0 AND f.a > 0",
      "SELECT d1.g, COUNT(*), SUM(b) FROM f JOIN d1 ON f.k1 = d1.k JOIN d3 ON f.k3 = d3.k "
      "WHERE d1.k < 0 AND d3.k >= 2 GROUP BY d1.g",
  };
  // Sizes across a workgroup (256) and a subgroup, and dimensions of one row.
  const std::vector<size_t> fact_sizes = {1, 31, 255, 256, 257, 3000};
  for (uint64_t seed = 1; seed <= fact_sizes.size(); ++seed) {
    std::mt19937_64 rng(seed);
    const size_t fact_rows = fact_sizes[seed - 1];
    const size_t d1 = std::uniform_int_distribution<size_t>(1, 300)(rng);
    const size_t d2 = seed == 2 ? 1 : std::uniform_int_distribution<size_t>(1, 100)(rng);
    const size_t d3 = std::uniform_int_distribution<size_t>(1, 20)(rng);
    const Catalog c = star_tables(rng, fact_rows, d1, d2, d3);
    const std::string what = "seed " + std::to_string(seed) + ", fact " + std::to_string(fact_rows) + " rows, dims " +
                             std::to_string(d1) + "/" + std::to_string(d2) + "/" + std::to_string(d3);
    for (const std::string& q : queries) {
      const Result r = check_sql(engine(), q, c, what);
      CHECK_MESSAGE(ran_star(r), what << "\n" << q << "\n" << r.report.text());
      CHECK(test::passes_of(r, "star-probe") == 1);
      const Result j = check_sql(joins_engine(), q, c, what + ", star aggregate off");
      CHECK_FALSE(ran_star(j));
    }
  }
}

TEST_CASE("engine-compute-star: plans that do not qualify run as joins, with the same answers") {
  std::mt19937_64 rng(7);
  Catalog c = star_tables(rng, 2000, 100, 50, 10);
  // A dimension whose key repeats: each fact row may match twice.
  std::vector<int32_t> dup = unique_keys(rng, 10, 0, 1);
  dup.push_back(dup[3]);
  c.add("dd", Table{{Column::ints("k", dup), Column::ints("c", random_ints(rng, dup.size(), 0, 2))}});
  const std::vector<std::string> not_star = {
      "SELECT dd.c, SUM(a) FROM f JOIN dd ON f.k3 = dd.k GROUP BY dd.c",  // key not unique
      "SELECT f.b, SUM(a) FROM f JOIN d3 ON f.k3 = d3.k GROUP BY f.b",    // group key of the fact
      "SELECT MIN(a) FROM f JOIN d3 ON f.k3 = d3.k",                      // MIN
      "SELECT SUM(a * b * 2) FROM f JOIN d3 ON f.k3 = d3.k",              // two operators
  };
  for (const std::string& q : not_star) {
    const Result r = check_sql(engine(), q, c, "seed 7");
    CHECK_MESSAGE(!ran_star(r), q << "\n" << r.report.text());
  }
  // Key ranges: a sparse dimension within 2^20 slots takes the star aggregate, a wider one does not.
  c.add("f2", Table{{Column::ints("k", {0, 5, 1000000, 7, 2000000, 5}), Column::ints("a", {1, 2, 3, 4, 5, 6})}});
  c.add("sparse", Table{{Column::ints("k", {1000000, 0, 5}), Column::ints("c", {1, 2, 1})}});
  c.add("wide", Table{{Column::ints("k", {2000000, 0, 5}), Column::ints("c", {1, 2, 1})}});
  const Result sparse = check_sql(engine(), "SELECT c, SUM(a) FROM f2 JOIN sparse ON f2.k = sparse.k GROUP BY c", c,
                                  "keys 0..1000000 for 3 rows");
  CHECK_MESSAGE(ran_star(sparse), sparse.report.text());
  const Result wide = check_sql(engine(), "SELECT c, SUM(a) FROM f2 JOIN wide ON f2.k = wide.k GROUP BY c", c,
                                "keys 0..2000000 for 3 rows");
  CHECK_MESSAGE(!ran_star(wide), wide.report.text());
  // A group column spanning every INT value (2^32 values: its range must not wrap to 0 and pass the
  // 2^22 limit), over an empty and a filled fact (found by the analytic fuzzer,
  // GFXQ_DIFF_SEED=6471334656519023486).
  c.add("u", Table{{Column::ints("k", {1, 2}), Column::ints("i", {INT32_MIN, INT32_MAX})}});
  c.add("v0", Table{{Column::ints("k", std::vector<int32_t>{})}});
  c.add("v1", Table{{Column::ints("k", {2, 1, 2, 3})}});
  for (const char* fact : {"v0", "v1"}) {
    const std::string q = std::string("SELECT COUNT(u.k) FROM ") + fact + ", u WHERE " + fact + ".k = u.k GROUP BY u.i";
    const Result r = check_sql(engine(), q, c, "a group key over all INT values");
    CHECK_MESSAGE(!ran_star(r), q << "\n" << r.report.text());
  }
}

TEST_CASE("engine-compute-star: empty selections, a missing group and a sum past BIGINT") {
  std::mt19937_64 rng(11);
  const Catalog c = star_tables(rng, 500, 40, 30, 5);
  // Nothing matches: COUNT 0 and SUM NULL without GROUP BY, no rows with it.
  for (const std::string& q :
       {std::string("SELECT COUNT(*), SUM(a), AVG(b) FROM f JOIN d3 ON f.k3 = d3.k WHERE d3.c > 5"),
        std::string("SELECT d3.c, SUM(a) FROM f JOIN d3 ON f.k3 = d3.k WHERE f.a > 1000000 "
                    "GROUP BY d3.c")}) {
    const Result r = check_sql(engine(), q, c, "seed 11, empty");
    CHECK(ran_star(r));
  }
  // Products near 2^62 overflow the BIGINT sum on both engines alike.
  Catalog big;
  big.add("d", Table{{Column::ints("k", {1, 2}), Column::ints("g", {5, 6})}});
  big.add("f", Table{{Column::ints("k", {1, 1, 1, 2}), Column::ints("a", {INT32_MIN, INT32_MIN, INT32_MIN, 3}),
                      Column::ints("b", {INT32_MIN, INT32_MIN, INT32_MIN, 4})}});
  const std::string q = "SELECT d.g, SUM(a * b) FROM f JOIN d ON f.k = d.k GROUP BY d.g";
  auto code = [&](Backend b) {
    try {
      engine().execute_sql(q, big, b);
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::Internal;
  };
  CHECK(code(Backend::Cpu) == ErrorCode::Overflow);
  CHECK(code(Backend::Compute) == ErrorCode::Overflow);
  // Two rows of -2^62 and one of 2^62 sum exactly (no wrap in the two-word sums).
  big.add("f", Table{{Column::ints("k", {1, 1, 1}), Column::ints("a", {INT32_MIN, INT32_MIN, INT32_MIN}),
                      Column::ints("b", {INT32_MIN, INT32_MAX, INT32_MAX})}});
  CHECK(ran_star(check_sql(engine(), "SELECT d.g, SUM(a * b), AVG(a * b) FROM f JOIN d ON f.k = d.k GROUP BY d.g", big,
                           "near the BIGINT limits")));
}

TEST_CASE("engine-compute-star: a dimension over more than 2^16 key values tests a bitmap of its filled keys") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // d: 3,000 keys 71 apart (a key range of about 213,000 slots: a bitmap); e: 40 dense keys (none).
  const size_t dims = 3000, facts = 6000;
  const std::vector<int32_t> dk = unique_keys(rng, dims, -5000, 71);
  std::vector<int32_t> fk(facts);
  for (auto& k : fk)  // nine in ten fact keys are d's, the others mostly fall between them
    k = rng() % 10 ? dk[rng() % dims] : std::uniform_int_distribution<int32_t>(-5100, 220000)(rng);
  Catalog c;
  c.add("d", Table{{Column::ints("k", dk), Column::ints("c", random_ints(rng, dims, 0, 15))}});
  c.add("e", Table{{Column::ints("k", unique_keys(rng, 40, 0, 1)), Column::ints("g", random_ints(rng, 40, 0, 4))}});
  c.add("f", Table{{Column::ints("k", fk), Column::ints("ke", random_ints(rng, facts, 0, 41)),
                    Column::ints("a", random_ints(rng, facts, -1000, 1000))}});
  // Selective (1/16 and 1/8 of d: the probe tests the bitmap first) and not (1/2: the table only);
  // the condition in the fill pass, by an expression program's selection, with a fact condition.
  for (const std::string& q : {
           "SELECT d.c, COUNT(*), SUM(f.a) FROM f JOIN d ON f.k = d.k WHERE d.c = 3 GROUP BY d.c",
           "SELECT e.g, COUNT(*), SUM(a) FROM f JOIN d ON f.k = d.k JOIN e ON f.ke = e.k "
           "WHERE d.c = 1 OR d.c = 2 GROUP BY e.g",
           "SELECT d.c, e.g, COUNT(*), SUM(a) FROM f JOIN d ON f.k = d.k JOIN e ON f.ke = e.k WHERE d.c < 8 "
           "GROUP BY d.c, e.g",
           "SELECT e.g, SUM(a) FROM f JOIN d ON f.k = d.k JOIN e ON f.ke = e.k WHERE d.c * 2 = 6 GROUP BY e.g",
           "SELECT COUNT(*), SUM(a) FROM f JOIN d ON f.k = d.k WHERE d.c = 5 AND f.a > 0",
       }) {
    const Result r = check_sql(engine(), q, c, "seed " + std::to_string(seed));
    CHECK_MESSAGE(ran_star(r), q << "\n" << r.report.text());
    CHECK_MESSAGE(r.report.text().find("1 with a bitmap of their filled keys") != std::string::npos, r.report.text());
  }
}

TEST_CASE("engine-compute-star: more listed groups than the first read takes come in a second read") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Group indices 6000 x 4 = 24000 > kDirectReadDomain: listed on the device; about 6000 of them
  // non-empty, more than kListedFirstRead.
  const size_t dims = 6000, facts = 40000;
  Catalog c;
  c.add("d", Table{{Column::ints("k", unique_keys(rng, dims, 0, 1)), Column::ints("c", random_ints(rng, dims, 0, 3))}});
  c.add("f", Table{{Column::ints("k", random_ints(rng, facts, 0, int32_t(dims) - 1)),
                    Column::ints("v", random_ints(rng, facts, -1000, 1000))}});
  const Result r =
      check_sql(engine(), "SELECT d.k, d.c, COUNT(*), SUM(f.v) FROM f JOIN d ON f.k = d.k GROUP BY d.k, d.c", c,
                "seed " + std::to_string(seed));
  CHECK_MESSAGE(ran_star(r), r.report.text());
  CHECK(r.table.rows() > vk::star::kListedFirstRead);
  CHECK(test::passes_of(r, "download") >= 2);
  CHECK(r.report.text().find("the other") != std::string::npos);
}
