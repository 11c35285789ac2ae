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
  std::string kind;                //!< e.g. "scan", "copy-to-depth", "compare", "stencil-resolve", "count"
  std::string detail;              //!< state summary or operator detail, e.g. "depth GL_LESS ref=0.5"
  uint64_t items = 0;              //!< rows or fragments processed
  std::optional<uint64_t> passed;  //!< rows selected / fragments passed, when the pass counts them
  std::optional<double> gpu_ms;    //!< GPU time (timer queries / timestamps), when measured
  double wall_ms = 0;              //!< host wall-clock time
};

//! One node of the executed plan (EXPLAIN ANALYZE): where it ran, how, why, rows and time. A node a
//! GPU backend ran together with nodes below it (one fused kernel) names the same algorithm, and
//! the lower ones say "fused into" the node above.
struct PlanNodeReport {
  size_t depth = 0;                //!< depth in the plan tree (the root is 0)
  std::string node;                //!< the logical node, e.g. "Filter d_year = 1993"
  Backend backend = Backend::Cpu;  //!< where it ran (never Auto)
  std::string algorithm;           //!< the physical algorithm
  std::string reason;              //!< why this backend (the planner's rule)
  uint64_t rows_in = 0;            //!< rows read from its inputs
  uint64_t rows_out = 0;           //!< rows it produced
  double wall_ms = 0;              //!< host wall-clock time of the node (its inputs excluded)
  std::optional<double> gpu_ms;    //!< GPU time, when measured
};

//! One device's part of a partitioned query (docs/MULTI_GPU.md): its fragment of the plan run over its
//! row range of the partitioned table.
struct PartitionReport {
  std::string device;                //!< "device 1 ('1': <name>)" (its device set entry), or "rank 1"
  uint64_t first_row = 0;            //!< first row of its range of the partitioned table
  uint64_t rows = 0;                 //!< rows in its range
  uint64_t rows_out = 0;             //!< rows of its partial result
  std::string algorithm;             //!< its fragment's algorithm summary
  double wall_ms = 0;                //!< host time of its fragment (the devices run concurrently)
  std::vector<PlanNodeReport> plan;  //!< its fragment's plan nodes, root first
};

//! What ran: the backend, the algorithm, why, the plan with each node's placement, and every pass
//! with counts and times.
struct ExecutionReport {
  Backend backend = Backend::Cpu;    //!< the backend that ran: the GPU backend when any node ran on one
  std::string algorithm;             //!< e.g. "cpu-reference: filter + aggregate"
  std::string reason;                //!< why this backend/algorithm (planner's rule)
  std::vector<PlanNodeReport> plan;  //!< the plan's nodes, root first (depth-first)
  std::vector<PassRecord> passes;    //!< in execution order
  double total_ms = 0;               //!< host wall-clock time of the whole query
  //! A prepared statement's run (Engine::execute): "plan reused", or "prepared again: " and why;
  //! empty for a statement run from its text.
  std::string prepared;
  //! Command buffers the query submitted to the GPU (compute backend), and how often the host waited
  //! for them: each wait costs a round trip (0.04 ms on the H200) and lets the GPU idle, so fewer is faster.
  uint64_t gpu_submissions = 0;
  uint64_t gpu_waits = 0;  //!< host waits for the GPU (see gpu_submissions)
  //! Partitioned queries: how the plan was split (the partitioned table, the broadcast ones, the
  //! merge), or why a device set ran the query on one device; empty otherwise.
  std::string partitioning;
  std::vector<PartitionReport> partitions;  //!< partitioned queries: one per device, in row-range order
  //! Partitioned queries: bytes of the partial results moved to the host (MPI: received by each rank).
  uint64_t exchange_bytes = 0;
  //! Partitioned queries: each device's last download pass (its partial leaving it) and the host's
  //! collection of the partials (MPI:
  //! the collectives and the collection).
  double exchange_ms = 0;
  //! Multi-line human-readable form (what `gfxq sql --explain` prints).
  std::string text() const;
};

//! A query's answer: a table (aggregates give one row, or one per group) and the report.
struct Result {
  Table table;             //!< result rows
  ExecutionReport report;  //!< how they were computed
};

}  // namespace gfxq
