// Recursive-descent parser of the analytic SQL language (grammar in docs/SQL.md) into the syntax
// tree of ast.h. Precedence, loosest first: OR, AND, NOT, comparisons / BETWEEN / IN, + -, * /,
// unary minus. Set operations: UNION and EXCEPT, then INTERSECT binding tighter, left-associative.

#include "sql/parse_statement.h"

#include "gfxq/sql.h"

#include <algorithm>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gfxq/error.h"

namespace gfxq::sql {

namespace {

using ast::Expr;
using ast::ExprKind;
using ast::Op;

// An expression and the height of its tree (bounded by kMaxTreeHeight). Nodes are held on the heap
// while the parser builds them, so that each level of recursion takes little stack.
struct Sub {
  std::unique_ptr<Expr> expr;
  int height = 1;
};

// A query and the height of its tree of set operations.
struct QuerySub {
  std::unique_ptr<ast::Query> query;
  int height = 1;
};

std::unique_ptr<Expr> new_expr(ExprKind kind, Position pos) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->pos = pos;
  return e;
}

std::optional<Op> comparison_op(TokenKind kind) {
  switch (kind) {
    case TokenKind::Lt: return Op::Lt;
    case TokenKind::Le: return Op::Le;
    case TokenKind::Gt: return Op::Gt;
    case TokenKind::Ge: return Op::Ge;
    case TokenKind::Eq: return Op::Eq;
    case TokenKind::Ne: return Op::Ne;
    default: return std::nullopt;
  }
}

bool is_sign(const Token& t) {
  return t.kind == TokenKind::Plus || t.kind == TokenKind::Minus;
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return u;
}

// A decimal or exponent literal as the nearest double. The lexer admits only well-formed numbers,
// so the one failure left is range: past the largest double (1e400) is an error; below the
// smallest subnormal (1e-400) rounds to zero, as every tiny number rounds to the nearest double.
double double_value(const Token& number) {
  double v = 0;
  if (std::from_chars(number.text.data(), number.text.data() + number.text.size(), v).ec == std::errc()) return v;
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
  v = strtod_l(std::string(number.text).c_str(), nullptr, c_locale);
  if (std::isinf(v)) fail(number.pos, "number " + describe(number) + " is out of range for a double");
  return v;
}

// Words that would otherwise be read as a table alias before JOIN (`FROM r LEFT JOIN s`).
constexpr std::string_view kOtherJoins[] = {"LEFT", "RIGHT", "FULL", "NATURAL", "OUTER"};

class Parser {
 public:
  Parser(std::string_view text, Position origin) : tokens_(tokenize(text, origin)) {}

  ast::Statement statement() {
    if (peek().kind == TokenKind::End) fail(peek().pos, "empty query, expected SELECT");
    ast::Statement st;
    st.explain = accept_keyword("EXPLAIN");
    st.query = std::move(*full_query().query);
    accept(TokenKind::Semicolon);
    if (peek().kind != TokenKind::End) fail_trailing();
    return st;
  }

  Expr lone_expression() {
    Sub e = expression();
    if (peek().kind != TokenKind::End) fail_expected("end of expression");
    return std::move(*e.expr);
  }

 private:
  // Counts one level of recursion while it lives (kMaxNesting).
  class Nesting {
   public:
    Nesting(Parser& p, const char* what) : p_(p) {
      if (++p_.depth_ > kMaxNesting)
        fail(p_.peek().pos,
             std::string(what) + " nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)");
    }
    explicit Nesting(Parser& p) : Nesting(p, p.construct_) {}
    ~Nesting() { --p_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    Parser& p_;
  };

  // Names what is being parsed in messages ("condition" in WHERE, ON and HAVING) while it lives.
  class Construct {
   public:
    Construct(Parser& p, const char* what) : p_(p), saved_(p.construct_) { p_.construct_ = what; }
    ~Construct() { p_.construct_ = saved_; }
    Construct(const Construct&) = delete;
    Construct& operator=(const Construct&) = delete;

   private:
    Parser& p_;
    const char* saved_;
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

  const Token& expect_keyword(std::string_view word) {
    if (!is_keyword(peek(), word)) fail_expected(word);
    return take();
  }

  [[noreturn]] void fail_expected(std::string_view what) const {
    fail(peek().pos, "expected " + std::string(what) + ", found " + describe(peek()));
  }

