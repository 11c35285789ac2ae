// Recursive-descent parser of the SQL subset (grammar in gfxq/sql.h). Conditions become an
// Expr tree that cnf.cpp normalises; a JOIN's ON condition is matched against its few forms.

#include <algorithm>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gfxq/sql.h"
#include "sql/cnf.h"
#include "sql/lexer.h"

namespace gfxq::sql {

namespace {

struct Function {
  std::string_view name;
  AggKind kind;
};

constexpr Function kFunctions[] = {
    {"COUNT", AggKind::Count},       {"SUM", AggKind::Sum},
    {"AVG", AggKind::Avg},           {"MIN", AggKind::Min},
    {"MAX", AggKind::Max},           {"MEDIAN", AggKind::Median},
    {"QUANTILE", AggKind::Quantile}, {"KTH_LARGEST", AggKind::KthLargest},
};

// "COUNT, SUM, ...", for messages.
std::string function_names() {
  std::string s;
  for (const Function& f : kFunctions) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

constexpr std::string_view kJoinForms =
    "ON supports r.a = s.b, s.b BETWEEN r.a - d AND r.a + d, or s.b >= r.a - d AND s.b <= r.a + d "
    "(r the FROM table, s the JOIN table, d a number)";

// Deepest nesting of parentheses and NOT; keeps the recursion here and in cnf.cpp bounded.
constexpr int kMaxDepth = 200;

// A numeric literal with its optional sign.
struct Literal {
  double value = 0;
  bool negative = false;    // written with '-'
  std::string_view digits;  // the unsigned number token
  std::string text;         // as written, for messages
  Position pos;

  bool integer() const { return digits.find_first_not_of("0123456789") == std::string_view::npos; }
};

// The literal as an integer of type T when it is an unsigned integer literal >= min that fits.
template <class T>
std::optional<T> integer_value(const Literal& lit, T min) {
  T v{};
  if (lit.negative || !lit.integer()) return std::nullopt;
  if (std::from_chars(lit.digits.data(), lit.digits.data() + lit.digits.size(), v).ec != std::errc() || v < min)
    return std::nullopt;
  return v;
}

// A WHERE operand: a column or a literal.
struct Side {
  Operand value;
  Position pos;
};

// A join key in ON: a qualified column plus an optional literal offset (`r.a - 2`).
struct JoinTerm {
  ColumnRef column;
  double offset = 0;
  bool has_offset = false;
  Position pos;
};

// One bound on the JOIN table's key:  right_key op left_key + offset, op one of >=, <=, =.
struct JoinBound {
  ColumnRef right_key;
  ColumnRef left_key;
  CmpOp op = CmpOp::Eq;
  double offset = 0;
  Position pos;
};

// The FROM table (r) and the JOIN table (s).
struct JoinTables {
  std::string_view left;
  std::string_view right;
};

std::optional<CmpOp> comparison_op(TokenKind kind) {
  switch (kind) {
    case TokenKind::Lt: return CmpOp::Lt;
    case TokenKind::Le: return CmpOp::Le;
    case TokenKind::Gt: return CmpOp::Gt;
    case TokenKind::Ge: return CmpOp::Ge;
    case TokenKind::Eq: return CmpOp::Eq;
    case TokenKind::Ne: return CmpOp::Ne;
    default: return std::nullopt;
  }
}

bool is_sign(const Token& t) {
  return t.kind == TokenKind::Plus || t.kind == TokenKind::Minus;
}

// lhs op rhs with the column on the left: `5 < a` becomes `a > 5`.
Comparison compare(const Side& lhs, CmpOp op, const Side& rhs) {
  if (const auto* c = std::get_if<ColumnRef>(&lhs.value)) return {*c, op, rhs.value};
  if (const auto* c = std::get_if<ColumnRef>(&rhs.value)) return {*c, flip(op), lhs.value};
  fail(lhs.pos, "comparison needs a column, but both sides are numbers");
}

[[noreturn]] void fail_join_form(Position pos, const std::string& problem) {
  fail(pos, problem + "; " + std::string(kJoinForms));
}

// +0.0 for -0.0 (from `r.a - 0`), so that offsets print canonically.
double without_negative_zero(double v) {
  return v == 0 ? 0.0 : v;
}

// `r.a + d` or `r.a - d`, for messages.
std::string offset_text(const ColumnRef& column, double offset) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, offset < 0 ? -offset : offset).ptr;
  return column.text() + (offset < 0 ? " - " : " + ") + std::string(buf, end);
}

class Parser {
 public:
  Parser(std::string_view text, const CnfLimits& limits) : tokens_(tokenize(text)), limits_(limits) {}

