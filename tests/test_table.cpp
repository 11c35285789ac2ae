// Column, Table and Catalog basics.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gfxq/error.h"
#include "gfxq/table.h"
#include "test_support.h"

namespace {

using gfxq::Column;
using gfxq::ErrorCode;
using gfxq::Table;
using gfxq::Type;


Table two_columns() {
  return Table{{Column::ints("a", {1, 2, 3}), Column::floats("b", {0.5f, 1.5f, 2.5f})}};
}

}  // namespace

TEST_CASE("table: type names") {
  CHECK(std::string(gfxq::to_string(Type::Int32)) == "int");
  CHECK(std::string(gfxq::to_string(Type::Float32)) == "float");
  CHECK(std::string(gfxq::to_string(Type::Int64)) == "bigint");
  CHECK(std::string(gfxq::to_string(Type::Float64)) == "double");
}

TEST_CASE("table: Column::make gives an empty column holding the vector of its type") {
  CHECK(Column::make("i", Type::Int32).as<int32_t>().empty());
  CHECK(Column::make("f", Type::Float32).as<float>().empty());
  CHECK(Column::make("l", Type::Int64).as<int64_t>().empty());
  CHECK(Column::make("d", Type::Float64).as<double>().empty());
  const Column c = Column::make("x", Type::Float64);
  CHECK(c.name == "x");
  CHECK(c.type == Type::Float64);
  CHECK(c.size() == 0);
  CHECK(c.nulls.empty());
}

TEST_CASE("table: typed access of the wrong type is an Internal error naming both types") {
  const Column c = Column::ints("a", {1});
  CHECK_ERROR(c.as<float>(), ErrorCode::Internal, "column 'a'", "int", "float");
  CHECK_ERROR(c.as<int64_t>(), ErrorCode::Internal, "bigint");
  Column f = Column::floats("f", {1.0f});
  CHECK_ERROR(f.as<int32_t>(), ErrorCode::Internal, "column 'f'");
  CHECK_ERROR(f.as<double>(), ErrorCode::Internal, "double");
  f.as<float>().push_back(2.0f);  // mutable access of the right type
  CHECK(f.size() == 2);
}

TEST_CASE("table: Column::ints, floats, size and value") {
  const Column a = Column::ints("a", {4, -5});
  CHECK(a.type == Type::Int32);
  CHECK(a.size() == 2);
  CHECK(std::get<int32_t>(a.value(1)) == -5);
  CHECK_FALSE(a.is_null(0));
  const Column b = Column::floats("b", {0.25f});
  CHECK(b.type == Type::Float32);
  CHECK(std::get<float>(b.value(0)) == 0.25f);
}

TEST_CASE("table: push values and NULLs") {
  Column c = Column::make("c", Type::Int64);
  c.push(int64_t{7});
  c.push(int64_t{8});
  CHECK(c.nulls.empty());  // no NULL yet: no flags
  c.push(gfxq::Value{});
  CHECK(c.size() == 3);
  CHECK(c.nulls == std::vector<uint8_t>{0, 0, 1});
  CHECK(c.is_null(2));
  CHECK_FALSE(c.is_null(0));
  CHECK(std::holds_alternative<std::monostate>(c.value(2)));
  c.push(int64_t{9});
  CHECK(c.nulls == std::vector<uint8_t>{0, 0, 1, 0});
  CHECK(std::get<int64_t>(c.value(3)) == 9);
  CHECK(c.as<int64_t>().size() == 4);

  Column d = Column::make("d", Type::Float64);
  d.push(2.5);
  CHECK(std::get<double>(d.value(0)) == 2.5);
  CHECK_ERROR(d.push(1.0f), ErrorCode::Internal, "column 'd'", "wrong type");
  CHECK_ERROR(d.push(int32_t{1}), ErrorCode::Internal, "wrong type");
  CHECK(d.size() == 1);  // a rejected push changes nothing
}

TEST_CASE("table: rows, find, column and schema") {
  CHECK(Table{}.rows() == 0);
  CHECK(Table{}.schema().empty());
  const Table t = two_columns();
  CHECK(t.rows() == 3);
  CHECK(t.find("a") == 0u);
  CHECK(t.find("b") == 1u);
  CHECK_FALSE(t.find("c").has_value());
  CHECK_FALSE(t.find("A").has_value());  // names are case-sensitive
  CHECK(t.column("b").type == Type::Float32);
  CHECK_ERROR(t.column("zz"), ErrorCode::InvalidQuery, "unknown column 'zz'", "a, b");
  CHECK(t.schema() == "a:int,b:float");
  t.validate();
}

TEST_CASE("table: validate rejects duplicate or empty names and unequal lengths") {
  CHECK_ERROR((Table{{Column::ints("a", {1}), Column::ints("a", {2})}}.validate()), ErrorCode::InvalidInput,
              "duplicate column name 'a'");
  CHECK_ERROR((Table{{Column::ints("", {1})}}.validate()), ErrorCode::InvalidInput, "empty name");
  CHECK_ERROR((Table{{Column::ints("a", {1, 2}), Column::floats("b", {1.0f})}}.validate()), ErrorCode::InvalidInput,
              "column 'b' has 1 rows", "column 'a' has 2");
  Column n = Column::ints("n", {1, 2});
  n.nulls = {0};
  CHECK_ERROR((Table{{n}}.validate()), ErrorCode::InvalidInput, "column 'n'", "null flags");
  Table{}.validate();
}

TEST_CASE("table: Catalog add, get, contains, names, replace") {
  gfxq::Catalog c;
  CHECK(c.names().empty());
  CHECK_ERROR(c.get("t"), ErrorCode::InvalidQuery, "unknown table 't'", "none");
  c.add("t", two_columns());
  c.add("s", Table{{Column::ints("k", {9})}});
  CHECK(c.contains("t"));
  CHECK(c.contains("s"));
  CHECK_FALSE(c.contains("u"));
  CHECK(c.names() == std::vector<std::string>{"s", "t"});
  CHECK(c.get("t").rows() == 3);
  CHECK_ERROR(c.get("u"), ErrorCode::InvalidQuery, "unknown table 'u'", "s, t");

  c.add("t", Table{{Column::ints("z", {1, 2, 3, 4, 5})}});
  CHECK(c.get("t").rows() == 5);
  CHECK(c.get("t").schema() == "z:int");
  CHECK(c.names().size() == 2);
}

TEST_CASE("table: Catalog::add validates the table and the name") {
  gfxq::Catalog c;
  CHECK_ERROR(c.add("", two_columns()), ErrorCode::InvalidInput, "name");
  CHECK_ERROR(c.add("bad", Table{{Column::ints("a", {1}), Column::ints("b", {})}}), ErrorCode::InvalidInput,
              "column 'b'");
  CHECK_FALSE(c.contains("bad"));
}
