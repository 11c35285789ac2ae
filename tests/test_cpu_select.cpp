// CPU reference engine: selections (WHERE over one table), exact comparisons and the total order.
#include <doctest/doctest.h>

#include <bit>
#include <limits>

#include "gfxq/cpu.h"
#include "test_support.h"
#include "gfxq/error.h"

using namespace gfxq;
using namespace gfxq::test;

namespace {

const float kNaN2 = std::bit_cast<float>(0xffc00001u);  // a negative NaN with a payload
const double kNaND = std::numeric_limits<double>::quiet_NaN();

// row:      0     1      2     3     4      5      6     7
// a:        3    -1      7     3   kMin   kMax     0     2
// b:      0.5  -0.0    NaN   0.0   inf   -inf    NaN2   0.1f
Table t() {
  return Table{{Column::ints("a", {3, -1, 7, 3, kMin, kMax, 0, 2}),
                Column::floats("b", {0.5f, -0.0f, kNaN, 0.0f, kInf, -kInf, kNaN2, 0.1f})}};
}

Cnf where(std::vector<std::vector<Comparison>> clauses) {
  Cnf cnf;
  for (auto& terms : clauses) cnf.clauses.push_back(Clause{std::move(terms)});
  return cnf;
}

// Rows of t() satisfying the single comparison `name op rhs`.
std::vector<uint64_t> rows(const std::string& name, CmpOp op, Operand rhs) {
  return cpu::select_rows(t(), "t", where({{Comparison{col(name), op, std::move(rhs)}}}));
}

using Rows = std::vector<uint64_t>;

}  // namespace

