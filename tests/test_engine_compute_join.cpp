// Joins of SQL plans on the compute backend (src/vk/engine/join_fragment.cpp): every result equals
// the CPU engine's exactly, in (left row, right row) order; seeds are logged.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "engine_compute_support.h"
#include "plan/binder.h"
#include "sql/parse_statement.h"

namespace {

using namespace gfxq;
using test::check_sql;
using test::random_floats;
using test::random_ints;

Engine& engine() {
  return test::debug_engine();
}

// r(k, k2, a, x) and s(k, k2, b, y): keys in [0, range], `rows` rows each side.
Catalog join_tables(std::mt19937_64& rng, size_t lrows, size_t rrows, int32_t range) {
  Catalog c;
  c.add("r",
        Table{{Column::ints("k", random_ints(rng, lrows, 0, range)), Column::ints("k2", random_ints(rng, lrows, 0, 3)),
               Column::ints("a", random_ints(rng, lrows, -1000, 1000)),
               Column::floats("x", random_floats(rng, lrows, range, true))}});
  c.add("s",
        Table{{Column::ints("k", random_ints(rng, rrows, 0, range)), Column::ints("k2", random_ints(rng, rrows, 0, 3)),
               Column::ints("b", random_ints(rng, rrows, -1000, 1000)),
               Column::floats("y", random_floats(rng, rrows, range, true))}});
  return c;
}

}  // namespace

TEST_CASE("engine-compute-join: equi joins of random tables equal the CPU engine's, in pair order") {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed);
    const size_t lrows = std::uniform_int_distribution<size_t>(1, 3000)(rng);
    const size_t rrows = std::uniform_int_distribution<size_t>(1, 3000)(rng);
    const int32_t range = std::uniform_int_distribution<int32_t>(1, 2000)(rng);
    const Catalog c = join_tables(rng, lrows, rrows, range);
    const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(lrows) + " x " +
                             std::to_string(rrows) + " rows, keys 0.." + std::to_string(range);
    const Result r = check_sql(engine(), "SELECT r.a, s.b, r.k FROM r JOIN s ON r.k = s.k", c, what);
    const auto* join = test::plan_node(r, "Join");
    REQUIRE(join);
    CHECK(join->backend == Backend::Compute);
    CHECK(join->algorithm.find("join") != std::string::npos);
    CHECK(test::passes_of(r, "gather") == 1);
    check_sql(engine(), "SELECT * FROM r JOIN s ON r.k = s.k AND r.k2 = s.k2", c, what + ", two keys");
    check_sql(engine(), "SELECT s.y, r.x, r.a FROM r JOIN s ON s.k = r.k WHERE r.a > 100 AND s.b < 300", c,
              what + ", both sides filtered on the device");
    check_sql(engine(), "SELECT r.a, s.b FROM r, s WHERE r.k = s.k AND (r.x < 3 OR r.a = 5)", c,
              what + ", WHERE with OR");
    // FLOAT keys (NaN matches NaN, -0.0 matches 0.0), and INT against FLOAT.
    check_sql(engine(), "SELECT r.a, s.b FROM r JOIN s ON r.x = s.y", c, what + ", FLOAT keys");
    check_sql(engine(), "SELECT r.a, s.b FROM r JOIN s ON r.k = s.y", c, what + ", INT = FLOAT");
  }
}

TEST_CASE("engine-compute-join: band joins, empty sides, all-equal keys") {
  std::mt19937_64 rng(11);
  const Catalog c = join_tables(rng, 1500, 1200, 500);
  check_sql(engine(), "SELECT r.a, s.b FROM r JOIN s ON s.b >= r.a - 3 AND s.b <= r.a + 2", c, "band");
  check_sql(engine(), "SELECT r.a, s.b FROM r JOIN s ON r.k = s.k AND r.a < s.b AND r.x >= s.y", c,
            "keys and column comparisons");
  check_sql(engine(), "SELECT r.a, s.b, r.x, s.y FROM r JOIN s ON r.x <= s.y AND r.k2 > s.k2 WHERE r.a > 800", c,
            "column comparisons only (NaN in the total order)");
  check_sql(engine(), "SELECT r.a, s.b FROM r JOIN s ON r.k = s.k WHERE r.a > 5000", c, "no left row selected");
  check_sql(engine(), "SELECT r.a, s.b FROM r JOIN s ON r.k = s.k WHERE s.b < -5000", c, "no right row selected");
  Catalog e = c;
  e.add("s", Table{{Column::ints("k", {}), Column::ints("k2", {}), Column::ints("b", {}), Column::floats("y", {})}});
  check_sql(engine(), "SELECT r.a, s.b FROM r JOIN s ON r.k = s.k", e, "empty right table");
  // Every key equal: every pair (the largest output per input row).
  Catalog eq;
  eq.add("r", Table{{Column::ints("k", std::vector<int32_t>(300, 7)), Column::ints("a", random_ints(rng, 300, 0, 9))}});
  eq.add("s", Table{{Column::ints("k", std::vector<int32_t>(250, 7)), Column::ints("b", random_ints(rng, 250, 0, 9))}});
  const Result all = check_sql(engine(), "SELECT r.a, s.b FROM r JOIN s ON r.k = s.k", eq, "all keys equal");
  CHECK(all.table.rows() == 300 * 250);
}

