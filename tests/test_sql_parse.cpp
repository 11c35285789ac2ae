// The SQL-subset parser (gfxq/sql.h): query specs, CNF of WHERE, join forms and every error.

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "gfxq/error.h"
#include "gfxq/sql.h"

using gfxq::AggKind;
using gfxq::Aggregate;
using gfxq::Clause;
using gfxq::CmpOp;
using gfxq::Cnf;
using gfxq::CnfLimits;
using gfxq::ColumnRef;
using gfxq::Comparison;
using gfxq::JoinSpec;
using gfxq::OrderBy;
using gfxq::Query;
using gfxq::Star;
using gfxq::sql::parse;

namespace {

using enum gfxq::CmpOp;

// "a" or "t.a".
ColumnRef col(const std::string& text) {
  const auto dot = text.find('.');
  if (dot == std::string::npos) return {"", text};
  return {text.substr(0, dot), text.substr(dot + 1)};
}

Comparison cmp(const std::string& column, CmpOp op, double value) {
  return {col(column), op, value};
}
Comparison cmp_col(const std::string& column, CmpOp op, const std::string& other) {
  return {col(column), op, col(other)};
}

Cnf cnf(std::vector<std::vector<Comparison>> clauses) {
  Cnf c;
  for (auto& terms : clauses) c.clauses.push_back(Clause{std::move(terms)});
  return c;
}

Aggregate agg(AggKind kind, const std::string& column = "") {
  Aggregate a;
  a.kind = kind;
  if (!column.empty()) a.column = col(column);
  return a;
}

// SELECT <items> FROM <table>
Query select(std::vector<gfxq::SelectItem> items, const std::string& table) {
  Query q;
  q.items = std::move(items);
  q.table = table;
  return q;
}

// SELECT * FROM t WHERE <where>
Query star_where(Cnf where) {
  Query q = select({Star{}}, "t");
  q.where = std::move(where);
  return q;
}

// The WHERE of `SELECT * FROM t WHERE <condition>`, as text.
std::string where_text(const std::string& condition) {
  return parse("SELECT * FROM t WHERE " + condition).where.text();
}

// The message of the InvalidQuery error parsing `text` throws, or "no error".
std::string parse_error(const std::string& text, const CnfLimits& limits = {}) {
  try {
    parse(text, limits);
  } catch (const gfxq::Error& e) {
    CHECK(e.code() == gfxq::ErrorCode::InvalidQuery);
    return e.what();
  }
  return "no error";
}

// `SELECT * FROM r JOIN s ON <on>`'s join.
JoinSpec join_of(const std::string& on) {
  const Query q = parse("SELECT * FROM r JOIN s ON " + on);
  REQUIRE(q.join);
  return *q.join;
}

JoinSpec band(const std::string& left, const std::string& right, double lo, double hi) {
  return JoinSpec{"s", col(left), col(right), lo, hi};
}

// Error of `SELECT * FROM r JOIN s ON <on>`; ON starts at column 27.
std::string join_error(const std::string& on) {
  return parse_error("SELECT * FROM r JOIN s ON " + on);
}

}  // namespace

// --- select list, FROM, clauses

TEST_CASE("sql: SELECT * FROM t") {
  const Query q = parse("SELECT * FROM t");
  CHECK(q == select({Star{}}, "t"));
  CHECK(q.text() == "SELECT * FROM t");
  CHECK(q.where.empty());
  CHECK_FALSE(q.join);
}

TEST_CASE("sql: select list of columns and every aggregate") {
  const Query q = parse(
      "SELECT a, t.b, COUNT(*), COUNT(c), SUM(a), AVG(t.a), MIN(a), MAX(a), MEDIAN(a), QUANTILE(a, 0.9), "
      "KTH_LARGEST(a, 3), * FROM t");
  Aggregate quantile = agg(AggKind::Quantile, "a");
  quantile.q = 0.9;
  Aggregate kth = agg(AggKind::KthLargest, "a");
  kth.k = 3;
  const Query expected = select({col("a"), col("t.b"), agg(AggKind::Count), agg(AggKind::Count, "c"),
                                 agg(AggKind::Sum, "a"), agg(AggKind::Avg, "t.a"), agg(AggKind::Min, "a"),
                                 agg(AggKind::Max, "a"), agg(AggKind::Median, "a"), quantile, kth, Star{}},
                                "t");
  CHECK(q == expected);
  CHECK(q.text() ==
        "SELECT a, t.b, COUNT(*), COUNT(c), SUM(a), AVG(t.a), MIN(a), MAX(a), MEDIAN(a), QUANTILE(a, 0.9), "
        "KTH_LARGEST(a, 3), * FROM t");
  const auto& median = std::get<Aggregate>(q.items[8]);
  CHECK(median.q == 0.5);
  CHECK(std::get<Aggregate>(q.items[2]).column == std::nullopt);
}

TEST_CASE("sql: QUANTILE and KTH_LARGEST arguments") {
  const auto first = [](const std::string& item) {
    return std::get<Aggregate>(parse("SELECT " + item + " FROM t").items[0]);
  };
  CHECK(first("QUANTILE(a, 1)").q == 1.0);
  CHECK(first("QUANTILE(a, 1e-3)").q == 0.001);
  CHECK(first("QUANTILE(a, .25)").q == 0.25);
  CHECK(first("QUANTILE(a, +0.5)").q == 0.5);
  CHECK(first("KTH_LARGEST(a, 1)").k == 1);
  CHECK(first("KTH_LARGEST(a, +7)").k == 7);
  CHECK(first("KTH_LARGEST(a, 9223372036854775807)").k == 9223372036854775807);
}

