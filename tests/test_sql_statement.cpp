// The statement parser of the analytic SQL language (sql/parse_statement.h): every construct,
// precedence, canonical text and its round trip, lexical rules, every error with its position,
// nesting bounds, script splitting, and the 13 SSB queries.

#include <doctest/doctest.h>

#include <charconv>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gfxq/error.h"
#include "gfxq/sql.h"
#include "gfxq/table.h"
#include "sql/ast.h"
#include "sql/parse_statement.h"
#include "ssb/ssb_harness.h"

namespace {

using namespace gfxq::sql;
using ast::Expr;
using ast::ExprKind;
using ast::Op;

Expr ex(const std::string& text) {
  return parse_expression(text);
}

ast::Statement st(const std::string& text) {
  return parse_statement(text);
}

// The message of the InvalidQuery error `f` throws, or "no error".
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const gfxq::Error& e) {
    CHECK(e.code() == gfxq::ErrorCode::InvalidQuery);
    return e.what();
  }
  return "no error";
}

std::string statement_error(const std::string& text) {
  return error_of([&] { parse_statement(text); });
}

std::string expression_error(const std::string& text) {
  return error_of([&] { parse_expression(text); });
}

std::string where_error(const std::string& condition) {
  return statement_error("SELECT * FROM t WHERE " + condition);
}

std::string pos(gfxq::sql::Position p) {
  return std::to_string(p.line) + ":" + std::to_string(p.column);
}

// The tree in prefix form with every node in parentheses, e.g. "(+ a (* b c))".
std::string tree(const Expr& e) {
  std::string s;
  const auto children = [&](size_t from) {
    for (size_t i = from; i < e.args.size(); ++i) s += " " + tree(e.args[i]);
  };
  switch (e.kind) {
    case ExprKind::Column: return e.table.empty() ? e.name : e.table + "." + e.name;
    case ExprKind::Literal: return e.text();
    case ExprKind::Unary:
    case ExprKind::Binary: s = std::string("(") + ast::to_string(e.op); break;
    case ExprKind::Between: s = e.negated ? "(NOT BETWEEN" : "(BETWEEN"; break;
    case ExprKind::In: s = e.negated ? "(NOT IN" : "(IN"; break;
    case ExprKind::Case: s = "(CASE"; break;
    case ExprKind::Function: s = "(" + e.name + (e.distinct ? " DISTINCT" : "") + (e.star ? " *" : ""); break;
    case ExprKind::Extract: s = "(EXTRACT " + e.field; break;
  }
  children(0);
  return s + ")";
}

std::string tree_of(const std::string& text) {
  return tree(ex(text));
}

}  // namespace

// --- statements

TEST_CASE("sql-statement: a SELECT block with every clause") {
  const ast::Statement s =
      st("SELECT DISTINCT t.*, *, a AS x, b y, SUM(c)\n"
         "FROM lineorder lo, date AS d JOIN part p ON lo.pk = p.pk INNER JOIN supplier ON TRUE_ = 1 CROSS JOIN x\n"
         "WHERE a > 1 GROUP BY a, b + 1, 2 HAVING COUNT(*) > 3\n"
         "ORDER BY x DESC, 2, b ASC LIMIT 10 OFFSET 5;");
  CHECK_FALSE(s.explain);
  const ast::Query& q = s.query;
  REQUIRE(q.select);
  const ast::Select& b = *q.select;
  CHECK(b.distinct);
  CHECK(pos(b.pos) == "1:1");
  CHECK(pos(q.pos) == "1:1");
  REQUIRE(b.items.size() == 5);
  CHECK(b.items[0].star);
  CHECK(b.items[0].star_table == "t");
  CHECK(pos(b.items[0].pos) == "1:17");
  CHECK(b.items[1].star);
  CHECK(b.items[1].star_table.empty());
  CHECK(b.items[2].expr.text() == "a");
  CHECK(b.items[2].alias == "x");
  CHECK(b.items[3].alias == "y");
  CHECK(b.items[4].expr.text() == "SUM(c)");
  CHECK(b.items[4].alias.empty());
  CHECK(pos(b.items[4].pos) == "1:38");
  CHECK(b.from.name == "lineorder");
  CHECK(b.from.alias == "lo");
  CHECK(pos(b.from.pos) == "2:6");
  REQUIRE(b.joins.size() == 4);
  CHECK(b.joins[0].kind == ast::JoinKind::Comma);
  CHECK(b.joins[0].table.name == "date");
  CHECK(b.joins[0].table.alias == "d");
  CHECK_FALSE(b.joins[0].on);
  CHECK(b.joins[1].kind == ast::JoinKind::Inner);
  CHECK(b.joins[1].table.name == "part");
  CHECK(b.joins[1].table.alias == "p");
  REQUIRE(b.joins[1].on);
  CHECK(b.joins[1].on->text() == "lo.pk = p.pk");
  CHECK(b.joins[2].kind == ast::JoinKind::Inner);
  CHECK(b.joins[2].table.alias.empty());
  CHECK(b.joins[2].on->text() == "TRUE_ = 1");
  CHECK(b.joins[3].kind == ast::JoinKind::Cross);
  CHECK(b.joins[3].table.name == "x");
  CHECK(pos(b.joins[3].table.pos) == "2:102");
  CHECK_FALSE(b.joins[3].on);
  REQUIRE(b.where);
  CHECK(b.where->text() == "a > 1");
  REQUIRE(b.group_by.size() == 3);
  CHECK(b.group_by[1].text() == "b + 1");
  CHECK(b.group_by[2].literal == gfxq::Value(int64_t{2}));
  REQUIRE(b.having);
  CHECK(b.having->text() == "COUNT(*) > 3");
  REQUIRE(q.order_by.size() == 3);
  CHECK(q.order_by[0].expr.text() == "x");
  CHECK(q.order_by[0].descending);
  CHECK(q.order_by[1].expr.literal == gfxq::Value(int64_t{2}));
  CHECK_FALSE(q.order_by[1].descending);
  CHECK_FALSE(q.order_by[2].descending);
  CHECK(q.limit == 10u);
  CHECK(q.offset == 5u);
}