TEST_CASE("engine-compute-join: STRING, DATE and NULL keys") {
  std::mt19937_64 rng(21);
  const auto dict = Dictionary::of({"ASIA", "EUROPE", "AFRICA", "AMERICA", "MIDDLE EAST"});
  Catalog c;
  Column rn = Column::coded("name", random_ints(rng, 900, 0, 4), dict);
  Column sn = Column::coded("name", random_ints(rng, 700, 0, 4), dict);
  Column rk = Column::ints("k", random_ints(rng, 900, 0, 50));
  rk.nulls.assign(900, 0);
  for (size_t i = 0; i < 900; i += 7) rk.nulls[i] = 1;  // every 7th left key NULL: matches nothing
  c.add("r", Table{{rn, Column::dates("d", random_ints(rng, 900, 8000, 8100)), rk,
                    Column::ints("a", random_ints(rng, 900, 0, 99))}});
  c.add("s", Table{{sn, Column::dates("d", random_ints(rng, 700, 8000, 8100)),
                    Column::ints("k", random_ints(rng, 700, 0, 50)), Column::ints("b", random_ints(rng, 700, 0, 99))}});
  check_sql(engine(), "SELECT r.a, s.b, s.name FROM r JOIN s ON r.name = s.name WHERE r.a < 10", c, "STRING keys");
  check_sql(engine(), "SELECT r.d, s.b FROM r JOIN s ON r.d = s.d", c, "DATE keys");
  check_sql(engine(), "SELECT r.a, r.k, s.b FROM r JOIN s ON r.k = s.k", c, "NULL keys");
}

TEST_CASE("engine-compute-join: three tables and GROUP BY, the SSB shape, join inputs from other fragments") {
  std::mt19937_64 rng(31);
  Catalog c;
  const size_t n = 4000;
  c.add("f", Table{{Column::ints("dk", random_ints(rng, n, 0, 99)), Column::ints("pk", random_ints(rng, n, 0, 49)),
                    Column::ints("v", random_ints(rng, n, -100, 1000)),
                    Column::floats("w", random_floats(rng, n, 50, false))}});
  std::vector<int32_t> keys(100);
  for (int32_t i = 0; i < 100; ++i) keys[size_t(i)] = i;
  c.add("d", Table{{Column::ints("k", keys), Column::ints("y", random_ints(rng, 100, 1, 7))}});
  std::vector<int32_t> pkeys(50);
  for (int32_t i = 0; i < 50; ++i) pkeys[size_t(i)] = i;
  c.add("p", Table{{Column::ints("k", pkeys), Column::strings("brand", [&] {
                      std::vector<std::string> b;
                      for (int i = 0; i < 50; ++i) b.push_back("MFGR#" + std::to_string(i % 9));
                      return b;
                    }())}});
  const Result r =
      check_sql(engine(), "SELECT d.y, SUM(f.v) FROM f JOIN d ON f.dk = d.k WHERE d.y > 3 GROUP BY d.y ORDER BY d.y", c,
                "two tables and GROUP BY");
  const auto* agg = test::plan_node(r, "Aggregate");
  REQUIRE(agg);
  CHECK(agg->backend == Backend::Compute);
  check_sql(engine(),
            "SELECT d.y, p.brand, SUM(f.v), COUNT(*), AVG(f.w) FROM f JOIN d ON f.dk = d.k JOIN p ON f.pk = p.k "
            "WHERE d.y > 2 AND f.v < 900 GROUP BY d.y, p.brand ORDER BY d.y, p.brand",
            c, "three tables and GROUP BY");
  check_sql(engine(), "SELECT f.v, d.y, p.brand FROM f JOIN d ON f.dk = d.k JOIN p ON f.pk = p.k WHERE d.y = 4", c,
            "three tables");
}

