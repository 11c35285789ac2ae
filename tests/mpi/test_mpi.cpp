// Queries partitioned across MPI ranks (include/gfxq/mpi.h), run by ctest under
// `mpirun --allow-run-as-root --oversubscribe -np 2` and `-np 3`: every rank builds the same random
// tables (rank 0's seed, broadcast and printed), runs each query through MpiEngine on the compute
// backend, and compares its answer cell by cell with one process's (the CPU engine and a one-device
// compute Engine). Sizes include no rows and fewer rows than ranks. Exit status 1 on any difference
// (on every rank), naming the seed, the query and the cell.
#include <mpi.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gfxq/error.h"
#include "gfxq/gfxq.h"
#include "gfxq/mpi.h"

namespace {

using namespace gfxq;

// Empty when the tables are equal (names, types, every cell as format_value writes it, which
// round-trips floats exactly), else what differs.
std::string difference(const Table& want, const Table& got) {
  if (want.columns.size() != got.columns.size()) return "column counts differ";
  if (want.rows() != got.rows())
    return "row counts differ: " + std::to_string(want.rows()) + " and " + std::to_string(got.rows());
  for (size_t c = 0; c < want.columns.size(); ++c) {
    if (want.columns[c].name != got.columns[c].name || want.columns[c].type != got.columns[c].type)
      return "column " + std::to_string(c) + " differs in name or type";
    for (uint64_t r = 0; r < want.rows(); ++r) {
      const std::string a = format_value(want.columns[c].value(r)), b = format_value(got.columns[c].value(r));
      if (a != b) return "row " + std::to_string(r) + " column " + want.columns[c].name + ": " + a + " and " + b;
    }
  }
  return {};
}

Table fact_table(std::mt19937_64& rng, uint64_t n) {
  std::vector<int32_t> k(n), g(n), v(n);
  std::vector<std::string> s(n);
  std::vector<float> f(n);
  for (uint64_t i = 0; i < n; ++i) {
    k[i] = int32_t(rng() % 20);
    g[i] = int32_t(i * 7 / n);
    v[i] = int32_t(rng() % 2001) - 1000;
    s[i] = "s" + std::to_string(rng() % 5);
    f[i] = float(int(rng() % 200) - 100) * 0.25f;
  }
  return Table{{Column::ints("k", k), Column::ints("g", g), Column::ints("v", v), Column::strings("s", s),
                Column::floats("f", f)}};
}

Table dim_table(std::mt19937_64& rng) {
  std::vector<int32_t> dk, dg;
  std::vector<std::string> dn;
  for (int32_t i = 0; i < 20; ++i) {
    dk.push_back(i);
    dg.push_back(int32_t(rng() % 3));
    dn.push_back("n" + std::to_string(rng() % 4));
  }
  return Table{{Column::ints("dk", dk), Column::ints("dg", dg), Column::strings("dn", dn)}};
}

const char* const kQueries[] = {
    "SELECT COUNT(*), SUM(v), MIN(v), MAX(v), AVG(v) FROM t WHERE v > -500",
    "SELECT MIN(f), MAX(f), SUM(f) FROM t WHERE v > 0",
    "SELECT g, COUNT(*), SUM(v), AVG(v), MIN(v), MAX(v) FROM t GROUP BY g",
    "SELECT s, SUM(v) FROM t GROUP BY s",
    "SELECT k, v FROM t WHERE v > 600",
    "SELECT v, k FROM t WHERE v < 0 ORDER BY v DESC, k LIMIT 7",
    "SELECT DISTINCT k FROM t",
    "SELECT dg, SUM(v), COUNT(*) FROM t, d WHERE k = dk GROUP BY dg",
    "SELECT dn, SUM(v) FROM t, d WHERE k = dk AND dn > 'n0' GROUP BY dn ORDER BY dn",
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  unsigned long long seed = std::random_device{}();
  MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("mpi tests: %d ranks, seed %llu\n", size, seed);
  int failures = 0, checks = 0;
  auto fail = [&](const std::string& what) {
    ++failures;
    std::fprintf(stderr, "rank %d, seed %llu: %s\n", rank, seed, what.c_str());
  };
  try {
    MpiEngine mpi;
    Engine one;
    std::mt19937_64 rng(seed);
    for (const uint64_t n : {uint64_t(0), uint64_t(size - 1), uint64_t(1 + rng() % 3000)}) {
      Catalog catalog;
      catalog.add("t", fact_table(rng, n));
      catalog.add("d", dim_table(rng));
      for (const char* q : kQueries) {
        const std::string what = std::string(q) + " over " + std::to_string(n) + " rows";
        const Result got = mpi.execute_sql(q, catalog, Backend::Compute);
        const Result cpu = one.execute_sql(q, catalog, Backend::Cpu);
        const Result gpu = one.execute_sql(q, catalog, Backend::Compute);
        ++checks;
        if (got.report.partitions.size() != size_t(size)) fail(what + ": the report has no part per rank");
        if (const std::string d = difference(cpu.table, got.table); !d.empty())
          fail(what + " against the CPU engine: " + d);
        if (const std::string d = difference(gpu.table, got.table); !d.empty())
          fail(what + " against one device: " + d);
      }
    }
    // What the split cannot answer exactly fails on every rank, and the engine goes on.
    Catalog catalog;
    catalog.add("t", fact_table(rng, 100));
    try {
      mpi.execute_sql("SELECT MEDIAN(v) FROM t", catalog, Backend::Compute);
      fail("MEDIAN did not fail");
    } catch (const Error& e) {
      ++checks;
      if (e.code() != ErrorCode::Unsupported ||
          std::string(e.what()).find("MPI ranks cannot answer exactly") == std::string::npos)
        fail(std::string("MEDIAN failed with ") + e.what());
    }
    const Result after = mpi.execute_sql("SELECT COUNT(*) FROM t", catalog, Backend::Compute);
    ++checks;
    if (after.table.columns[0].as<int64_t>()[0] != 100) fail("COUNT after an error");
  } catch (const std::exception& e) {
    fail(std::string("threw: ") + e.what());
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("mpi tests: %d checks per rank, %d failures over all ranks\n", checks, all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
