// Benchmark cases of queries partitioned over a device set (docs/MULTI_GPU.md): the same SQL on one
// device and on N devices in the same run, both warm (columns resident after an untimed first run),
// wall time of Engine::execute_sql, best of --repeats. The N-device case's ceiling is the one-device
// case and both move the same bytes, so its ratio is speedup_vs_one_device.
//
// Each case runs its query for half a second untimed before the timed repeats (the GPUs' clocks
// rise from idle under load).
// The device set is GFXQ_VK_DEVICE's list (e.g. GFXQ_VK_DEVICE=0,1 on a 2-GPU machine; 0,0 runs two
// logical devices over one GPU); without a list of two or more the multi.* cases skip. The one-device
// cases run on the list's first device.
// - multi.sum_one / multi.sum: `SELECT COUNT(*), SUM(v) FROM t WHERE k < 1000` over n rows (k in
//   [0, 4096)); bytes = 8n.
// - multi.group_by_one / multi.group_by: `SELECT k, COUNT(*), SUM(v) FROM t GROUP BY k` with k in
//   [0, min(n / 256, 2^20)): each device aggregates its rows, the host merges the partial groups.
// - multi.group_by_many_one / multi.group_by_many: the same over u with g in [0, n / 4): the merge
//   of the partial groups (about 0.9 n rows on 2 devices) weighs as much as the scan.
// - multi.join_one / multi.join: `SELECT d.y, SUM(f.v) FROM f, d WHERE f.dk = d.k GROUP BY d.y`, f of
//   n rows, d of n rows (unique keys, the issue's 2^27 x 2^27 shape at --log2 27): f by row ranges, d
//   broadcast (every device builds the whole join table; only the probe side splits).
// The note of an N-device case gives the exchange (bytes of partial results to the host and its
// time), each device's fragment time, and the merge's time (merge_ms: its GROUP BY, the finish on
// the host and the nodes above; its algorithm names the backend that ran it). Every answer is compared with the
// one-device answer (checked).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench.h"
#include "gfxq/engine.h"
#include "gfxq/error.h"

