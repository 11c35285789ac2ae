// Differential fuzzing (issue 26): random tables and queries over the whole SQL subset, answered by
// the CPU reference engine, the raster and compute backends and SQLite, compared exactly. A failure
// prints the seed and the case shrunk to a small table and query. GFXQ_DIFF_SEED=<seed> replays a
// run; bench/fuzz.sh runs the same checks for hours (build/gfxq_fuzz).
#include <doctest/doctest.h>

#include <cstdlib>
#include <random>
#include <string>

#include "differential/analytic.h"
#include "differential/check.h"
#include "differential/generator.h"
#include "differential/runners.h"
#include "gpu_support.h"
#include "test_support.h"

namespace {

using namespace gfxq;
using namespace gfxq::differential;

//! The seed of a batch: GFXQ_DIFF_SEED when set (to replay a failure), else random.
uint64_t batch_seed() {
  if (const char* s = std::getenv("GFXQ_DIFF_SEED"); s && *s) return std::strtoull(s, nullptr, 0);
  return std::random_device{}() * 0x100000001ull ^ std::random_device{}();
}

//! Runs `cases` cases (a new table set every `per_tables` queries) and fails on the first mismatch.
void run_batch(uint64_t cases, int per_tables, GeneratorOptions options) {
  const uint64_t seed = batch_seed();
  INFO("differential batch seed " << seed << " (replay: GFXQ_DIFF_SEED=" << seed << ")");
  Generator gen(seed, options);
  EngineRunner runner(test::debug_engine());
  Checker checker(runner, {});
  Tables tables;
  uint64_t tables_seed = 0;
  for (uint64_t i = 0; i < cases; ++i) {
    if (i % per_tables == 0) tables = gen.tables(tables_seed = gen.next_seed());
    const uint64_t query_seed = gen.next_seed();
    const Case c{tables, gen.query(tables, query_seed), query_seed};
    const auto mismatch = checker.check(c);
    if (mismatch) {
      INFO("case " << i << ", tables seed " << tables_seed << ", query seed " << query_seed);
      FAIL(failure_report(checker, c, *mismatch));
    }
  }
  MESSAGE(checker.stats.text());
  CHECK(checker.stats.total_compared() > cases);  // every case compared at least one other answer
}

//! Runs `cases` analytic cases (a new table set every 10 queries) and fails on the first mismatch.
void run_analytic_batch(uint64_t cases, AnalyticCheckOptions check, AnalyticOptions options) {
  const uint64_t seed = batch_seed();
  INFO("analytic batch seed " << seed << " (replay: GFXQ_DIFF_SEED=" << seed << ")");
  AnalyticGenerator gen(seed, options);
  EngineRunner runner(test::debug_engine());
  AnalyticChecker checker(runner, check);
  Tables tables;
  uint64_t tables_seed = 0;
  for (uint64_t i = 0; i < cases; ++i) {
    if (i % 10 == 0) tables = gen.tables(tables_seed = gen.next_seed());
    const uint64_t query_seed = gen.next_seed();
    const ACase c{tables, gen.query(tables, query_seed), query_seed};
    if (const auto mismatch = checker.check(c)) {
      INFO("case " << i << ", tables seed " << tables_seed << ", query seed " << query_seed);
      FAIL(checker.failure_report(c, *mismatch));
    }
  }
  MESSAGE(checker.stats.text());
  CHECK(checker.stats.total_compared() >= cases / 2);  // most cases compared another answer
}

}  // namespace