TEST_CASE("sql: keywords and function names in any case, and identifiers keep theirs") {
  const Query q = parse("select Count(*), sUm(A) From T wHeRe A between 1 AND 2 Group By A order BY A Desc limit 5");
  Query expected = select({agg(AggKind::Count), agg(AggKind::Sum, "A")}, "T");
  expected.where = cnf({{cmp("A", Ge, 1)}, {cmp("A", Le, 2)}});
  expected.group_by = col("A");
  expected.order_by = OrderBy{col("A"), true};
  expected.limit = 5;
  CHECK(q == expected);
  CHECK(q.text() == "SELECT COUNT(*), SUM(A) FROM T WHERE (A >= 1) AND (A <= 2) GROUP BY A ORDER BY A DESC LIMIT 5");
  // Identifiers are case-sensitive: `a` and `A` differ.
  CHECK(parse("SELECT a, A FROM t").items == std::vector<gfxq::SelectItem>{col("a"), col("A")});
  // Function names are not reserved: they are columns where no '(' follows.
  CHECK(parse("SELECT count, sum FROM median").items == std::vector<gfxq::SelectItem>{col("count"), col("sum")});
}

TEST_CASE("sql: trailing semicolon and whitespace") {
  const Query expected = select({Star{}}, "t");
  CHECK(parse("SELECT * FROM t;") == expected);
  CHECK(parse("  SELECT\t*\nFROM\r\n t ;  \n") == expected);
  CHECK(parse("SELECT*FROM t") == expected);
}

TEST_CASE("sql: GROUP BY, ORDER BY, LIMIT") {
  Query q = parse("SELECT g, COUNT(*) FROM t GROUP BY g ORDER BY g LIMIT 0");
  Query expected = select({col("g"), agg(AggKind::Count)}, "t");
  expected.group_by = col("g");
  expected.order_by = OrderBy{col("g"), false};
  expected.limit = 0;
  CHECK(q == expected);
  CHECK(q.text() == "SELECT g, COUNT(*) FROM t GROUP BY g ORDER BY g ASC LIMIT 0");
  CHECK(parse("SELECT * FROM t ORDER BY t.a ASC").order_by == OrderBy{col("t.a"), false});
  CHECK(parse("SELECT * FROM t ORDER BY a DESC").order_by == OrderBy{col("a"), true});
  CHECK(parse("SELECT * FROM t LIMIT 18446744073709551615").limit == 18446744073709551615u);
  CHECK(parse("SELECT * FROM t LIMIT +3").limit == 3u);
}

// --- WHERE

TEST_CASE("sql: comparison operators") {
  CHECK(parse("SELECT * FROM t WHERE a < 1") == star_where(cnf({{cmp("a", Lt, 1)}})));
  CHECK(where_text("a <= 1") == "(a <= 1)");
  CHECK(where_text("a > 1") == "(a > 1)");
  CHECK(where_text("a >= 1") == "(a >= 1)");
  CHECK(where_text("a = 1") == "(a = 1)");
  CHECK(where_text("a <> 1") == "(a <> 1)");
  CHECK(where_text("a != 1") == "(a <> 1)");
  CHECK(where_text("a<>1") == "(a <> 1)");
  CHECK(where_text("a>=b") == "(a >= b)");
  CHECK(parse("SELECT * FROM t WHERE t.a = u.b") == star_where(cnf({{cmp_col("t.a", Eq, "u.b")}})));
}

TEST_CASE("sql: a literal on the left is flipped to the right") {
  CHECK(parse("SELECT * FROM t WHERE 5 < a") == star_where(cnf({{cmp("a", Gt, 5)}})));
  CHECK(where_text("5 <= a") == "(a >= 5)");
  CHECK(where_text("5 > a") == "(a < 5)");
  CHECK(where_text("5 >= a") == "(a <= 5)");
  CHECK(where_text("5 = a") == "(a = 5)");
  CHECK(where_text("5 <> a") == "(a <> 5)");
  CHECK(where_text("-5 < a") == "(a > -5)");
}

TEST_CASE("sql: numeric literals: signs, decimals, exponents") {
  const auto value = [](const std::string& literal) {
    const Query q = parse("SELECT * FROM t WHERE a > " + literal);
    return std::get<double>(q.where.clauses.at(0).terms.at(0).rhs);
  };
  CHECK(value("-5") == -5.0);
  CHECK(value("- 5") == -5.0);
  CHECK(value("+5") == 5.0);
  CHECK(value("2.5") == 2.5);
  CHECK(value(".5") == 0.5);
  CHECK(value("5.") == 5.0);
  CHECK(value("1e3") == 1000.0);
  CHECK(value("1E+3") == 1000.0);
  CHECK(value("-2.5e-2") == -0.025);
  CHECK(value("0.1") == 0.1);  // correctly rounded, like the C++ literal
  CHECK(value("16777217") == 16777217.0);
  CHECK(value("2147483647") == 2147483647.0);
  CHECK(value("-2147483648") == -2147483648.0);
  CHECK(value("1.7976931348623157e308") == 1.7976931348623157e308);
  CHECK(value("4.9e-324") == 4.9e-324);
  CHECK(parse("SELECT * FROM t WHERE a > -5") == star_where(cnf({{cmp("a", Gt, -5)}})));
}

TEST_CASE("sql: precedence is NOT, then AND, then OR") {
  // a OR (b AND c)
  CHECK(parse("SELECT * FROM t WHERE a = 1 OR b = 2 AND c = 3") ==
        star_where(cnf({{cmp("a", Eq, 1), cmp("b", Eq, 2)}, {cmp("a", Eq, 1), cmp("c", Eq, 3)}})));
  // (a AND b) OR c
  CHECK(where_text("a = 1 AND b = 2 OR c = 3") == "(a = 1 OR c = 3) AND (b = 2 OR c = 3)");
  // (NOT a) AND b
  CHECK(where_text("NOT a = 1 AND b = 2") == "(a <> 1) AND (b = 2)");
  // (NOT a) OR b
  CHECK(where_text("NOT a = 1 OR b = 2") == "(a <> 1 OR b = 2)");
  CHECK(where_text("a = 1 AND b = 2 AND c = 3") == "(a = 1) AND (b = 2) AND (c = 3)");
  CHECK(where_text("a = 1 OR b = 2 OR c = 3") == "(a = 1 OR b = 2 OR c = 3)");
}

