#pragma once
// One differential test case: named tables and a query over them, held as a small syntax tree so
// that the query can be written as gfxq SQL, translated for SQLite, and shrunk by the minimiser.
//
// Adding a construct to the fuzzer (say a new aggregate or condition form) touches four places,
// each keyed by the same enum value: the tree here (and its SQL text in case.cpp), its random
// choice in generator.cpp (a row of the weighted construct tables), its SQLite meaning in
// sqlite_oracle.cpp, and, when it has parts that can shrink, minimise.cpp. docs/RELIABILITY.md
// lists the constructs covered.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "gfxq/gfxq.h"

namespace gfxq::differential {

//! A numeric literal as the query writes it, and the double that text means.
struct Literal {
  std::string text;  //!< as written, sign included ("-2.5e3", "0.1", "1e-400")
  double value = 0;  //!< the nearest double (what the SQL parser must produce)
};

//! A WHERE condition (a tree: comparisons under AND, OR, NOT, and BETWEEN).
struct Condition {
  //! What the node is.
  enum class Kind { Compare, Between, And, Or, Not };
  Kind kind = Kind::Compare;
  ColumnRef column;                      //!< Compare: left side; Between: the tested column
  CmpOp op = CmpOp::Eq;                  //!< Compare
  std::variant<ColumnRef, Literal> rhs;  //!< Compare: right side
  bool literal_first = false;            //!< Compare with a literal: written `literal op' column`
  Literal lo, hi;                        //!< Between's bounds
  bool negated = false;                  //!< Between: NOT BETWEEN
  std::vector<Condition> operands;       //!< And, Or: two or more; Not: one
};

//! One item of the select list.
struct Item {
  //! What the item is.
  enum class Kind { Star, Column, Aggregate };
  Kind kind = Kind::Column;
  ColumnRef column;              //!< Column; the aggregate's argument unless count_star
  AggKind agg = AggKind::Count;  //!< Aggregate
  bool count_star = false;       //!< COUNT(*)
  std::string q;                 //!< QUANTILE's q as written ("0.1")
  int64_t k = 1;                 //!< KTH_LARGEST's k
};

//! FROM r JOIN s ON ...: an equi-join or a band `s.b BETWEEN r.a - below AND r.a + above`.
struct Join {
  //! How the ON condition is written.
  enum class Form { Equi, Between, Pair };
  std::string right;       //!< the joined table
  ColumnRef left_key;      //!< qualified key of the FROM table
  ColumnRef right_key;     //!< qualified key of the joined table
  Form form = Form::Equi;  //!< how ON is written
  Literal below, above;    //!< band offsets (not negative), Between and Pair only
};

//! ORDER BY one column.
struct Order {
  ColumnRef column;         //!< the key
  bool descending = false;  //!< DESC
};

//! How the SQL text spells what has several spellings (the parser must accept each).
struct Style {
  bool lower_keywords = false;  //!< select ... from ... (keywords in lower case)
  bool bang_not_equal = false;  //!< != instead of <>
  bool inner_join = false;      //!< INNER JOIN instead of JOIN
  bool explicit_asc = true;     //!< ORDER BY c ASC instead of ORDER BY c
  bool semicolon = false;       //!< a trailing ';'
  bool newlines = false;        //!< clauses on their own lines
};

//! SELECT items FROM table [JOIN] [WHERE] [GROUP BY] [ORDER BY] [LIMIT].
struct QuerySpec {
  std::vector<Item> items;            //!< the select list
  std::string from;                   //!< FROM table
  std::optional<Join> join;           //!< optional join
  std::optional<Condition> where;     //!< optional condition
  std::optional<ColumnRef> group_by;  //!< optional GROUP BY column
  std::optional<Order> order_by;      //!< optional ORDER BY
  std::optional<uint64_t> limit;      //!< optional LIMIT
  Style style;                        //!< spelling
  //! Whether the select list holds an aggregate.
  bool aggregate() const;
  //! The query as gfxq SQL.
  std::string sql() const;
};

//! A table and the name queries use for it.
struct NamedTable {
  std::string name;  //!< "t", or "r" and "s" for joins
  Table table;       //!< the data
};

//! Tables shared by the queries generated over them.
using Tables = std::shared_ptr<const std::vector<NamedTable>>;

//! One test case: tables and a query.
struct Case {
  Tables tables;      //!< the data
  QuerySpec query;    //!< the query
  uint64_t seed = 0;  //!< the generator seed the case came from (0 when built by hand)
  //! The tables as a catalog.
  Catalog catalog() const;
  //! The table named `name`.
  const Table& table(const std::string& name) const;
  //! A reproduction: every table as CSV (typed header) and the SQL text.
  std::string text() const;
};

//! The SQL text of a condition, fully parenthesised.
std::string condition_sql(const Condition& c, const Style& style = {});
//! A literal for `value` in the shortest text that reads back to the same double.
Literal literal_of(double value);

}  // namespace gfxq::differential