TEST_CASE("sql-statement: the smallest query, EXPLAIN, OFFSET alone, semicolons and case") {
  const ast::Statement s = st("select a from t");
  REQUIRE(s.query.select);
  CHECK(s.query.select->items.size() == 1);
  CHECK(s.query.select->joins.empty());
  CHECK_FALSE(s.query.select->where);
  CHECK_FALSE(s.query.select->having);
  CHECK(s.query.order_by.empty());
  CHECK_FALSE(s.query.limit);
  CHECK_FALSE(s.query.offset);
  CHECK(st("EXPLAIN SELECT a FROM t;").explain);
  CHECK(pos(st("  explain\n select a from t").query.pos) == "2:2");
  CHECK(st("SELECT a FROM t OFFSET 3").query.offset == 3u);
  CHECK(st("SELECT a FROM t LIMIT +2").query.limit == 2u);
  CHECK(st("SELECT a FROM t LIMIT 18446744073709551615").query.limit == 18446744073709551615u);
  CHECK(st("SELECT 1 FROM t").query.select->items[0].expr.text() == "1");
  // Names keep their case; keywords and function names do not matter.
  const ast::Statement c = st("SeLeCt Sum(Lo.A) aS Total FrOm LineOrder Lo");
  CHECK(c.query.select->items[0].expr.text() == "SUM(Lo.A)");
  CHECK(c.query.select->items[0].alias == "Total");
  CHECK(c.query.select->from.name == "LineOrder");
}

TEST_CASE("sql-statement: set operations: INTERSECT binds tighter, left-associative, ALL, parentheses") {
  const auto shape = [](const ast::Query& q, const auto& self) -> std::string {
    if (q.select) return q.select->from.name;
    const char* names[] = {"UNION", "INTERSECT", "EXCEPT"};
    return "(" + std::string(names[int(q.set_op)]) + (q.all ? " ALL " : " ") + self(q.operands[0], self) + " " +
           self(q.operands[1], self) + ")";
  };
  const auto set_tree = [&](const std::string& text) { return shape(st(text).query, shape); };
  CHECK(set_tree("SELECT a FROM t UNION SELECT a FROM u") == "(UNION t u)");
  CHECK(set_tree("SELECT a FROM t UNION ALL SELECT a FROM u UNION SELECT a FROM v") == "(UNION (UNION ALL t u) v)");
  CHECK(set_tree("SELECT a FROM t EXCEPT SELECT a FROM u UNION SELECT a FROM v") == "(UNION (EXCEPT t u) v)");
  CHECK(set_tree("SELECT a FROM t UNION SELECT a FROM u INTERSECT SELECT a FROM v") == "(UNION t (INTERSECT u v))");
  CHECK(set_tree("SELECT a FROM t INTERSECT ALL SELECT a FROM u EXCEPT ALL SELECT a FROM v") ==
        "(EXCEPT ALL (INTERSECT ALL t u) v)");
  CHECK(set_tree("SELECT a FROM t INTERSECT SELECT a FROM u INTERSECT SELECT a FROM v") ==
        "(INTERSECT (INTERSECT t u) v)");
  CHECK(set_tree("SELECT a FROM t EXCEPT (SELECT a FROM u UNION SELECT a FROM v)") == "(EXCEPT t (UNION u v))");
  CHECK(set_tree("((SELECT a FROM t))") == "t");
  // ORDER BY and LIMIT after the last operand apply to the result; inside parentheses to the operand.
  const ast::Query q =
      st("(SELECT a FROM t ORDER BY a LIMIT 1) UNION SELECT a FROM u WHERE a > 0 ORDER BY 1 DESC LIMIT 2").query;
  REQUIRE_FALSE(q.select);
  CHECK(pos(q.pos) == "1:1");
  CHECK(pos(q.set_op_pos) == "1:38");
  CHECK(q.order_by.size() == 1);
  CHECK(q.order_by[0].descending);
  CHECK(q.limit == 2u);
  CHECK(q.operands[0].order_by.size() == 1);
  CHECK(q.operands[0].limit == 1u);
  CHECK(q.operands[1].order_by.empty());
  CHECK_FALSE(q.operands[1].limit);
  CHECK(q.operands[1].select->where->text() == "a > 0");
  // A parenthesised query without ORDER BY / LIMIT of its own takes those that follow.
  const ast::Query p = st("(SELECT a FROM t) ORDER BY a LIMIT 3").query;
  REQUIRE(p.select);
  CHECK(p.order_by.size() == 1);
  CHECK(p.limit == 3u);
}

// --- expressions

TEST_CASE("sql-statement: precedence: OR < AND < NOT < comparison, BETWEEN, IN < + - < * / < unary minus") {
  CHECK(tree_of("a OR b AND c") == "(OR a (AND b c))");
  CHECK(tree_of("a AND b OR c") == "(OR (AND a b) c)");
  CHECK(tree_of("a OR b OR c") == "(OR (OR a b) c)");
  CHECK(tree_of("NOT a AND b") == "(AND (NOT a) b)");
  CHECK(tree_of("a AND NOT b") == "(AND a (NOT b))");
  CHECK(tree_of("NOT a = b") == "(NOT (= a b))");
  CHECK(tree_of("NOT NOT a") == "(NOT (NOT a))");
  CHECK(tree_of("a = b AND c <> d OR e != f") == "(OR (AND (= a b) (<> c d)) (<> e f))");
  CHECK(tree_of("a < b AND c <= d AND e > f AND g >= h") == "(AND (AND (AND (< a b) (<= c d)) (> e f)) (>= g h))");
  CHECK(tree_of("a + b * c") == "(+ a (* b c))");
  CHECK(tree_of("a * b + c") == "(+ (* a b) c)");
  CHECK(tree_of("a - b - c") == "(- (- a b) c)");
  CHECK(tree_of("a / b * c") == "(* (/ a b) c)");
  CHECK(tree_of("a - (b - c)") == "(- a (- b c))");
  CHECK(tree_of("(a + b) * c") == "(* (+ a b) c)");
  CHECK(tree_of("-a * b") == "(* (- a) b)");
  CHECK(tree_of("- - a") == "(- (- a))");
  CHECK(tree_of("-2 * b") == "(* -2 b)");
  CHECK(tree_of("-(2) * b") == "(* (- 2) b)");
  CHECK(tree_of("2 - 1") == "(- 2 1)");
  CHECK(tree_of("2-1") == "(- 2 1)");
  CHECK(tree_of("a - -1") == "(- a -1)");
  CHECK(tree_of("a = -b") == "(= a (- b))");
  CHECK(tree_of("a + b < c * d") == "(< (+ a b) (* c d))");
  CHECK(tree_of("(a = b) = c") == "(= (= a b) c)");
  CHECK(tree_of("a BETWEEN b + 1 AND c * 2 AND d") == "(AND (BETWEEN a (+ b 1) (* c 2)) d)");
  CHECK(tree_of("a NOT BETWEEN 1 AND 2") == "(NOT BETWEEN a 1 2)");
  CHECK(tree_of("NOT a BETWEEN 1 AND 2") == "(NOT (BETWEEN a 1 2))");
  CHECK(tree_of("a + 1 IN (1, 2 + 3, b OR c)") == "(IN (+ a 1) 1 (+ 2 3) (OR b c))");
  CHECK(tree_of("a NOT IN ('x')") == "(NOT IN a 'x')");
  CHECK(tree_of("CASE WHEN a THEN b ELSE c END + 1") == "(+ (CASE a b c) 1)");
  CHECK(tree_of("EXTRACT(YEAR FROM d) * 100 + EXTRACT(month FROM d)") ==
        "(+ (* (EXTRACT YEAR d) 100) (EXTRACT MONTH d))");
  CHECK(tree_of("SUM(a * b) / COUNT(*)") == "(/ (SUM (* a b)) (COUNT *))");
}

