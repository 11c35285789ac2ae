#pragma once
//! \file ast.h
//! The syntax tree of one SQL statement, as the parser (parse_statement) writes it and the binder
//! (src/plan/bind_statement) reads it. Names are as written (unresolved); every node keeps the
//! position of its first token so later errors can say where.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gfxq/table.h"
#include "sql/lexer.h"

namespace gfxq::sql::ast {

//! What an expression node is.
enum class ExprKind {
  Column,    //!< `name` or `table.name`
  Literal,   //!< a number, string or DATE literal, or NULL. A sign written right before a number is
             //!< part of it: `-5` is the Literal -5 (literal_text "-5"), `+5` the Literal 5; `-(5)`
             //!< is Unary Neg of the Literal 5
  Unary,     //!< `-x`, `NOT x`
  Binary,    //!< arithmetic `+ - * /`, comparisons, `AND`, `OR`: args {lhs, rhs}
  Between,   //!< `x [NOT] BETWEEN lo AND hi`: args {x, lo, hi}
  In,        //!< `x [NOT] IN (v1, v2, ...)`: args {x, v1, v2, ...}
  Case,      //!< `CASE WHEN c1 THEN r1 ... [ELSE e] END`: args {c1, r1, c2, r2, ..., [e]}
  Function,  //!< aggregates and scalar functions by name: `SUM(x)`, `COUNT(*)`, `COUNT(DISTINCT x)`
  Extract,   //!< `EXTRACT(YEAR FROM x)`: args {x}, `field` the part ("YEAR", "MONTH", "DAY")
};

//! Operators of Unary and Binary nodes.
enum class Op {
  Neg,  //!< unary minus
  Not,  //!< NOT
  Add,  //!< +
  Sub,  //!< -
  Mul,  //!< *
  Div,  //!< /
  Lt,   //!< <
  Le,   //!< <=
  Gt,   //!< >
  Ge,   //!< >=
  Eq,   //!< =
  Ne,   //!< <> or !=
  And,  //!< AND
  Or,   //!< OR
};

//! The operator as SQL writes it ("+", "<=", "AND", "NOT", unary minus "-").
const char* to_string(Op op) noexcept;

//! One expression node. Children are held by value (args), so trees copy like values.
struct Expr {
  ExprKind kind = ExprKind::Literal;  //!< what the node is
  Position pos;                       //!< its first token
  std::string table;                  //!< Column: the qualifier as written, or empty
  std::string name;                   //!< Column: the column; Function: the name in upper case
  Value literal;                      //!< Literal: int64_t (integer literal), double (decimal or exponent
                                      //!< literal), std::string ('text'), Date (DATE 'YYYY-MM-DD'),
                                      //!< or std::monostate (NULL)
  std::string literal_text;           //!< Literal: the number as written, e.g. "0.1" (exact decimal
                                      //!< arguments like QUANTILE's q read it)
  Op op = Op::Add;                    //!< Unary, Binary
  bool negated = false;               //!< Between, In: NOT BETWEEN / NOT IN
  bool distinct = false;              //!< Function: `COUNT(DISTINCT x)`
  bool star = false;                  //!< Function: `COUNT(*)`
  std::string field;                  //!< Extract: "YEAR", "MONTH" or "DAY"
  std::vector<Expr> args;             //!< children, as each kind says
  Position op_pos;                    //!< Unary, Binary: the operator's token; Between, In: the
                                      //!< BETWEEN or IN keyword, or the NOT of NOT BETWEEN / NOT IN
  //! Canonical SQL text of the expression (what names an unaliased result column), e.g.
  //! "SUM(lo_extendedprice * lo_discount)", "t.a + 1", "QUANTILE(a, 0.1)".
  std::string text() const;
};

//! Whether `a` and `b` are the same tree: kinds, names, literals (value and literal_text),
//! operators, flags and children alike; positions are not compared.
bool same_tree(const Expr& a, const Expr& b) noexcept;

//! One item of a select list.
struct SelectItem {
  bool star = false;        //!< `*` or `t.*`
  std::string star_table;   //!< `t` of `t.*`, else empty
  Expr expr;                //!< the expression (unless star)
  std::string alias;        //!< `AS alias` (or a bare alias), else empty
  Position pos;             //!< its first token
};

//! A table in FROM, with its optional alias (`lineorder lo`, `date AS d`).
struct TableRef {
  std::string name;   //!< the catalog table
  std::string alias;  //!< the alias, else empty
  Position pos;       //!< where it is named
};

//! How a FROM item is joined to what stands before it.
enum class JoinKind {
  Comma,  //!< `, t` (conditions come from WHERE)
  Inner,  //!< `[INNER] JOIN t ON cond`
  Cross,  //!< `CROSS JOIN t`
};

//! One FROM item after the first.
struct Join {
  JoinKind kind = JoinKind::Comma;  //!< how it is joined
  TableRef table;                   //!< the joined table
  std::optional<Expr> on;           //!< Inner: the ON condition
};

//! One ORDER BY key: an expression, an output alias or an ordinal (a Literal integer).
struct OrderItem {
  Expr expr;                //!< the key as written
  bool descending = false;  //!< DESC
};

//! One SELECT block.
struct Select {
  bool distinct = false;              //!< SELECT DISTINCT
  std::vector<SelectItem> items;      //!< the select list, not empty
  TableRef from;                      //!< the first FROM table
  std::vector<Join> joins;            //!< the other FROM items, in order
  std::optional<Expr> where;          //!< WHERE
  std::vector<Expr> group_by;         //!< GROUP BY expressions (or aliases / ordinals)
  std::optional<Expr> having;         //!< HAVING
  Position pos;                       //!< the SELECT keyword
};

//! Set operations between query blocks.
enum class SetOpKind { Union, Intersect, Except };

//! A query: one SELECT block, or a set operation of two queries, with the ORDER BY / LIMIT that
//! applies to its result. `a UNION b ORDER BY x LIMIT 3` orders and limits the union.
struct Query {
  std::optional<Select> select;   //!< a SELECT block, or empty for a set operation
  SetOpKind set_op = SetOpKind::Union;  //!< the set operation (when !select)
  bool all = false;                      //!< UNION ALL / INTERSECT ALL / EXCEPT ALL
  std::vector<Query> operands;           //!< the two operands (when !select)
  std::vector<OrderItem> order_by;       //!< ORDER BY of this query's result
  std::optional<uint64_t> limit;         //!< LIMIT n
  std::optional<uint64_t> offset;        //!< OFFSET m
  Position pos;                          //!< its first token
  Position set_op_pos;                   //!< the UNION / INTERSECT / EXCEPT keyword (when !select)
};

//! A statement: a query, optionally under EXPLAIN (plan only, not run).
struct Statement {
  bool explain = false;  //!< `EXPLAIN query`: print the plan without running it
  Query query;           //!< the query
};

}  // namespace gfxq::sql::ast