  [[noreturn]] void fail_trailing() const {
    std::string what = "expected end of query, found " + describe(peek());
    for (std::string_view clause : {"INNER", "CROSS", "JOIN", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET"})
      if (is_keyword(peek(), clause))
        what += " (clauses go in the order JOIN, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET)";
    for (std::string_view op : {"UNION", "INTERSECT", "EXCEPT"})
      if (is_keyword(peek(), op))
        what +=
            " (ORDER BY, LIMIT and OFFSET follow the last query of a set operation; parenthesise a query to "
            "order or limit it alone)";
    fail(peek().pos, what);
  }

  std::string name(std::string_view what) { return std::string(expect(TokenKind::Identifier, what).text); }

  // --- queries

  // Set operations, then the ORDER BY, LIMIT and OFFSET of their result.
  QuerySub full_query() {
    QuerySub q = union_level();
    result_clauses(*q.query);
    return q;
  }

  // [ORDER BY ...] [LIMIT n] [OFFSET m] of `query`. Kept out of line (as select_block is): the
  // recursion through parenthesised queries then takes little stack per level.
  [[gnu::noinline]] void result_clauses(ast::Query& query) {
    const bool has_tail = !query.order_by.empty() || query.limit || query.offset;
    for (std::string_view clause : {"ORDER", "LIMIT", "OFFSET"})
      if (has_tail && is_keyword(peek(), clause))
        fail(peek().pos, (clause == "ORDER" ? std::string("ORDER BY") : std::string(clause)) +
                             " after a parenthesised query with its own ORDER BY, LIMIT or OFFSET is not supported");
    if (accept_keyword("ORDER")) {
      expect_keyword("BY");
      do {
        query.order_by.push_back({std::move(*expression().expr)});
        ast::OrderItem& item = query.order_by.back();
        if (!accept_keyword("ASC")) item.descending = accept_keyword("DESC");
      } while (accept(TokenKind::Comma));
    }
    if (accept_keyword("LIMIT")) query.limit = row_count("LIMIT");
    if (accept_keyword("OFFSET")) query.offset = row_count("OFFSET");
  }

  // query {UNION|EXCEPT [ALL] query}, the operands INTERSECT chains.
  QuerySub union_level() {
    QuerySub left = intersect_level();
    for (;;) {
      ast::SetOpKind kind;
      if (is_keyword(peek(), "UNION"))
        kind = ast::SetOpKind::Union;
      else if (is_keyword(peek(), "EXCEPT"))
        kind = ast::SetOpKind::Except;
      else
        return left;
      const Token& op = take();
      const bool all = accept_keyword("ALL");
      left = set_operation(kind, all, op.pos, std::move(left), intersect_level());
    }
  }

  QuerySub intersect_level() {
    QuerySub left = query_primary();
    while (is_keyword(peek(), "INTERSECT")) {
      const Token& op = take();
      const bool all = accept_keyword("ALL");
      left = set_operation(ast::SetOpKind::Intersect, all, op.pos, std::move(left), query_primary());
    }
    return left;
  }

  static QuerySub set_operation(ast::SetOpKind kind, bool all, Position at, QuerySub left, QuerySub right) {
    QuerySub q{std::make_unique<ast::Query>(), 1 + std::max(left.height, right.height)};
    if (q.height > kMaxTreeHeight)
      fail(at, "query has more than " + std::to_string(kMaxTreeHeight) + " levels of set operations");
    q.query->set_op = kind;
    q.query->all = all;
    q.query->pos = left.query->pos;
    q.query->set_op_pos = at;
    q.query->operands.push_back(std::move(*left.query));
    q.query->operands.push_back(std::move(*right.query));
    return q;
  }

  // SELECT ... | ( query )
  QuerySub query_primary() {
    if (peek().kind == TokenKind::LParen) {
      const Nesting nesting(*this, "query");
      const Position open = take().pos;
      QuerySub q = full_query();
      expect(TokenKind::RParen, "')'");
      q.query->pos = open;
      return q;
    }
    if (!is_keyword(peek(), "SELECT")) fail_expected("SELECT");
    QuerySub q{std::make_unique<ast::Query>()};
    q.query->pos = peek().pos;
    select_block(q.query->select.emplace());
    return q;
  }

  // [+|-] digits, as an unsigned 64-bit count.
  uint64_t row_count(std::string_view clause) {
    const Position pos = peek().pos;
    std::string text;
    bool negative = false;
    if (is_sign(peek())) {
      const Token& sign = take();
      negative = sign.kind == TokenKind::Minus;
      text = sign.text;
      if (peek().kind != TokenKind::Number) fail_expected("a number after " + describe(sign));
    }
    const Token& digits = expect(TokenKind::Number, "a row count");
    text += digits.text;
    uint64_t v = 0;
    if (negative || !all_digits(digits.text) ||
        std::from_chars(digits.text.data(), digits.text.data() + digits.text.size(), v).ec != std::errc())
      fail(pos, std::string(clause) + " needs an integer in [0, 2^64 - 1], found '" + text + "'");
    return v;
  }

  // --- SELECT block

  // SELECT ... FROM ... [WHERE ...] [GROUP BY ...] [HAVING ...] into `s`.
  [[gnu::noinline]] void select_block(ast::Select& s) {
    s.pos = take().pos;  // SELECT
    s.distinct = accept_keyword("DISTINCT");
    do s.items.push_back(select_item());
    while (accept(TokenKind::Comma));
    expect_keyword("FROM");
    s.from = table_ref();
    for (;;) {
      ast::Join join;
      if (accept(TokenKind::Comma)) {
        join.kind = ast::JoinKind::Comma;
        join.table = table_ref();
      } else if (accept_keyword("CROSS")) {
        expect_keyword("JOIN");
        join.kind = ast::JoinKind::Cross;
        join.table = table_ref();
      } else if (is_keyword(peek(), "INNER") || is_keyword(peek(), "JOIN")) {
        accept_keyword("INNER");
        expect_keyword("JOIN");
        join.kind = ast::JoinKind::Inner;
        join.table = table_ref();
        expect_keyword("ON");
        join.on = std::move(*condition().expr);
      } else {
        break;
      }
      s.joins.push_back(std::move(join));
    }
    if (accept_keyword("WHERE")) s.where = std::move(*condition().expr);
    if (accept_keyword("GROUP")) {
      expect_keyword("BY");
      do s.group_by.push_back(std::move(*expression().expr));
      while (accept(TokenKind::Comma));
    }
    if (accept_keyword("HAVING")) s.having = std::move(*condition().expr);
  }

  ast::SelectItem select_item() {
    ast::SelectItem item;
    item.pos = peek().pos;
    if (accept(TokenKind::Star)) {
      item.star = true;
      return item;
    }
    if (peek().kind == TokenKind::Identifier && peek(1).kind == TokenKind::Dot && peek(2).kind == TokenKind::Star) {
      item.star = true;
      item.star_table = take().text;
      take();
      take();
      return item;
    }
    if (!starts_expression(peek())) fail_expected("'*' or an expression");
    item.expr = std::move(*expression().expr);
    if (accept_keyword("AS"))
      item.alias = name("a name after AS");
    else if (peek().kind == TokenKind::Identifier)
      item.alias = take().text;
    return item;
  }

  // table [[AS] alias]
  ast::TableRef table_ref() {
    ast::TableRef t;
    t.pos = peek().pos;
    if (peek().kind == TokenKind::LParen) fail_expected("a table name (subqueries in FROM are not supported)");
    t.name = name("a table name");
    if (accept_keyword("AS")) {
      t.alias = name("a name after AS");
    } else if (peek().kind == TokenKind::Identifier) {
      const Token& word = peek();
      const bool join_word = std::any_of(std::begin(kOtherJoins), std::end(kOtherJoins),
                                         [&](std::string_view w) { return iequals(w, word.text); });
      if (join_word && (is_keyword(peek(1), "JOIN") || iequals(peek(1).text, "OUTER")))
        fail(word.pos, upper(word.text) + " joins are not supported (only [INNER] JOIN ... ON, CROSS JOIN and ',')");
      t.alias = take().text;
    }
    return t;
  }

  // --- expressions

  // Whether `t` can start an expression.
  static bool starts_expression(const Token& t) {
    switch (t.kind) {
      case TokenKind::Identifier:
      case TokenKind::Number:
      case TokenKind::String:
      case TokenKind::LParen:
      case TokenKind::Plus:
      case TokenKind::Minus: return true;
      case TokenKind::Keyword:
        return is_keyword(t, "NOT") || is_keyword(t, "CASE") || is_keyword(t, "EXTRACT") || is_keyword(t, "NULL");
      default: return false;
    }
  }

  // `e` over `children`, its height checked against kMaxTreeHeight at `at`.
  Sub node(std::unique_ptr<Expr> e, std::vector<Sub> children, Position at) const {
    int height = 0;
    e->args.reserve(children.size());
    for (Sub& c : children) {
      height = std::max(height, c.height);
      e->args.push_back(std::move(*c.expr));
    }
    if (height + 1 > kMaxTreeHeight)
      fail(at, std::string(construct_) + " has more than " + std::to_string(kMaxTreeHeight) + " levels of operators");
    return {std::move(e), height + 1};
  }

  Sub binary(Op op, const Token& op_token, Sub lhs, Sub rhs) const {
    auto e = new_expr(ExprKind::Binary, lhs.expr->pos);
    e->op = op;
    e->op_pos = op_token.pos;
    std::vector<Sub> children;
    children.push_back(std::move(lhs));
    children.push_back(std::move(rhs));
    return node(std::move(e), std::move(children), op_token.pos);
  }

  Sub condition() {
    const Construct construct(*this, "condition");
    return expression();
  }

  Sub expression() { return disjunction(); }

  Sub disjunction() {
    Sub lhs = conjunction();
    while (is_keyword(peek(), "OR")) {
      const Token& op = take();
      lhs = binary(Op::Or, op, std::move(lhs), conjunction());
    }
    return lhs;
  }

  Sub conjunction() {
    Sub lhs = negation();
    while (is_keyword(peek(), "AND")) {
      const Token& op = take();
      lhs = binary(Op::And, op, std::move(lhs), negation());
    }
    return lhs;
  }

  Sub negation() {
    if (!is_keyword(peek(), "NOT")) return predicate();
    const Nesting nesting(*this);
    const Token& op = take();
    auto e = new_expr(ExprKind::Unary, op.pos);
    e->op = Op::Not;
    e->op_pos = op.pos;
    std::vector<Sub> children;
    children.push_back(negation());
    return node(std::move(e), std::move(children), op.pos);
  }

  // x op y  |  x [NOT] BETWEEN lo AND hi  |  x [NOT] IN (v, ...)  |  x
  Sub predicate() {
    Sub x = additive();
    if (const auto op = comparison_op(peek().kind)) {
      const Token& op_token = take();
      Sub result = binary(*op, op_token, std::move(x), additive());
      if (comparison_op(peek().kind))
        fail(peek().pos, "comparisons do not chain, found " + describe(peek()) + " after one (parenthesise it)");
      return result;
    }
    if (!is_keyword(peek(), "NOT") && !is_keyword(peek(), "BETWEEN") && !is_keyword(peek(), "IN")) return x;
    const Position at = peek().pos;
    auto e = new_expr(ExprKind::Between, x.expr->pos);
    e->op_pos = at;
    if (is_keyword(peek(), "NOT")) {
      take();
      e->negated = true;
      if (!is_keyword(peek(), "BETWEEN") && !is_keyword(peek(), "IN")) fail_expected("BETWEEN or IN");
    }
    std::vector<Sub> children;
    children.push_back(std::move(x));
    if (accept_keyword("BETWEEN")) {
      children.push_back(additive());
      expect_keyword("AND");
      children.push_back(additive());
    } else {
      take();  // IN
      e->kind = ExprKind::In;
      const Nesting nesting(*this);
      expect(TokenKind::LParen, "'(' after IN");
      if (is_keyword(peek(), "SELECT")) fail_expected("a list of values (subqueries are not supported)");
      do children.push_back(expression());
      while (accept(TokenKind::Comma));
      expect(TokenKind::RParen, "')'");
    }
    return node(std::move(e), std::move(children), at);
  }

  Sub additive() {
    Sub lhs = multiplicative();
    while (peek().kind == TokenKind::Plus || peek().kind == TokenKind::Minus) {
      const Token& op = take();
      lhs = binary(op.kind == TokenKind::Plus ? Op::Add : Op::Sub, op, std::move(lhs), multiplicative());
    }
    return lhs;
  }

  Sub multiplicative() {
    Sub lhs = unary();
    while (peek().kind == TokenKind::Star || peek().kind == TokenKind::Slash) {
      const Token& op = take();
      lhs = binary(op.kind == TokenKind::Star ? Op::Mul : Op::Div, op, std::move(lhs), unary());
    }
    return lhs;
  }

  // A sign right before a number is part of the literal; `-x` otherwise.
  Sub unary() {
    if (!is_sign(peek())) return primary();
    const Token& sign = peek();
    if (peek(1).kind == TokenKind::Number) {
      take();
      return number(&sign);
    }
    if (sign.kind == TokenKind::Plus) {
      take();
      fail_expected("a number after '+'");
    }
    const Nesting nesting(*this);
    take();
    auto e = new_expr(ExprKind::Unary, sign.pos);
    e->op = Op::Neg;
    e->op_pos = sign.pos;
    std::vector<Sub> children;
    children.push_back(unary());
    return node(std::move(e), std::move(children), sign.pos);
  }

  Sub primary() {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::Number: return number(nullptr);
      case TokenKind::String: {
        take();
        return literal(t.pos, string_value(t));
      }
      case TokenKind::LParen: {
        const Nesting nesting(*this);
        take();
        if (is_keyword(peek(), "SELECT")) fail_expected("an expression (subqueries are not supported)");
        Sub e = expression();
        expect(TokenKind::RParen, "')'");
        e.expr->pos = t.pos;  // the expression as written starts at its '('
        return e;
      }
      case TokenKind::Identifier:
        if (iequals(t.text, "DATE") && peek(1).kind == TokenKind::String) return date();
        if (peek(1).kind == TokenKind::LParen) return function();
        return column();
      case TokenKind::Keyword:
        if (is_keyword(t, "NULL")) {
          take();
          return literal(t.pos, std::monostate{});
        }
        if (is_keyword(t, "CASE")) return case_when();
        if (is_keyword(t, "EXTRACT")) return extract();
        break;
      default: break;
    }
    fail_expected("an expression");
  }

  static Sub literal(Position pos, Value value) {
    auto e = new_expr(ExprKind::Literal, pos);
    e->literal = std::move(value);
    return {std::move(e)};
  }

  // An integer (int64_t) or a decimal/exponent number (double), `sign` written before it.
  Sub number(const Token* sign) {
    const Token& digits = take();
    const bool negative = sign && sign->kind == TokenKind::Minus;
    Sub s = literal(sign ? sign->pos : digits.pos, std::monostate{});
    Expr& e = *s.expr;
    e.literal_text = (negative ? "-" : "") + std::string(digits.text);
    if (all_digits(digits.text)) {
      // |value| up to 2^63 when negative, 2^63 - 1 otherwise.
      uint64_t magnitude = 0;
      const uint64_t max = uint64_t(std::numeric_limits<int64_t>::max()) + (negative ? 1 : 0);
      if (std::from_chars(digits.text.data(), digits.text.data() + digits.text.size(), magnitude).ec != std::errc() ||
          magnitude > max)
        fail(e.pos, "integer '" + excerpt(e.literal_text) +
                        "' is out of range for BIGINT [-2^63, 2^63 - 1] (write it with a '.' for a double)");
      e.literal = negative ? int64_t(0 - magnitude) : int64_t(magnitude);
    } else {
      const double v = double_value(digits);
      e.literal = negative ? -v : v;
    }
    return s;
  }

  // DATE 'YYYY-MM-DD'
  Sub date() {
    const Token& keyword = take();
    const std::string value = string_value(take());
    const std::optional<Date> d = parse_date(value);
    if (!d)
      fail(keyword.pos, "invalid DATE literal '" + excerpt(value) +
                            "' (expected YYYY-MM-DD, a calendar day of the years 0001 to 9999)");
    return literal(keyword.pos, *d);
  }

  // name [. name]
  Sub column() {
    auto e = new_expr(ExprKind::Column, peek().pos);
    e->name = name("a column");
    if (accept(TokenKind::Dot)) {
      e->table = std::move(e->name);
      e->name = name("a column name after '.'");
    }
    return {std::move(e)};
  }

  // NAME(*) | NAME([DISTINCT] x, ...)
  Sub function() {
    const Nesting nesting(*this);
    const Token& fn = take();
    take();  // (
    auto e = new_expr(ExprKind::Function, fn.pos);
    e->name = upper(fn.text);
    std::vector<Sub> children;
    if (peek().kind == TokenKind::Star) {
      if (e->name != "COUNT") fail(peek().pos, e->name + " needs a column; only COUNT takes '*'");
      take();
      e->star = true;
    } else {
      e->distinct = accept_keyword("DISTINCT");
      do children.push_back(expression());
      while (accept(TokenKind::Comma));
    }
    expect(TokenKind::RParen, "')'");
    return node(std::move(e), std::move(children), fn.pos);
  }

  // CASE WHEN c THEN r ... [ELSE e] END
  Sub case_when() {
    const Nesting nesting(*this);
    const Token& keyword = take();
    if (!is_keyword(peek(), "WHEN")) fail_expected("WHEN (CASE x WHEN ... is not supported: write CASE WHEN x = ...)");
    std::vector<Sub> children;
    while (accept_keyword("WHEN")) {
      children.push_back(expression());
      expect_keyword("THEN");
      children.push_back(expression());
    }
    if (accept_keyword("ELSE")) children.push_back(expression());
    if (!accept_keyword("END")) fail_expected(children.size() % 2 ? "END" : "WHEN, ELSE or END");
    return node(new_expr(ExprKind::Case, keyword.pos), std::move(children), keyword.pos);
  }

  // EXTRACT(YEAR|MONTH|DAY FROM x)
  Sub extract() {
    const Nesting nesting(*this);
    const Token& keyword = take();
    auto e = new_expr(ExprKind::Extract, keyword.pos);
    expect(TokenKind::LParen, "'(' after EXTRACT");
    const Token& field = peek();
    if (field.kind != TokenKind::Identifier ||
        !(iequals(field.text, "YEAR") || iequals(field.text, "MONTH") || iequals(field.text, "DAY")))
      fail_expected("YEAR, MONTH or DAY");
    e->field = upper(take().text);
    expect_keyword("FROM");
    std::vector<Sub> children;
    children.push_back(expression());
    expect(TokenKind::RParen, "')'");
    return node(std::move(e), std::move(children), keyword.pos);
  }

  std::vector<Token> tokens_;
  size_t i_ = 0;
  int depth_ = 0;
  const char* construct_ = "expression";
};

// A cursor over a script that keeps the position of its current byte.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  bool done() const { return i_ >= text_.size(); }
  char at(size_t ahead = 0) const { return i_ + ahead < text_.size() ? text_[i_ + ahead] : '\0'; }
  size_t index() const { return i_; }
  Position pos() const { return pos_; }
  // Moves to `index` (not before the current one).
  void move_to(size_t index) {
    for (index = std::min(index, text_.size()); i_ < index; ++i_) {
      if (text_[i_] == '\n') {
        ++pos_.line;
        pos_.column = 1;
      } else {
        ++pos_.column;
      }
    }
  }

