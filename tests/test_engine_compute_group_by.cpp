// GROUP BY of SQL plans on the compute backend (src/vk/engine/group_by_fragment.cpp), and resident
// columns (src/vk/engine/resident.h): every result equals the CPU engine's exactly; seeds are logged.
#include <doctest/doctest.h>

#include <random>

#include "engine_compute_support.h"

namespace {

using namespace gfxq;
using test::check_sql;
using test::random_floats;
using test::random_ints;

Engine& engine() {
  return test::debug_engine();
}

// t(k, k2, v, f, s, d): keys k in [0, groups), k2 in [0, 3], an INT and a FLOAT value, a STRING and
// a DATE column.
Catalog group_table(std::mt19937_64& rng, size_t rows, int32_t groups, bool specials) {
  static const std::vector<std::string> words{"ant", "bee", "cat", "dog", "eel", "fox", "gnu"};
  std::vector<std::string> s(rows);
  std::uniform_int_distribution<size_t> w(0, words.size() - 1);
  for (auto& x : s) x = words[w(rng)];
  Catalog c;
  c.add("t", Table{{Column::ints("k", random_ints(rng, rows, 0, groups - 1)),
                    Column::ints("k2", random_ints(rng, rows, 0, 3)),
                    Column::ints("v", random_ints(rng, rows, -100000, 100000)),
                    Column::floats("f", random_floats(rng, rows, 1000, specials)), Column::strings("s", s),
                    Column::dates("d", random_ints(rng, rows, 9000, 9040))}});
  return c;
}

}  // namespace

TEST_CASE("engine-compute-group-by: random tables equal the CPU engine's") {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed);
    const size_t rows = std::uniform_int_distribution<size_t>(1, 5000)(rng);
    const int32_t groups = std::uniform_int_distribution<int32_t>(1, 3000)(rng);
    const Catalog c = group_table(rng, rows, groups, seed % 2 == 0);
    const std::string what =
        "seed " + std::to_string(seed) + ", " + std::to_string(rows) + " rows, keys 0.." + std::to_string(groups - 1);
    const Result r =
        check_sql(engine(), "SELECT k, COUNT(*), SUM(v), MIN(v), MAX(v), AVG(v) FROM t GROUP BY k ORDER BY k", c, what);
    const auto* agg = test::plan_node(r, "Aggregate");
    REQUIRE(agg);
    CHECK(agg->backend == Backend::Compute);
    CHECK(agg->algorithm.find("estimate") != std::string::npos);
    check_sql(engine(), "SELECT k, SUM(f), AVG(f), MIN(f), MAX(f), COUNT(f) FROM t GROUP BY k", c,
              what + ", FLOAT values");
    check_sql(engine(), "SELECT k, k2, COUNT(*), SUM(v) FROM t GROUP BY k, k2 ORDER BY k, k2", c, what + ", two keys");
    check_sql(engine(), "SELECT k2, k, MAX(f) FROM t GROUP BY k2, k ORDER BY k2", c,
              what + ", two keys, ORDER BY the first");
    check_sql(engine(), "SELECT f, COUNT(*), MIN(v) FROM t GROUP BY f ORDER BY f", c, what + ", FLOAT key");
    check_sql(engine(), "SELECT s, d, COUNT(*), MIN(s), MAX(d), SUM(v) FROM t GROUP BY s, d ORDER BY s, d", c,
              what + ", STRING and DATE keys");
    check_sql(engine(), "SELECT k2, MEDIAN(v), QUANTILE(f, 0.9), KTH_LARGEST(v, 3) FROM t GROUP BY k2", c,
              what + ", ranks per group");
    check_sql(engine(), "SELECT k, SUM(v) FROM t WHERE v > 0 AND f < 500 GROUP BY k ORDER BY k LIMIT 7", c,
              what + ", WHERE on the device, LIMIT");
    check_sql(engine(), "SELECT SUM(v) AS total, k FROM t GROUP BY k LIMIT 5 OFFSET 2", c,
              what + ", reordered, OFFSET");
    // The select list moves each column at its last use: a column named three times is copied
    // twice, then moved.
    check_sql(engine(), "SELECT k, SUM(v) AS a, k AS k1, COUNT(*), k AS k2, SUM(v) AS b FROM t GROUP BY k ORDER BY k",
              c, what + ", a key and a SUM named more than once");
  }
}

TEST_CASE("engine-compute-group-by: empty inputs, one row, all-equal keys") {
  std::mt19937_64 rng(5);
  const Catalog c = group_table(rng, 3000, 40, false);
  check_sql(engine(), "SELECT k, COUNT(*), SUM(v) FROM t WHERE v > 1000000 GROUP BY k", c, "no row selected");
  Catalog e;
  e.add("t", Table{{Column::ints("k", {}), Column::ints("v", {})}});
  check_sql(engine(), "SELECT k, COUNT(*), SUM(v), MAX(v) FROM t GROUP BY k", e, "empty table");
  Catalog one;
  one.add("t", Table{{Column::ints("k", {3}), Column::ints("v", {-8})}});
  check_sql(engine(), "SELECT k, COUNT(*), SUM(v), AVG(v), MEDIAN(v) FROM t GROUP BY k", one, "one row");
  Catalog same;
  same.add("t", Table{{Column::ints("k", std::vector<int32_t>(4000, -7)),
                       Column::ints("v", random_ints(rng, 4000, -5, 5))}});
  check_sql(engine(), "SELECT k, COUNT(*), SUM(v), MIN(v), KTH_LARGEST(v, 4000) FROM t GROUP BY k", same,
            "all keys equal");
}

