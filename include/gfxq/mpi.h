#pragma once
//! \file mpi.h
//! Queries partitioned across the processes of an MPI communicator (docs/MULTI_GPU.md, "Several
//! processes"): one process per device, the partial plans of src/engine/partitioned/ run on every
//! rank, the partials exchanged by MPI collectives and merged on every rank. Built as the library
//! gfxq_mpi (target gfxq::mpi) when CMake finds MPI (option GFXQ_MPI).

#include <mpi.h>

#include <memory>
#include <string_view>

#include "gfxq/engine.h"
#include "gfxq/result.h"
#include "gfxq/table.h"

namespace gfxq {

//! One rank's engine of a partitioned query over `comm`'s processes. Not thread-safe, like Engine.
class MpiEngine {
 public:
  //! This process's engine (its devices and placement from `options`) in `comm`'s group (MPI must be
  //! initialised; the communicator must outlive the engine).
  explicit MpiEngine(MPI_Comm comm = MPI_COMM_WORLD, EngineOptions options = {});
  ~MpiEngine();
  MpiEngine(const MpiEngine&) = delete;
  MpiEngine& operator=(const MpiEngine&) = delete;

  //! Runs `sql` partitioned across the ranks; collective: every rank calls it with the same `sql`,
  //! `backend` and a catalog of the same tables (e.g. loaded from the same files). Rank r runs the
  //! partial plan over row range r of the partitioned table (the other tables whole); the partials are
  //! exchanged by MPI_Allgatherv and merged exactly on every rank, so every rank returns the same
  //! answer, equal to one process's. Error(Unsupported) on every rank when the plan does not split
  //! exactly (a MEDIAN, a COUNT(DISTINCT), ...); when a rank's part fails, every rank throws an
  //! Error of its code naming that rank and its message.
  Result execute_sql(std::string_view sql, const Catalog& catalog, Backend backend = Backend::Auto);
  //! This process's rank.
  int rank() const noexcept;
  //! Number of ranks.
  int size() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gfxq