TEST_CASE("sql: parentheses") {
  CHECK(where_text("(a = 1 OR b = 2) AND c = 3") == "(a = 1 OR b = 2) AND (c = 3)");
  CHECK(where_text("a = 1 AND (b = 2 OR c = 3)") == "(a = 1) AND (b = 2 OR c = 3)");
  CHECK(where_text("((a = 1))") == "(a = 1)");
  CHECK(where_text("(a = 1 OR (b = 2 AND (c = 3 OR d = 4)))") == "(a = 1 OR b = 2) AND (a = 1 OR c = 3 OR d = 4)");
  CHECK(where_text("NOT (a = 1 OR b = 2)") == "(a <> 1) AND (b <> 2)");
}

TEST_CASE("sql: NOT is pushed to the comparisons by De Morgan") {
  CHECK(where_text("NOT (a < 1 AND b > 2)") == "(a >= 1 OR b <= 2)");
  CHECK(where_text("NOT (a < 1 OR b > 2)") == "(a >= 1) AND (b <= 2)");
  CHECK(where_text("NOT NOT a = 1") == "(a = 1)");
  CHECK(where_text("NOT a <> 1") == "(a = 1)");
  CHECK(where_text("NOT a <= 1") == "(a > 1)");
  CHECK(where_text("NOT 1 < a") == "(a <= 1)");
  CHECK(where_text("NOT (a = 1 AND NOT (b = 2 OR c = 3))") == "(a <> 1 OR b = 2 OR c = 3)");
  CHECK(where_text("NOT ((a = 1 OR b = 2) AND c = 3)") == "(a <> 1 OR c <> 3) AND (b <> 2 OR c <> 3)");
}

TEST_CASE("sql: BETWEEN and NOT BETWEEN") {
  CHECK(parse("SELECT * FROM t WHERE a BETWEEN 1 AND 5") == star_where(cnf({{cmp("a", Ge, 1)}, {cmp("a", Le, 5)}})));
  CHECK(parse("SELECT * FROM t WHERE a NOT BETWEEN 1 AND 5") == star_where(cnf({{cmp("a", Lt, 1), cmp("a", Gt, 5)}})));
  CHECK(where_text("NOT a BETWEEN 1 AND 5") == "(a < 1 OR a > 5)");
  CHECK(where_text("NOT a NOT BETWEEN 1 AND 5") == "(a >= 1) AND (a <= 5)");
  CHECK(where_text("a BETWEEN -1 AND 1 AND b = 2") == "(a >= -1) AND (a <= 1) AND (b = 2)");
  CHECK(where_text("a BETWEEN b AND 3") == "(a >= b) AND (a <= 3)");
  CHECK(where_text("a BETWEEN b AND c") == "(a >= b) AND (a <= c)");
  // A literal in front is flipped: 5 >= a AND 5 <= b.
  CHECK(where_text("5 BETWEEN a AND b") == "(a <= 5) AND (b >= 5)");
  CHECK(where_text("a NOT BETWEEN 1 AND 5 OR b = 2") == "(a < 1 OR a > 5 OR b = 2)");
  CHECK(where_text("a BETWEEN 1 AND 5 OR b = 2") == "(a >= 1 OR b = 2) AND (a <= 5 OR b = 2)");
  CHECK(where_text("a between 1 and 5") == "(a >= 1) AND (a <= 5)");
}

TEST_CASE("sql: duplicate comparisons and clauses are removed") {
  CHECK(where_text("a = 1 AND a = 1") == "(a = 1)");
  CHECK(where_text("a = 1 OR a = 1") == "(a = 1)");
  CHECK(where_text("1 = a AND a = 1") == "(a = 1)");
  CHECK(where_text("(a = 1 OR b = 2) AND (b = 2 OR a = 1)") == "(a = 1 OR b = 2)");
  CHECK(where_text("a = 1 AND NOT a <> 1") == "(a = 1)");
  CHECK(where_text("a BETWEEN 1 AND 5 AND a >= 1") == "(a >= 1) AND (a <= 5)");
  CHECK(where_text("(a = 1 AND b = 2) OR (a = 1 AND b = 2)") == "(a = 1) AND (a = 1 OR b = 2) AND (b = 2)");
}

TEST_CASE("sql: the CNF limit is checked before expanding") {
  std::string condition;
  for (int i = 0; i < 40; ++i) {
    if (i) condition += " OR ";
    condition += "(a = " + std::to_string(i) + " AND b = " + std::to_string(i) + ")";
  }
  CHECK(parse_error("SELECT * FROM t WHERE " + condition) ==
        "at 1:23: condition's CNF would have 1099511627776 clauses (limit 256)");
  std::string wider = condition;
  for (int i = 40; i < 100; ++i) wider += " OR (a = " + std::to_string(i) + " AND b = 0)";
  CHECK(parse_error("SELECT * FROM t WHERE " + wider) ==
        "at 1:23: condition's CNF would have at least 2^64 clauses (limit 256)");
  // Under NOT it is an AND of ORs: 40 clauses.
  CHECK(parse("SELECT * FROM t WHERE NOT (" + condition + ")").where.clauses.size() == 40);
  // Custom limits.
  const std::string two = "SELECT * FROM t\nWHERE (a = 1 AND b = 1) OR (a = 2 AND b = 2)";
  CHECK(parse(two, {4, 2}).where.clauses.size() == 4);
  CHECK(parse_error(two, {3, 2}) == "at 2:7: condition's CNF would have 4 clauses (limit 3)");
  CHECK(parse_error(two, {4, 1}) ==
        "at 2:7: condition's CNF would have a clause of 2 comparisons (limit 1 per clause)");
}

