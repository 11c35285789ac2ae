// Reproducers of wrong answers the analytic differential fuzzer found (docs/RELIABILITY.md), each
// checked against an answer computed here from the table's values, on every backend (a backend may
// refuse with Unsupported, never answer wrongly).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gfxq/gfxq.h"
#include "gpu_support.h"

namespace {

using namespace gfxq;

//! The rows of column 0 of `sql`'s result on `backend`, or nullopt when the backend refuses.
std::optional<uint64_t> rows_of(const std::string& sql, const Catalog& catalog, Backend backend) {
  try {
    return test::debug_engine().execute_sql(sql, catalog, backend).table.rows();
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Unsupported) throw;
    return std::nullopt;
  }
}

bool satisfied(CmpOp op, int c) {
  switch (op) {
    case CmpOp::Lt: return c < 0;
    case CmpOp::Le: return c <= 0;
    case CmpOp::Gt: return c > 0;
    case CmpOp::Ge: return c >= 0;
    case CmpOp::Eq: return c == 0;
    case CmpOp::Ne: return c != 0;
  }
  return false;
}

}  // namespace

TEST_CASE("fuzz findings: a string literal left of a STRING column whether in its dictionary or not") {
  // Found as `WHERE 'zz' <> t.s` keeping no row of a column holding only '': the binder moved the
  // literal to the right and then read it through a pointer into the moved-from expression.
  const std::vector<std::string> values = {"", "b", "a,b", "say \"hi\"", "\xc3\xbc", "b", "zz"};
  Catalog catalog;
  catalog.add("t", Table{{Column::strings("s", values)}});
  const std::vector<std::string> literals = {"", "a", "b", "ba", "zz", "zzz", "\xc3\xbc", "\xff"};
  for (const std::string& lit : literals)
    for (int o = 0; o < 6; ++o) {
      const CmpOp op = static_cast<CmpOp>(o);
      uint64_t want = 0;
      for (const std::string& v : values) want += satisfied(op, lit.compare(v) < 0 ? -1 : lit == v ? 0 : 1);
      const std::string sql = "SELECT s FROM t WHERE '" + lit + "' " + to_string(op) + " s";
      for (Backend b : {Backend::Cpu, Backend::Raster, Backend::Compute, Backend::Auto}) {
        INFO(sql << " on " << to_string(b));
        if (const auto got = rows_of(sql, catalog, b)) CHECK(*got == want);
      }
    }
}

TEST_CASE("fuzz findings: aggregates of different string literals stay different") {
  // Found as `SELECT MAX('trail '), MAX('aa') FROM u` giving 'trail ' twice: each literal is code 0
  // of its own one-value dictionary, and the binder took the second aggregate for the first.
  Catalog catalog;
  catalog.add("t", Table{{Column::ints("k", {1, 2, 1})}});
  const std::vector<std::string> literals = {"trail ", "aa", "", "zz"};
  std::string sql = "SELECT ";
  for (size_t i = 0; i < literals.size(); ++i) sql += (i ? ", MAX('" : "MAX('") + literals[i] + "')";
  for (const std::string& tail : {" FROM t", " FROM t GROUP BY k"})
    for (Backend b : {Backend::Cpu, Backend::Raster, Backend::Compute, Backend::Auto}) {
      INFO(sql << tail << " on " << to_string(b));
      try {
        const Table r = test::debug_engine().execute_sql(sql + tail, catalog, b).table;
        REQUIRE(r.columns.size() == literals.size());
        for (size_t i = 0; i < literals.size(); ++i)
          for (uint64_t row = 0; row < r.rows(); ++row) CHECK(r.columns[i].string_at(row) == literals[i]);
      } catch (const Error& e) {
        if (e.code() != ErrorCode::Unsupported) throw;
      }
    }
}
