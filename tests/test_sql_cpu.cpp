// SQL end to end on the CPU reference engine: every feature of the subset, hand-computed answers.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "gfxq/gfxq.h"

namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// t: a = 5, -3, 7, 7, 0, INT32_MAX, INT32_MIN ; x = 0.5, -0.0, NaN, 2.5, 0.0, 1e-45 (denormal), -inf
gfxq::Catalog catalog() {
  gfxq::Catalog c;
  c.add("t", gfxq::Table{{gfxq::Column::ints("a", {5, -3, 7, 7, 0, kMax, kMin}),
                          gfxq::Column::floats("x", {0.5f, -0.0f, kNaN, 2.5f, 0.0f, 1e-45f, -kInf})}});
  c.add("r", gfxq::Table{{gfxq::Column::ints("id", {0, 1, 2, 3}), gfxq::Column::ints("k", {10, 20, 20, 40})}});
  c.add("s", gfxq::Table{{gfxq::Column::ints("k", {20, 10, 21, 99, 19}), gfxq::Column::floats("w", {1, 2, 3, 4, 5})}});
  c.add("empty", gfxq::Table{{gfxq::Column::ints("a", {}), gfxq::Column::floats("x", {})}});
  return c;
}

std::string csv(const std::string& sql) {
  gfxq::Engine engine;
  const auto r = engine.execute_sql(sql, catalog(), gfxq::Backend::Cpu);
  std::ostringstream out;
  gfxq::write_csv(out, r.table, false);
  return out.str();
}

}  // namespace

TEST_CASE("sql+cpu: COUNT with comparisons, BETWEEN, AND, OR, NOT, parentheses") {
  CHECK(csv("SELECT COUNT(*) FROM t WHERE a > 0") == "COUNT(*)\n4\n");
  CHECK(csv("SELECT COUNT(*) FROM t WHERE a >= 7 AND a <= 7") == "COUNT(*)\n2\n");
  CHECK(csv("SELECT COUNT(*) FROM t WHERE a BETWEEN -3 AND 5") == "COUNT(*)\n3\n");
  CHECK(csv("SELECT COUNT(*) FROM t WHERE NOT a BETWEEN -3 AND 5") == "COUNT(*)\n4\n");
  CHECK(csv("SELECT COUNT(*) FROM t WHERE a = 7 OR a < -3") == "COUNT(*)\n3\n");
  CHECK(csv("SELECT COUNT(*) FROM t WHERE a BETWEEN 0 AND 7 AND NOT (x < 0.25 OR x > 2)") == "COUNT(*)\n1\n");
  CHECK(csv("SELECT COUNT(*) FROM t WHERE a <> 7") == "COUNT(*)\n5\n");
  CHECK(csv("SELECT COUNT(*) FROM t WHERE 0 < a") == "COUNT(*)\n4\n");  // literal first: flipped
  CHECK(csv("SELECT COUNT(*) FROM t WHERE a < 2.5 AND a > -3.5") == "COUNT(*)\n2\n");  // INT vs fraction: exact
  CHECK(csv("SELECT COUNT(*) FROM t WHERE a > 2147483646") == "COUNT(*)\n1\n");
  CHECK(csv("SELECT COUNT(*) FROM t WHERE a <= -2147483648") == "COUNT(*)\n1\n");
  CHECK(csv("SELECT COUNT(*) FROM t WHERE a < x") == "COUNT(*)\n2\n");  // column vs column (-3 < -0.0, 7 < NaN)
}

TEST_CASE("sql+cpu: FLOAT semantics: -0.0 equals 0.0, NaN equals NaN and is the largest value") {
  CHECK(csv("SELECT COUNT(*) FROM t WHERE x = 0") == "COUNT(*)\n2\n");
  CHECK(csv("SELECT COUNT(*) FROM t WHERE x > 1000000") == "COUNT(*)\n1\n");
  CHECK(csv("SELECT COUNT(*) FROM t WHERE x = x") == "COUNT(*)\n7\n");
  CHECK(csv("SELECT COUNT(*) FROM t WHERE x > 0") == "COUNT(*)\n4\n");  // 0.5, NaN, 2.5, denormal
  CHECK(csv("SELECT MIN(x), MAX(x) FROM t") == "MIN(x),MAX(x)\n-inf,nan\n");
  CHECK(csv("SELECT MIN(x) FROM t WHERE x >= 0") == "MIN(x)\n0\n");  // -0.0 reported as +0.0
}