  Query query() {
    if (peek().kind == TokenKind::End) fail(peek().pos, "empty query, expected SELECT");
    Query q;
    expect_keyword("SELECT");
    do q.items.push_back(select_item());
    while (accept(TokenKind::Comma));
    expect_keyword("FROM");
    q.table = name("a table name");
    if (is_keyword(peek(), "INNER") || is_keyword(peek(), "JOIN")) q.join = join(q.table);
    if (accept_keyword("WHERE")) q.where = where();
    if (accept_keyword("GROUP")) {
      expect_keyword("BY");
      q.group_by = column();
      reject_second_column("GROUP BY");
    }
    if (accept_keyword("ORDER")) {
      expect_keyword("BY");
      OrderBy order{column()};
      reject_second_column("ORDER BY");
      if (!accept_keyword("ASC")) order.descending = accept_keyword("DESC");
      q.order_by = order;
    }
    if (accept_keyword("LIMIT")) q.limit = limit();
    accept(TokenKind::Semicolon);
    if (peek().kind != TokenKind::End) fail_trailing();
    return q;
  }

 private:
  // Counts one level of parentheses or NOT while it lives.
  class Nesting {
   public:
    explicit Nesting(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxDepth)
        fail(p_.peek().pos, "condition nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
    }
    ~Nesting() { --p_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    Parser& p_;
  };

  // --- tokens

  const Token& peek(size_t ahead = 0) const { return tokens_[std::min(i_ + ahead, tokens_.size() - 1)]; }

  // The current token; moves past it unless it is End.
  const Token& take() {
    const Token& t = tokens_[i_];
    if (t.kind != TokenKind::End) ++i_;
    return t;
  }

  bool accept(TokenKind kind) {
    if (peek().kind != kind) return false;
    take();
    return true;
  }

  bool accept_keyword(std::string_view word) {
    if (!is_keyword(peek(), word)) return false;
    take();
    return true;
  }

  const Token& expect(TokenKind kind, std::string_view what) {
    if (peek().kind != kind) fail_expected(what);
    return take();
  }

  void expect_keyword(std::string_view word) {
    if (!accept_keyword(word)) fail_expected(word);
  }

  [[noreturn]] void fail_expected(std::string_view what) const {
    fail(peek().pos, "expected " + std::string(what) + ", found " + describe(peek()));
  }

  [[noreturn]] void fail_trailing() const {
    std::string what = "expected end of query, found " + describe(peek());
    for (std::string_view clause : {"INNER", "JOIN", "WHERE", "GROUP", "ORDER", "LIMIT"})
      if (is_keyword(peek(), clause)) what += " (clauses go in the order JOIN, WHERE, GROUP BY, ORDER BY, LIMIT)";
    fail(peek().pos, what);
  }

  void reject_second_column(std::string_view clause) const {
    if (peek().kind == TokenKind::Comma) fail(peek().pos, std::string(clause) + " takes one column");
  }

  // --- names, columns, literals

  std::string name(std::string_view what) { return std::string(expect(TokenKind::Identifier, what).text); }