TEST_CASE("sql-statement: literals: BIGINT, double as written, strings, DATE, NULL") {
  const auto literal = [](const std::string& text) {
    const Expr e = ex(text);
    REQUIRE(e.kind == ExprKind::Literal);
    return e;
  };
  CHECK(literal("0").literal == gfxq::Value(int64_t{0}));
  CHECK(literal("42").literal_text == "42");
  CHECK(literal("9223372036854775807").literal == gfxq::Value(int64_t{9223372036854775807}));
  CHECK(literal("-9223372036854775808").literal == gfxq::Value(std::numeric_limits<int64_t>::min()));
  CHECK(literal("- 7").literal == gfxq::Value(int64_t{-7}));
  CHECK(literal("- 7").literal_text == "-7");
  CHECK(literal("+7").literal_text == "7");
  CHECK(literal("0.1").literal == gfxq::Value(0.1));
  CHECK(literal("0.1").literal_text == "0.1");
  CHECK(literal("5.").literal == gfxq::Value(5.0));
  CHECK(literal("5.").literal_text == "5.");
  CHECK(literal(".25").literal == gfxq::Value(0.25));
  CHECK(literal("1E+3").literal == gfxq::Value(1000.0));
  CHECK(literal("1E+3").literal_text == "1E+3");
  CHECK(literal("-2.5e-2").literal == gfxq::Value(-0.025));
  CHECK(literal("1e-400").literal == gfxq::Value(0.0));
  CHECK(literal("9223372036854775808.0").literal == gfxq::Value(9223372036854775808.0));
  CHECK(literal("'it''s'").literal == gfxq::Value(std::string("it's")));
  CHECK(literal("''").literal == gfxq::Value(std::string()));
  CHECK(literal("'a;b -- c /* d */'").literal == gfxq::Value(std::string("a;b -- c /* d */")));
  CHECK(literal("'caf\xc3\xa9\nline'").literal == gfxq::Value(std::string("caf\xc3\xa9\nline")));
  CHECK(literal("DATE '1998-12-01'").literal == gfxq::Value(*gfxq::parse_date("1998-12-01")));
  CHECK(literal("date '0001-01-01'").literal == gfxq::Value(*gfxq::parse_date("0001-01-01")));
  CHECK(literal("NULL").literal == gfxq::Value());
  CHECK(pos(literal("  -5").pos) == "1:3");
  CHECK(pos(literal("\n DATE '2000-02-29'").pos) == "2:2");
  // DATE, YEAR, MONTH and DAY are names where no string or EXTRACT makes them special.
  CHECK(tree_of("date + year - month * day") == "(- (+ date year) (* month day))");
  CHECK(tree_of("date.d_year") == "date.d_year");
  CHECK(tree_of("DATE(x)") == "(DATE x)");
  CHECK(st("SELECT d_year FROM lineorder, date WHERE lo_orderdate = d_datekey").query.select->joins[0].table.name ==
        "date");
  CHECK(st("SELECT year FROM date date").query.select->from.alias == "date");
}

TEST_CASE("sql-statement: functions, CASE, EXTRACT, IN, BETWEEN") {
  const Expr count = ex("count(*)");
  CHECK(count.kind == ExprKind::Function);
  CHECK(count.name == "COUNT");
  CHECK(count.star);
  CHECK(count.args.empty());
  const Expr distinct = ex("Count(DISTINCT a + 1)");
  CHECK(distinct.distinct);
  CHECK(distinct.text() == "COUNT(DISTINCT a + 1)");
  const Expr quantile = ex("quantile(a, 0.10)");
  CHECK(quantile.name == "QUANTILE");
  REQUIRE(quantile.args.size() == 2);
  CHECK(quantile.args[1].literal_text == "0.10");
  CHECK(ex("kth_largest(a, 3)").text() == "KTH_LARGEST(a, 3)");
  CHECK(ex("median(t.a)").text() == "MEDIAN(t.a)");
  CHECK(ex("my_fn(a, b, c)").args.size() == 3);
  CHECK(ex("count").kind == ExprKind::Column);  // no '(': a column
  const Expr c = ex("CASE WHEN a = 1 THEN 'one' WHEN a = 2 THEN 'two' ELSE NULL END");
  CHECK(c.kind == ExprKind::Case);
  CHECK(c.args.size() == 5);
  CHECK(ex("CASE WHEN a THEN 1 END").args.size() == 2);
  const Expr e = ex("EXTRACT(day FROM d + 1)");
  CHECK(e.kind == ExprKind::Extract);
  CHECK(e.field == "DAY");
  CHECK(e.args[0].text() == "d + 1");
  const Expr in = ex("a NOT IN (1, 'x', DATE '2000-01-01', NULL)");
  CHECK(in.kind == ExprKind::In);
  CHECK(in.negated);
  CHECK(in.args.size() == 5);
  CHECK(pos(in.op_pos) == "1:3");
  const Expr between = ex("x BETWEEN 1 AND 2");
  CHECK(between.kind == ExprKind::Between);
  CHECK_FALSE(between.negated);
  CHECK(pos(between.op_pos) == "1:3");
  // Positions: a node at its first token ('(' included), an operator at its token.
  const Expr mul = ex("(a +\n b) * c");
  CHECK(pos(mul.pos) == "1:1");
  CHECK(pos(mul.op_pos) == "2:5");
  CHECK(pos(mul.args[0].pos) == "1:1");
  CHECK(pos(mul.args[0].op_pos) == "1:4");
  CHECK(pos(mul.args[0].args[1].pos) == "2:2");
}

