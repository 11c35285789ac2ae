// Benchmark cases of auto placement by cost (src/engine/placement.h): each query through the Engine
// forced on every backend that runs it and under auto, wall time of Engine::execute_sql (uploads,
// downloads and the host included), best of --repeats (the CPU engine once past 2^22 rows).
//
// - placement.<q>_forced_best (the ceiling): the fastest forced backend; the note lists each forced
//   backend's time (or why it cannot run the query).
// - placement.<q>_auto: auto's time; ratio = the best forced time / auto's time (1: auto picked the
//   fastest; auto may also mix backends per node). The note has auto's choice per node and the reason
//   of its root: every candidate's predicted time for its subtree, beside the measured times.
// Queries over t(k INT in [0, 4095], v INT in [-10^6, 10^6]): count (`COUNT(*) WHERE k < 1000`), sum
// (`SUM(v) WHERE k < 1000`), group_by (`k, COUNT(*), SUM(v) GROUP BY k`), order_by (`k, v WHERE k < 8
// ORDER BY v LIMIT 100`). Every result is compared with the CPU engine's (checked). Run at
// --log2 16,20,24 (`--cases placement.`).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench.h"
#include "gfxq/engine.h"
#include "gfxq/error.h"

namespace gfxq::bench {
namespace {

struct Forced {
  std::map<std::string, double> seconds;  // backend -> best wall time
  std::string note;
  Table cpu_table;
};

Catalog catalog_for(const Env& env, uint64_t rows) {
  std::mt19937_64 rng(env.seed);
  std::uniform_int_distribution<int32_t> key(0, 4095), value(-1000000, 1000000);
  std::vector<int32_t> k(rows), v(rows);
  for (auto& x : k) x = key(rng);
  for (auto& x : v) x = value(rng);
  Catalog c;
  c.add("t", Table{{Column::ints("k", std::move(k)), Column::ints("v", std::move(v))}});
  return c;
}

bool same(const Table& a, const Table& b) {
  if (a.columns.size() != b.columns.size()) return false;
  for (size_t i = 0; i < a.columns.size(); ++i)
    if (a.columns[i].type != b.columns[i].type || a.columns[i].data != b.columns[i].data) return false;
  return true;
}

// The best wall time of `sql` on `backend` after one untimed run; `result` receives the last run.
double best_wall(Engine& engine, const std::string& sql, const Catalog& catalog, Backend backend, int repeats,
                 Result& result) {
  result = engine.execute_sql(sql, catalog, backend);
  double best = 1e300;
  for (int r = 0; r < std::max(1, repeats); ++r) {
    const auto start = std::chrono::steady_clock::now();
    result = engine.execute_sql(sql, catalog, backend);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

std::string ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  return buf;
}

// Engines, catalogs and forced timings per (query, rows), shared by a query's two cases.
struct State {
  uint64_t rows = 0;
  std::unique_ptr<Engine> engine;
  Catalog catalog;
  std::map<std::string, Forced> forced;
};

State& state(const Env& env, uint64_t rows) {
  // Never destroyed: NVIDIA's driver tears itself down at exit, and a context released after that crashes.
  static State& s = *new State;
  if (s.rows != rows || !s.engine) {
    s.forced.clear();
    EngineOptions options;
    options.placement = Placement::Cost;  // these cases measure the cost models' choices
    s.engine = std::make_unique<Engine>(options);
    s.catalog = catalog_for(env, rows);
    s.rows = rows;
  }
  return s;
}

Measurement forced_best(Env& env, uint64_t rows, const std::string& name, const std::string& sql) {
  State& s = state(env, rows);
  Forced f;
  Result cpu;
  const int cpu_repeats = rows > (uint64_t(1) << 22) ? 0 : env.repeats;
  f.seconds["cpu"] = best_wall(*s.engine, sql, s.catalog, Backend::Cpu, cpu_repeats, cpu);
  f.cpu_table = cpu.table;
  f.note = "cpu " + ms(f.seconds["cpu"]);
  bool checked = true;
  for (Backend b : {Backend::Raster, Backend::Compute}) {
    try {
      Result r;
      f.seconds[to_string(b)] = best_wall(*s.engine, sql, s.catalog, b, env.repeats, r);
      checked &= same(r.table, f.cpu_table);
      f.note += std::string(", ") + to_string(b) + " " + ms(f.seconds[to_string(b)]);
    } catch (const Error& e) {
      f.note += std::string(", ") + to_string(b) + " cannot: " + e.what();
    }
  }
  Measurement m;
  m.seconds = std::min_element(f.seconds.begin(), f.seconds.end(), [](const auto& a, const auto& b) {
                return a.second < b.second;
              })->second;
  m.bytes = rows * 8;
  m.items = rows;
  m.checked = checked;
  m.note = "forced, wall: " + f.note;
  s.forced[name] = std::move(f);
  if (env.gl) env.gl->make_current();  // the engine made its own context current
  return m;
}

Measurement auto_run(Env& env, uint64_t rows, const std::string& name, const std::string& sql) {
  State& s = state(env, rows);
  Result r;
  Measurement m;
  m.seconds = best_wall(*s.engine, sql, s.catalog, Backend::Auto, env.repeats, r);
  m.bytes = rows * 8;
  m.items = rows;
  const auto it = s.forced.find(name);
  m.checked = it != s.forced.end() && same(r.table, it->second.cpu_table);
  std::string nodes;
  for (const auto& n : r.report.plan) nodes += (nodes.empty() ? "" : " / ") + n.node + " on " + to_string(n.backend);
  m.note = "auto: " + nodes + " | " + r.report.plan.front().reason +
           (it != s.forced.end() ? " | forced, wall: " + it->second.note : "");
  if (env.gl) env.gl->make_current();
  return m;
}

struct Query {
  const char* name;
  const char* sql;
};

const Query kQueries[] = {
    {"count", "SELECT COUNT(*) FROM t WHERE k < 1000"},
    {"sum", "SELECT SUM(v) FROM t WHERE k < 1000"},
    {"group_by", "SELECT k, COUNT(*), SUM(v) FROM t GROUP BY k"},
    {"order_by", "SELECT k, v FROM t WHERE k < 8 ORDER BY v LIMIT 100"},
};

// Two cases per query: its forced best (the ceiling) and auto.
const bool registered = [] {
  for (const Query& q : kQueries) {
    const std::string best = std::string("placement.") + q.name + "_forced_best";
    const std::string name = q.name, sql = q.sql;
    registry().push_back(
        {best, "cpu", "", false, [name, sql](Env& env, uint64_t rows) { return forced_best(env, rows, name, sql); }});
    registry().push_back({std::string("placement.") + q.name + "_auto", "auto", best, false,
                          [name, sql](Env& env, uint64_t rows) { return auto_run(env, rows, name, sql); }});
  }
  return true;
}();

}  // namespace
}  // namespace gfxq::bench
