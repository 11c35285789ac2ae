// gfxq::Database: tables and one engine together; columns resident across queries, replaced tables
// read anew, errors leave it unchanged.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gfxq/gfxq.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "test_support.h"

namespace {

size_t passes_of(const gfxq::Result& r, const std::string& kind) {
  size_t n = 0;
  for (const auto& p : r.report.passes) n += p.kind == kind;
  return n;
}

}  // namespace

TEST_CASE("database: load, query, replace, drop; the second compute query uploads nothing") {
  using namespace gfxq;
  Database db({.debug = test::vk_validation_wanted()});
  const auto path = std::filesystem::temp_directory_path() / ("gfxq_database_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << "a:int,x:float\n1,0.5\n2,1.5\n3,2.5\n";
  db.load("t", path.string());
  std::filesystem::remove(path);
  const std::string sql = "SELECT COUNT(*), SUM(a) FROM t WHERE x > 1";
  const Result cpu = db.sql(sql, Backend::Cpu);
  CHECK(cpu.table.columns[1].as<int64_t>().at(0) == 5);
  REQUIRE(db.engine().vk_capabilities().available);
  const Result first = db.sql(sql, Backend::Compute);
  const Result second = db.sql(sql, Backend::Compute);
  CHECK(test::table_difference(cpu.table, first.table) == "");
  CHECK(test::table_difference(cpu.table, second.table) == "");
  CHECK(passes_of(first, "upload") > 0);
  CHECK(passes_of(second, "upload") == 0);
  CHECK(passes_of(second, "resident") > 0);
  // Replaced: the next query reads the new rows, uploading them.
  db.add("t", Table{{Column::ints("a", {10, 20}), Column::floats("x", {5.0f, 0.0f})}});
  const Result replaced = db.sql(sql, Backend::Compute);
  CHECK(replaced.table.columns[1].as<int64_t>().at(0) == 10);
  CHECK(passes_of(replaced, "upload") > 0);
  // Errors leave the database as it was.
  CHECK_ERROR(db.sql("SELECT nope FROM t"), ErrorCode::InvalidQuery, "unknown column");
  CHECK_ERROR(db.add("", Table{}), ErrorCode::InvalidInput, "name");
  CHECK(db.sql("SELECT COUNT(*) FROM t", Backend::Cpu).table.columns[0].as<int64_t>().at(0) == 2);
  CHECK(db.explain("SELECT a FROM t WHERE a > 10", Backend::Cpu).plan.size() >= 2);
  db.drop("t");
  CHECK_ERROR(db.sql("SELECT a FROM t"), ErrorCode::InvalidQuery, "t");
  CHECK_ERROR(db.drop("t"), ErrorCode::InvalidQuery, "no table");
}