TEST_CASE("sql-statement: canonical text with minimal parentheses") {
  const auto canonical = [](const std::string& text) { return ex(text).text(); };
  CHECK(canonical("sum(lo_extendedprice*lo_discount)") == "SUM(lo_extendedprice * lo_discount)");
  CHECK(canonical("t.a+1") == "t.a + 1");
  CHECK(canonical("QUANTILE(a,0.1)") == "QUANTILE(a, 0.1)");
  CHECK(canonical("((a + b)) * (c)") == "(a + b) * c");
  CHECK(canonical("a + (b * c)") == "a + b * c");
  CHECK(canonical("a - (b - c)") == "a - (b - c)");
  CHECK(canonical("a - (b + c)") == "a - (b + c)");
  CHECK(canonical("(a - b) - c") == "a - b - c");
  CHECK(canonical("a / (b * c)") == "a / (b * c)");
  CHECK(canonical("-(5)") == "-(5)");
  CHECK(canonical("-(-5)") == "-(-5)");
  CHECK(canonical("- -a") == "- -a");
  CHECK(canonical("-(a + b)") == "-(a + b)");
  CHECK(canonical("a - -5") == "a - -5");
  CHECK(canonical("1.50e+3 + .5") == "1.50e+3 + .5");
  CHECK(canonical("'it''s'") == "'it''s'");
  CHECK(canonical("date '1998-12-01'") == "DATE '1998-12-01'");
  CHECK(canonical("null") == "NULL");
  CHECK(canonical("NOT (a AND b)") == "NOT (a AND b)");
  CHECK(canonical("(NOT a) = b") == "(NOT a) = b");
  CHECK(canonical("(a = b) = c") == "(a = b) = c");
  CHECK(canonical("a = (b = c)") == "a = (b = c)");
  CHECK(canonical("a OR (b OR c)") == "a OR (b OR c)");
  CHECK(canonical("(a OR b) AND c") == "(a OR b) AND c");
  CHECK(canonical("a not between 1 and 2") == "a NOT BETWEEN 1 AND 2");
  CHECK(canonical("(a between 1 and 2) between x and y") == "(a BETWEEN 1 AND 2) BETWEEN x AND y");
  CHECK(canonical("a in (1,2)") == "a IN (1, 2)");
  CHECK(canonical("case when a then b else c end") == "CASE WHEN a THEN b ELSE c END");
  CHECK(canonical("extract(year from d)") == "EXTRACT(YEAR FROM d)");
  CHECK(canonical("count(distinct a)") == "COUNT(DISTINCT a)");
  // Trees built by code (no literal_text): shortest text, a whole double keeps a '.'.
  Expr built;
  built.kind = ExprKind::Literal;
  built.literal = 2.0;
  CHECK(built.text() == "2.0");
  built.literal = 0.1;
  CHECK(built.text() == "0.1");
  built.literal = int64_t{-3};
  CHECK(built.text() == "-3");
  built.literal = std::string("a'b");
  CHECK(built.text() == "'a''b'");
  CHECK(ast::to_string(Op::Ne) == std::string("<>"));
  CHECK(ast::to_string(Op::Neg) == std::string("-"));
  CHECK(ast::to_string(Op::Not) == std::string("NOT"));
}

namespace {

// Random syntax trees of the shapes the parser builds, for the text() round trip.
class TreeGenerator {
 public:
  explicit TreeGenerator(uint64_t seed) : rng_(seed) {}

  Expr expr(int depth) {
    if (depth == 0 || pick(5) == 0) return leaf();
    switch (pick(8)) {
      case 0: return unary(pick(2) ? Op::Neg : Op::Not, expr(depth - 1));
      case 1:
      case 2: {
        const Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Lt,  Op::Le,
                          Op::Gt,  Op::Ge,  Op::Eq,  Op::Ne,  Op::And, Op::Or};
        return node(ExprKind::Binary, ops[pick(12)], {expr(depth - 1), expr(depth - 1)});
      }
      case 3: {
        Expr e = node(ExprKind::Between, Op::Add, {expr(depth - 1), expr(depth - 1), expr(depth - 1)});
        e.negated = pick(2);
        return e;
      }
      case 4: {
        std::vector<Expr> args{expr(depth - 1)};
        for (int i = 0, n = 1 + pick(3); i < n; ++i) args.push_back(expr(depth - 1));
        Expr e = node(ExprKind::In, Op::Add, std::move(args));
        e.negated = pick(2);
        return e;
      }
      case 5: {
        std::vector<Expr> args;
        for (int i = 0, n = 1 + pick(2); i < n; ++i) {
          args.push_back(expr(depth - 1));
          args.push_back(expr(depth - 1));
        }
        if (pick(2)) args.push_back(expr(depth - 1));
        return node(ExprKind::Case, Op::Add, std::move(args));
      }
      case 6: {
        const char* fields[] = {"YEAR", "MONTH", "DAY"};
        Expr e = node(ExprKind::Extract, Op::Add, {expr(depth - 1)});
        e.field = fields[pick(3)];
        return e;
      }
      default: {
        const char* names[] = {"SUM", "COUNT", "QUANTILE", "KTH_LARGEST", "DATE", "F_2"};
        Expr e;
        e.kind = ExprKind::Function;
        e.name = names[pick(6)];
        if (e.name == "COUNT" && pick(3) == 0) {
          e.star = true;
          return e;
        }
        e.distinct = pick(4) == 0;
        for (int i = 0, n = 1 + pick(2); i < n; ++i) e.args.push_back(expr(depth - 1));
        return e;
      }
    }
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  static Expr node(ExprKind kind, Op op, std::vector<Expr> args) {
    Expr e;
    e.kind = kind;
    e.op = op;
    e.args = std::move(args);
    return e;
  }