TEST_CASE("differential: decimal ranks and the SQLite oracle on hand-made cases") {
  CHECK(decimal_rank("0.1", 10) == 1);
  CHECK(decimal_rank("0.2", 10) == 2);
  CHECK(decimal_rank("0.9", 10) == 9);
  CHECK(decimal_rank("1e-1", 10) == 1);
  CHECK(decimal_rank("0.5e0", 7) == 4);
  CHECK(decimal_rank("1", 7) == 7);
  CHECK(decimal_rank("0.001", 7) == 1);
  CHECK(decimal_rank("0.5", 0) == 0);

  // NaN is the largest FLOAT and equals itself; -0.0 = 0.0; SUM is exact; AVG of INT rounds once.
  auto tables = std::make_shared<std::vector<NamedTable>>();
  tables->push_back({"t", Table{{Column::floats("x", {std::nanf(""), -0.0f, 1e20f, 1.0f, -1e20f, 0.0f}),
                                 Column::ints("a", {2147483647, 2147483647, 2147483647, 1, 2, 3})}}});
  SqliteOracle oracle;
  Case c{tables, {}, 0};
  c.query.from = "t";
  Item sum;
  sum.kind = Item::Kind::Aggregate;
  sum.agg = AggKind::Sum;
  sum.column = {"", "x"};
  c.query.items = {sum};
  Condition not_nan;
  not_nan.column = {"", "x"};
  not_nan.op = CmpOp::Lt;
  not_nan.rhs = literal_of(1e30);
  c.query.where = not_nan;
  Table r = oracle.run(c);
  CHECK(std::get<double>(r.columns[0].value(0)) == 1.0);  // 1e20 + 1 - 1e20, exactly
  c.query.where.reset();
  r = oracle.run(c);
  CHECK(std::isnan(std::get<double>(r.columns[0].value(0))));
  // MAX is NaN (the largest value).
  Item max = sum;
  max.agg = AggKind::Max;
  c.query.items = {max};
  CHECK(std::isnan(std::get<float>(oracle.run(c).columns[0].value(0))));
  // x = 0 selects -0.0 and 0.0, kept in row order with their stored bits.
  Item x;
  x.column = {"", "x"};
  c.query.items = {x};
  Condition zero;
  zero.column = {"", "x"};
  zero.op = CmpOp::Eq;
  zero.rhs = literal_of(0.0);
  c.query.where = zero;
  r = oracle.run(c);
  REQUIRE(r.rows() == 2);
  CHECK(std::signbit(std::get<float>(r.columns[0].value(0))));
  CHECK(!std::signbit(std::get<float>(r.columns[0].value(1))));
  // AVG(a) = (3 * (2^31 - 1) + 6) / 6, rounded once.
  Item avg = sum;
  avg.agg = AggKind::Avg;
  avg.column = {"", "a"};
  c.query.items = {avg};
  c.query.where.reset();
  CHECK(std::get<double>(oracle.run(c).columns[0].value(0)) == (3.0 * 2147483647.0 + 6.0) / 6.0);
  // The same answers from the CPU engine.
  EngineRunner runner(test::debug_engine());
  Checker checker(runner, {.backends = {}, .sqlite = true});
  CHECK(!checker.check(c).has_value());
}

TEST_CASE("differential: the minimiser shrinks a failing case to its smallest form") {
  // A case that fails on the "cpu" side (the engine refuses it): a query over a missing column.
  auto tables = std::make_shared<std::vector<NamedTable>>();
  std::vector<int32_t> values(200);
  for (int i = 0; i < 200; ++i) values[i] = i;
  tables->push_back({"t", Table{{Column::ints("a", values), Column::ints("b", values)}}});
  Case c{tables, {}, 0};
  c.query.from = "t";
  Item nope, a;
  nope.column = {"", "nope"};
  a.column = {"", "a"};
  c.query.items = {nope, a};
  CpuRunner runner;
  Checker checker(runner, {.backends = {}, .sqlite = false});
  const auto m = checker.check(c);
  REQUIRE(m.has_value());
  CHECK(m->side == "cpu");
  const Case small = minimise(checker, c, "cpu");
  CHECK(small.table("t").rows() == 0);
  CHECK(small.table("t").columns.size() == 1);
  CHECK(small.query.items.size() == 1);
  CHECK(checker.check_side(small, "cpu").has_value());  // still failing: an unknown column
}

TEST_CASE("differential: batch 1 of 4") {
  run_batch(900, 10, {});
}
TEST_CASE("differential: batch 2 of 4") {
  run_batch(900, 10, {});
}
TEST_CASE("differential: batch 3 of 4") {
  run_batch(900, 10, {});
}
TEST_CASE("differential: batch 4 of 4, larger tables") {
  run_batch(300, 6, {.max_rows = 2000, .large_rows = 20000, .large_share = 0.2});
}

namespace {

AExpr column(const std::string& table, const std::string& name, Kind kind) {
  AExpr e;
  e.table = table;
  e.name = name;
  e.kind = kind;
  return e;
}

//! SELECT k FROM t [op SELECT k FROM u].
AQuery keys_of(std::vector<std::string> tables, std::vector<ASetOp> ops) {
  AQuery q;
  for (const std::string& t : tables) {
    ASelect s;
    s.items = {{column(t, "k", Kind::Int), ""}};
    s.tables = {t};
    q.operands.push_back(s);
  }
  q.ops = std::move(ops);
  return q;
}

}  // namespace