  ColumnRef column() {
    std::string first = name("a column");
    if (!accept(TokenKind::Dot)) return {"", std::move(first)};
    return {std::move(first), name("a column name after '.'")};
  }

  // [+|-] number
  Literal literal(std::string_view what) {
    Literal lit;
    lit.pos = peek().pos;
    if (is_sign(peek())) {
      const Token& sign = take();
      lit.negative = sign.kind == TokenKind::Minus;
      lit.text = sign.text;
      if (peek().kind != TokenKind::Number) fail_expected("a number after " + describe(sign));
    }
    const Token& number = expect(TokenKind::Number, what);
    lit.digits = number.text;
    lit.text += number.text;
    // The lexer admits only well-formed numbers, so the one failure left is out of range: past the
    // largest double (1e400) is an error; below the smallest subnormal (1e-400) rounds to zero, as
    // every tiny number rounds to the nearest double.
    const auto parsed = std::from_chars(number.text.data(), number.text.data() + number.text.size(), lit.value);
    if (parsed.ec != std::errc()) {
      static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
      lit.value = strtod_l(std::string(number.text).c_str(), nullptr, c_locale);
      if (std::isinf(lit.value)) fail(number.pos, "number " + describe(number) + " is out of range for a double");
    }
    if (lit.negative) lit.value = -lit.value;
    return lit;
  }

  uint64_t limit() {
    const Literal n = literal("a row count");
    const auto v = integer_value<uint64_t>(n, 0);
    if (!v) fail(n.pos, "LIMIT needs an integer in [0, 2^64 - 1], found '" + n.text + "'");
    return *v;
  }

  // --- select list

  SelectItem select_item() {
    if (accept(TokenKind::Star)) return Star{};
    if (peek().kind == TokenKind::Identifier && peek(1).kind == TokenKind::LParen) return aggregate();
    if (peek().kind != TokenKind::Identifier) fail_expected("'*', a column or an aggregate");
    return column();
  }

  Aggregate aggregate() {
    const Token& fn = take();
    const auto* f = std::find_if(std::begin(kFunctions), std::end(kFunctions),
                                 [&](const Function& g) { return iequals(g.name, fn.text); });
    if (f == std::end(kFunctions))
      fail(fn.pos, "unknown function " + describe(fn) + " (supported: " + function_names() + ")");
    take();  // (
    Aggregate a;
    a.kind = f->kind;
    if (a.kind != AggKind::Count || !accept(TokenKind::Star)) {
      if (peek().kind == TokenKind::Star)
        fail(peek().pos, std::string(f->name) + " needs a column; only COUNT takes '*'");
      a.column = column();
    }
    if (a.kind == AggKind::Median) a.q = 0.5;  // MEDIAN(c) = QUANTILE(c, 0.5)
    if (a.kind == AggKind::Quantile) {
      expect(TokenKind::Comma, "',' and the quantile q");
      const Literal q = literal("a number q in (0, 1]");
      if (!(q.value > 0 && q.value <= 1)) fail(q.pos, "QUANTILE's q must be in (0, 1], found '" + q.text + "'");
      a.q = q.value;
    }
    if (a.kind == AggKind::KthLargest) {
      expect(TokenKind::Comma, "',' and k");
      const Literal k = literal("an integer k >= 1");
      const auto v = integer_value<int64_t>(k, 1);
      if (!v) fail(k.pos, "KTH_LARGEST's k must be an integer in [1, 2^63 - 1], found '" + k.text + "'");
      a.k = *v;
    }
    expect(TokenKind::RParen, "')'");
    return a;
  }

  // --- WHERE

  Cnf where() {
    const Position start = peek().pos;
    return to_cnf(disjunction(), limits_, start);
  }

  Expr disjunction() {
    std::vector<Expr> terms;
    do terms.push_back(conjunction());
    while (accept_keyword("OR"));
    return Expr::any_of(std::move(terms));
  }