  static Expr unary(Op op, Expr arg) { return node(ExprKind::Unary, op, {std::move(arg)}); }

  Expr leaf() {
    Expr e;
    e.kind = ExprKind::Literal;
    switch (pick(7)) {
      case 0: {
        const char* tables[] = {"", "", "t", "date", "Lo"};
        const char* names[] = {"a", "b_1", "date", "year", "Count", "x"};
        e.kind = ExprKind::Column;
        e.table = tables[pick(5)];
        e.name = names[pick(6)];
        return e;
      }
      case 1: {
        const int64_t values[] = {0, 1, 42, -7, 9223372036854775807, std::numeric_limits<int64_t>::min()};
        const int64_t v = pick(2) ? values[pick(6)] : std::uniform_int_distribution<int64_t>(-1000000, 1000000)(rng_);
        e.literal = v;
        e.literal_text = std::to_string(v);
        return e;
      }
      case 2: {
        const char* texts[] = {"0.1", "1e3", ".5", "5.", "2.5E-3", "-0.0", "-1.25", "1e-400", "123456789.123456789"};
        e.literal_text = texts[pick(9)];
        const bool negative = e.literal_text[0] == '-';
        const std::string digits = e.literal_text.substr(negative ? 1 : 0);
        double v = 0;
        std::from_chars(digits.data(), digits.data() + digits.size(), v);
        e.literal = negative ? -v : v;
        return e;
      }
      case 3: {
        const char* strings[] = {"", "it's", "''", "a;b", "-- not a comment", "caf\xc3\xa9", "two\nlines", "/*"};
        e.literal = std::string(strings[pick(8)]);
        return e;
      }
      case 4: {
        e.literal = gfxq::Date{std::uniform_int_distribution<int32_t>(-719162, 2932896)(rng_)};
        return e;
      }
      case 5: return e;  // NULL
      default: {
        // A negative number under unary minus, the case text() must write with care.
        Expr lit;
        lit.kind = ExprKind::Literal;
        lit.literal = int64_t{-5};
        lit.literal_text = "-5";
        return pick(2) ? unary(Op::Neg, lit) : lit;
      }
    }
  }

  std::mt19937_64 rng_;
};

}  // namespace

TEST_CASE("sql-statement: text() reads back to the same tree (random trees)") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  TreeGenerator gen(seed);
  for (int i = 0; i < 10000; ++i) {
    const Expr e = gen.expr(1 + i % 6);
    const std::string text = e.text();
    CAPTURE(text);
    Expr back;
    try {
      back = parse_expression(text);
    } catch (const gfxq::Error& err) {
      FAIL("the canonical text does not parse: " << err.what());
    }
    CHECK(ast::same_tree(back, e));
    CHECK(back.text() == text);
  }
}

TEST_CASE("sql-statement: same_tree compares trees, not positions") {
  CHECK(ast::same_tree(ex("a + 1"), ex("  a\n+1")));
  CHECK(ast::same_tree(ex("(a)"), ex("a")));
  CHECK_FALSE(ast::same_tree(ex("a + 1"), ex("a + 2")));
  CHECK_FALSE(ast::same_tree(ex("a + 1"), ex("a - 1")));
  CHECK_FALSE(ast::same_tree(ex("1.0"), ex("1.00")));  // the text as written differs
  CHECK_FALSE(ast::same_tree(ex("1"), ex("1.0")));
  CHECK_FALSE(ast::same_tree(ex("t.a"), ex("a")));
  CHECK_FALSE(ast::same_tree(ex("a IN (1)"), ex("a NOT IN (1)")));
  CHECK_FALSE(ast::same_tree(ex("COUNT(a)"), ex("COUNT(DISTINCT a)")));
  CHECK_FALSE(ast::same_tree(ex("-(5)"), ex("-5")));
}

// --- lexical rules

TEST_CASE("sql-statement: comments, blanks, keywords and names") {
  CHECK(tree_of("a -- to the end of the line\n + /* a block\n over lines */ b") == "(+ a b)");
  CHECK(tree_of("a--1") == "a");
  CHECK(tree_of("a/*x*//b") == "(/ a b)");
  CHECK(expression_error("a/ *b") == "at 1:4: expected an expression, found '*'");  // not a comment
  CHECK(tree_of("a\t*\r\nb") == "(* a b)");
  CHECK(st("SELECT a FROM t -- the end").query.select->from.name == "t");
  CHECK(st("/* lead */ SELECT a FROM t /* tail */ ;").query.select->from.name == "t");
  CHECK(is_identifier("date"));
  CHECK(is_identifier("year"));
  CHECK(is_identifier("count"));
  for (const char* keyword : {"select", "DISTINCT", "as",   "Having",    "in",     "case",  "when",  "then",   "else",
                              "end",    "union",    "all",  "intersect", "except", "cross", "inner", "join",   "on",
                              "offset", "extract",  "null", "explain",   "asc",    "desc",  "limit", "between"}) {
    CAPTURE(keyword);
    CHECK_FALSE(is_identifier(keyword));
  }
  const std::vector<Token> tokens = tokenize("a/b 'x''y' != 1", {3, 5});
  REQUIRE(tokens.size() == 7);
  CHECK(tokens[1].kind == TokenKind::Slash);
  CHECK(tokens[3].kind == TokenKind::String);
  CHECK(tokens[3].text == "'x''y'");
  CHECK(string_value(tokens[3]) == "x'y");
  CHECK(tokens[4].kind == TokenKind::Ne);
  CHECK(pos(tokens[0].pos) == "3:5");
  CHECK(pos(tokens[3].pos) == "3:9");
  CHECK(pos(tokens[6].pos) == "3:20");
  CHECK(describe(tokens[3]) == "string 'x''y'");
}

// --- errors