TEST_CASE("sql+cpu: aggregates, exact int64 SUM, AVG in double, empty input gives NULLs") {
  CHECK(csv("SELECT SUM(a) FROM t") == "SUM(a)\n15\n");
  CHECK(csv("SELECT SUM(a) FROM t WHERE a > 7") == "SUM(a)\n2147483647\n");
  CHECK(csv("SELECT SUM(a), COUNT(*) FROM t WHERE a >= 0 AND a < 100") == "SUM(a),COUNT(*)\n19,4\n");
  const std::string avg = csv("SELECT AVG(a) FROM t");
  CHECK(std::stod(avg.substr(avg.find('\n') + 1)) == 15.0 / 7.0);
  CHECK(csv("SELECT SUM(x) FROM t WHERE x > -1 AND x < 1000") == "SUM(x)\n3\n");  // 0.5 + -0 + 2.5 + 0 + 1e-45
  CHECK(csv("SELECT COUNT(*), SUM(a), AVG(a), MIN(a), MAX(x), MEDIAN(a), KTH_LARGEST(a, 1) FROM empty") ==
        "COUNT(*),SUM(a),AVG(a),MIN(a),MAX(x),MEDIAN(a),\"KTH_LARGEST(a, 1)\"\n0,,,,,,\n");
}

TEST_CASE("sql+cpu: MEDIAN, QUANTILE and KTH_LARGEST by the documented ranks") {
  // sorted a: MIN, -3, 0, 5, 7, 7, MAX (n = 7)
  CHECK(csv("SELECT MEDIAN(a) FROM t") == "MEDIAN(a)\n5\n");                         // rank ceil(3.5) = 4
  CHECK(csv("SELECT QUANTILE(a, 0.25) FROM t") == "\"QUANTILE(a, 0.25)\"\n-3\n");        // rank ceil(1.75) = 2
  CHECK(csv("SELECT QUANTILE(a, 0.0001) FROM t") == "\"QUANTILE(a, 0.0001)\"\n-2147483648\n");
  CHECK(csv("SELECT QUANTILE(a, 1) FROM t") == "\"QUANTILE(a, 1)\"\n2147483647\n");
  CHECK(csv("SELECT KTH_LARGEST(a, 2) FROM t") == "\"KTH_LARGEST(a, 2)\"\n7\n");
  CHECK(csv("SELECT KTH_LARGEST(a, 3) FROM t") == "\"KTH_LARGEST(a, 3)\"\n7\n");  // duplicates count
  CHECK(csv("SELECT KTH_LARGEST(a, 4) FROM t") == "\"KTH_LARGEST(a, 4)\"\n5\n");
  CHECK(csv("SELECT KTH_LARGEST(a, 7) FROM t") == "\"KTH_LARGEST(a, 7)\"\n-2147483648\n");
  CHECK(csv("SELECT KTH_LARGEST(a, 8) FROM t") == "\"KTH_LARGEST(a, 8)\"\n\"\"\n");  // k > n: NULL
  CHECK(csv("SELECT MEDIAN(x) FROM t") == "MEDIAN(x)\n1e-45\n");  // -inf, 0, 0, 1e-45, 0.5, 2.5, NaN
  CHECK(csv("SELECT KTH_LARGEST(x, 1) FROM t") == "\"KTH_LARGEST(x, 1)\"\nnan\n");
}

TEST_CASE("sql+cpu: GROUP BY, ORDER BY (stable, ASC/DESC), LIMIT, projection") {
  CHECK(csv("SELECT a, COUNT(*) FROM t GROUP BY a") ==
        "a,COUNT(*)\n-2147483648,1\n-3,1\n0,1\n5,1\n7,2\n2147483647,1\n");
  CHECK(csv("SELECT x, COUNT(*) FROM t WHERE x >= 0 GROUP BY x") == "x,COUNT(*)\n0,2\n1e-45,1\n0.5,1\n2.5,1\nnan,1\n");
  CHECK(csv("SELECT a, x FROM t ORDER BY a DESC LIMIT 3") == "a,x\n2147483647,1e-45\n7,nan\n7,2.5\n");
  CHECK(csv("SELECT a FROM t WHERE a = 7 ORDER BY a ASC") == "a\n7\n7\n");
  CHECK(csv("SELECT * FROM t WHERE a < 0 ORDER BY x") == "a,x\n-2147483648,-inf\n-3,-0\n");
  CHECK(csv("SELECT a FROM t LIMIT 2") == "a\n5\n-3\n");
  CHECK(csv("SELECT a FROM t LIMIT 0") == "a\n");
  CHECK(csv("SELECT x FROM t ORDER BY a LIMIT 100") == "x\n-inf\n-0\n0\n0.5\nnan\n2.5\n1e-45\n");
}

TEST_CASE("sql+cpu: equi and band joins with qualified names") {
  CHECK(csv("SELECT r.id, s.w FROM r JOIN s ON r.k = s.k") == "r.id,s.w\n0,2\n1,1\n2,1\n");
  CHECK(csv("SELECT COUNT(*) FROM r JOIN s ON s.k BETWEEN r.k - 1 AND r.k + 1") == "COUNT(*)\n7\n");
  CHECK(csv("SELECT COUNT(*) FROM r JOIN s ON s.k >= r.k - 1 AND s.k <= r.k + 1 WHERE s.w > 2") == "COUNT(*)\n4\n");
  CHECK(csv("SELECT SUM(s.w) FROM r JOIN s ON r.k = s.k WHERE r.id > 0") == "SUM(s.w)\n2\n");
  CHECK(csv("SELECT COUNT(*) FROM r JOIN s ON r.k = s.k WHERE r.k > 100") == "COUNT(*)\n0\n");
}