TEST_CASE("sql: deep nesting is rejected, not a stack overflow") {
  CHECK(where_text(std::string(200, '(') + "a = 1" + std::string(200, ')')) == "(a = 1)");
  CHECK(parse_error("SELECT * FROM t WHERE " + std::string(201, '(') + "a = 1" + std::string(201, ')')) ==
        "at 1:223: condition nested too deeply (more than 200 levels)");
  std::string nots;
  for (int i = 0; i < 100000; ++i) nots += "NOT ";
  CHECK(parse_error("SELECT * FROM t WHERE " + nots + "a = 1") ==
        "at 1:823: condition nested too deeply (more than 200 levels)");
}

// --- JOIN

TEST_CASE("sql: equi-join in either order") {
  const Query q = parse("SELECT r.a, s.c FROM r JOIN s ON r.a = s.b");
  Query expected = select({col("r.a"), col("s.c")}, "r");
  expected.join = band("r.a", "s.b", 0, 0);
  CHECK(q == expected);
  CHECK(q.join->equi());
  CHECK(q.text() == "SELECT r.a, s.c FROM r JOIN s ON r.a = s.b");
  CHECK(join_of("s.b = r.a") == band("r.a", "s.b", 0, 0));
  Query inner = select({Star{}}, "r");
  inner.join = band("r.a", "s.b", 0, 0);
  CHECK(parse("SELECT * FROM r INNER JOIN s ON r.a = s.b") == inner);
  CHECK(parse("select * from r inner join s on r.a = s.b").join == band("r.a", "s.b", 0, 0));
  CHECK(join_of("(r.a = s.b)") == band("r.a", "s.b", 0, 0));
}

TEST_CASE("sql: band join with BETWEEN") {
  CHECK(join_of("s.b BETWEEN r.a - 2 AND r.a + 2") == band("r.a", "s.b", -2, 2));
  CHECK(join_of("s.b BETWEEN r.a - 1.5 AND r.a + 3") == band("r.a", "s.b", -1.5, 3));
  CHECK(join_of("s.b BETWEEN r.a AND r.a + 2") == band("r.a", "s.b", 0, 2));
  CHECK(join_of("s.b BETWEEN r.a - 2 AND r.a") == band("r.a", "s.b", -2, 0));
  CHECK(join_of("s.b BETWEEN r.a + 1 AND r.a + 5") == band("r.a", "s.b", 1, 5));
  CHECK(join_of("s.b BETWEEN r.a - 5 AND r.a - 1") == band("r.a", "s.b", -5, -1));
  CHECK(join_of("s.b BETWEEN r.a - 1e-3 AND r.a + 2.5e1") == band("r.a", "s.b", -0.001, 25));
  CHECK(join_of("s.b BETWEEN r.a + -2 AND r.a - -2") == band("r.a", "s.b", -2, 2));
  CHECK(join_of("s.b BETWEEN r.a AND r.a") == band("r.a", "s.b", 0, 0));
  const Query q = parse("SELECT * FROM r JOIN s ON s.b BETWEEN r.a - 2 AND r.a + 2");
  CHECK(q.text() == "SELECT * FROM r JOIN s ON s.b BETWEEN r.a + -2 AND r.a + 2");
  // The text form parses back to the same spec.
  CHECK(parse(q.text()) == q);
}

TEST_CASE("sql: band join as a pair of comparisons") {
  const JoinSpec expected = band("r.a", "s.b", -2, 3);
  CHECK(join_of("s.b >= r.a - 2 AND s.b <= r.a + 3") == expected);
  CHECK(join_of("s.b <= r.a + 3 AND s.b >= r.a - 2") == expected);
  CHECK(join_of("r.a - 2 <= s.b AND r.a + 3 >= s.b") == expected);
  CHECK(join_of("r.a + 3 >= s.b AND s.b >= r.a - 2") == expected);
  CHECK(join_of("(s.b >= r.a - 2) AND (r.a + 3 >= s.b)") == expected);
  CHECK(join_of("(s.b >= r.a - 2 AND s.b <= r.a + 3)") == expected);
  CHECK(join_of("s.b >= r.a AND s.b <= r.a") == band("r.a", "s.b", 0, 0));
  // An equality with an offset is a band of width 0.
  CHECK(join_of("s.b = r.a + 2") == band("r.a", "s.b", 2, 2));
  CHECK(join_of("r.a - 0 = s.b") == band("r.a", "s.b", 0, 0));
}

TEST_CASE("sql: join with the other clauses") {
  const Query q = parse(
      "SELECT r.g, SUM(s.v) FROM r JOIN s ON r.k = s.k WHERE s.v > 0 AND r.x < s.y GROUP BY r.g ORDER BY r.g DESC "
      "LIMIT 10;");
  Query expected = select({col("r.g"), agg(AggKind::Sum, "s.v")}, "r");
  expected.join = band("r.k", "s.k", 0, 0);
  expected.where = cnf({{cmp("s.v", Gt, 0)}, {cmp_col("r.x", Lt, "s.y")}});
  expected.group_by = col("r.g");
  expected.order_by = OrderBy{col("r.g"), true};
  expected.limit = 10;
  CHECK(q == expected);
  CHECK(parse(q.text()) == q);
}