// Below an Aggregate no result depends on the pairs' order (plan::Node::any_order), so the chooser
// may take the hash join; a plain join keeps (left row, right row) order by the indexed loop.
TEST_CASE("engine-compute-join: the binder marks the nodes whose row order no result depends on") {
  Catalog c;
  c.add("f", Table{{Column::ints("dk", {1, 2}), Column::ints("v", {3, 4})}});
  c.add("d", Table{{Column::ints("k", {1, 2}), Column::ints("y", {5, 6})}});
  auto find = [](auto& self, const plan::Node& n, plan::NodeKind kind) -> const plan::Node* {
    if (n.kind == kind) return &n;
    for (const auto& ch : n.children)
      if (const plan::Node* m = self(self, *ch, kind)) return m;
    return nullptr;
  };
  auto bound = [&](const std::string& sql) { return plan::bind(sql::parse_statement(sql).query, c); };
  const auto grouped =
      bound("SELECT d.y, SUM(f.v) FROM f JOIN d ON f.dk = d.k WHERE f.v > 3 GROUP BY d.y ORDER BY d.y");
  const plan::Node* agg = find(find, *grouped, plan::NodeKind::Aggregate);
  REQUIRE(agg);
  CHECK_FALSE(agg->any_order);  // its groups feed the Sort
  CHECK_FALSE(grouped->any_order);
  const plan::Node* join = find(find, *grouped, plan::NodeKind::Join);
  REQUIRE(join);
  CHECK(join->any_order);
  for (const auto& ch : join->children) CHECK(ch->any_order);
  const auto plain = bound("SELECT f.v, d.y FROM f JOIN d ON f.dk = d.k");
  const plan::Node* pjoin = find(find, *plain, plan::NodeKind::Join);
  REQUIRE(pjoin);
  CHECK_FALSE(pjoin->any_order);
  // A Sort's ties keep their input order, a Limit keeps the first rows: order counts below both.
  const auto sorted = bound("SELECT f.v FROM f JOIN d ON f.dk = d.k ORDER BY f.v LIMIT 1");
  const plan::Node* sjoin = find(find, *sorted, plan::NodeKind::Join);
  REQUIRE(sjoin);
  CHECK_FALSE(sjoin->any_order);
  CHECK(plan::clone(*grouped)->children.size() == grouped->children.size());
  CHECK(find(find, *plan::clone(*grouped), plan::NodeKind::Join)->any_order);
}

TEST_CASE("engine-compute-join: joins below an Aggregate make pairs in any order, plain joins in pair order") {
  std::mt19937_64 rng(41);
  Catalog c;
  const size_t n = 20000;  // x 100 dimension rows: 2M candidate pairs, past the nested loop's limit
  c.add("f", Table{{Column::ints("dk", random_ints(rng, n, 0, 99)), Column::ints("v", random_ints(rng, n, -100, 1000)),
                    Column::floats("w", random_floats(rng, n, 50, true))}});
  std::vector<int32_t> keys(100);
  for (int32_t i = 0; i < 100; ++i) keys[size_t(i)] = i;
  c.add("d", Table{{Column::ints("k", keys), Column::ints("y", random_ints(rng, 100, 1, 7))}});
  const Result grouped = check_sql(
      engine(), "SELECT d.y, SUM(f.v), SUM(f.w), COUNT(*) FROM f JOIN d ON f.dk = d.k GROUP BY d.y ORDER BY d.y", c,
      "GROUP BY over a join");
  const auto* join = test::plan_node(grouped, "Join");
  REQUIRE(join);
  CHECK(join->backend == Backend::Compute);
  CHECK_MESSAGE(join->algorithm.find("global hash table") != std::string::npos, join->algorithm);
  const Result scalar = check_sql(engine(), "SELECT SUM(f.v), MIN(d.y) FROM f JOIN d ON f.dk = d.k WHERE f.v > 0", c,
                                  "scalar aggregate over a join");
  const auto* sjoin = test::plan_node(scalar, "Join");
  REQUIRE(sjoin);
  CHECK_MESSAGE(sjoin->algorithm.find("global hash table") != std::string::npos, sjoin->algorithm);
  const Result plain = check_sql(engine(), "SELECT f.v, d.y FROM f JOIN d ON f.dk = d.k", c, "plain join");
  const auto* pjoin = test::plan_node(plain, "Join");
  REQUIRE(pjoin);
  CHECK_MESSAGE(pjoin->algorithm.find("indexed nested-loop") != std::string::npos, pjoin->algorithm);
}

