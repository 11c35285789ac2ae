// CPU reference engine: PROJECT, PRODUCT, UNION, INTERSECT, EXCEPT (cpu.h).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "gfxq/cpu.h"
#include "test_support.h"
#include "gfxq/error.h"

using namespace gfxq;
using namespace gfxq::test;

namespace {


std::vector<uint32_t> bits(const std::vector<float>& v) {
  std::vector<uint32_t> out;
  for (float f : v) out.push_back(std::bit_cast<uint32_t>(f));
  return out;
}

// a(i, f): rows (1, 0.5) (2, NaN) (1, 0.5) (3, -0.0) (2, NaN2)
Table a_table() {
  return Table{{Column::ints("i", {1, 2, 1, 3, 2}), Column::floats("f", {0.5f, kNaN, 0.5f, -0.0f, kNegNaN})}};
}

// b(j, g): rows (3, 0.0) (4, 1) (2, NaN2) (3, 0.0)
Table b_table() {
  return Table{{Column::ints("j", {3, 4, 2, 3}), Column::floats("g", {0.0f, 1.0f, kNegNaN, 0.0f})}};
}

using Ints = std::vector<int32_t>;

}  // namespace

TEST_CASE("cpu: project picks columns in the given order, keeping every row") {
  const Table p = cpu::project(a_table(), {"f", "i", "f"});
  CHECK(p.schema() == "f:float,i:int,f:float");
  CHECK(p.columns[1].as<int32_t>() == Ints{1, 2, 1, 3, 2});
  CHECK(bits(p.columns[0].as<float>()) == bits({0.5f, kNaN, 0.5f, -0.0f, kNegNaN}));
  CHECK(cpu::project(a_table(), {}).columns.empty());
  CHECK_THROWS_WITH_AS(cpu::project(a_table(), {"i", "z"}), "unknown column 'z' (columns: i, f)", Error);
  // NULLs and result types pass through.
  Column n = Column::make("n", Type::Int64);
  n.push(int64_t{5});
  n.push(std::monostate{});
  const Table q = cpu::project(Table{{n}}, {"n"});
  CHECK(q.columns[0].value(0) == Value{int64_t{5}});
  CHECK(q.columns[0].is_null(1));
}

TEST_CASE("cpu: product pairs every row, a-major, with qualified names") {
  const Table x{{Column::ints("k", {1, 2})}};
  const Table y{{Column::ints("k", {7, 8, 9}), Column::floats("w", {0.5f, 1.5f, 2.5f})}};
  const Table p = cpu::product(x, "x", y, "y");
  CHECK(p.schema() == "x.k:int,y.k:int,y.w:float");
  CHECK(p.columns[0].as<int32_t>() == Ints{1, 1, 1, 2, 2, 2});
  CHECK(p.columns[1].as<int32_t>() == Ints{7, 8, 9, 7, 8, 9});
  CHECK(p.columns[2].as<float>() == std::vector<float>{0.5f, 1.5f, 2.5f, 0.5f, 1.5f, 2.5f});
  const Table none = cpu::product(x, "x", Table{{Column::ints("k", {})}}, "e");
  CHECK(none.schema() == "x.k:int,e.k:int");
  CHECK(none.rows() == 0);
}

TEST_CASE("cpu: set_union keeps distinct rows in first-appearance order, and floats in the total order") {
  const Table u = cpu::set_union(a_table(), b_table());
  CHECK(u.schema() == "i:int,f:float");  // names from a
  // a: (1,.5) (2,NaN) [dup] (3,-0.0) [dup: NaN2 == NaN] ; b: (3,0.0) dup of (3,-0.0), (4,1), (2,NaN2) dup
  CHECK(u.columns[0].as<int32_t>() == Ints{1, 2, 3, 4});
  CHECK(bits(u.columns[1].as<float>()) == bits({0.5f, kNaN, -0.0f, 1.0f}));  // first appearance's values
  const Table self = cpu::set_union(a_table(), a_table());
  CHECK(self.columns[0].as<int32_t>() == Ints{1, 2, 3});
  const Table empty = cpu::set_union(Table{{Column::ints("i", {}), Column::floats("f", {})}}, b_table());
  CHECK(empty.schema() == "i:int,f:float");
  CHECK(empty.columns[0].as<int32_t>() == Ints{3, 4, 2});
}