  Expr conjunction() {
    std::vector<Expr> terms;
    do terms.push_back(negation());
    while (accept_keyword("AND"));
    return Expr::all_of(std::move(terms));
  }

  Expr negation() {
    if (!is_keyword(peek(), "NOT")) return primary();
    const Nesting nesting(*this);
    take();
    return Expr::negation(negation());
  }

  Expr primary() {
    if (peek().kind != TokenKind::LParen) return predicate();
    const Nesting nesting(*this);
    take();
    Expr e = disjunction();
    expect(TokenKind::RParen, "')'");
    return e;
  }

  // x op y  |  x [NOT] BETWEEN lo AND hi
  Expr predicate() {
    const Side x = operand();
    if (const auto op = comparison_op(peek().kind)) {
      take();
      return Expr::leaf(compare(x, *op, operand()));
    }
    const bool negated = accept_keyword("NOT");
    if (!accept_keyword("BETWEEN")) fail_expected(negated ? "BETWEEN" : "a comparison operator or BETWEEN");
    const Side lo = operand();
    expect_keyword("AND");
    const Side hi = operand();
    if (negated) return Expr::any_of({Expr::leaf(compare(x, CmpOp::Lt, lo)), Expr::leaf(compare(x, CmpOp::Gt, hi))});
    return Expr::all_of({Expr::leaf(compare(x, CmpOp::Ge, lo)), Expr::leaf(compare(x, CmpOp::Le, hi))});
  }

  Side operand() {
    Side s{0.0, peek().pos};
    if (peek().kind == TokenKind::Identifier)
      s.value = column();
    else if (peek().kind == TokenKind::Number || is_sign(peek()))
      s.value = literal("a number").value;
    else
      fail_expected("a column or a number");
    if (is_sign(peek()))
      fail(peek().pos, "arithmetic (" + describe(peek()) + ") is only supported in a JOIN's ON condition");
    return s;
  }

  // --- JOIN

  JoinSpec join(std::string_view left) {
    accept_keyword("INNER");
    expect_keyword("JOIN");
    const Token& right = expect(TokenKind::Identifier, "a table name");
    if (right.text == left) fail(right.pos, "joining " + describe(right) + " with itself is not supported");
    expect_keyword("ON");
    const JoinTables tables{left, right.text};
    const Position start = peek().pos;
    std::vector<JoinBound> bounds;
    join_conjunction(tables, bounds);
    return join_spec(tables, bounds, start);
  }

  // Bounds joined by AND, parentheses allowed.
  void join_conjunction(const JoinTables& tables, std::vector<JoinBound>& bounds) {
    do {
      if (peek().kind == TokenKind::LParen) {
        const Nesting nesting(*this);
        take();
        join_conjunction(tables, bounds);
        expect(TokenKind::RParen, "')'");
      } else {
        join_predicate(tables, bounds);
      }
    } while (accept_keyword("AND"));
    if (is_keyword(peek(), "OR")) fail_join_form(peek().pos, "OR is not supported in ON");
  }

  void join_predicate(const JoinTables& tables, std::vector<JoinBound>& bounds) {
    if (is_keyword(peek(), "NOT")) fail_join_form(peek().pos, "NOT is not supported in ON");
    const JoinTerm x = join_term(tables);
    const Token op_token = peek();
    if (const auto op = comparison_op(op_token.kind)) {
      take();
      bounds.push_back(join_bound(tables, x, *op, op_token, join_term(tables)));
      return;
    }
    if (is_keyword(peek(), "NOT")) fail_join_form(peek().pos, "NOT BETWEEN is not supported in ON");
    if (!accept_keyword("BETWEEN")) fail_expected("a comparison operator or BETWEEN");
    const JoinTerm lo = join_term(tables);
    expect_keyword("AND");
    const JoinTerm hi = join_term(tables);
    bounds.push_back(join_bound(tables, x, CmpOp::Ge, op_token, lo));
    bounds.push_back(join_bound(tables, x, CmpOp::Le, op_token, hi));
  }

