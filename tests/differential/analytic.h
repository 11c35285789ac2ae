#pragma once
// The analytic part of the differential fuzzer: random tables with STRING and DATE columns and
// NULLs in every type, and random queries over the analytic SQL of docs/SQL.md (expressions,
// EXTRACT, DATE arithmetic, IN, BETWEEN, joins of up to three tables written with commas or JOIN
// ... ON, GROUP BY several keys with HAVING, DISTINCT, COUNT(DISTINCT), UNION / INTERSECT /
// EXCEPT [ALL], ORDER BY several keys with LIMIT and OFFSET). Each query is answered by the CPU
// engine, every backend asked for, and SQLite; every backend must equal the CPU engine exactly (or
// refuse with Unsupported), SQLite must hold the same values (docs/RELIABILITY.md lists what is
// left out of that comparison and why).
//
// The query is a small tree (AQuery) written both as gfxq SQL (sql()) and as SQLite SQL
// (analytic_sqlite.cpp), and shrunk by the minimiser (analytic_check.cpp).

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "differential/check.h"

namespace gfxq::differential {

//! The value class of an expression, as the generator types it (INT and BIGINT are both Int).
enum class Kind { Int, Float, Double, String, Date };

//! An aggregate function of the analytic generator.
enum class AggFn { CountStar, Count, CountDistinct, Sum, Avg, Min, Max };

struct ACond;

//! A value expression.
struct AExpr {
  //! What the node is.
  enum class Op { Column, IntLit, RealLit, StrLit, DateLit, Null, Add, Sub, Mul, Div, Neg, Extract, Agg, Case };
  Op op = Op::Column;
  Kind kind = Kind::Int;    //!< the class of its value
  std::string table, name;  //!< Column: table (empty: unqualified) and column
  int64_t int_value = 0;    //!< IntLit; DateLit: days
  double real_value = 0;    //!< RealLit
  std::string text;         //!< literals as written (StrLit: the string itself)
  int part = 0;             //!< Extract: 0 YEAR, 1 MONTH, 2 DAY
  AggFn fn = AggFn::Count;  //!< Agg
  std::vector<AExpr> args;  //!< operands (Agg: none for COUNT(*), else one; Case: THEN values, then ELSE)
  std::vector<ACond> when;  //!< Case: the WHEN conditions (args.size() is when.size() or one more)
  //! The gfxq SQL text.
  std::string sql() const;
  //! Whether an aggregate occurs in the tree.
  bool has_aggregate() const;
};

//! A condition (WHERE, ON, HAVING).
struct ACond {
  //! What the node is.
  enum class Op { Compare, Between, In, And, Or, Not };
  Op op = Op::Compare;
  CmpOp cmp = CmpOp::Eq;     //!< Compare
  bool negated = false;      //!< NOT BETWEEN, NOT IN
  std::vector<AExpr> exprs;  //!< Compare: 2; Between: value, low, high; In: value, then the list
  std::vector<ACond> sub;    //!< And, Or: two or more; Not: one
  //! The gfxq SQL text, parenthesised.
  std::string sql() const;
};

//! An item of a select list.
struct AItem {
  AExpr expr;         //!< the value
  std::string alias;  //!< AS alias, empty for none
};

//! An ORDER BY key.
struct AOrder {
  //! How the key is written.
  enum class Form { Expr, Ordinal, Alias };
  Form form = Form::Ordinal;
  AExpr expr;               //!< Expr
  size_t ordinal = 1;       //!< Ordinal (1-based), and for Alias the item it names
  bool descending = false;  //!< DESC
};

//! One SELECT.
struct ASelect {
  bool distinct = false;            //!< SELECT DISTINCT
  std::vector<AItem> items;         //!< the select list
  std::vector<std::string> tables;  //!< FROM, in order
  bool join_on = false;             //!< JOIN ... ON (else commas, the join keys in WHERE)
  std::vector<ACond> on;            //!< join_on: the ON condition of tables[i + 1]
  std::optional<ACond> where;       //!< WHERE
  std::vector<AExpr> group_by;      //!< GROUP BY keys
  std::optional<ACond> having;      //!< HAVING
  //! Whether the select list or HAVING holds an aggregate, or there is a GROUP BY.
  bool aggregate() const;
  //! The gfxq SQL text (without ORDER BY and LIMIT).
  std::string sql() const;
};

//! A set operator between two operands.
struct ASetOp {
  //! Which operator.
  enum class Op { Union, Intersect, Except };
  Op op = Op::Union;
  bool all = false;  //!< ALL
};

//! A query: one SELECT, or SELECTs combined by set operators (left to right, INTERSECT binding
//! tighter), then ORDER BY, LIMIT and OFFSET over the result.
struct AQuery {
  std::vector<ASelect> operands;  //!< one or more
  std::vector<ASetOp> ops;        //!< operands.size() - 1 operators
  std::vector<AOrder> order_by;   //!< ORDER BY keys
  //! Whether ORDER BY fixes the result order (it ends with every output position), so that SQLite
  //! is compared row by row; otherwise rows are compared as a multiset.
  bool total_order = false;
  std::optional<uint64_t> limit, offset;  //!< LIMIT, OFFSET
  //! The gfxq SQL text.
  std::string sql() const;
};

//! One analytic case: tables "t", "u", "v" and a query over them.
struct ACase {
  Tables tables;      //!< the data
  AQuery query;       //!< the query
  uint64_t seed = 0;  //!< the generator seed of the query
  //! The tables as a catalog.
  Catalog catalog() const;
  //! A reproduction: each table the query reads as CSV (typed header), then the SQL.
  std::string text() const;
};

//! Sizes of the analytic tables.
struct AnalyticOptions {
  uint64_t max_rows = 40;     //!< largest table (the GPU backends run on llvmpipe and lavapipe in CI)
  double plain_share = 0.35;  //!< share of queries over bare columns (shapes the GPU paths run whole)
  double null_share = 0.5;    //!< share of table sets with NULLs (the GPU paths refuse NULL columns)
};

//! Random analytic tables and queries; the same seed gives the same output everywhere.
class AnalyticGenerator {
 public:
  //! A generator whose draws all follow from `seed`.
  explicit AnalyticGenerator(uint64_t seed, AnalyticOptions options = {});
  //! Tables t, u, v from `seed`: columns k (INT, few values: join and group keys), i (INT, extremes
  //! included), f (FLOAT, finite), s (STRING: commas, quotes, UTF-8, blanks, the empty string) and
  //! d (DATE, years 0001 to 9999), each with or without NULLs.
  Tables tables(uint64_t seed);
  //! A random valid query over `tables` from `seed`.
  AQuery query(const Tables& tables, uint64_t seed);
  //! The next seed of this generator's sequence.
  uint64_t next_seed() { return rng_(); }

