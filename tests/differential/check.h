#pragma once
// Runs a differential case on the CPU reference engine, the GPU backends and SQLite, and compares
// every answer with the CPU engine's, exactly; shrinks a failing case to a small one.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "differential/case.h"
#include "differential/sqlite_oracle.h"

namespace gfxq::differential {

//! Answers queries on one backend: the Engine (runners.h: EngineRunner) or, in a build of the host
//! code alone (the sanitizer build), the CPU engine called directly (CpuRunner).
class Runner {
 public:
  virtual ~Runner() = default;
  //! The result of `sql` over `catalog` on `backend`; throws gfxq::Error like Engine::execute_sql.
  virtual Table run(const std::string& sql, const Catalog& catalog, Backend backend) = 0;
  //! Debug messages recorded since the last call (none when debug output is off).
  virtual std::vector<std::string> take_debug_messages() { return {}; }
};

//! What a check compares with the CPU engine.
struct CheckOptions {
  std::vector<Backend> backends = {Backend::Raster, Backend::Compute};  //!< GPU backends compared
  bool sqlite = true;                                                   //!< compare with SQLite too
};

//! A side's answer: a table, or the error it gave.
struct Answer {
  std::optional<Table> table;            //!< the result, when there is one
  ErrorCode code = ErrorCode::Internal;  //!< the error's code otherwise
  std::string message;                   //!< the error's message
  //! Whether there is a table.
  bool ok() const;
  //! The table as CSV (cut past 2000 bytes), or the error.
  std::string text() const;
};

//! A disagreement: which side differs from the CPU engine and how.
struct Mismatch {
  std::string side;    //!< "raster", "compute", "sqlite", "cpu" (refused a generated query), "validation"
  std::string detail;  //!< what differs (first differing cell, or the two errors)
};

//! Counts over a run, for the report.
struct CheckStats {
  uint64_t cases = 0;                           //!< cases checked
  std::map<std::string, uint64_t> compared;     //!< side -> answers compared with the CPU's
  std::map<std::string, uint64_t> unsupported;  //!< backend -> queries it declined (Unsupported)
  std::map<std::string, uint64_t> reasons;      //!< "backend: reason" -> count (the reason's first words)
  std::map<std::string, double> seconds;        //!< side -> wall time spent answering
  std::map<std::string, uint64_t> cpu_errors;   //!< error code -> queries the CPU answered with it
  //! Total answers compared (every side).
  uint64_t total_compared() const;
  //! One line per counter.
  std::string text() const;
};

//! Checks cases with one engine and one SQLite database.
class Checker {
 public:
  //! A checker running queries through `runner` (its debug messages, when on, fail a case).
  Checker(Runner& runner, CheckOptions options);

  //! The first side whose answer differs from the CPU engine's, or nullopt when all agree.
  std::optional<Mismatch> check(const Case& c);
  //! check() for one side only ("cpu" checks that the CPU engine answers at all).
  std::optional<Mismatch> check_side(const Case& c, const std::string& side);

  CheckStats stats;  //!< counts of the checks so far

 private:
  std::optional<Mismatch> compare(const Case& c, const Catalog& catalog, const Answer& want, const std::string& side,
                                  bool count);
  Runner& runner_;
  CheckOptions options_;
  SqliteOracle sqlite_;
};

//! `failing` shrunk while `checker.check_side(case, side)` still reports a mismatch: rows, columns,
//! select items, condition subtrees, ORDER BY, LIMIT, GROUP BY and cell values are dropped or
//! simplified, greedily, within `max_checks` checks.
Case minimise(Checker& checker, const Case& failing, const std::string& side, int max_checks = 3000);

//! The report of a failing case: the mismatch, the minimised case (CSV tables + SQL) and both answers.
std::string failure_report(Checker& checker, const Case& original, const Mismatch& mismatch);

}  // namespace gfxq::differential