  // table.column [(+|-) number]
  JoinTerm join_term(const JoinTables& tables) {
    JoinTerm term;
    term.pos = peek().pos;
    if (peek().kind != TokenKind::Identifier)
      fail_join_form(peek().pos, "expected a column, found " + describe(peek()));
    term.column = column();
    if (term.column.table.empty())
      fail(term.pos, "columns in ON must be qualified with their table (" + std::string(tables.left) + "." +
                         term.column.name + " or " + std::string(tables.right) + "." + term.column.name + "), found '" +
                         term.column.name + "'");
    if (term.column.table != tables.left && term.column.table != tables.right)
      fail(term.pos, "column '" + term.column.text() + "' in ON must belong to '" + std::string(tables.left) +
                         "' or '" + std::string(tables.right) + "'");
    if (is_sign(peek())) {
      const bool minus = take().kind == TokenKind::Minus;
      const double d = literal("a number").value;
      term.offset = minus ? -d : d;
      term.has_offset = true;
    }
    return term;
  }

  // `a op b` as a bound on the JOIN table's key:  s.b op r.a + d.
  static JoinBound join_bound(const JoinTables& tables, JoinTerm a, CmpOp op, const Token& op_token, JoinTerm b) {
    const bool a_right = a.column.table == tables.right;
    if (a_right == (b.column.table == tables.right))
      fail_join_form(a.pos, "ON must compare a column of '" + std::string(tables.left) + "' with a column of '" +
                                std::string(tables.right) + "'");
    if (!a_right) {
      std::swap(a, b);
      op = flip(op);
    }
    if (a.has_offset)
      fail_join_form(a.pos, "an offset is only supported on the column of '" + std::string(tables.left) + "'");
    if (op == CmpOp::Lt || op == CmpOp::Gt)
      fail(op_token.pos, "band join bounds must be inclusive (<= or >=), found " + describe(op_token));
    if (op == CmpOp::Ne) fail_join_form(op_token.pos, describe(op_token) + " is not a join condition");
    return {a.column, b.column, op, b.offset, a.pos};
  }

  static JoinSpec join_spec(const JoinTables& tables, const std::vector<JoinBound>& bounds, Position start) {
    const JoinBound& first = bounds.front();
    JoinSpec spec{std::string(tables.right), first.left_key, first.right_key, 0, 0};
    if (bounds.size() == 1 && first.op == CmpOp::Eq) {
      spec.lo = spec.hi = without_negative_zero(first.offset);
      return spec;
    }
    const auto find = [&](CmpOp op) {
      return std::find_if(bounds.begin(), bounds.end(), [&](const JoinBound& b) { return b.op == op; });
    };
    const auto lower = find(CmpOp::Ge);
    const auto upper = find(CmpOp::Le);
    if (bounds.size() == 1) fail_join_form(start, "a band join needs a lower bound (>=) and an upper bound (<=)");
    if (bounds.size() != 2 || lower == bounds.end() || upper == bounds.end())
      fail_join_form(start, "ON must be one equality, or one lower bound (>=) and one upper bound (<=)");
    if (lower->left_key != upper->left_key || lower->right_key != upper->right_key)
      fail_join_form(bounds[1].pos, "both bounds of a band join must compare the same two columns");
    if (lower->offset > upper->offset)
      fail(start, "band join's lower bound " + offset_text(lower->left_key, lower->offset) +
                      " is above its upper bound " + offset_text(upper->left_key, upper->offset));
    spec.lo = without_negative_zero(lower->offset);
    spec.hi = without_negative_zero(upper->offset);
    return spec;
  }

  std::vector<Token> tokens_;
  CnfLimits limits_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

Query parse(std::string_view text, const CnfLimits& limits) {
  return Parser(text, limits).query();
}

}  // namespace gfxq::sql