TEST_CASE("sql: join errors") {
  CHECK(join_error("a = s.b") == "at 1:27: columns in ON must be qualified with their table (r.a or s.a), found 'a'");
  CHECK(join_error("r.a = b") == "at 1:33: columns in ON must be qualified with their table (r.b or s.b), found 'b'");
  CHECK(join_error("r.a = x.b") == "at 1:33: column 'x.b' in ON must belong to 'r' or 's'");
  CHECK(join_error("s.b > r.a - 1 AND s.b < r.a + 1") ==
        "at 1:31: band join bounds must be inclusive (<= or >=), found '>'");
  CHECK(join_error("s.b >= r.a - 1 AND s.b < r.a + 1") ==
        "at 1:50: band join bounds must be inclusive (<= or >=), found '<'");
  CHECK(join_error("r.a < s.b") == "at 1:31: band join bounds must be inclusive (<= or >=), found '<'");
  CHECK(join_error("s.b BETWEEN r.a + 1 AND r.a - 1") ==
        "at 1:27: band join's lower bound r.a + 1 is above its upper bound r.a - 1");
  CHECK(join_error("s.b >= r.a + 3 AND s.b <= r.a") ==
        "at 1:27: band join's lower bound r.a + 3 is above its upper bound r.a + 0");
  // Forms that are not supported name the supported ones.
  const std::string forms =
      "; ON supports r.a = s.b, s.b BETWEEN r.a - d AND r.a + d, or s.b >= r.a - d AND s.b <= r.a + d";
  CHECK(join_error("r.a = s.b OR r.a = s.c").starts_with("at 1:37: OR is not supported in ON" + forms));
  CHECK(join_error("NOT r.a = s.b").starts_with("at 1:27: NOT is not supported in ON" + forms));
  CHECK(join_error("s.b NOT BETWEEN r.a - 1 AND r.a + 1")
            .starts_with("at 1:31: NOT BETWEEN is not supported in ON" + forms));
  CHECK(join_error("r.a <> s.b").starts_with("at 1:31: '<>' is not a join condition" + forms));
  CHECK(join_error("r.a != s.b").starts_with("at 1:31: '<>' is not a join condition" + forms));
  CHECK(join_error("r.a = r.b").starts_with("at 1:27: ON must compare a column of 'r' with a column of 's'" + forms));
  CHECK(join_error("s.a = s.b").starts_with("at 1:27: ON must compare a column of 'r' with a column of 's'" + forms));
  CHECK(join_error("s.b >= r.a - 1")
            .starts_with("at 1:27: a band join needs a lower bound (>=) and an upper bound (<=)" + forms));
  CHECK(join_error("r.a = s.b AND r.c = s.d")
            .starts_with("at 1:27: ON must be one equality, or one lower bound (>=) and one upper bound (<=)" + forms));
  CHECK(join_error("s.b >= r.a AND s.b >= r.a - 1")
            .starts_with("at 1:27: ON must be one equality, or one lower bound (>=) and one upper bound (<=)" + forms));
  CHECK(join_error("s.b >= r.a AND s.b <= r.a AND s.b = r.a")
            .starts_with("at 1:27: ON must be one equality, or one lower bound (>=) and one upper bound (<=)" + forms));
  CHECK(join_error("s.b >= r.a - 1 AND s.c <= r.a + 1")
            .starts_with("at 1:46: both bounds of a band join must compare the same two columns" + forms));
  CHECK(join_error("s.b >= r.a - 1 AND s.b <= r.c + 1")
            .starts_with("at 1:46: both bounds of a band join must compare the same two columns" + forms));
  CHECK(join_error("s.b - 1 <= r.a AND s.b + 1 >= r.a")
            .starts_with("at 1:27: an offset is only supported on the column of 'r'" + forms));
  CHECK(join_error("r.a BETWEEN s.b - 1 AND s.b + 1")
            .starts_with("at 1:39: an offset is only supported on the column of 'r'" + forms));
  CHECK(join_error("r.a = 5").starts_with("at 1:33: expected a column, found '5'" + forms));
  CHECK(join_error("5 = s.b").starts_with("at 1:27: expected a column, found '5'" + forms));
  CHECK(join_error("r.a + s.b = 1") == "at 1:33: expected a number, found 's.b'");
  CHECK(join_error("r.a").starts_with("at 1:27: expected a comparison, found 'r.a'" + forms));
  CHECK(join_error("r.a = s.b OR NOT r.a = s.b").starts_with("at 1:37: OR is not supported in ON" + forms));
  CHECK(join_error("r.a IN (s.b)").starts_with("at 1:27: expected a comparison, found 'r.a IN (s.b)'" + forms));
  CHECK(join_error("r.a * 2 = s.b").starts_with("at 1:27: expected a column, found 'r.a * 2'" + forms));
  CHECK(join_error("s.b BETWEEN r.a - 1 r.a + 1") == "at 1:47: expected AND, found 'r'");
  CHECK(join_error("(r.a = s.b") == "at 1:37: expected ')', found end of query");
  CHECK(parse_error("SELECT * FROM t JOIN t ON t.a = t.b") == "at 1:22: joining 't' with itself is not supported");
  CHECK(parse_error("SELECT * FROM r JOIN s WHERE a = 1") == "at 1:24: expected ON, found 'WHERE'");
  CHECK(parse_error("SELECT * FROM r INNER s ON r.a = s.b") == "at 1:23: expected JOIN, found 's'");
  CHECK(parse_error("SELECT * FROM r JOIN ON r.a = s.b") == "at 1:22: expected a table name, found 'ON'");
}

// --- errors

TEST_CASE("sql: empty query") {
  CHECK(parse_error("") == "at 1:1: empty query, expected SELECT");
  CHECK(parse_error("   \n  ") == "at 1:1: empty query, expected SELECT");
  CHECK(parse_error(";") == "at 1:1: expected SELECT, found ';'");
}

