#pragma once
//! \file query.h
//! Query specs: the library's query API. SQL (sql.h) is a front end that produces these.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gfxq {

//! A column, optionally qualified by its table (`r.a`); `table` is empty when unqualified.
struct ColumnRef {
  std::string table;  //!< table name or empty
  std::string name;   //!< column name
  //! `name` or `table.name`.
  std::string text() const { return table.empty() ? name : table + "." + name; }
  bool operator==(const ColumnRef&) const = default;
};

//! Comparison operators.
enum class CmpOp { Lt, Le, Gt, Ge, Eq, Ne };
//! "<", "<=", ">", ">=", "=", "<>".
const char* to_string(CmpOp op) noexcept;
//! The operator with its operands swapped (a < b  <=>  b > a).
CmpOp flip(CmpOp op) noexcept;
//! The operator's negation (NOT a < b  <=>  a >= b; exact for the total order gfxq uses).
CmpOp negate(CmpOp op) noexcept;
//! Whether a three-way comparison result (-1, 0, 1: lhs vs rhs) satisfies `lhs op rhs`.
bool holds(CmpOp op, int three_way) noexcept;

//! Right-hand side of a comparison: another column or a numeric literal.
//! Literals are held as double: every int32 and float32 value is exact there.
using Operand = std::variant<ColumnRef, double>;

//! `lhs op rhs`. Comparisons are exact: INT against a fractional literal or a FLOAT column
//! compares the mathematical values (both converted to double, which is exact).
//! FLOAT order is total: -0.0 == +0.0, NaN == NaN, NaN greater than every other value.
struct Comparison {
  ColumnRef lhs;                //!< the column compared
  CmpOp op = CmpOp::Eq;         //!< the operator
  Operand rhs = 0.0;            //!< column or literal
  bool operator==(const Comparison&) const = default;
};

//! A disjunction (OR) of comparisons; must not be empty.
struct Clause {
  std::vector<Comparison> terms;  //!< OR-ed comparisons
  bool operator==(const Clause&) const = default;
};

//! A conjunction (AND) of clauses. No clauses means TRUE.
struct Cnf {
  std::vector<Clause> clauses;  //!< AND-ed clauses
  bool operator==(const Cnf&) const = default;
  //! True when there is no condition.
  bool empty() const noexcept { return clauses.empty(); }
  //! Text form, e.g. "(a < 3 OR b >= 2) AND (c = 1)".
  std::string text() const;
};

//! Limits on CNF normalisation; past them the parser says so instead of expanding. The defaults
//! keep every backend well under a second on a condition at the limits (the raster path runs one
//! or two stencil passes per comparison: 256 comparisons take about 0.3 s on llvmpipe).
struct CnfLimits {
  size_t max_clauses = 256;            //!< clauses in the normalised CNF
  size_t max_terms_per_clause = 256;   //!< comparisons in one clause
  size_t max_terms = 256;              //!< comparisons in the whole normalised CNF
};

//! Aggregate functions.
enum class AggKind { Count, Sum, Avg, Min, Max, Median, Quantile, KthLargest };
//! "COUNT", "SUM", ...
const char* to_string(AggKind kind) noexcept;

//! An aggregate. Semantics (every backend):
//! - COUNT(*) counts rows (int64); over empty input 0.
//! - SUM(INT) is exact int64 (overflow is Error(Overflow)); SUM(FLOAT) is the exact sum rounded once.
//! - AVG is double: INT the exact quotient rounded once, FLOAT SUM / n. MIN/MAX/MEDIAN/QUANTILE/KTH_LARGEST return the column's type.
//! - QUANTILE(c, q), q in (0,1]: the smallest v with at least ceil(q*n) values <= v
//!   (see quantile_rank). MEDIAN(c) = QUANTILE(c, 0.5). KTH_LARGEST(c, k): k-th largest, k >= 1.
//! - Over empty input every aggregate but COUNT is NULL; KTH_LARGEST with k > n is NULL.
//! - FLOAT results follow the total order: -0.0 is reported as +0.0, any NaN as the canonical NaN.
struct Aggregate {
  AggKind kind = AggKind::Count;
  std::optional<ColumnRef> column;  //!< empty only for COUNT(*)
  double q = 0.5;                   //!< QUANTILE's q (MEDIAN: 0.5)
  int64_t k = 1;                    //!< KTH_LARGEST's k
  bool operator==(const Aggregate&) const = default;
  //! Text form, e.g. "SUM(a)"; also the result column's name.
  std::string text() const;
};

//! `*` in a select list.
struct Star {
  bool operator==(const Star&) const = default;
};

//! One item of a select list.
using SelectItem = std::variant<Star, ColumnRef, Aggregate>;

//! A join of the FROM table (left, `r`) with `right` (`s`):
//! rows pair when  left_key + lo <= right_key <= left_key + hi  (arithmetic in double).
//! An equi-join has lo = hi = 0; a band join `s.b BETWEEN r.a - d AND r.a + d` has lo = -d, hi = d.
struct JoinSpec {
  std::string right;      //!< right table name
  ColumnRef left_key;     //!< key column of the left table
  ColumnRef right_key;    //!< key column of the right table
  double lo = 0;          //!< lower offset
  double hi = 0;          //!< upper offset
  //! True for lo == hi == 0.
  bool equi() const noexcept { return lo == 0 && hi == 0; }
  bool operator==(const JoinSpec&) const = default;
};

//! ORDER BY one column.
struct OrderBy {
  ColumnRef column;         //!< sort key: an input column; with GROUP BY, the group column
  bool descending = false;  //!< DESC
  bool operator==(const OrderBy&) const = default;
};

//! SELECT items FROM table [JOIN ...] [WHERE cnf] [GROUP BY col] [ORDER BY col] [LIMIT n].
//! Result order: without ORDER BY, selections keep input row order, joins are ordered by
//! (left row, right row), groups by ascending key. ORDER BY is stable (ties keep that order).
struct Query {
  std::vector<SelectItem> items;        //!< select list, not empty
  std::string table;                    //!< FROM table
  std::optional<JoinSpec> join;         //!< optional join
  Cnf where;                            //!< WHERE condition (empty = all rows)
  std::optional<ColumnRef> group_by;    //!< GROUP BY column
  std::optional<OrderBy> order_by;      //!< ORDER BY
  std::optional<uint64_t> limit;        //!< LIMIT n
  bool operator==(const Query&) const = default;
  //! True when the select list holds an aggregate.
  bool has_aggregates() const;
  //! Canonical SQL text of the query.
  std::string text() const;
};

//! A number literal as query texts write it: fixed notation from 1e-5 to 1e16 (0.0001, 250000), else
//! the shortest round-trip form; "NaN", "Infinity", "-Infinity".
std::string number_text(double v);

//! ceil(q*n) computed exactly for q in (0,1] and n >= 1 (the 1-based rank QUANTILE selects), q taken
//! as the shortest decimal that reads back to the same double (the literal the user wrote: 0.1 is
//! 1/10); Error(InvalidQuery) for q outside (0,1]. Every backend uses this function.
uint64_t quantile_rank(double q, uint64_t n);

}  // namespace gfxq
