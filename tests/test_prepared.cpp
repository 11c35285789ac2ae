// Prepared statements (Engine::prepare, Engine::execute(PreparedStatement&, ...)): every run of a
// prepared statement equals execute_sql of its text on the same backend, run after run; a replaced
// table or another catalog prepares it again; errors are typed and leave the engine usable.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine_compute_support.h"
#include "gfxq/ssb.h"
#include "ssb/ssb_harness.h"

namespace {

using namespace gfxq;

// The SSB tables at a small scale, generated in memory.
Catalog ssb_catalog(double sf) {
  SsbOptions o;
  o.scale_factor = sf;
  Catalog c;
  for (auto& [name, table] : generate_ssb_tables(o)) c.add(name, std::move(table));
  return c;
}

// Runs `sql` prepared three times and from its text, on `backend`: the same tables every time.
void check_prepared(Engine& engine, const std::string& sql, const Catalog& catalog, Backend backend,
                    const std::string& what) {
  INFO(what << " on " << to_string(backend) << "\nsql: " << sql);
  const Result want = engine.execute_sql(sql, catalog, backend);
  PreparedStatement statement = engine.prepare(sql, catalog, backend);
  CHECK(statement.sql() == sql);
  CHECK(statement.backend() == backend);
  for (int run = 0; run < 3; ++run) {
    const Result got = engine.execute(statement, catalog);
    CHECK(got.report.prepared == "plan reused");
    CHECK(got.report.text().find("prepared: plan reused") != std::string::npos);
    CHECK(got.report.backend == want.report.backend);
    CHECK(got.report.algorithm == want.report.algorithm);
    const std::string diff = test::table_difference(want.table, got.table);
    CHECK_MESSAGE(diff.empty(), "run " << run << ": " << diff << "\n" << got.report.text());
  }
}

// A random condition over t's columns a, b (INT) and x (FLOAT): two or three comparisons with
// literals from the data, joined by AND and OR.
std::string random_where(const Table& t, std::mt19937_64& rng) {
  const char* columns[] = {"a", "b", "x"};
  const char* ops[] = {"<", "<=", ">", ">=", "=", "<>"};
  auto term = [&] {
    const size_t c = std::uniform_int_distribution<size_t>(0, 2)(rng);
    const size_t row = std::uniform_int_distribution<size_t>(0, t.rows() - 1)(rng);
    // t's columns a, b (int32) and x (float) are its first three.
    const double v = c == 2 ? double(t.columns[2].as<float>()[row]) : double(t.columns[c].as<int32_t>()[row]);
    const std::string literal = c == 2 ? (std::isfinite(v) ? std::to_string(v) : "0.5") : std::to_string(int64_t(v));
    return std::string(columns[c]) + " " + ops[std::uniform_int_distribution<size_t>(0, 5)(rng)] + " " + literal;
  };
  std::string w = term() + " AND (" + term() + " OR " + term() + ")";
  return w;
}

}  // namespace

TEST_CASE("prepared: the 13 SSB queries run prepared equal their text on the CPU engine, compute and auto") {
  const Catalog catalog = ssb_catalog(0.002);
  Engine& engine = test::debug_engine();
  for (const auto& q : ssb::load_queries(GFXQ_SSB_QUERY_DIR)) {
    check_prepared(engine, q.sql, catalog, Backend::Cpu, q.name);
    check_prepared(engine, q.sql, catalog, Backend::Auto, q.name);
    if (engine.vk_capabilities().available) check_prepared(engine, q.sql, catalog, Backend::Compute, q.name);
  }
}

TEST_CASE("prepared: random CNF, GROUP BY, ORDER BY and set queries run prepared equal their text on every backend") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  MESSAGE("prepared statements: seed " << seed);
  std::mt19937_64 rng(seed);
  const Table t = test::random_table(1000, Distribution::Uniform, seed);
  const Catalog catalog = test::catalog_of(t);
  Engine& engine = test::debug_engine();
  for (int i = 0; i < 6; ++i) {
    const std::string where = random_where(t, rng);
    const std::vector<std::string> queries = {
        "SELECT COUNT(*) FROM t WHERE " + where,
        "SELECT b, COUNT(*), SUM(a), MIN(x) FROM t WHERE " + where + " GROUP BY b ORDER BY b",
        "SELECT a, x FROM t WHERE " + where + " ORDER BY a, x LIMIT 20",
        "SELECT DISTINCT b FROM t WHERE " + where + " ORDER BY b",
        "SELECT b FROM t WHERE " + where + " INTERSECT SELECT b FROM t WHERE b > 0 ORDER BY b",
    };
    for (const std::string& sql : queries) {
      check_prepared(engine, sql, catalog, Backend::Cpu, "query " + std::to_string(i));
      check_prepared(engine, sql, catalog, Backend::Auto, "query " + std::to_string(i));
      if (engine.vk_capabilities().available)
        check_prepared(engine, sql, catalog, Backend::Compute, "query " + std::to_string(i));
    }
    if (engine.gl_capabilities().available)
      check_prepared(engine, queries[0], catalog, Backend::Raster, "query " + std::to_string(i));
  }
}