TEST_CASE("sql-statement: lexical errors with positions") {
  CHECK(expression_error("'abc") == "at 1:1: unterminated string literal (no closing quote)");
  CHECK(expression_error("a = 'it''s") == "at 1:5: unterminated string literal (no closing quote)");
  CHECK(expression_error("a /* x") == "at 1:3: unterminated comment ('/*' without '*/')");
  CHECK(expression_error("a # b") == "at 1:3: unexpected character '#'");
  CHECK(expression_error("a ! b") == "at 1:3: unexpected character '!'");
  CHECK(expression_error("\"a\"") ==
        "at 1:1: unexpected character '\"' (quoted names are not supported; string literals take single quotes)");
  CHECK(expression_error("a = 1x") == "at 1:5: malformed number '1x'");
  CHECK(expression_error(std::string(257, 'n')) ==
        "at 1:1: name '" + std::string(64, 'n') + "... (257 bytes)' is longer than 256 bytes");
  // Strings are not bounded like names; messages quote them cut.
  const std::string long_string = "'" + std::string(10000, 's') + "'";
  CHECK(ex(long_string).literal == gfxq::Value(std::string(10000, 's')));
  CHECK(statement_error("SELECT a FROM " + long_string) ==
        "at 1:15: expected a table name, found string '" + std::string(63, 's') + "... (10002 bytes)");
}

TEST_CASE("sql-statement: literal errors with positions") {
  const std::string bigint = " is out of range for BIGINT [-2^63, 2^63 - 1] (write it with a '.' for a double)";
  CHECK(expression_error("a + 9223372036854775808") == "at 1:5: integer '9223372036854775808'" + bigint);
  CHECK(expression_error("a + -9223372036854775809") == "at 1:5: integer '-9223372036854775809'" + bigint);
  CHECK(expression_error("99999999999999999999999") == "at 1:1: integer '99999999999999999999999'" + bigint);
  CHECK(expression_error("1e400") == "at 1:1: number '1e400' is out of range for a double");
  CHECK(expression_error("a - -1e400") == "at 1:6: number '1e400' is out of range for a double");
  const std::string date = " (expected YYYY-MM-DD, a calendar day of the years 0001 to 9999)";
  CHECK(expression_error("d > DATE '2023-02-29'") == "at 1:5: invalid DATE literal '2023-02-29'" + date);
  CHECK(expression_error("DATE '1998-12-1'") == "at 1:1: invalid DATE literal '1998-12-1'" + date);
  CHECK(expression_error("DATE ''") == "at 1:1: invalid DATE literal ''" + date);
  CHECK(expression_error("\n  date 'x\ny'") == "at 2:3: invalid DATE literal 'x\\ny'" + date);
  CHECK(expression_error("+a") == "at 1:2: expected a number after '+', found 'a'");
}

TEST_CASE("sql-statement: syntax errors name what was expected and what was found") {
  CHECK(statement_error("") == "at 1:1: empty query, expected SELECT");
  CHECK(statement_error("-- nothing\n") == "at 1:1: empty query, expected SELECT");
  CHECK(statement_error("EXPLAIN") == "at 1:8: expected SELECT, found end of query");
  CHECK(statement_error("SELECT a FROM t UNION") == "at 1:22: expected SELECT, found end of query");
  CHECK(statement_error("SELECT a FROM t UNION ALL ALL SELECT a FROM u") == "at 1:27: expected SELECT, found 'ALL'");
  CHECK(statement_error("(SELECT a FROM t") == "at 1:17: expected ')', found end of query");
  CHECK(statement_error("SELECT a AS FROM t") == "at 1:13: expected a name after AS, found 'FROM'");
  CHECK(statement_error("SELECT a FROM t AS 1") == "at 1:20: expected a name after AS, found '1'");
  CHECK(statement_error("SELECT a FROM (SELECT a FROM t)") ==
        "at 1:15: expected a table name (subqueries in FROM are not supported), found '('");
  CHECK(statement_error("SELECT a FROM 'x'") == "at 1:15: expected a table name, found string 'x'");
  CHECK(statement_error("SELECT a FROM t LEFT JOIN u ON t.a = u.a") ==
        "at 1:17: LEFT joins are not supported (only [INNER] JOIN ... ON, CROSS JOIN and ',')");
  CHECK(statement_error("SELECT a FROM t full outer join u ON t.a = u.a") ==
        "at 1:17: FULL joins are not supported (only [INNER] JOIN ... ON, CROSS JOIN and ',')");
  CHECK(st("SELECT a FROM t left WHERE a = 1").query.select->from.alias == "left");  // a name elsewhere
  CHECK(statement_error("SELECT a FROM t CROSS u") == "at 1:23: expected JOIN, found 'u'");
  CHECK(statement_error("SELECT a FROM t JOIN u") == "at 1:23: expected ON, found end of query");
  CHECK(statement_error("SELECT a FROM t JOIN u ON") == "at 1:26: expected an expression, found end of query");
  CHECK(statement_error("SELECT a FROM t, ") == "at 1:17: expected a table name, found end of query");
  CHECK(statement_error("SELECT a FROM t GROUP a") == "at 1:23: expected BY, found 'a'");
  CHECK(statement_error("SELECT a FROM t GROUP BY a,") == "at 1:28: expected an expression, found end of query");
  CHECK(statement_error("SELECT a FROM t HAVING") == "at 1:23: expected an expression, found end of query");
  CHECK(statement_error("SELECT a FROM t ORDER BY a DESC DESC") == "at 1:33: expected end of query, found 'DESC'");
  CHECK(statement_error("SELECT a FROM t LIMIT 1 OFFSET") == "at 1:31: expected a row count, found end of query");
  CHECK(statement_error("SELECT a FROM t OFFSET -1") ==
        "at 1:24: OFFSET needs an integer in [0, 2^64 - 1], found '-1'");
  CHECK(statement_error("SELECT a FROM t LIMIT 2.5") ==
        "at 1:23: LIMIT needs an integer in [0, 2^64 - 1], found '2.5'");
  CHECK(statement_error("SELECT a FROM t LIMIT 1, 2") == "at 1:24: expected end of query, found ','");
  CHECK(statement_error("SELECT a FROM t OFFSET 1 LIMIT 2") ==
        "at 1:26: expected end of query, found 'LIMIT' (clauses go in the order JOIN, WHERE, GROUP BY, HAVING, ORDER "
        "BY, LIMIT, OFFSET)");
  CHECK(statement_error("SELECT a FROM t HAVING a > 1 WHERE a > 1") ==
        "at 1:30: expected end of query, found 'WHERE' (clauses go in the order JOIN, WHERE, GROUP BY, HAVING, ORDER "
        "BY, LIMIT, OFFSET)");
  CHECK(statement_error("SELECT a FROM t ORDER BY a UNION SELECT a FROM u") ==
        "at 1:28: expected end of query, found 'UNION' (ORDER BY, LIMIT and OFFSET follow the last query of a set "
        "operation; parenthesise a query to order or limit it alone)");
  CHECK(statement_error("(SELECT a FROM t LIMIT 1) LIMIT 2") ==
        "at 1:27: LIMIT after a parenthesised query with its own ORDER BY, LIMIT or OFFSET is not supported");
  CHECK(statement_error("(SELECT a FROM t ORDER BY a) order by a") ==
        "at 1:30: ORDER BY after a parenthesised query with its own ORDER BY, LIMIT or OFFSET is not supported");
  CHECK(statement_error("SELECT a FROM t; SELECT b FROM t") == "at 1:18: expected end of query, found 'SELECT'");
  CHECK(statement_error("SELECT t. FROM t") == "at 1:11: expected a column name after '.', found 'FROM'");
  CHECK(statement_error("SELECT t.* + 1 FROM t") == "at 1:12: expected FROM, found '+'");
}