TEST_CASE("sql: expected versus found") {
  CHECK(parse_error("SELECT a, b, c WHERE a = 1") == "at 1:16: expected FROM, found 'WHERE'");
  CHECK(parse_error("SELEC * FROM t") == "at 1:1: expected SELECT, found 'SELEC'");
  CHECK(parse_error("SELECT FROM t") == "at 1:8: expected '*' or an expression, found 'FROM'");
  CHECK(parse_error("SELECT a b c FROM t") == "at 1:12: expected FROM, found 'c'");
  CHECK(parse_error("SELECT a, FROM t") == "at 1:11: expected '*' or an expression, found 'FROM'");
  CHECK(parse_error("SELECT * FROM") == "at 1:14: expected a table name, found end of query");
  CHECK(parse_error("SELECT * FROM 5") == "at 1:15: expected a table name, found '5'");
  CHECK(parse_error("SELECT t. FROM t") == "at 1:11: expected a column name after '.', found 'FROM'");
  CHECK(parse_error("SELECT select FROM t") == "at 1:8: expected '*' or an expression, found 'select'");
  CHECK(parse_error("SELECT * FROM t GROUP a") == "at 1:23: expected BY, found 'a'");
  CHECK(parse_error("SELECT * FROM t ORDER a") == "at 1:23: expected BY, found 'a'");
  CHECK(parse_error("SELECT * FROM t ORDER BY") == "at 1:25: expected an expression, found end of query");
}

TEST_CASE("sql: unterminated input") {
  CHECK(parse_error("SELECT * FROM t WHERE a > 1 AND") == "at 1:32: expected an expression, found end of query");
  CHECK(parse_error("SELECT * FROM t WHERE a >") == "at 1:26: expected an expression, found end of query");
  CHECK(parse_error("SELECT * FROM t WHERE (a = 1") == "at 1:29: expected ')', found end of query");
  CHECK(parse_error("SELECT * FROM t WHERE a BETWEEN 1") == "at 1:34: expected AND, found end of query");
  CHECK(parse_error("SELECT * FROM t WHERE a NOT 1") == "at 1:29: expected BETWEEN or IN, found '1'");
  CHECK(parse_error("SELECT COUNT(*") == "at 1:15: expected ')', found end of query");
  CHECK(parse_error("SELECT SUM(") == "at 1:12: expected an expression, found end of query");
  CHECK(parse_error("SELECT * FROM t WHERE") == "at 1:22: expected an expression, found end of query");
  CHECK(parse_error("SELECT * FROM t\nWHERE a =\n") == "at 2:10: expected an expression, found end of query");
  CHECK(parse_error("SELECT * FROM t LIMIT") == "at 1:22: expected a row count, found end of query");
  CHECK(parse_error("SELECT") == "at 1:7: expected '*' or an expression, found end of query");
}

TEST_CASE("sql: trailing tokens") {
  CHECK(parse_error("SELECT * FROM t t2 t3") == "at 1:20: expected end of query, found 't3'");
  CHECK(parse_error("SELECT * FROM t; SELECT * FROM u") == "at 1:18: expected end of query, found 'SELECT'");
  CHECK(parse_error("SELECT * FROM t;;") == "at 1:17: expected end of query, found ';'");
  CHECK(parse_error("SELECT * FROM t WHERE a = 1 b = 2") == "at 1:29: expected end of query, found 'b'");
  CHECK(parse_error("SELECT * FROM t WHERE a = 1)") == "at 1:28: expected end of query, found ')'");
  const std::string order = " (clauses go in the order JOIN, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET)";
  CHECK(parse_error("SELECT * FROM t LIMIT 5 WHERE a = 1") == "at 1:25: expected end of query, found 'WHERE'" + order);
  CHECK(parse_error("SELECT * FROM t WHERE a = 1 WHERE b = 1") ==
        "at 1:29: expected end of query, found 'WHERE'" + order);
}

TEST_CASE("sql: unknown characters and malformed numbers") {
  CHECK(parse_error("SELECT * FROM t WHERE a # 1") == "at 1:25: unexpected character '#'");
  CHECK(parse_error("SELECT * FROM t WHERE a ! 1") == "at 1:25: unexpected character '!'");
  CHECK(parse_error("SELECT * FROM t WHERE a = \"x\"") ==
        "at 1:27: unexpected character '\"' (quoted names are not supported; string literals take single quotes)");
  CHECK(parse_error("SELECT * FROM t WHERE a = \xc3\xa9") == "at 1:27: unexpected character 0xC3");
  CHECK(parse_error(std::string("SELECT * FROM t\0", 16)) == "at 1:16: unexpected character 0x00");
  CHECK(parse_error("SELECT *\n  FROM t\n WHERE a @ 1") == "at 3:10: unexpected character '@'");
  CHECK(parse_error("SELECT * FROM t WHERE a = 12abc") == "at 1:27: malformed number '12abc'");
  CHECK(parse_error("SELECT * FROM t WHERE a = 1.2.3") == "at 1:27: malformed number '1.2.3'");
  CHECK(parse_error("SELECT * FROM t WHERE a = 1e") == "at 1:27: malformed number '1e'");
  CHECK(parse_error("SELECT * FROM t WHERE a = 1e+") == "at 1:27: malformed number '1e'");
  CHECK(parse_error("SELECT * FROM t WHERE a = 1e400") == "at 1:27: number '1e400' is out of range for a double");
  CHECK(parse_error("SELECT * FROM t WHERE a = -1e400") == "at 1:28: number '1e400' is out of range for a double");
}

