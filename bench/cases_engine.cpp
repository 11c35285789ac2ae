// Benchmark cases of whole SQL queries through the Engine (plans placed on the compute backend):
// wall time of Engine::execute_sql, uploads and downloads included, best of --repeats.
//
// - engine.sql_cold / engine.sql_warm: `SELECT COUNT(*), SUM(v) FROM t WHERE k < 1000` over n rows.
//   Cold: an Engine without resident columns (EngineOptions::resident_bytes = 0: every run uploads k
//   and v); warm: the default budget, one untimed run first, so the timed runs read both columns
//   resident (the note counts the timed run's upload and resident passes). bytes = 8n for both, so
//   the ratio is cold time / warm time.
// - engine.sql_warm_count / engine.sql_warm_cnf3 (warm, as engine.sql_warm): `SELECT COUNT(*) FROM t
//   WHERE k < 1000` and `SELECT SUM(v)` under a 3-clause CNF (issue 19's goal: wall at most the GPU
//   time + 0.1 ms; the note gives wall - GPU, the GPU time the best of timed runs).
// - engine.sql_group_by_cpu / engine.sql_group_by_gpu (the compute backend): `SELECT k, COUNT(*), SUM(v), MIN(v),
//   MAX(v) FROM t GROUP BY k ORDER BY k` (k in [0, 4096)) on the CPU engine and on compute (warm);
//   the ratio is the compute backend's speed-up over the CPU engine.
// - engine.sql_join_cpu / engine.sql_join_gpu: the SSB shape `SELECT d.y, SUM(f.v) FROM f JOIN d
//   ON f.dk = d.k WHERE d.y > 3 GROUP BY d.y ORDER BY d.y` with f of n rows and d of n / 64 (unique
//   keys, y in [1, 7]); the compute run places the join (with d's Filter) and the GROUP BY on compute,
//   the join's output columns handed to the GROUP BY on the device (no download between them; the
//   note counts the download passes and sums the passes' GPU time).
// Each compute result is compared with the CPU engine's (checked). The CPU cases take minutes past
// 2^24 rows: run these at --log2 20,24 (`--cases engine.`); no case name holds "compute", so that
// `--cases compute` does not take them along.
#include <algorithm>
#include <chrono>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bench.h"
#include "gfxq/engine.h"
#include "gfxq/error.h"

