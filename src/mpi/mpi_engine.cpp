// Queries partitioned across MPI ranks (include/gfxq/mpi.h): the split and merge of
// src/engine/partitioned/, partials exchanged by MPI_Allgatherv.
#include "gfxq/mpi.h"

#include <chrono>

#include "engine/executor.h"
#include "engine/partitioned/merge.h"
#include "engine/partitioned/split.h"
#include "engine/partitioned/tables.h"
#include "gfxq/error.h"
#include "plan/binder.h"
#include "sql/parse_statement.h"

namespace gfxq {

namespace {

using namespace engine::partitioned;

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void point_scans(plan::Node& n, const Catalog& catalog) {
  if (n.kind == plan::NodeKind::Scan) n.table = &catalog.get(n.table_name);
  for (auto& c : n.children) point_scans(*c, catalog);
}

void mpi_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS)
    throw Error(ErrorCode::Internal, std::string(what) + " failed (MPI error " + std::to_string(rc) + ")");
}

}  // namespace

struct MpiEngine::Impl {
  Impl(MPI_Comm c, EngineOptions options) : comm(c), backends(std::move(options)) {
    mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  }

  // Rethrows on every rank the first failure of any rank (`local`: this rank's, or null).
  void agree(const std::exception_ptr& local) {
    int code = -1;
    std::string message;
    if (local) {
      try {
        std::rethrow_exception(local);
      } catch (const Error& e) {
        code = int(e.code());
        message = e.what();
      } catch (const std::exception& e) {
        code = int(ErrorCode::Internal);
        message = e.what();
      }
    }
    // The lowest failing rank speaks for all.
    int failing = local ? rank : size;
    int first = size;
    mpi_check(MPI_Allreduce(&failing, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    if (first == size) return;
    int header[2] = {code, int(message.size())};
    mpi_check(MPI_Bcast(header, 2, MPI_INT, first, comm), "MPI_Bcast");
    message.resize(size_t(header[1]));
    mpi_check(MPI_Bcast(message.data(), header[1], MPI_CHAR, first, comm), "MPI_Bcast");
    if (first == rank) std::rethrow_exception(local);
    throw Error(ErrorCode(header[0]), "rank " + std::to_string(first) + " failed: " + message);
  }

  MPI_Comm comm;
  int rank = 0, size = 1;
  engine::Backends backends;
  PartitionCatalog tables;  // this rank's tables, kept between queries
};

MpiEngine::MpiEngine(MPI_Comm comm, EngineOptions options) : impl_(std::make_unique<Impl>(comm, std::move(options))) {}

MpiEngine::~MpiEngine() = default;

int MpiEngine::rank() const noexcept {
  return impl_->rank;
}

int MpiEngine::size() const noexcept {
  return impl_->size;
}

Result MpiEngine::execute_sql(std::string_view text, const Catalog& catalog, Backend backend) {
  Impl& m = *impl_;
  const auto start = std::chrono::steady_clock::now();
  // Parsing, binding and the split are deterministic: every rank fails alike, without messages.
  const sql::ast::Statement statement = sql::parse_statement(text);
  if (statement.explain) throw Error(ErrorCode::Unsupported, "EXPLAIN is not run across MPI ranks");
  const auto root = plan::bind(statement.query, catalog);
  std::string why;
  const auto split = split_plan(*root, why);
  if (!split)
    throw Error(ErrorCode::Unsupported,
                "partitioned execution over " + std::to_string(m.size) + " MPI ranks cannot answer exactly: " + why);

  // This rank's part: its row range of the partitioned table, the other tables whole.
  const Table& whole = catalog.get(split->partitioned_table);
  Result partial;
  std::vector<uint8_t> bytes;
  std::exception_ptr failure;
  try {
    const Catalog& local = m.tables.prepare(*split, catalog, size_t(m.size), size_t(m.rank));
    auto plan = plan::clone(*split->partial);
    point_scans(*plan, local);
    const auto run_start = std::chrono::steady_clock::now();
    partial = engine::execute_plan(*plan, local, backend, m.backends);
    partial.report.total_ms = ms_since(run_start);
    bytes = serialize(partial.table);
  } catch (...) {
    failure = std::current_exception();
  }
  m.agree(failure);

  // Exchange: every rank's partial to every rank (sizes first), and their wall times.
  const auto exchange_start = std::chrono::steady_clock::now();
  const uint64_t mine = bytes.size();
  std::vector<uint64_t> sizes(size_t(m.size));
  mpi_check(MPI_Allgather(&mine, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, m.comm), "MPI_Allgather");
  std::vector<int> counts(size_t(m.size)), displs(size_t(m.size));
  uint64_t total = 0;
  for (size_t r = 0; r < sizes.size(); ++r) {
    if (sizes[r] > uint64_t(INT32_MAX) || total + sizes[r] > uint64_t(INT32_MAX))
      throw Error(ErrorCode::ResultTooLarge, "partial results of more than 2 GiB are not exchanged through MPI yet");
    counts[r] = int(sizes[r]);
    displs[r] = int(total);
    total += sizes[r];
  }
  std::vector<uint8_t> all(total);
  mpi_check(
      MPI_Allgatherv(bytes.data(), int(mine), MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, m.comm),
      "MPI_Allgatherv");
  const double wall = partial.report.total_ms;
  std::vector<double> walls(size_t(m.size));
  mpi_check(MPI_Allgather(&wall, 1, MPI_DOUBLE, walls.data(), 1, MPI_DOUBLE, m.comm), "MPI_Allgather");
  std::vector<Table> parts;
  for (size_t r = 0; r < sizes.size(); ++r) parts.push_back(deserialize(all.data() + displs[r], sizes[r]));
  std::vector<uint64_t> rows_out;
  for (const Table& p : parts) rows_out.push_back(p.rows());
  Table merged_input = concatenate(parts, split->partial_schema);
  parts.clear();
  const double exchange_ms = ms_since(exchange_start);

  Result result = merge_partials(*root, *split, std::move(merged_input), m.backends,
                                 backend == Backend::Cpu || backend == Backend::Compute ? backend : Backend::Auto);
  ExecutionReport& report = result.report;
  std::vector<PassRecord> passes;
  for (PassRecord pass : partial.report.passes) {
    pass.detail = "rank " + std::to_string(m.rank) + (pass.detail.empty() ? "" : ": " + pass.detail);
    passes.push_back(std::move(pass));
  }
  passes.push_back({"exchange",
                    "MPI_Allgatherv of the partial results of " + std::to_string(m.size) + " ranks, " +
                        std::to_string(total) + " bytes",
                    total, std::nullopt, std::nullopt, exchange_ms});
  for (auto& pass : report.passes) {
    pass.detail = "merge" + (pass.detail.empty() ? "" : ": " + pass.detail);
    passes.push_back(std::move(pass));
  }
  report.passes = std::move(passes);
  for (size_t r = 0; r < sizes.size(); ++r) {
    PartitionReport p;
    p.device = "rank " + std::to_string(r);
    const auto range = row_range(whole.rows(), size_t(m.size), r);
    p.first_row = range.first;
    p.rows = range.second;
    p.rows_out = rows_out[r];
    p.wall_ms = walls[r];
    if (int(r) == m.rank) {
      p.algorithm = partial.report.algorithm;
      p.plan = partial.report.plan;
    }
    report.partitions.push_back(std::move(p));
  }
  report.exchange_bytes = total;
  report.exchange_ms = exchange_ms;
  if (partial.report.backend != Backend::Cpu) report.backend = partial.report.backend;
  report.partitioning = "over " + std::to_string(m.size) + " MPI ranks: " + split->description;
  report.algorithm = "partitioned over " + std::to_string(m.size) + " MPI ranks (rank " + std::to_string(m.rank) +
                     ": " + partial.report.algorithm + "); merge: " + report.algorithm;
  report.total_ms = ms_since(start);
  return result;
}

}  // namespace gfxq