TEST_CASE("engine-compute-join: what the compute join refuses is named, and auto places the rest") {
  std::mt19937_64 rng(41);
  const Catalog c = join_tables(rng, 200, 200, 20);
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
  refused("SELECT r.a, s.b FROM r JOIN s ON r.k = s.k AND r.a + 1 < s.b",
          "is not a key equality, a band or a comparison of a left with a right column");
  refused("SELECT r.a, s.b FROM r JOIN s ON r.k = s.k AND r.a <> s.b", "is not a key equality");
  // A product runs as the PRODUCT fragment (product_fragment.cpp).
  CHECK(test::plan_node(check_sql(engine(), "SELECT r.a, s.b FROM r, s", c, "product"), "Join")->backend ==
        Backend::Compute);
  // Under auto, on a GPU the join runs on compute and the report says so; on a CPU Vulkan device the
  // CPU engine runs it, with that reason.
  const bool gpu = engine().vk_capabilities().device_type != "cpu";
  const Result r = engine().execute_sql("SELECT r.a, s.b FROM r JOIN s ON r.k = s.k", c, Backend::Auto);
  const auto* join = test::plan_node(r, "Join");
  REQUIRE(join);
  CHECK(join->backend == (gpu ? Backend::Compute : Backend::Cpu));
  CHECK(join->reason.find(gpu ? "compute" : "CPU implementation") != std::string::npos);
  // EXPLAIN with the compute backend places the join there.
  const ExecutionReport plan = engine().explain_sql("SELECT r.a, s.b FROM r JOIN s ON r.k = s.k", c, Backend::Compute);
  bool placed = false;
  for (const auto& n : plan.plan) placed |= n.node.rfind("Join", 0) == 0 && n.backend == Backend::Compute;
  CHECK(placed);
  CHECK(engine().take_debug_messages().empty());
}

TEST_CASE("engine-compute-join: a key known to be distinct takes the global hash table past 2^20 rows") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  MESSAGE("engine-compute-join distinct keys: seed " << seed);
  std::mt19937_64 rng(seed);
  // Both sides above kGlobalHashRows (the size rule alone would partition): d's keys distinct and
  // shuffled, e's the same keys with one repeated; f probes both, some keys missing.
  const size_t n = (size_t(1) << 20) + 4096;
  std::vector<int32_t> keys(n);
  for (size_t i = 0; i < n; ++i) keys[i] = int32_t(3 * i);
  std::shuffle(keys.begin(), keys.end(), rng);
  std::vector<int32_t> repeated = keys;
  repeated[7] = repeated[8];
  Catalog c;
  c.add("d", Table{{Column::ints("k", keys), Column::ints("y", random_ints(rng, n, 0, 9))}});
  c.add("e", Table{{Column::ints("k", repeated), Column::ints("y", random_ints(rng, n, 0, 9))}});
  c.add("f", Table{{Column::ints("k", random_ints(rng, n + 100, 0, int32_t(3 * n))),
                    Column::ints("v", random_ints(rng, n + 100, -1000, 1000))}});
  // Without the star aggregate, which would take these aggregates over one join whole.
  Engine& joins = test::engine_with({.star_aggregate = false});
  auto algorithm_of = [&](const std::string& sql) {
    const Result r = check_sql(joins, sql, c, "distinct keys");
    const auto* join = test::plan_node(r, "Join");
    return join ? join->algorithm : std::string("no join node");
  };
  const std::string unique = algorithm_of("SELECT COUNT(*), SUM(f.v) FROM f JOIN d ON f.k = d.k");
  CHECK_MESSAGE(unique.find("known to be distinct") != std::string::npos, unique);
  CHECK_MESSAGE(unique.find("global hash table") != std::string::npos, unique);
  const std::string filtered =
      algorithm_of("SELECT d.y, COUNT(*), SUM(f.v) FROM f JOIN d ON f.k = d.k WHERE d.y < 9 GROUP BY d.y");
  CHECK_MESSAGE(filtered.find("known to be distinct") != std::string::npos, filtered);
  const std::string dup = algorithm_of("SELECT COUNT(*), SUM(f.v) FROM f JOIN e ON f.k = e.k");
  CHECK_MESSAGE(dup.find("known to be distinct") == std::string::npos, dup);
}