TEST_CASE("sql: comparison needs a column") {
  CHECK(parse_error("SELECT * FROM t WHERE 1 = 2") == "at 1:23: comparison needs a column, but both sides are numbers");
  CHECK(parse_error("SELECT * FROM t WHERE a = 1 OR -1 < 2") ==
        "at 1:32: comparison needs a column, but both sides are numbers");
  CHECK(parse_error("SELECT * FROM t WHERE 3 BETWEEN 1 AND 5") ==
        "at 1:23: comparison needs a column, but both sides are numbers");
  CHECK(parse_error("SELECT * FROM t WHERE 3 BETWEEN a AND 5") ==
        "at 1:23: comparison needs a column, but both sides are numbers");
  CHECK(parse_error("SELECT * FROM t WHERE a = -b") == "at 1:28: expected a number after '-', found 'b'");
  CHECK(parse_error("SELECT * FROM t WHERE a = ()") == "at 1:28: expected an expression, found ')'");
}

TEST_CASE("sql: arithmetic only in ON") {
  CHECK(parse_error("SELECT * FROM t WHERE a + 1 > 3") ==
        "at 1:25: arithmetic ('+') is only supported in a JOIN's ON condition");
  CHECK(parse_error("SELECT * FROM t WHERE a > b - 1") ==
        "at 1:29: arithmetic ('-') is only supported in a JOIN's ON condition");
  CHECK(parse_error("SELECT * FROM t WHERE a > 3 -1") ==
        "at 1:29: arithmetic ('-') is only supported in a JOIN's ON condition");
  CHECK(parse_error("SELECT * FROM t WHERE a BETWEEN b - 1 AND b + 1") ==
        "at 1:35: arithmetic ('-') is only supported in a JOIN's ON condition");
}

TEST_CASE("sql: aggregate errors") {
  CHECK(parse_error("SELECT FOO(a) FROM t") ==
        "at 1:8: unknown function 'FOO' (supported: COUNT, SUM, AVG, MIN, MAX, MEDIAN, QUANTILE, KTH_LARGEST)");
  CHECK(parse_error("SELECT a, stddev(a) FROM t").starts_with("at 1:11: unknown function 'STDDEV' (supported: "));
  CHECK(parse_error("SELECT SUM(*) FROM t") == "at 1:12: SUM needs a column; only COUNT takes '*'");
  CHECK(parse_error("SELECT median(*) FROM t") == "at 1:15: MEDIAN needs a column; only COUNT takes '*'");
  CHECK(parse_error("SELECT SUM(a, b) FROM t") == "at 1:8: SUM takes one argument, found 2");
  CHECK(parse_error("SELECT SUM(1) FROM t") == "at 1:12: expected a column, found '1'");
  CHECK(parse_error("SELECT COUNT() FROM t") == "at 1:14: expected an expression, found ')'");
  CHECK(parse_error("SELECT QUANTILE(a) FROM t") == "at 1:8: QUANTILE takes two arguments, found 1");
  CHECK(parse_error("SELECT QUANTILE(a, 0) FROM t") == "at 1:20: QUANTILE's q must be in (0, 1], found '0'");
  CHECK(parse_error("SELECT QUANTILE(a, 1.5) FROM t") == "at 1:20: QUANTILE's q must be in (0, 1], found '1.5'");
  CHECK(parse_error("SELECT QUANTILE(a, -0.5) FROM t") == "at 1:20: QUANTILE's q must be in (0, 1], found '-0.5'");
  CHECK(parse_error("SELECT QUANTILE(a, 1.0000000000000002) FROM t") ==
        "at 1:20: QUANTILE's q must be in (0, 1], found '1.0000000000000002'");
  CHECK(parse_error("SELECT QUANTILE(a, b) FROM t") == "at 1:20: expected a number q in (0, 1], found 'b'");
  CHECK(parse_error("SELECT KTH_LARGEST(a) FROM t") == "at 1:8: KTH_LARGEST takes two arguments, found 1");
  CHECK(parse_error("SELECT KTH_LARGEST(a, 0) FROM t") ==
        "at 1:23: KTH_LARGEST's k must be an integer in [1, 2^63 - 1], found '0'");
  CHECK(parse_error("SELECT KTH_LARGEST(a, -1) FROM t") ==
        "at 1:23: KTH_LARGEST's k must be an integer in [1, 2^63 - 1], found '-1'");
  CHECK(parse_error("SELECT KTH_LARGEST(a, 2.0) FROM t") ==
        "at 1:23: KTH_LARGEST's k must be an integer in [1, 2^63 - 1], found '2.0'");
  CHECK(parse_error("SELECT KTH_LARGEST(a, 1e2) FROM t") ==
        "at 1:23: KTH_LARGEST's k must be an integer in [1, 2^63 - 1], found '1e2'");
  CHECK(parse_error("SELECT KTH_LARGEST(a, 9223372036854775808) FROM t") ==
        "at 1:23: integer '9223372036854775808' is out of range for BIGINT [-2^63, 2^63 - 1] (write it with a '.' for "
        "a double)");
  CHECK(parse_error("SELECT KTH_LARGEST(a, k) FROM t") == "at 1:23: expected an integer k >= 1, found 'k'");
}

TEST_CASE("sql: LIMIT errors") {
  CHECK(parse_error("SELECT * FROM t LIMIT -1") == "at 1:23: LIMIT needs an integer in [0, 2^64 - 1], found '-1'");
  CHECK(parse_error("SELECT * FROM t LIMIT 1.5") == "at 1:23: LIMIT needs an integer in [0, 2^64 - 1], found '1.5'");
  CHECK(parse_error("SELECT * FROM t LIMIT 1e3") == "at 1:23: LIMIT needs an integer in [0, 2^64 - 1], found '1e3'");
  CHECK(parse_error("SELECT * FROM t LIMIT 18446744073709551616") ==
        "at 1:23: LIMIT needs an integer in [0, 2^64 - 1], found '18446744073709551616'");
  CHECK(parse_error("SELECT * FROM t LIMIT n") == "at 1:23: expected a row count, found 'n'");
  CHECK(parse_error("SELECT * FROM t LIMIT 5 6") == "at 1:25: expected end of query, found '6'");
}