TEST_CASE("differential: the analytic SQLite oracle on hand-made cases") {
  // t.k holds 1 three times, 2 once, NULL twice; u.k holds 1 twice, NULL once, 3 once.
  auto tables = std::make_shared<std::vector<NamedTable>>();
  const auto keys = [](std::vector<int32_t> v, std::vector<uint8_t> nulls) {
    Column c = Column::ints("k", std::move(v));
    c.nulls = std::move(nulls);
    return Table{{c, Column::ints("i", std::vector<int32_t>(c.size(), 2147483647))}};
  };
  tables->push_back({"t", keys({1, 1, 2, 0, 1, 0}, {0, 0, 0, 1, 0, 1})});
  tables->push_back({"u", keys({1, 0, 3, 1}, {0, 1, 0, 0})});
  AnalyticSqlite oracle;
  const auto count = [&](const AQuery& q, const Value& key) {
    const Table r = oracle.run({tables, q, 0}, {Type::Int32});
    uint64_t n = 0;
    for (uint64_t row = 0; row < r.rows(); ++row) n += r.columns[0].value(row) == key;
    return n;
  };
  // INTERSECT ALL keeps min(m, n) copies, EXCEPT ALL m - n; NULLs are equal.
  const AQuery intersect_all = keys_of({"t", "u"}, {{ASetOp::Op::Intersect, true}});
  CHECK(count(intersect_all, int32_t{1}) == 2);
  CHECK(count(intersect_all, Value{}) == 1);
  CHECK(count(intersect_all, int32_t{2}) == 0);
  const AQuery except_all = keys_of({"t", "u"}, {{ASetOp::Op::Except, true}});
  CHECK(count(except_all, int32_t{1}) == 1);
  CHECK(count(except_all, Value{}) == 1);
  CHECK(count(except_all, int32_t{2}) == 1);
  // INTERSECT binds tighter: t UNION ALL (u INTERSECT t) holds t's rows and u's 1 and NULL once more.
  const AQuery mixed = keys_of({"t", "u", "t"}, {{ASetOp::Op::Union, true}, {ASetOp::Op::Intersect, false}});
  CHECK(count(mixed, int32_t{1}) == 4);
  CHECK(count(mixed, Value{}) == 3);
  CHECK(count(mixed, int32_t{3}) == 0);
  // An int64 overflow (i * i * i) is an Overflow error, as the CPU engine's.
  AQuery cube = keys_of({"t"}, {});
  AExpr i = column("t", "i", Kind::Int);
  AExpr square;
  square.op = AExpr::Op::Mul;
  square.args = {i, i};
  AExpr product = square;
  product.args = {square, i};
  cube.operands[0].items = {{product, ""}};
  test::expect_error([&] { oracle.run({tables, cube, 0}, {Type::Int64}); }, ErrorCode::Overflow, {"overflow"});
  // The CPU engine and every backend agree with these answers.
  EngineRunner runner(test::debug_engine());
  AnalyticChecker checker(runner, {});
  for (const AQuery& q : {intersect_all, except_all, mixed, cube}) {
    const auto m = checker.check({tables, q, 0});
    CHECK_MESSAGE(!m, q.sql() << ": " << (m ? m->detail : ""));
  }
}

TEST_CASE("differential: the analytic minimiser shrinks a failing case") {
  // A case failing on the "cpu" side (the engine refuses it): a select list naming a missing column.
  AnalyticGenerator gen(11, {.max_rows = 30});
  ACase c{gen.tables(12), {}, 0};
  c.query = keys_of({"t"}, {});
  ASelect& s = c.query.operands[0];
  s.items.push_back({column("t", "nope", Kind::Int), ""});
  s.items.push_back({column("t", "s", Kind::String), "x3"});
  s.tables = {"t", "u"};
  AOrder by;
  by.ordinal = 3;
  c.query.order_by = {by};
  EngineRunner runner(test::debug_engine());
  AnalyticChecker checker(runner, {.backends = {}, .sqlite = false});
  REQUIRE(checker.check(c).has_value());
  const ACase small = minimise(checker, c, "cpu");
  CHECK(small.query.operands[0].items.size() == 1);
  CHECK(small.query.operands[0].tables.size() == 1);
  CHECK(small.query.order_by.empty());
  for (const NamedTable& t : *small.tables) CHECK(t.table.rows() == 0);
  CHECK(checker.check_side(small, "cpu").has_value());
  CHECK(small.text().find("nope") != std::string::npos);
}

TEST_CASE("differential: analytic SQL on the CPU engine and auto against SQLite") {
  run_analytic_batch(10000, {.backends = {Backend::Auto}, .sqlite = true}, {});
}
TEST_CASE("differential: analytic SQL on every backend with tiny tables") {
  run_analytic_batch(200, {}, {.max_rows = 8, .plain_share = 0.8, .null_share = 0.25});
}