TEST_CASE("sql-statement: expression errors with positions") {
  CHECK(where_error("a IN ()") == "at 1:29: expected an expression, found ')'");
  CHECK(where_error("a IN 1") == "at 1:28: expected '(' after IN, found '1'");
  CHECK(where_error("a IN (1, 2") == "at 1:33: expected ')', found end of query");
  CHECK(where_error("a IN (SELECT b FROM u)") ==
        "at 1:29: expected a list of values (subqueries are not supported), found 'SELECT'");
  CHECK(where_error("a = (SELECT 1)") ==
        "at 1:28: expected an expression (subqueries are not supported), found 'SELECT'");
  CHECK(where_error("a NOT LIKE 'x'") == "at 1:29: expected BETWEEN or IN, found 'LIKE'");
  CHECK(where_error("a BETWEEN 1 OR 2") == "at 1:35: expected AND, found 'OR'");
  CHECK(where_error("a = 1 = 2") == "at 1:29: comparisons do not chain, found '=' after one (parenthesise it)");
  CHECK(where_error("a < b <= c") == "at 1:29: comparisons do not chain, found '<=' after one (parenthesise it)");
  CHECK(where_error("a IS NULL") == "at 1:25: expected end of query, found 'IS'");
  CHECK(where_error("CASE a WHEN 1 THEN 2 END = 1") ==
        "at 1:28: expected WHEN (CASE x WHEN ... is not supported: write CASE WHEN x = ...), found 'a'");
  CHECK(where_error("CASE WHEN a THEN 1") == "at 1:41: expected WHEN, ELSE or END, found end of query");
  CHECK(where_error("CASE WHEN a THEN 1 ELSE 2") == "at 1:48: expected END, found end of query");
  CHECK(where_error("CASE WHEN a 1 END") == "at 1:35: expected THEN, found '1'");
  CHECK(where_error("CASE END") ==
        "at 1:28: expected WHEN (CASE x WHEN ... is not supported: write CASE WHEN x = ...), "
        "found 'END'");
  CHECK(where_error("EXTRACT(HOUR FROM d) = 1") == "at 1:31: expected YEAR, MONTH or DAY, found 'HOUR'");
  CHECK(where_error("EXTRACT(YEAR d) = 1") == "at 1:36: expected FROM, found 'd'");
  CHECK(where_error("EXTRACT YEAR FROM d") == "at 1:31: expected '(' after EXTRACT, found 'YEAR'");
  CHECK(where_error("EXTRACT(YEAR FROM d = 1") == "at 1:46: expected ')', found end of query");
  CHECK(where_error("SUM(*) > 1") == "at 1:27: SUM needs a column; only COUNT takes '*'");
  CHECK(where_error("COUNT(DISTINCT *) > 1") == "at 1:38: expected an expression, found '*'");
  CHECK(where_error("f(a,) > 1") == "at 1:27: expected an expression, found ')'");
  CHECK(where_error("f(a b) > 1") == "at 1:27: expected ')', found 'b'");
  CHECK(where_error("a + * b") == "at 1:27: expected an expression, found '*'");
  CHECK(where_error("a + ") == "at 1:26: expected an expression, found end of query");  // just past the last token
  CHECK(where_error("(a + b") == "at 1:29: expected ')', found end of query");
  CHECK(where_error("a AND") == "at 1:28: expected an expression, found end of query");
  CHECK(where_error("NOT") == "at 1:26: expected an expression, found end of query");
  CHECK(where_error("a = END") == "at 1:27: expected an expression, found 'END'");
  CHECK(where_error("t.") == "at 1:25: expected a column name after '.', found end of query");
  CHECK(expression_error("a b") == "at 1:3: expected end of expression, found 'b'");
  CHECK(expression_error("") == "at 1:1: expected an expression, found end of query");
}