// --- the language beyond the spec

TEST_CASE("sql: constructs a query spec cannot express are named, with their position") {
  const std::string spec = " cannot be expressed as a query spec (gfxq::Query)";
  CHECK(parse_error("SELECT a b FROM t") == "at 1:8: an alias (AS b)" + spec);
  CHECK(parse_error("SELECT a AS b FROM t") == "at 1:8: an alias (AS b)" + spec);
  CHECK(parse_error("SELECT * FROM t t2") == "at 1:15: a table alias ('t2')" + spec);
  CHECK(parse_error("SELECT * FROM r JOIN s AS x ON r.a = x.b") == "at 1:22: a table alias ('x')" + spec);
  CHECK(parse_error("SELECT t.* FROM t") == "at 1:8: 't.*'" + spec);
  CHECK(parse_error("SELECT a + 1 FROM t") ==
        "at 1:8: the select item 'a + 1' (not '*', a column or an aggregate)" + spec);
  CHECK(parse_error("SELECT 1 FROM t") == "at 1:8: the select item '1' (not '*', a column or an aggregate)" + spec);
  CHECK(parse_error("SELECT SUM(a * b) FROM t") == "at 1:12: expected a column, found 'a * b'");
  CHECK(parse_error("SELECT COUNT(DISTINCT a) FROM t") == "at 1:8: COUNT(DISTINCT ...)" + spec);
  CHECK(parse_error("SELECT DISTINCT a FROM t") == "at 1:1: SELECT DISTINCT" + spec);
  CHECK(parse_error("SELECT a FROM t UNION SELECT a FROM u") == "at 1:17: UNION" + spec);
  CHECK(parse_error("SELECT a FROM t INTERSECT ALL SELECT a FROM u") == "at 1:17: INTERSECT" + spec);
  CHECK(parse_error("(SELECT a FROM t) EXCEPT SELECT a FROM u") == "at 1:19: EXCEPT" + spec);
  CHECK(parse_error("SELECT a FROM t, u") == "at 1:18: a second FROM table (',')" + spec);
  CHECK(parse_error("SELECT a FROM t CROSS JOIN u") == "at 1:28: CROSS JOIN" + spec);
  CHECK(parse_error("SELECT * FROM r JOIN s ON r.a = s.b JOIN u ON r.a = u.b") == "at 1:42: a second join" + spec);
  CHECK(parse_error("SELECT g FROM t GROUP BY g HAVING COUNT(*) > 1") == "at 1:35: HAVING" + spec);
  CHECK(parse_error("SELECT * FROM t GROUP BY a, b") == "at 1:29: GROUP BY takes one column");
  CHECK(parse_error("SELECT * FROM t GROUP BY a + 1") == "at 1:26: GROUP BY takes one column, found 'a + 1'");
  CHECK(parse_error("SELECT * FROM t ORDER BY a, b") == "at 1:29: ORDER BY takes one column");
  CHECK(parse_error("SELECT * FROM t ORDER BY 1") == "at 1:26: ORDER BY takes one column, found '1'");
  CHECK(parse_error("SELECT * FROM t LIMIT 1 OFFSET 2") == "at 1:1: OFFSET" + spec);
  CHECK(parse_error("EXPLAIN SELECT * FROM t") == "at 1:9: EXPLAIN" + spec);
  CHECK(parse_error("SELECT * FROM t WHERE a") ==
        "at 1:23: expected a condition (a comparison, BETWEEN or IN), found 'a'");
  CHECK(parse_error("SELECT * FROM t WHERE a = 'x'") == "at 1:27: the literal 'x' (not a number)" + spec);
  CHECK(parse_error("SELECT * FROM t WHERE a = DATE '2024-02-29'") ==
        "at 1:27: the literal DATE '2024-02-29' (not a number)" + spec);
  CHECK(parse_error("SELECT * FROM t WHERE a = NULL") == "at 1:27: the literal NULL (not a number)" + spec);
  CHECK(parse_error("SELECT * FROM t WHERE a = (b = 1)") == "at 1:27: expected a column or a number, found 'b = 1'");
  CHECK(parse_error("SELECT * FROM t WHERE SUM(a) > 1") == "at 1:23: expected a column or a number, found 'SUM(a)'");
  CHECK(parse_error("SELECT * FROM t WHERE a * 2 > 1") ==
        "at 1:25: arithmetic ('*') is only supported in a JOIN's ON condition");
  CHECK(parse_error("SELECT * FROM t WHERE a IN (1, b + 1)") ==
        "at 1:34: arithmetic ('+') is only supported in a JOIN's ON condition");
}

TEST_CASE("sql: IN lists, comments, strings in comments and a sign on a parenthesised number") {
  CHECK(where_text("a IN (1, 2, b)") == "(a = 1 OR a = 2 OR a = b)");
  CHECK(where_text("a NOT IN (1, 2)") == "(a <> 1) AND (a <> 2)");
  CHECK(where_text("NOT a IN (1)") == "(a <> 1)");
  CHECK(where_text("5 IN (a, b)") == "(a = 5 OR b = 5)");
  CHECK(where_text("a = -(5)") == "(a = -5)");
  CHECK(where_text("a = - - 5") == "(a = 5)");
  CHECK(where_text("a -- ';' is not a string here\n = /* nor 'here' */ 1") == "(a = 1)");
  CHECK(join_of("s.b = r.a + (2)") == band("r.a", "s.b", 2, 2));
  // A number too large for BIGINT is written as a decimal, and the canonical text keeps it one.
  const Query q = parse("SELECT * FROM t WHERE a > 12345678901234567890.0 AND a < -9223372036854775808.");
  CHECK(q.where.text() == "(a > 1.2345678901234567e+19) AND (a < -9.223372036854776e+18)");
  CHECK(parse(q.text()) == q);
}