 private:
  std::string_view text_;
  size_t i_ = 0;
  Position pos_;
};

}  // namespace

ast::Statement parse_statement(std::string_view text, Position origin) {
  return Parser(text, origin).statement();
}

ast::Expr parse_expression(std::string_view text, Position origin) {
  return Parser(text, origin).lone_expression();
}

std::vector<ScriptStatement> split_statements(std::string_view script) {
  std::vector<ScriptStatement> out;
  Cursor c(script);
  constexpr size_t kNone = std::string_view::npos;
  size_t start = kNone;  // the current statement's first byte
  Position start_pos;
  size_t end = 0;  // just past its last byte that is not blank
  const auto begin = [&] {
    if (start == kNone) {
      start = c.index();
      start_pos = c.pos();
    }
  };
  const auto finish = [&](bool terminated) {
    if (start != kNone) out.push_back({script.substr(start, end - start), start_pos, terminated});
    start = kNone;
  };
  while (!c.done()) {
    const char ch = c.at();
    if (ch == '-' && c.at(1) == '-') {
      const size_t newline = script.find('\n', c.index());
      c.move_to(newline == std::string_view::npos ? script.size() : newline);
      if (start != kNone) end = c.index();  // a comment before a statement is not part of it
    } else if (ch == '/' && c.at(1) == '*') {
      const size_t close = script.find("*/", c.index() + 2);
      if (close == std::string_view::npos) begin();  // unterminated: parsing reports it
      c.move_to(close == std::string_view::npos ? script.size() : close + 2);
      if (start != kNone) end = c.index();
    } else if (ch == '\'') {
      begin();
      size_t i = c.index() + 1;
      // '' inside a string is a quote, so the string ends at the first quote not followed by one.
      while (i < script.size() && (script[i] != '\'' || (i + 1 < script.size() && script[i + 1] == '\'')))
        i += script[i] == '\'' ? 2 : 1;
      c.move_to(i + 1);
      end = c.index();
    } else if (ch == ';') {
      finish(true);
      c.move_to(c.index() + 1);
    } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') {
      c.move_to(c.index() + 1);
    } else {
      begin();
      c.move_to(c.index() + 1);
      end = c.index();
    }
  }
  finish(false);
  return out;
}

std::vector<ScriptPart> split_script(std::string_view script) {
  std::vector<ScriptPart> out;
  for (const ScriptStatement& st : split_statements(script))
    out.push_back({std::string(st.text), st.pos.line, st.terminated});
  return out;
}

}  // namespace gfxq::sql