TEST_CASE("engine-compute-group-by: what the compute GROUP BY refuses is named") {
  std::mt19937_64 rng(6);
  Catalog c = group_table(rng, 500, 20, false);
  Column n = Column::ints("n", random_ints(rng, 500, 0, 5));
  n.nulls.assign(500, 0);
  n.nulls[3] = 1;
  Table t = c.get("t");
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
  refused("SELECT k + 1, COUNT(*) FROM t GROUP BY k + 1", "bigint expression");
  refused("SELECT k, COUNT(DISTINCT v) FROM t GROUP BY k", "DISTINCT");
  refused("SELECT n, COUNT(*) FROM t GROUP BY n", "may be NULL");
  refused("SELECT k, SUM(n) FROM t GROUP BY k", "may be NULL");
  // Other ORDER BYs run as a Sort fragment of their own above the GROUP BY (sort_fragment.cpp).
  for (const char* sql :
       {"SELECT k, SUM(v) FROM t GROUP BY k ORDER BY 2", "SELECT k, SUM(v) FROM t GROUP BY k ORDER BY k DESC"}) {
    const Result r = check_sql(engine(), sql, c, "ORDER BY other than the key order");
    const auto* sort = test::plan_node(r, "Sort");
    REQUIRE(sort);
    CHECK(sort->backend == Backend::Compute);
  }
  // Under auto the CPU engine runs what compute refuses; the results agree with the CPU's.
  const Result r = engine().execute_sql("SELECT k, SUM(v) FROM t GROUP BY k ORDER BY 2", c, Backend::Auto);
  CHECK(test::table_difference(
            engine().execute_sql("SELECT k, SUM(v) FROM t GROUP BY k ORDER BY 2", c, Backend::Cpu).table, r.table)
            .empty());
  CHECK(engine().take_debug_messages().empty());
}

TEST_CASE("engine-compute-resident: a repeated query reads resident columns; a replaced table uploads again") {
  std::mt19937_64 rng(7);
  const std::vector<std::string> queries{"SELECT k, SUM(v), MAX(f) FROM t GROUP BY k ORDER BY k",
                                         "SELECT COUNT(*), SUM(v) FROM t WHERE k < 20 AND f > 0"};
  for (const auto& sql : queries) {
    CAPTURE(sql);
    const Catalog c = group_table(rng, 3000, 50, false);  // a new table: nothing of it is resident
    const Result first = check_sql(engine(), sql, c, "first run");
    CHECK(test::passes_of(first, "upload") > 0);
    const Result second = check_sql(engine(), sql, c, "second run");
    CHECK(test::passes_of(second, "upload") == 0);
    CHECK(test::passes_of(second, "resident") == test::passes_of(first, "upload"));
  }
  // The join reads its two covered Scans' key columns resident too, and the output columns it
  // gathers on the device (t.v, u.w).
  Catalog c = group_table(rng, 3000, 50, false);
  c.add("u", Table{{Column::ints("k", random_ints(rng, 800, 0, 49)), Column::ints("w", random_ints(rng, 800, 0, 9))}});
  const std::string join = "SELECT t.v, u.w FROM t JOIN u ON t.k = u.k";
  check_sql(engine(), join, c, "join, first run");
  const Result again = check_sql(engine(), join, c, "join, second run");
  CHECK(test::passes_of(again, "upload") == 0);
  CHECK(test::passes_of(again, "resident") == 4);
  // Replacing t gives it a new version: its columns upload again (u's stay resident).
  Catalog replaced = c;
  replaced.add("t", group_table(rng, 2000, 30, false).get("t"));
  CHECK(replaced.version("t") != c.version("t"));
  CHECK(replaced.version("u") == c.version("u"));
  const Result fresh = check_sql(engine(), join, replaced, "join after replacing t");
  CHECK(test::passes_of(fresh, "upload") == 2);
  CHECK(test::passes_of(fresh, "resident") == 2);
}

TEST_CASE("engine-compute-resident: the byte budget evicts the least recently used, 0 keeps nothing") {
  std::mt19937_64 rng(8);
  Catalog c;
  // Three tables of one 4096-row column each (16 KiB on the device).
  for (const char* name : {"a", "b", "c"}) c.add(name, Table{{Column::ints("k", random_ints(rng, 4096, 0, 9))}});
  auto uploads = [&](Engine& e, const std::string& table) {
    const Result r = check_sql(e, "SELECT k, COUNT(*) FROM " + table + " GROUP BY k", c, "table " + table);
    return test::passes_of(r, "upload");
  };
  EngineOptions options;
  options.debug = test::vk_validation_wanted();
  options.resident_bytes = 2 * 16384;  // two of the columns
  {
    Engine e(options);
    CHECK(uploads(e, "a") == 1);
    CHECK(uploads(e, "b") == 1);
    CHECK(uploads(e, "a") == 0);  // a is now the most recently used
    CHECK(uploads(e, "c") == 1);  // evicts b
    CHECK(uploads(e, "a") == 0);
    CHECK(uploads(e, "b") == 1);
  }
  options.resident_bytes = 0;
  Engine none(options);
  CHECK(uploads(none, "a") == 1);
  CHECK(uploads(none, "a") == 1);
}
