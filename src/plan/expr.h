#pragma once
//! \file expr.h
//! Bound expressions of the logical plan: every column resolved to a position in its node's input,
//! every node typed. The binder (binder.h) makes them from the syntax tree; each backend evaluates
//! them (the CPU engine: cpu/plan/eval.h) or says it cannot.
//!
//! Typing (docs/SQL.md "Expressions"): integer arithmetic in int64 with overflow errors (`/`
//! truncates toward zero; division by zero is an error); arithmetic with a FLOAT (float32) operand and
//! no DOUBLE one in float32; with a DOUBLE operand (a decimal literal, an AVG) in double. DATE ± an
//! integer is a DATE, DATE − DATE an integer. Comparisons are exact on the mathematical values in
//! the total order (−0.0 = 0.0; NaN = NaN, above +∞); STRING comparisons are on dictionary codes
//! (string order) when both sides share a dictionary or one side is a literal, else on the strings.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gfxq/query.h"
#include "gfxq/table.h"

namespace gfxq::plan {

//! What an expression node computes.
enum class ExprKind {
  Column,   //!< input column `column`
  Literal,  //!< the constant `literal` (NULL when monostate)
  Arith,    //!< args[0] `arith` args[1]
  Neg,      //!< -args[0]
  Compare,  //!< args[0] `cmp` args[1] (boolean; IN lists and BETWEEN are bound as OR / AND of these)
  And,      //!< args[0] AND args[1] AND ... (boolean, three-valued)
  Or,       //!< args[0] OR args[1] OR ... (boolean, three-valued)
  Not,      //!< NOT args[0] (boolean, three-valued)
  Case,     //!< CASE WHEN args[0] THEN args[1] ... [ELSE args[last]] END; `has_else`
  Extract,  //!< EXTRACT(`part` FROM args[0]) of a DATE: an INT
  ToBool,   //!< a boolean as INT 1 / 0 (a condition used as a value, as SQLite gives)
  Cast,     //!< args[0] converted to `type` (a wider number type: set operations unify their columns)
};

//! Arithmetic operators.
enum class ArithOp { Add, Sub, Mul, Div };
//! "+", "-", "*", "/".
const char* to_string(ArithOp op) noexcept;

//! Parts EXTRACT takes from a DATE.
enum class DatePart { Year, Month, Day };

//! A bound, typed expression.
struct Expr {
  ExprKind kind = ExprKind::Literal;  //!< what it computes
  Type type = Type::Int64;            //!< value type (unused when `boolean`)
  bool boolean = false;               //!< a truth value (Compare, And, Or, Not)
  size_t column = 0;                  //!< Column: position in the node's input schema
  Value literal;                      //!< Literal: a value of `type` (std::string for String), or NULL
  ArithOp arith = ArithOp::Add;       //!< Arith
  CmpOp cmp = CmpOp::Eq;              //!< Compare
  DatePart part = DatePart::Year;     //!< Extract
  bool has_else = false;              //!< Case: the last argument is the ELSE value
  std::vector<Expr> args;             //!< operands
  //! String values: the dictionary the codes index (a column's, or one made for literals). Two
  //! String expressions with the same dictionary compare by code.
  std::shared_ptr<const Dictionary> dictionary;
  std::string text;  //!< canonical SQL text (names result columns, shown by EXPLAIN)

  //! Whether this node or a descendant reads input column `c`.
  bool reads(size_t c) const;
  //! Input columns read, ascending, each once.
  std::vector<size_t> columns() const;
  //! Whether the expression is a Column, or a Literal.
  bool is_column() const noexcept { return kind == ExprKind::Column; }
};

//! A column reference of type `type` at position `index` named `text`.
Expr column_expr(size_t index, Type type, std::string text, std::shared_ptr<const Dictionary> dictionary = nullptr);
//! A literal (NULL: std::monostate with `type` as given).
Expr literal_expr(Value value, Type type, std::string text);
//! The same expression with every Column index i replaced by map[i] (map[i] must be set).
Expr remap_columns(const Expr& e, const std::vector<std::optional<size_t>>& map);

//! Whether `type` is a number type (INT, FLOAT, BIGINT, DOUBLE).
bool is_numeric(Type type) noexcept;
//! Whether `type` is an integer type (INT, BIGINT).
bool is_integer(Type type) noexcept;

//! An aggregate call of an Aggregate node.
struct AggCall {
  AggKind kind = AggKind::Count;  //!< the function
  std::optional<Expr> arg;        //!< its argument (none for COUNT(*)); over the node's input
  bool distinct = false;          //!< COUNT(DISTINCT arg)
  double q = 0.5;                 //!< QUANTILE's q (MEDIAN 0.5)
  int64_t k = 1;                  //!< KTH_LARGEST's k
  Type type = Type::Int64;        //!< result type
  std::string text;               //!< canonical text, e.g. "SUM(a * b)"
};

//! The result type of aggregate `kind` over an argument of type `arg` (ignored for COUNT): COUNT
//! BIGINT; SUM BIGINT for integers, DOUBLE for FLOAT/DOUBLE; AVG DOUBLE; the others the argument's.
Type agg_result_type(AggKind kind, Type arg) noexcept;

}  // namespace gfxq::plan