TEST_CASE("prepared: a replaced table or another catalog prepares the statement again") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  Catalog catalog = test::catalog_of(test::random_table(500, Distribution::Uniform, seed));
  Engine engine;
  const std::string sql = "SELECT b, COUNT(*), SUM(a) FROM t WHERE b > -500 GROUP BY b ORDER BY b";
  PreparedStatement statement = engine.prepare(sql, catalog, Backend::Cpu);
  CHECK(engine.execute(statement, catalog).report.prepared == "plan reused");

  // A table the statement does not read changes nothing.
  catalog.add("other", test::random_table(10, Distribution::Uniform, seed + 1));
  CHECK(engine.execute(statement, catalog).report.prepared == "plan reused");

  catalog.add("t", test::random_table(700, Distribution::Skewed, seed + 2));
  Result r = engine.execute(statement, catalog);
  CHECK(r.report.prepared == "prepared again (table t changed)");
  CHECK(test::table_difference(engine.execute_sql(sql, catalog, Backend::Cpu).table, r.table).empty());
  CHECK(engine.execute(statement, catalog).report.prepared == "plan reused");

  const Catalog copy = catalog;
  r = engine.execute(statement, copy);
  CHECK(r.report.prepared == "prepared again (another catalog)");
  CHECK(test::table_difference(engine.execute_sql(sql, copy, Backend::Cpu).table, r.table).empty());

  // A table that is gone: the binder's error; the statement stays as it was (prepared over `copy`)
  // and the engine goes on.
  Catalog without;
  without.add("u", test::random_table(5, Distribution::Uniform, seed));
  CHECK_THROWS_AS(engine.execute(statement, without), Error);
  CHECK(engine.execute(statement, copy).report.prepared == "plan reused");
}

TEST_CASE("prepared: errors are typed and the engine stays usable") {
  const Catalog catalog = test::catalog_of(test::random_table(100, Distribution::Uniform, 7));
  Engine engine;
  Engine other;
  auto code_of = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::Internal;  // nothing thrown
  };
  PreparedStatement empty;
  CHECK(empty.sql().empty());
  CHECK(code_of([&] { engine.execute(empty, catalog); }) == ErrorCode::InvalidInput);
  PreparedStatement theirs = other.prepare("SELECT COUNT(*) FROM t", catalog, Backend::Cpu);
  CHECK(code_of([&] { engine.execute(theirs, catalog); }) == ErrorCode::InvalidInput);
  CHECK(code_of([&] { engine.prepare("EXPLAIN SELECT COUNT(*) FROM t", catalog); }) == ErrorCode::InvalidQuery);
  CHECK(code_of([&] { engine.prepare("SELEC COUNT(*) FROM t", catalog); }) == ErrorCode::InvalidQuery);
  CHECK(code_of([&] { engine.prepare("SELECT COUNT(*) FROM nowhere", catalog); }) == ErrorCode::InvalidQuery);
  PreparedStatement ok = engine.prepare("SELECT COUNT(*) FROM t WHERE a > 0", catalog, Backend::Cpu);
  const Result r = engine.execute(ok, catalog);
  CHECK(test::table_difference(engine.execute_sql(ok.sql(), catalog, Backend::Cpu).table, r.table).empty());
}

TEST_CASE("prepared: Database::prepare and run, and a table replaced through the database") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  Database db;
  db.add("t", test::random_table(300, Distribution::Uniform, seed));
  const std::string sql = "SELECT COUNT(*), SUM(b) FROM t WHERE a > 0";
  PreparedStatement statement = db.prepare(sql, Backend::Cpu);
  Result r = db.run(statement);
  CHECK(r.report.prepared == "plan reused");
  CHECK(test::table_difference(db.sql(sql, Backend::Cpu).table, r.table).empty());
  db.add("t", test::random_table(400, Distribution::Skewed, seed + 1));
  r = db.run(statement);
  CHECK(r.report.prepared == "prepared again (table t changed)");
  CHECK(test::table_difference(db.sql(sql, Backend::Cpu).table, r.table).empty());
}

TEST_CASE("prepared: on two logical devices a prepared statement runs partitioned as its text does") {
  EngineOptions options;
  options.debug = test::vk_validation_wanted();
  options.vk_devices = {"0", "0"};
  options.partitioning = Partitioning::Required;
  Engine engine(options);
  if (!engine.vk_capabilities().available) {
    MESSAGE("no Vulkan device: the partitioned prepared statement is not checked");
    return;
  }
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  const Catalog catalog = test::catalog_of(test::random_table(5000, Distribution::Uniform, seed));
  const std::string sql = "SELECT b, COUNT(*), SUM(a) FROM t WHERE b > 0 GROUP BY b ORDER BY b";
  const Result want = engine.execute_sql(sql, catalog, Backend::Compute);
  REQUIRE(!want.report.partitions.empty());
  PreparedStatement statement = engine.prepare(sql, catalog, Backend::Compute);
  for (int run = 0; run < 2; ++run) {
    const Result got = engine.execute(statement, catalog);
    CHECK(got.report.prepared == "plan reused");
    CHECK(got.report.partitions.size() == want.report.partitions.size());
    CHECK(test::table_difference(want.table, got.table).empty());
  }
}