TEST_CASE("cpu: set_intersect and set_except keep distinct rows of a in first-appearance order") {
  const Table i = cpu::set_intersect(a_table(), b_table());
  CHECK(i.columns[0].as<int32_t>() == Ints{2, 3});  // (2,NaN) matches (2,NaN2); (3,-0.0) matches (3,0.0)
  CHECK(bits(i.columns[1].as<float>()) == bits({kNaN, -0.0f}));
  const Table e = cpu::set_except(a_table(), b_table());
  CHECK(e.columns[0].as<int32_t>() == Ints{1});
  CHECK(e.columns[1].as<float>() == std::vector<float>{0.5f});
  CHECK(cpu::set_except(a_table(), a_table()).rows() == 0);
  CHECK(cpu::set_intersect(a_table(), a_table()).columns[0].as<int32_t>() == Ints{1, 2, 3});
  const Table nothing{{Column::ints("i", {}), Column::floats("f", {})}};
  CHECK(cpu::set_intersect(a_table(), nothing).rows() == 0);
  CHECK(cpu::set_except(a_table(), nothing).columns[0].as<int32_t>() == Ints{1, 2, 3});
  CHECK(cpu::set_except(nothing, a_table()).rows() == 0);
}

TEST_CASE("cpu: set operations treat NULL cells as equal and compare bigint and double cells") {
  Column n = Column::make("n", Type::Int64);
  Column d = Column::make("d", Type::Float64);
  for (const auto& [nv, dv] : std::vector<std::pair<Value, Value>>{{int64_t{1}, -0.0},
                                                                   {std::monostate{}, 2.0},
                                                                   {int64_t{1}, 0.0},
                                                                   {std::monostate{}, 2.0},
                                                                   {int64_t{1} << 40, std::nan("")}}) {
    n.push(nv);
    d.push(dv);
  }
  const Table t{{n, d}};
  const Table u = cpu::set_union(t, t);
  REQUIRE(u.rows() == 3);
  CHECK(u.columns[0].value(0) == Value{int64_t{1}});
  CHECK(u.columns[0].is_null(1));
  CHECK(u.columns[0].value(2) == Value{int64_t{1} << 40});
  Column n2 = Column::make("n", Type::Int64);
  Column d2 = Column::make("d", Type::Float64);
  n2.push(std::monostate{});
  d2.push(2.0);
  n2.push(int64_t{1} << 40);
  d2.push(-std::nan(""));
  const Table e = cpu::set_except(t, Table{{n2, d2}});
  REQUIRE(e.rows() == 1);
  CHECK(e.columns[0].value(0) == Value{int64_t{1}});
}

TEST_CASE("cpu: set operations reject schemas that differ, saying where") {
  const Table three{{Column::ints("i", {1}), Column::floats("f", {1}), Column::ints("k", {1})}};
  CHECK_THROWS_WITH_AS(cpu::set_union(a_table(), three), "UNION: a has 2 columns, b has 3", Error);
  const Table swapped{{Column::ints("i", {1}), Column::ints("x", {1})}};
  CHECK_THROWS_WITH_AS(cpu::set_intersect(a_table(), swapped),
                       "INTERSECT: column 2 is float in a ('f') but int in b ('x')", Error);
  CHECK_THROWS_WITH_AS(cpu::set_except(swapped, a_table()), "EXCEPT: column 2 is int in a ('x') but float in b ('f')",
                       Error);
  ErrorCode code = ErrorCode::Internal;
  try {
    cpu::set_union(a_table(), three);
  } catch (const Error& e) {
    code = e.code();
  }
  CHECK(code == ErrorCode::InvalidQuery);
}
