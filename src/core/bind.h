#pragma once
// The query binder every backend uses: resolves each ColumnRef of a Query against the catalog
// and validates the query, so backends receive a BoundQuery that is known to be well formed.
//
// Also here: the conventions for aggregate results that every backend must reproduce exactly
// (output types, canonical floats, the int AVG formula, the int SUM overflow check).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gfxq/query.h"
#include "gfxq/table.h"

namespace gfxq {

//! Which input of a query a column belongs to.
enum class Side : uint8_t {
  Left = 0,   //!< the FROM table
  Right = 1,  //!< the JOIN table
};

//! A column reference resolved to one input column.
struct BoundColumn {
  Side side = Side::Left;   //!< input table
  size_t index = 0;         //!< column index in that table
  Type type = Type::Int32;  //!< the column's type (Int32 or Float32: queries read only these)
  std::string name;         //!< as written (ColumnRef::text()); `t.c` for columns `*` expands in a join
  bool operator==(const BoundColumn&) const = default;
};

//! True when `a` and `b` read the same input column (their names may differ: `a` and `t.a`).
inline bool same_column(const BoundColumn& a, const BoundColumn& b) noexcept {
  return a.side == b.side && a.index == b.index;
}

//! Right-hand side of a bound comparison: a column or a literal.
using BoundOperand = std::variant<BoundColumn, double>;

//! `lhs op rhs`, compared as doubles in the total order (compare_total in order_key.h):
//! int32 and float32 convert to double exactly; -0.0 == 0.0; NaN == NaN; NaN > everything else.
struct BoundComparison {
  BoundColumn lhs;       //!< the column compared
  CmpOp op = CmpOp::Eq;  //!< the operator
  BoundOperand rhs;      //!< column or literal
};

//! A disjunction (OR) of bound comparisons; never empty.
struct BoundClause {
  std::vector<BoundComparison> terms;  //!< OR-ed comparisons
};

//! A conjunction (AND) of bound clauses; no clauses means TRUE.
struct BoundCnf {
  std::vector<BoundClause> clauses;  //!< AND-ed clauses
  //! True when there is no condition.
  bool empty() const noexcept { return clauses.empty(); }
};

//! A validated aggregate with its result column's name and type.
struct BoundAggregate {
  AggKind kind = AggKind::Count;      //!< the function
  std::optional<BoundColumn> column;  //!< argument; empty only for COUNT(*)
  double q = 0.5;                     //!< QUANTILE's q in (0, 1]; 0.5 for MEDIAN whatever the spec held
  int64_t k = 1;                      //!< KTH_LARGEST's k >= 1
  std::string name;                   //!< result column name: Aggregate::text()
  Type type = Type::Int64;            //!< result column type (aggregate_type)
};

//! One result column: an input column (plain selections; in grouped queries the group key)
//! or an aggregate.
using BoundItem = std::variant<BoundColumn, BoundAggregate>;

//! A validated join: pairs (l, r) with  l.key + lo <= r.key <= l.key + hi  in double arithmetic,
//! the bounds compared in the total order (so NaN keys match NaN keys).
struct BoundJoin {
  BoundColumn left_key;   //!< a column of the FROM table (Side::Left)
  BoundColumn right_key;  //!< a column of the JOIN table (Side::Right)
  double lo = 0;          //!< lower offset (finite)
  double hi = 0;          //!< upper offset (finite)
  //! True for lo == hi == 0.
  bool equi() const noexcept { return lo == 0 && hi == 0; }
};

//! A validated ORDER BY. In a grouped query it is the group column; it never occurs in an
//! aggregate query without GROUP BY. Otherwise any input column, selected or not.
struct BoundOrder {
  BoundColumn column;       //!< sort key
  bool descending = false;  //!< DESC (the sort is stable either way)
};

//! Name and type of one result column.
struct OutputColumn {
  std::string name;         //!< result column name
  Type type = Type::Int32;  //!< result column type
};

//! A query whose every column reference is resolved and whose every rule is checked.
//! Pipeline (every backend): join, WHERE, then either
//!  - plain: ORDER BY on input rows, LIMIT, then the items of the kept rows (values as stored:
//!    selections do not canonicalise -0.0 or NaN payloads); or
//!  - aggregate (`aggregate`): with GROUP BY one row per group, groups ascending by key in the
//!    total order (FLOAT keys canonical: -0.0 and 0.0 one group, every NaN one group), ORDER BY
//!    (the group column) and LIMIT over the groups; without GROUP BY one row over all input rows
//!    (LIMIT 0 still removes it).
//! The table pointers refer into the catalog given to bind(): valid while it is unchanged.
struct BoundQuery {
  const Table* left = nullptr;          //!< FROM table
  std::string left_name;                //!< its catalog name (qualifier of its columns)
  const Table* right = nullptr;         //!< JOIN table, or nullptr without a join
  std::string right_name;               //!< its catalog name, or empty
  std::optional<BoundJoin> join;        //!< the join condition, present iff `right`
  BoundCnf where;                       //!< WHERE over the input (joined) rows
  std::vector<BoundItem> items;         //!< result columns in order (`*` expanded)
  bool aggregate = false;               //!< true when the select list has aggregates or GROUP BY is given
  std::optional<BoundColumn> group_by;  //!< GROUP BY column
  std::optional<BoundOrder> order_by;   //!< ORDER BY
  std::optional<uint64_t> limit;        //!< LIMIT n
  std::vector<OutputColumn> output;     //!< result schema, one entry per item

  //! The input table of `side`.
  const Table& table(Side side) const noexcept { return side == Side::Left ? *left : *right; }
  //! The input column a bound column reads.
  const Column& column(const BoundColumn& c) const noexcept { return table(c.side).columns[c.index]; }
};

//! Resolves and validates `query` against `catalog`. Error(InvalidQuery) saying what is wrong
//! and where (e.g. "unknown column 'x' in WHERE (table t has: a, b)"); Error(InvalidInput) when
//! a column the query reads is not a NULL-free int or float column. With `codes_as_int`, NULL-free
//! STRING and DATE columns read as INT (their dictionary codes and day numbers): for selections
//! whose answer is row ids (a filter under a GPU join or GROUP BY), never for values shown.
BoundQuery bind(const Query& query, const Catalog& catalog, bool codes_as_int = false);

//! Binds a WHERE condition against one table named `name` (qualifier of its columns);
//! the same rules and errors as bind(). Every column is Side::Left.
BoundCnf bind_where(const Cnf& where, const Table& table, std::string_view name);

//! Result type of an aggregate over a column of type `input` (ignored by COUNT): COUNT Int64,
//! SUM Int64 for INT and Float64 for FLOAT, AVG Float64, the others the column's type.
Type aggregate_type(AggKind kind, Type input) noexcept;

//! -0.0 as +0.0 and every NaN as the canonical quiet NaN; other values unchanged
//! (the double counterpart of canonical_float in order_key.h).
double canonical_double(double v) noexcept;

//! SUM of an INT column: the exact sum as int64; Error(Overflow) naming `what` (the aggregate,
//! e.g. "SUM(a)") when it does not fit. Backends accumulate exactly (e.g. __int128) first.
int64_t int_sum_result(__int128 sum, std::string_view what);

//! AVG of an INT column from its exact sum over n >= 1 rows: the exact quotient sum / n rounded once
//! to the nearest double, ties to even. Every backend uses it so results agree bit for bit.
double int_average(__int128 sum, uint64_t n) noexcept;

}  // namespace gfxq
