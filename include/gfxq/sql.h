#pragma once
//! \file sql.h
//! SQL statements parsed into query specs. The statement is parsed in the whole analytic language
//! (docs/SQL.md), then converted when it has the shape a Query spec holds:
//!
//!   SELECT items FROM t [JOIN s ON cond] [WHERE cond] [GROUP BY col]
//!          [ORDER BY col [ASC|DESC]] [LIMIT n]
//!   items: *, columns, COUNT(*), SUM(c), AVG(c), MIN(c), MAX(c), MEDIAN(c),
//!          QUANTILE(c, q), KTH_LARGEST(c, k)
//!   cond:  comparisons (< <= > >= = <> !=) of columns and numbers, BETWEEN, IN, AND, OR, NOT,
//!          parentheses; normalised to CNF.
//!   join:  ON r.a = s.b, ON s.b BETWEEN r.a - d AND r.a + d, or the pair of comparisons.

#include <string>
#include <string_view>
#include <vector>

#include "gfxq/query.h"

namespace gfxq::sql {

//! Parses one statement into a query spec. Error(InvalidQuery) with the position ("at 1:23") and
//! what was expected, or naming the construct a Query cannot express (SELECT DISTINCT, UNION,
//! expressions, ...); a condition whose CNF would exceed `limits` is rejected before expansion.
Query parse(std::string_view text, const CnfLimits& limits = {});

//! Whether `name` can name a table or column in a query: an identifier ([A-Za-z_][A-Za-z0-9_]*)
//! that is not a keyword (SELECT, FROM, ...).
bool is_identifier(std::string_view name) noexcept;

//! One statement of a script: its text (from its first token to just before its ';') and whether
//! a ';' ended it (else the end of the script did).
struct ScriptPart {
  std::string text;         //!< the statement
  size_t line = 1;          //!< line of its first character in the script (1-based)
  bool terminated = false;  //!< ended by ';'
};

//! Splits a script at each ';' outside string literals and comments; statements without a token
//! are left out. Never throws (a broken statement is reported when it is run).
std::vector<ScriptPart> split_script(std::string_view script);

}  // namespace gfxq::sql
