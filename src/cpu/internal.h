#pragma once
// Internals of the CPU reference engine, shared by its operator files (src/cpu/*.cpp).
// Everything here favours the obviously right over the fast: row ids in std::vector,
// values read one cell at a time, orders through the keys of order_key.h.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/bind.h"
#include "gfxq/table.h"

namespace gfxq::cpu {

//! The table a query's pipeline reads: the FROM table itself, or the materialised join whose
//! columns are the FROM table's followed by the JOIN table's.
struct Input {
  const Table* table = nullptr;  //!< the rows the pipeline reads
  size_t right_offset = 0;       //!< index in `table` of the JOIN table's first column
  //! The column of `table` that `c` reads.
  const Column& column(const BoundColumn& c) const {
    return table->columns[c.side == Side::Left ? c.index : right_offset + c.index];
  }
};

// --- select.cpp

//! The cell of an Int32 or Float32 column as a double (exact); Error(Internal) for other types.
double cell_double(const Column& column, uint64_t row);
//! The rows of `in` (ascending ids) that satisfy `cnf`.
std::vector<uint64_t> filter_rows(const Input& in, const BoundCnf& cnf);

// --- sort.cpp

//! A key whose unsigned order is the total order of an Int32 or Float32 cell (int_key, float_key).
uint32_t order_key(const Column& column, uint64_t row);
//! The Int32 or Float32 value of an order key (FLOAT canonical: float_from_key).
Value value_from_key(Type type, uint32_t key);
//! Sorts `rows` by their cells of `key`, stably: equal keys keep their order, ASC and DESC alike.
void stable_sort_rows(const Column& key, std::vector<uint64_t>& rows, bool descending);

// --- aggregate.cpp

//! The value of `agg` over `rows` of `column` (nullptr only for COUNT(*)): an Int64 count,
//! NULL (std::monostate) over no rows for every other kind, else a value of type agg.type.
//! Error(Overflow) when SUM of an INT column does not fit int64.
Value aggregate_rows(const BoundAggregate& agg, const Column* column, const std::vector<uint64_t>& rows);

// --- group_by.cpp

//! The rows of one group.
struct Group {
  uint32_t key = 0;            //!< order key of the group's value (order_key)
  std::vector<uint64_t> rows;  //!< its rows, ascending
};
//! `rows` grouped by their cells of `key`, groups ascending in the total order: FLOAT values
//! equal in it (-0.0 and 0.0; every NaN) share a group.
std::vector<Group> group_rows(const Column& key, const std::vector<uint64_t>& rows);
//! The rows of one group of several key columns.
struct MultiGroup {
  std::vector<uint32_t> keys;  //!< order keys of the group's values, one per key column
  std::vector<uint64_t> rows;  //!< its rows, ascending
};
//! `rows` grouped by their cells of every column of `keys` (one or more), groups ascending by
//! their keys lexicographically, each compared in the total order as group_rows does.
std::vector<MultiGroup> group_rows(const std::vector<const Column*>& keys, const std::vector<uint64_t>& rows);

// --- join.cpp

//! Row pairs of a join: left[i] pairs with right[i].
struct Pairs {
  std::vector<uint64_t> left;   //!< row ids in the left table
  std::vector<uint64_t> right;  //!< row ids in the right table
};
//! The pairs with  left_key + lo <= right_key <= left_key + hi  (double arithmetic, bounds
//! compared in the total order), ordered by (left row, right row).
Pairs join_pairs(const Column& left_key, const Column& right_key, double lo, double hi);

//! One term of a join condition over key columns of both sides: `left op right` in the total order
//! (compare_total of the cells as doubles), or with `band`,  left + lo <= right <= left + hi
//! (double arithmetic, as join_pairs).
struct JoinTermRef {
  size_t left = 0;        //!< index of the left key column
  size_t right = 0;       //!< index of the right key column
  CmpOp op = CmpOp::Eq;   //!< Lt, Le, Gt, Ge or Eq (Ne is not a join term); ignored with `band`
  bool band = false;      //!< the band form
  double lo = 0, hi = 0;  //!< band offsets
};
//! Whether left cell `l` and right cell `r` satisfy `term`.
bool join_term_holds(const JoinTermRef& term, double l, double r);
//! The pairs of rows satisfying every term (a conjunction; at least one term), ordered by (left row,
//! right row). `left_rows` / `right_rows`: the rows that take part (ascending), or nullptr for all.
//! An Eq or band term is answered by join_pairs, the other terms filter its pairs; without one, every
//! pair is tested.
Pairs join_pairs_terms(const std::vector<const Column*>& left, const std::vector<const Column*>& right,
                       const std::vector<JoinTermRef>& terms, const std::vector<uint64_t>* left_rows = nullptr,
                       const std::vector<uint64_t>* right_rows = nullptr);

// --- relational.cpp

//! Appends the cells of `rows` of `src` to `dst` (same type), NULLs included.
void append_rows(Column& dst, const Column& src, const std::vector<uint64_t>& rows);
//! The cells of `rows` of `src` as a new column named `name`.
Column gather(const Column& src, const std::vector<uint64_t>& rows, std::string name);
//! The table of row pairs: a's columns named `a_name.c` at a_rows, then b's named `b_name.c` at
//! b_rows (a_rows and b_rows of equal length).
Table pair_table(const Table& a, std::string_view a_name, const std::vector<uint64_t>& a_rows, const Table& b,
                 std::string_view b_name, const std::vector<uint64_t>& b_rows);

}  // namespace gfxq::cpu
