#pragma once
//! \file result.h
//! Query results and the execution report that says which backend and algorithm ran.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gfxq/table.h"

namespace gfxq {

//! Where a query runs. Auto lets the planner choose; the report names the choice and why.
enum class Backend { Cpu, Raster, Compute, Auto };
//! "cpu", "raster", "compute", "auto".
const char* to_string(Backend b) noexcept;
//! Parses the names to_string gives; Error(InvalidQuery) otherwise.
Backend parse_backend(std::string_view text);

//! One pass (raster) or dispatch/stage (compute, cpu) of an execution.
struct PassRecord {
  std::string kind;              //!< e.g. "scan", "copy-to-depth", "compare", "stencil-resolve", "count"
  std::string detail;            //!< state summary or operator detail, e.g. "depth GL_LESS ref=0.5"
  uint64_t items = 0;            //!< rows or fragments processed
  std::optional<uint64_t> passed;  //!< rows selected / fragments passed, when the pass counts them
  std::optional<double> gpu_ms;  //!< GPU time (timer queries / timestamps), when measured
  double wall_ms = 0;            //!< host wall-clock time
};

//! What ran: the backend, the algorithm, why, and every pass with counts and times.
struct ExecutionReport {
  Backend backend = Backend::Cpu;  //!< the backend that ran (never Auto)
  std::string algorithm;           //!< e.g. "cpu-reference: filter + aggregate"
  std::string reason;              //!< why this backend/algorithm (planner's rule)
  std::vector<PassRecord> passes;  //!< in execution order
  double total_ms = 0;             //!< host wall-clock time of the whole query
  //! Multi-line human-readable form (what `gfxq sql --explain` prints).
  std::string text() const;
};

//! A query's answer: a table (aggregates give one row, or one per group) and the report.
struct Result {
  Table table;              //!< result rows
  ExecutionReport report;   //!< how they were computed
};

}  // namespace gfxq
