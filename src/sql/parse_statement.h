#pragma once
//! \file parse_statement.h
//! The parser of the analytic SQL language (grammar in docs/SQL.md): statement text to the syntax
//! tree of ast.h, and a script split into its statements.

#include <string_view>
#include <vector>

#include "sql/ast.h"
#include "sql/lexer.h"

namespace gfxq::sql {

//! Deepest nesting of parentheses, NOT, unary minus, CASE, EXTRACT, function and IN argument
//! lists and parenthesised queries; deeper input is Error(InvalidQuery), not a stack overflow.
inline constexpr int kMaxNesting = 200;

//! Tallest tree the parser builds, counted in nodes from the root to the deepest leaf, for an
//! expression and for the set operations of a query (a chain `a AND b AND ...` adds a level per
//! operator). Code that walks the tree recursively can rely on this bound.
inline constexpr int kMaxTreeHeight = 1000;

//! Parses one statement: `[EXPLAIN] query [;]`. Error(InvalidQuery) "at L:C: expected X, found Y"
//! (or what else is wrong there), positions counted from `origin`, the position of text[0] in
//! its script (see split_statements).
ast::Statement parse_statement(std::string_view text, Position origin = {});

//! Parses one expression: the whole of `text`.
ast::Expr parse_expression(std::string_view text, Position origin = {});

//! One statement of a script.
struct ScriptStatement {
  std::string_view text;    //!< from its first token to just before its ';', trailing blanks cut
  Position pos;             //!< where `text` starts in the script: parse_statement's origin
  bool terminated = false;  //!< ended by ';' (else by the end of the script)
};

//! Splits a script at each ';' outside string literals and comments. Statements without a token
//! (blank, comments only) are left out; an unterminated string or block comment runs to the end
//! of the script and belongs to a statement, so that parsing it reports the error. Never throws.
std::vector<ScriptStatement> split_statements(std::string_view script);

}  // namespace gfxq::sql