TEST_CASE("cpu: select with an empty condition keeps every row, in order") {
  CHECK(cpu::select_rows(t(), "t", Cnf{}) == Rows{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(cpu::select_rows(Table{{Column::ints("a", {})}}, "t", Cnf{}).empty());
}

TEST_CASE("cpu: select compares INT columns with literals exactly") {
  CHECK(rows("a", CmpOp::Eq, 3.0) == Rows{0, 3});
  CHECK(rows("a", CmpOp::Ne, 3.0) == Rows{1, 2, 4, 5, 6, 7});
  CHECK(rows("a", CmpOp::Lt, 3.0) == Rows{1, 4, 6, 7});
  CHECK(rows("a", CmpOp::Le, 3.0) == Rows{0, 1, 3, 4, 6, 7});
  CHECK(rows("a", CmpOp::Gt, 3.0) == Rows{2, 5});
  CHECK(rows("a", CmpOp::Ge, 3.0) == Rows{0, 2, 3, 5});
  // Fractional literals compare the mathematical values.
  CHECK(rows("a", CmpOp::Gt, 2.5) == Rows{0, 2, 3, 5});
  CHECK(rows("a", CmpOp::Eq, 2.5).empty());
  CHECK(rows("a", CmpOp::Lt, -0.5) == Rows{1, 4});
  CHECK(rows("a", CmpOp::Ge, -1.0000001) == Rows{0, 1, 2, 3, 5, 6, 7});
  // INT32 extremes.
  CHECK(rows("a", CmpOp::Le, -2147483648.0) == Rows{4});
  CHECK(rows("a", CmpOp::Lt, -2147483648.0).empty());
  CHECK(rows("a", CmpOp::Gt, 2147483646.0) == Rows{5});
  CHECK(rows("a", CmpOp::Gt, 2147483646.5) == Rows{5});
  CHECK(rows("a", CmpOp::Ge, 2147483647.5).empty());
  // Every INT is below NaN in the total order.
  CHECK(rows("a", CmpOp::Lt, kNaND) == Rows{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("cpu: select on FLOAT follows the total order (-0.0 == 0.0, NaN == NaN and largest)") {
  CHECK(rows("b", CmpOp::Eq, 0.0) == Rows{1, 3});
  CHECK(rows("b", CmpOp::Eq, -0.0) == Rows{1, 3});
  CHECK(rows("b", CmpOp::Lt, 0.0) == Rows{5});
  CHECK(rows("b", CmpOp::Gt, 0.0) == Rows{0, 2, 4, 6, 7});
  CHECK(rows("b", CmpOp::Eq, kNaND) == Rows{2, 6});  // both NaNs, whatever their sign and payload
  CHECK(rows("b", CmpOp::Ne, kNaND) == Rows{0, 1, 3, 4, 5, 7});
  CHECK(rows("b", CmpOp::Gt, 1.0) == Rows{2, 4, 6});                     // NaN > 1
  CHECK(rows("b", CmpOp::Gt, static_cast<double>(kInf)) == Rows{2, 6});  // NaN > inf
  CHECK(rows("b", CmpOp::Le, static_cast<double>(-kInf)) == Rows{5});
  CHECK(rows("b", CmpOp::Ge, kNaND) == Rows{2, 6});
  // 0.1f is not 0.1: the comparison is exact, not rounded to float.
  CHECK(rows("b", CmpOp::Eq, 0.1).empty());
  CHECK(rows("b", CmpOp::Eq, static_cast<double>(0.1f)) == Rows{7});
  CHECK(rows("b", CmpOp::Gt, 0.1) == Rows{0, 2, 4, 6, 7});  // 0.1f = 0.100000001490116... > 0.1
}

TEST_CASE("cpu: select compares columns with columns, INT against FLOAT as doubles") {
  const Table u{{Column::ints("i", {1, 2, 3, 0, 5}), Column::floats("f", {1.0f, 2.5f, kNaN, -0.0f, 4.5f}),
                 Column::floats("g", {1.0f, kNaN, kNaN, 0.0f, -kInf})}};
  const auto sel = [&](const std::string& l, CmpOp op, const std::string& r) {
    return cpu::select_rows(u, "u", where({{Comparison{col(l), op, col(r)}}}));
  };
  CHECK(sel("i", CmpOp::Eq, "f") == Rows{0, 3});  // 1 = 1.0, 0 = -0.0
  CHECK(sel("i", CmpOp::Lt, "f") == Rows{1, 2});  // 2 < 2.5, 3 < NaN
  CHECK(sel("f", CmpOp::Gt, "i") == Rows{1, 2});
  CHECK(sel("f", CmpOp::Eq, "g") == Rows{0, 2, 3});  // NaN = NaN, -0.0 = 0.0
  CHECK(sel("f", CmpOp::Lt, "g") == Rows{1});
  CHECK(sel("g", CmpOp::Le, "f") == Rows{0, 2, 3, 4});
}

TEST_CASE("cpu: select evaluates CNF: OR within a clause, AND across clauses") {
  const Comparison a_lt_0{col("a"), CmpOp::Lt, 0.0}, a_gt_5{col("a"), CmpOp::Gt, 5.0}, b_ge_0{col("b"), CmpOp::Ge, 0.0};
  // a < 0 OR a > 5: rows 1, 2, 4, 5; b >= 0: rows 0, 1, 2, 3, 4, 6, 7.
  CHECK(cpu::select_rows(t(), "t", where({{a_lt_0, a_gt_5}})) == Rows{1, 2, 4, 5});
  CHECK(cpu::select_rows(t(), "t", where({{a_lt_0, a_gt_5}, {b_ge_0}})) == Rows{1, 2, 4});
  CHECK(cpu::select_rows(t(), "t", where({{a_lt_0}, {a_gt_5}})).empty());
}

TEST_CASE("cpu: select accepts qualified columns and reports unknown ones") {
  const Cnf qualified = where({{Comparison{ColumnRef{"t", "a"}, CmpOp::Eq, 7.0}}});
  CHECK(cpu::select_rows(t(), "t", qualified) == Rows{2});
  CHECK_THROWS_WITH_AS(cpu::select_rows(t(), "u", qualified),
                       "unknown table qualifier 't' in WHERE (the query reads table u)", Error);
  CHECK_THROWS_WITH_AS(cpu::select_rows(t(), "t", where({{Comparison{col("c"), CmpOp::Eq, 7.0}}})),
                       "unknown column 'c' in WHERE (table t has: a, b)", Error);
}

TEST_CASE("cpu: execute of a selection keeps row order and input values, and report names each stage") {
  Catalog c;
  c.add("t", t());
  Query q;
  q.table = "t";
  q.items = {col("b"), col("a")};
  q.where = where({{Comparison{col("a"), CmpOp::Lt, 3.0}}});
  const Result r = cpu::execute(q, c);
  REQUIRE(r.table.columns.size() == 2);
  CHECK(r.table.columns[0].name == "b");
  CHECK(r.table.columns[1].name == "a");
  CHECK(r.table.column("a").as<int32_t>() == std::vector<int32_t>{-1, kMin, 0, 2});
  const auto& b = r.table.column("b").as<float>();
  REQUIRE(b.size() == 4);
  CHECK(std::bit_cast<uint32_t>(b[0]) == std::bit_cast<uint32_t>(-0.0f));  // selections copy values as they are
  CHECK(b[1] == kInf);
  CHECK(std::bit_cast<uint32_t>(b[2]) == std::bit_cast<uint32_t>(kNaN2));
  CHECK(b[3] == 0.1f);

  CHECK(r.report.backend == Backend::Cpu);
  CHECK(r.report.reason == "requested");
  CHECK(r.report.algorithm == "cpu-reference: scan + filter + project");
  REQUIRE(r.report.passes.size() == 4);
  CHECK(r.report.passes[0].kind == "bind");
  CHECK(r.report.passes[1].kind == "scan");
  CHECK(r.report.passes[1].items == 8);
  CHECK(r.report.passes[2].kind == "filter");
  CHECK(r.report.passes[2].items == 8);
  CHECK(r.report.passes[2].passed == 4u);
  CHECK(r.report.passes[2].detail == "(a < 3)");
  CHECK(r.report.passes[3].kind == "project");
  CHECK(r.report.total_ms >= 0);
}

TEST_CASE("cpu: execute of SELECT * over an empty and a one-row table") {
  Catalog c;
  c.add("e", Table{{Column::ints("a", {}), Column::floats("b", {})}});
  c.add("one", Table{{Column::ints("a", {kMin}), Column::floats("b", {-0.0f})}});
  Query q;
  q.items = {Star{}};
  q.table = "e";
  const Result empty = cpu::execute(q, c);
  CHECK(empty.table.schema() == "a:int,b:float");
  CHECK(empty.table.rows() == 0);
  q.table = "one";
  const Result one = cpu::execute(q, c);
  CHECK(one.table.schema() == "a:int,b:float");
  CHECK(one.table.column("a").as<int32_t>() == std::vector<int32_t>{kMin});
  q.where = where({{Comparison{col("b"), CmpOp::Eq, 0.0}}});
  CHECK(cpu::execute(q, c).table.rows() == 1);
  q.where = where({{Comparison{col("b"), CmpOp::Lt, 0.0}}});
  CHECK(cpu::execute(q, c).table.rows() == 0);
}