 private:
  std::mt19937_64 rng_;
  AnalyticOptions options_;
};

//! SQLite as the analytic oracle (analytic_sqlite.cpp).
class AnalyticSqlite {
 public:
  //! Opens an in-memory database and registers the exact functions (checked int64 arithmetic,
  //! float32 rounding, exact sums and averages).
  AnalyticSqlite();
  ~AnalyticSqlite();
  AnalyticSqlite(const AnalyticSqlite&) = delete;
  AnalyticSqlite& operator=(const AnalyticSqlite&) = delete;
  //! The answer to `c.query` with gfxq's semantics, its columns of `types` (the CPU engine's
  //! result types); Error(Overflow) or Error(InvalidInput) when SQLite's evaluation meets an int64
  //! overflow or a division by zero.
  Table run(const ACase& c, const std::vector<Type>& types);
  //! The SQLite text of `c.query` (for failure reports).
  std::string sql(const ACase& c);

 private:
  void load(const Tables& tables);
  struct Db;
  Db* db_;
  const void* loaded_ = nullptr;
  Tables keep_;
};

//! What an analytic check compares.
struct AnalyticCheckOptions {
  std::vector<Backend> backends = {Backend::Raster, Backend::Compute, Backend::Auto};  //!< against the CPU engine
  bool sqlite = true;                                                                  //!< against SQLite
};

//! Checks analytic cases with one runner and one SQLite database.
class AnalyticChecker {
 public:
  //! A checker running queries through `runner`.
  AnalyticChecker(Runner& runner, AnalyticCheckOptions options);
  //! The first side ("cpu", a backend name, "sqlite", "validation") whose answer differs.
  std::optional<Mismatch> check(const ACase& c);
  //! check() for one side only, without counting ("cpu": the CPU engine answers at all).
  std::optional<Mismatch> check_side(const ACase& c, const std::string& side);
  //! The report of a failing case: the mismatch, the minimised case and what it gives.
  std::string failure_report(const ACase& original, const Mismatch& mismatch);

  CheckStats stats;  //!< counts so far ("sqlite excluded: ..." for answers not compared)

 private:
  std::optional<Mismatch> compare(const ACase& c, const Catalog& catalog, const Answer& want, const std::string& side,
                                  bool count);
  Runner& runner_;
  AnalyticCheckOptions options_;
  AnalyticSqlite sqlite_;
};

//! `failing` shrunk while `checker.check_side(case, side)` still reports a mismatch: rows of each
//! table, cells set to NULL, select items, set operands, conditions, keys, ORDER BY, LIMIT, DISTINCT.
ACase minimise(AnalyticChecker& checker, const ACase& failing, const std::string& side, int max_checks = 2000);

}  // namespace gfxq::differential