namespace gfxq::bench {
namespace {

// GFXQ_VK_DEVICE's entries when it is a list of two or more, else empty.
std::vector<std::string> device_list() {
  const char* env = std::getenv("GFXQ_VK_DEVICE");
  std::vector<std::string> out;
  if (!env) return out;
  std::stringstream ss(env);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  if (out.size() < 2) out.clear();
  return out;
}

std::vector<int32_t> ints(std::mt19937_64& rng, uint64_t n, int32_t lo, int32_t hi) {
  std::uniform_int_distribution<int32_t> d(lo, hi);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// The tables of a case.
enum class Tables { Scan, Join, ManyGroups };

// The catalog of the scan cases (t), the join cases (f, d) or the many-groups cases (u) at `rows`,
// made once per size and kind.
const Catalog& catalog_of(const Env& env, uint64_t rows, Tables kind) {
  struct Made {
    uint64_t rows = 0;
    Catalog catalog;
  };
  static Made made[3];
  Made& m = made[size_t(kind)];
  const bool join = kind == Tables::Join;
  if (m.rows == rows) return m.catalog;
  m.catalog = Catalog();
  std::mt19937_64 rng(env.seed);
  if (join) {
    std::vector<int32_t> keys(rows);
    for (uint64_t i = 0; i < rows; ++i) keys[i] = int32_t(i);
    m.catalog.add("f", Table{{Column::ints("dk", ints(rng, rows, 0, int32_t(rows - 1))),
                              Column::ints("v", ints(rng, rows, 0, 1000))}});
    m.catalog.add("d", Table{{Column::ints("k", std::move(keys)), Column::ints("y", ints(rng, rows, 1, 7))}});
  } else if (kind == Tables::ManyGroups) {
    const int32_t groups = int32_t(std::clamp<uint64_t>(rows / 4, 1, uint64_t(1) << 30));
    m.catalog.add("u", Table{{Column::ints("g", ints(rng, rows, 0, groups - 1)),
                              Column::ints("v", ints(rng, rows, -1000000, 1000000))}});
  } else {
    const int32_t groups = int32_t(std::clamp<uint64_t>(rows / 256, 1, uint64_t(1) << 20));
    m.catalog.add("t",
                  Table{{Column::ints("k", ints(rng, rows, 0, 4095)), Column::ints("g", ints(rng, rows, 0, groups - 1)),
                         Column::ints("v", ints(rng, rows, -1000000, 1000000))}});
  }
  m.rows = rows;
  return m.catalog;
}

const std::string kSum = "SELECT COUNT(*), SUM(v) FROM t WHERE k < 1000";
const std::string kGroupBy = "SELECT g, COUNT(*), SUM(v) FROM t GROUP BY g";
const std::string kJoin = "SELECT d.y, SUM(f.v) FROM f, d WHERE f.dk = d.k GROUP BY d.y";
const std::string kManyGroups = "SELECT g, COUNT(*), SUM(v) FROM u GROUP BY g";

// The one-device answers of the last run, to check the N-device answers against.
std::map<std::string, Table>& answers() {
  static std::map<std::string, Table> a;
  return a;
}

// Best wall time of `sql` on one device (the list's first) or on the whole list.
Measurement run(Env& env, uint64_t rows, const std::string& sql, Tables join, bool all_devices) {
  const std::vector<std::string> devices = device_list();
  if (devices.empty())
    throw Error(ErrorCode::Unsupported, "set GFXQ_VK_DEVICE to a device list, e.g. 0,1 (0,0: two logical devices)");
  EngineOptions options;
  if (all_devices) {
    options.vk_devices = devices;
    options.partitioning = Partitioning::Required;
  } else {
    options.vk_device = devices[0];
  }
  Engine engine(options);
  const Catalog& catalog = catalog_of(env, rows, join);
  const std::string key = sql + "@" + std::to_string(rows);
  Result last = engine.execute_sql(sql, catalog, Backend::Compute);
  Measurement m;
  if (all_devices) {
    const auto it = answers().find(key);
    m.checked = it != answers().end() && same_table(it->second, last.table);
    if (it != answers().end() && !m.checked)
      throw Error(ErrorCode::Internal, "multi bench: the partitioned answer differs from one device's");
  } else {
    answers()[key] = last.table;
  }
  // Warm-up: the query again for at least half a second, so that the GPUs' clocks have left the
  // idle state the upload and the other case left them in (on the 2 x H200 host a 2^29-row scan
  // right after the upload took 4.35 ms of GPU time, 1.01 ms warmed).
  for (const auto warm = std::chrono::steady_clock::now();
       std::chrono::steady_clock::now() - warm < std::chrono::milliseconds(500);)
    last = engine.execute_sql(sql, catalog, Backend::Compute);
  double best = 1e300;
  for (int r = 0; r < env.repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    last = engine.execute_sql(sql, catalog, Backend::Compute);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  m.seconds = best;
  m.bytes = rows * 8;
  m.items = rows;
  std::ostringstream note;
  note << last.report.algorithm;
  if (all_devices) {
    note << " | devices " << devices.size() << ", exchange_bytes " << last.report.exchange_bytes << ", exchange_ms "
         << last.report.exchange_ms;
    for (const auto& p : last.report.partitions) note << ", " << p.device << " " << p.wall_ms << " ms";
    double merge_ms = 0;
    for (const auto& p : last.report.passes)
      if (p.kind == "merge") merge_ms += p.wall_ms;
    note << ", merge_ms " << merge_ms << ", total_ms " << last.report.total_ms << " (" << last.report.partitioning
         << ")";
  }
  m.note = note.str();
  return m;
}

const Registrar sum_one{{"multi.sum_one", "compute", "", false,
                         [](Env& env, uint64_t rows) { return run(env, rows, kSum, Tables::Scan, false); }}};
const Registrar sum_all{{"multi.sum", "compute", "multi.sum_one", false,
                         [](Env& env, uint64_t rows) { return run(env, rows, kSum, Tables::Scan, true); }}};
const Registrar group_one{{"multi.group_by_one", "compute", "", false,
                           [](Env& env, uint64_t rows) { return run(env, rows, kGroupBy, Tables::Scan, false); }}};
const Registrar group_all{{"multi.group_by", "compute", "multi.group_by_one", false,
                           [](Env& env, uint64_t rows) { return run(env, rows, kGroupBy, Tables::Scan, true); }}};
const Registrar join_one{{"multi.join_one", "compute", "", false,
                          [](Env& env, uint64_t rows) { return run(env, rows, kJoin, Tables::Join, false); }}};
const Registrar join_all{{"multi.join", "compute", "multi.join_one", false,
                          [](Env& env, uint64_t rows) { return run(env, rows, kJoin, Tables::Join, true); }}};

const Registrar many_one{{"multi.group_by_many_one", "compute", "", false, [](Env& env, uint64_t rows) {
                            return run(env, rows, kManyGroups, Tables::ManyGroups, false);
                          }}};
const Registrar many_all{
    {"multi.group_by_many", "compute", "multi.group_by_many_one", false,
     [](Env& env, uint64_t rows) { return run(env, rows, kManyGroups, Tables::ManyGroups, true); }}};

}  // namespace
}  // namespace gfxq::bench