namespace gfxq::bench {
namespace {

std::vector<int32_t> ints(std::mt19937_64& rng, uint64_t n, int32_t lo, int32_t hi) {
  std::uniform_int_distribution<int32_t> d(lo, hi);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

Catalog scan_catalog(const Env& env, uint64_t rows) {
  std::mt19937_64 rng(env.seed);
  Catalog c;
  c.add("t",
        Table{{Column::ints("k", ints(rng, rows, 0, 4095)), Column::ints("v", ints(rng, rows, -1000000, 1000000))}});
  return c;
}

Catalog join_catalog(const Env& env, uint64_t rows) {
  std::mt19937_64 rng(env.seed);
  const uint64_t dims = std::max<uint64_t>(1, rows / 64);
  std::vector<int32_t> keys(dims);
  for (uint64_t i = 0; i < dims; ++i) keys[i] = int32_t(i);
  Catalog c;
  c.add("f", Table{{Column::ints("dk", ints(rng, rows, 0, int32_t(dims - 1))),
                    Column::ints("v", ints(rng, rows, 0, 1000))}});
  c.add("d", Table{{Column::ints("k", keys), Column::ints("y", ints(rng, dims, 1, 7))}});
  return c;
}

size_t passes(const Result& r, const std::string& kind) {
  return size_t(std::count_if(r.report.passes.begin(), r.report.passes.end(),
                              [&](const PassRecord& p) { return p.kind == kind; }));
}

// Each pass of `r` as " kind wall_ms" (where an untimed query's host time goes).
std::string pass_walls(const Result& r) {
  std::string out;
  for (const auto& p : r.report.passes) out += " " + p.kind + " " + std::to_string(p.wall_ms);
  return out;
}

// Best wall time of `sql` on `backend` of `engine` over the repeats, after one untimed run (whose
// result is compared with the CPU engine's) and half a second of untimed runs; `note` receives the report's algorithm,
// passes and submissions, and the GPU time of the passes from a second engine with the same options and
// EngineOptions::gpu_timing on (timestamps force a wait per pass, so the wall time is not taken there).
Measurement time_sql(Env& env, const EngineOptions& options, const std::string& sql, const Catalog& catalog,
                     Backend backend, uint64_t rows, uint64_t bytes) {
  Engine engine(options);
  if (backend == Backend::Compute && !engine.vk_capabilities().available)
    throw Error(ErrorCode::Unsupported, "no Vulkan device: " + engine.vk_capabilities().unavailable_reason);
  Measurement m;
  const Result first = engine.execute_sql(sql, catalog, backend);
  m.checked = backend == Backend::Cpu || same_table(engine.execute_sql(sql, catalog, Backend::Cpu).table, first.table);
  if (!m.checked) throw Error(ErrorCode::Internal, "engine bench: compute result differs from the CPU engine's");
  // Half a second of untimed runs: the CPU engine's check left the GPU idle, and an idle GPU runs at
  // a lower clock for a while (the warm 2^28 query took 9.7 ms right after the check, 2.7 ms warm).
  for (const auto warm = std::chrono::steady_clock::now();
       std::chrono::steady_clock::now() - warm < std::chrono::milliseconds(500);)
    engine.execute_sql(sql, catalog, backend);
  double best = 1e300;
  Result last;
  for (int r = 0; r < env.repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    last = engine.execute_sql(sql, catalog, backend);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  m.seconds = best;
  m.bytes = bytes;
  m.items = rows;
  double gpu = 0;
  if (backend != Backend::Cpu) {
    EngineOptions timed_options = options;
    timed_options.gpu_timing = true;
    Engine timed(timed_options);
    timed.execute_sql(sql, catalog, backend);
    gpu = 1e300;
    for (int r = 0; r < std::max(3, env.repeats); ++r) {
      double run = 0;
      for (const auto& p : timed.execute_sql(sql, catalog, backend).report.passes) run += p.gpu_ms.value_or(0);
      gpu = std::min(gpu, run);
    }
  }
  m.note = last.report.algorithm + " | upload passes " + std::to_string(passes(last, "upload")) + ", resident passes " +
           std::to_string(passes(last, "resident")) + ", download passes " + std::to_string(passes(last, "download")) +
           ", submissions " + std::to_string(last.report.gpu_submissions) + ", host waits " +
           std::to_string(last.report.gpu_waits) + ", GPU time of the passes " + std::to_string(gpu) +
           " ms (the best of timed runs; the wall time is untimed, host included)" +
           (backend != Backend::Cpu ? "; wall - GPU " + std::to_string(best * 1e3 - gpu) + " ms" : "") +
           "; the last untimed run: total " + std::to_string(last.report.total_ms) + " ms, passes" + pass_walls(last);
  return m;
}

const std::string kScan = "SELECT COUNT(*), SUM(v) FROM t WHERE k < 1000";
const std::string kCount = "SELECT COUNT(*) FROM t WHERE k < 1000";
const std::string kCnf3 = "SELECT SUM(v) FROM t WHERE k < 3000 AND (v > 0 OR k < 10) AND (v < 900000 OR k > 2000)";
const std::string kGroupBy = "SELECT k, COUNT(*), SUM(v), MIN(v), MAX(v) FROM t GROUP BY k ORDER BY k";
const std::string kJoin = "SELECT d.y, SUM(f.v) FROM f JOIN d ON f.dk = d.k WHERE d.y > 3 GROUP BY d.y ORDER BY d.y";

Measurement run_sql(Env& env, uint64_t rows, const std::string& sql, bool join, Backend backend,
                    std::optional<uint64_t> resident) {
  EngineOptions options;
  options.resident_bytes = resident;
  const Catalog catalog = join ? join_catalog(env, rows) : scan_catalog(env, rows);
  return time_sql(env, options, sql, catalog, backend, rows, rows * 8);
}

const Registrar cold{{"engine.sql_cold", "compute", "", false, [](Env& env, uint64_t rows) {
                        return run_sql(env, rows, kScan, false, Backend::Compute, uint64_t(0));
                      }}};
const Registrar warm{{"engine.sql_warm", "compute", "engine.sql_cold", false, [](Env& env, uint64_t rows) {
                        return run_sql(env, rows, kScan, false, Backend::Compute, std::nullopt);
                      }}};
// Issue 19's two warm queries: a single-predicate COUNT and a SUM under a 3-clause CNF.
const Registrar warm_count{{"engine.sql_warm_count", "compute", "engine.sql_cold", false, [](Env& env, uint64_t rows) {
                              return run_sql(env, rows, kCount, false, Backend::Compute, std::nullopt);
                            }}};
const Registrar warm_cnf3{{"engine.sql_warm_cnf3", "compute", "engine.sql_cold", false, [](Env& env, uint64_t rows) {
                             return run_sql(env, rows, kCnf3, false, Backend::Compute, std::nullopt);
                           }}};
const Registrar group_cpu{{"engine.sql_group_by_cpu", "cpu", "", false, [](Env& env, uint64_t rows) {
                             return run_sql(env, rows, kGroupBy, false, Backend::Cpu, std::nullopt);
                           }}};
const Registrar group_compute{
    {"engine.sql_group_by_gpu", "compute", "engine.sql_group_by_cpu", false,
     [](Env& env, uint64_t rows) { return run_sql(env, rows, kGroupBy, false, Backend::Compute, std::nullopt); }}};
const Registrar join_cpu{{"engine.sql_join_cpu", "cpu", "", false, [](Env& env, uint64_t rows) {
                            return run_sql(env, rows, kJoin, true, Backend::Cpu, std::nullopt);
                          }}};
const Registrar join_compute{
    {"engine.sql_join_gpu", "compute", "engine.sql_join_cpu", false,
     [](Env& env, uint64_t rows) { return run_sql(env, rows, kJoin, true, Backend::Compute, std::nullopt); }}};

}  // namespace
}  // namespace gfxq::bench
