#pragma once
// SQLite as a second oracle: the generated tables are loaded into an in-memory SQLite database and
// each query is answered by SQL that SQLite evaluates, with gfxq's semantics where the two differ:
//
// - FLOAT NaN: SQLite has no NaN (it stores NULL). A FLOAT column c is stored twice: `c` (REAL, NULL
//   for NaN) and `c__bits` (its float32 bits). Every comparison is a three-way CASE on `c` in which
//   NULL is the largest value and equals itself: gfxq's total order (NaN = NaN, above +inf).
// - Values come back as stored bits (projections keep -0.0 and NaN payloads); MIN, MAX and the
//   quantiles return the canonical member (+0.0, the quiet NaN), as gfxq documents.
// - Order: SQLite's ORDER BY is not stable; ties are broken by the row ids (`rid`), which is gfxq's
//   order (selections keep row order, joins order by (left row, right row), ORDER BY is stable).
// - SUM and AVG of FLOAT: SQLite sums in row order in double; gfxq sums exactly and rounds once. An
//   aggregate registered here (xsum, xavg_float) sums the float32 values exactly (Shewchuk's
//   partials, tests/test_support.h), with IEEE's rules for NaN and infinities. AVG of INT is the
//   exact int64 sum over n rounded once (xavg_int; SQLite's AVG rounds twice).
// - QUANTILE/MEDIAN/KTH_LARGEST: SQLite has none; the rank ceil(q n) is computed exactly from q's
//   decimal text (decimal_rank) and SQLite picks the row by ORDER BY ... LIMIT 1 OFFSET rank - 1.
// - COUNT(c) counts rows (gfxq has no NULL inputs; SQLite would skip NaN stored as NULL).
// - Literals are bound as doubles (SQLite's own text-to-double conversion is not always
//   correctly rounded).

#include <sqlite3.h>

#include <string>
#include <vector>

#include "differential/case.h"

namespace gfxq::differential {

//! sum / n rounded once to the nearest double, ties to even (|sum| < 2^100, 0 < n < 2^64).
double exact_quotient(__int128 sum, uint64_t n);

//! An in-memory SQLite database holding one table set at a time.
class SqliteOracle {
 public:
  //! Opens the database and registers the exact aggregates.
  SqliteOracle();
  ~SqliteOracle();
  SqliteOracle(const SqliteOracle&) = delete;
  SqliteOracle& operator=(const SqliteOracle&) = delete;

  //! The answer to `c.query` over `c.tables` (loaded when they are not the loaded set) with
  //! gfxq's semantics; Error(Overflow) when an integer SUM overflows. Column names are not
  //! gfxq's (callers compare types and values).
  Table run(const Case& c);

 private:
  void load(const Tables& tables);
  sqlite3* db_ = nullptr;
  const void* loaded_ = nullptr;
  Tables keep_;  // the loaded set stays alive while its address identifies it
};

}  // namespace gfxq::differential