TEST_CASE("sql-statement: nesting and tree height are bounded, not a stack overflow") {
  const auto deep = [](const std::string& open, int n, const std::string& middle, const std::string& close) {
    std::string s;
    for (int i = 0; i < n; ++i) s += open;
    s += middle;
    for (int i = 0; i < n; ++i) s += close;
    return s;
  };
  // Parentheses, NOT, unary minus, function calls, CASE, IN lists and queries share the bound.
  CHECK(ex(deep("(", kMaxNesting, "a", ")")).text() == "a");
  CHECK(expression_error(deep("(", kMaxNesting + 1, "a", ")")) ==
        "at 1:201: expression nested too deeply (more than 200 levels)");
  CHECK(where_error(deep("(", kMaxNesting + 1, "a = 1", ")")) ==
        "at 1:223: condition nested too deeply (more than 200 levels)");
  CHECK(where_error(deep("NOT ", 100000, "a = 1", "")) ==
        "at 1:823: condition nested too deeply (more than 200 levels)");
  CHECK(expression_error(deep("- ", 100000, "a", "")) ==
        "at 1:401: expression nested too deeply (more than 200 levels)");
  CHECK(expression_error(deep("f(", 100000, "a", ")")) ==
        "at 1:401: expression nested too deeply (more than 200 levels)");
  CHECK(expression_error(deep("CASE WHEN ", 100000, "a", " THEN 1 END")) ==
        "at 1:2001: expression nested too deeply (more than 200 levels)");
  CHECK(expression_error(deep("a IN (", 100000, "a", ")")) ==
        "at 1:1206: expression nested too deeply (more than 200 levels)");
  CHECK(statement_error(deep("(", 100000, "SELECT a FROM t", ")")) ==
        "at 1:201: query nested too deeply (more than 200 levels)");
  CHECK(ex(deep("- ", kMaxNesting, "a", "")).kind == ExprKind::Unary);
  // At the bounds, the tree's text and the query-spec adapter are fine too.
  for (const std::string& text :
       {deep("f(", kMaxNesting, "a", ")"), deep("- ", kMaxNesting, "a", ""),
        deep("CASE WHEN ", kMaxNesting, "a", " THEN 1 END"), deep("NOT ", kMaxNesting, "a", "")}) {
    const Expr e = ex(text);
    CHECK(ast::same_tree(ex(e.text()), e));
  }
  CHECK(gfxq::sql::parse("SELECT * FROM t WHERE " + deep("(", kMaxNesting - 1, "NOT a = 1", ")")).where.text() ==
        "(a <> 1)");
  // A chain of operators is one level of the tree per operator: k comparisons ANDed are k + 1 tall,
  // so the 999th AND is one too many.
  const auto chain = [](int terms, const std::string& op) {
    std::string s = "a = 1";
    for (int i = 1; i < terms; ++i) s += " " + op + " a = 1";
    return s;
  };
  CHECK(ex(chain(kMaxTreeHeight - 1, "AND")).kind == ExprKind::Binary);
  CHECK(where_error(chain(kMaxTreeHeight, "AND")) == "at 1:" + std::to_string(29 + 10 * (kMaxTreeHeight - 2)) +
                                                         ": condition has more than 1000 levels of operators");
  std::string sum = "a";
  for (int i = 0; i < 100000; ++i) sum += " + a";
  CHECK(expression_error(sum) ==
        "at 1:" + std::to_string(3 + 4 * (kMaxTreeHeight - 1)) + ": expression has more than 1000 levels of operators");
  std::string unions = "SELECT a FROM t";
  for (int i = 1; i < kMaxTreeHeight; ++i) unions += " UNION SELECT a FROM t";
  CHECK_FALSE(st(unions).query.select);
  CHECK(statement_error(unions + " UNION SELECT a FROM t") ==
        "at 1:" + std::to_string(17 + 22 * (kMaxTreeHeight - 1)) +
            ": query has more than 1000 levels of set operations");
}

// --- scripts

TEST_CASE("sql-statement: split_statements respects strings and comments, and says where each starts") {
  const std::string script =
      "SELECT 'a;b' FROM t;\n"
      "  -- a comment; with a semicolon\n"
      "  SELECT a FROM u /* ; */ WHERE b = 'it''s;' ;;\n"
      ";  \n"
      "/* only a comment */ ;\n"
      "EXPLAIN SELECT 1 FROM v -- trailing\n";
  const auto parts = split_statements(script);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].text == "SELECT 'a;b' FROM t");
  CHECK(pos(parts[0].pos) == "1:1");
  CHECK(parts[0].terminated);
  CHECK(parts[1].text == "SELECT a FROM u /* ; */ WHERE b = 'it''s;'");
  CHECK(pos(parts[1].pos) == "3:3");
  CHECK(parts[1].terminated);
  CHECK(parts[2].text == "EXPLAIN SELECT 1 FROM v -- trailing");
  CHECK(pos(parts[2].pos) == "6:1");
  CHECK_FALSE(parts[2].terminated);
  for (const auto& p : parts) CHECK_NOTHROW(parse_statement(p.text, p.pos));
  CHECK(st(std::string(parts[1].text)).query.select->where->args[1].literal == gfxq::Value(std::string("it's;")));
  // Errors say where in the script.
  const auto bad = split_statements("SELECT a FROM t;\n\n   SELECT a FROM\n  ;");
  REQUIRE(bad.size() == 2);
  CHECK(error_of([&] { parse_statement(bad[1].text, bad[1].pos); }) ==
        "at 3:17: expected a table name, found end of query");
  // Unterminated strings and comments run to the end and belong to a statement.
  const auto open_string = split_statements("SELECT 'a; b");
  REQUIRE(open_string.size() == 1);
  CHECK(open_string[0].text == "SELECT 'a; b");
  CHECK_FALSE(open_string[0].terminated);
  const auto open_comment = split_statements("SELECT 1 FROM t; /* ; ");
  REQUIRE(open_comment.size() == 2);
  CHECK(open_comment[1].text == "/* ; ");
  CHECK(pos(open_comment[1].pos) == "1:18");
  CHECK(error_of([&] { parse_statement(open_comment[1].text, open_comment[1].pos); }) ==
        "at 1:18: unterminated comment ('/*' without '*/')");
  CHECK(split_statements("").empty());
  CHECK(split_statements(" ; -- x\n ;/**/").empty());
  CHECK(split_statements("a--;\n;").at(0).text == "a--;");
}

// --- SSB

TEST_CASE("sql-statement: the 13 SSB queries parse") {
  const auto queries = gfxq::ssb::load_queries(GFXQ_SSB_QUERY_DIR);
  REQUIRE(queries.size() == 13);
  for (const auto& q : queries) {
    CAPTURE(q.name);
    const auto parts = split_statements(q.sql);
    REQUIRE(parts.size() == 1);
    const ast::Statement s = parse_statement(parts[0].text, parts[0].pos);
    REQUIRE(s.query.select);
    const ast::Select& b = *s.query.select;
    CHECK(b.joins.size() >= 1);
    for (const ast::Join& j : b.joins) CHECK(j.kind == ast::JoinKind::Comma);
    CHECK(b.where);
    // The canonical text of every expression reads back to the same tree.
    for (const ast::SelectItem& item : b.items) CHECK(ast::same_tree(parse_expression(item.expr.text()), item.expr));
    CHECK(ast::same_tree(parse_expression(b.where->text()), *b.where));
  }
  const ast::Select q11 = *parse_statement(queries[0].sql).query.select;
  CHECK(q11.items[0].expr.text() == "SUM(lo_extendedprice * lo_discount)");
  CHECK(q11.items[0].alias == "revenue");
  CHECK(q11.joins[0].table.name == "date");
  const ast::Statement q31 = parse_statement(queries[6].sql);
  CHECK(q31.query.select->group_by.size() == 3);
  REQUIRE(q31.query.order_by.size() == 2);
  CHECK(q31.query.order_by[1].expr.text() == "revenue");
  CHECK(q31.query.order_by[1].descending);
}
