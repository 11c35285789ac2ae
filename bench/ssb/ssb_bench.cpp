// gfxq_ssb_bench: times the 13 SSB queries on generated data (gfxq gen ssb), one JSON line each.
//   gfxq_ssb_bench --data DIR [--sf N] [--repeats R] [--warmup S] [--threads T] [--queries DIR]
//                  [--engines duckdb] [--devices LIST] [--explain FILE] [--check]
//   gfxq_ssb_bench --generate --sf N [--seed S] [--all-columns] [--engines gfxq-...] [...]
// DuckDB loads DIR's five CSV files, one line {"engine": "duckdb", "load_s", ...}. gfxq's engines share one
// catalog, loaded before the first of them, one line {"engine": "gfxq", "source", "columns", "load_s", ...}:
// "source" "csv" reads DIR's files (read_csv_file); "generated" (--generate) makes the tables in memory
// (generate_ssb_tables, SF N, seed S, default 1: the same tables as the files of gfxq gen ssb), "load_s" is then the
// generation's time, and only the columns the queries name are made unless --all-columns ("columns": how many; the
// 13 queries name 26 of 58, 9 of lineorder's 17), so SF 100 fits in memory without 62 GB of files.
// DuckDB reads files only: --generate with --engines duckdb is an error. Then per query
// {"engine", "query", "sf", "threads", "rows", "best_s", "median_s", "sql_best_s", "runs", "version", "date"}:
// each engine prepares the query once (gfxq: Engine::prepare, parsed, bound and placed; DuckDB:
// duckdb_prepare), runs the prepared statement once untimed (hot caches), then again untimed for S
// seconds (default 0.5: a GPU left idle lowers its clock within seconds and takes as long again to
// raise it, so every engine is timed in steady state), then R times: best and median of those R wall
// times. "sql_best_s": the best of R more runs from the text (parsed, bound and placed each time).
// DuckDB runs in-process, and --generate generates, on T threads (default: all cores). --sf only labels the lines
// read from --data DIR.
// Engines: duckdb (the CPU peer) and gfxq-auto, gfxq-compute, gfxq-cpu (gfxq's Engine with that
// backend; gfxq-joins: compute without the star aggregate, a join fragment per join) over the tables loaded once into
// one catalog: the untimed first run is cold, uploading the columns, which then stay resident; its wall time is
// "cold_s"). gfxq lines add "gpu_ms" (the GPU time of the passes, from a second engine with EngineOptions::gpu_timing
// on, run after the timed runs: timestamps make every pass wait, so wall times come from the untimed engine),
// "submissions" and "waits" (of the best run: command buffers and host waits for them), "nodes" (plan nodes per
// backend), "bytes" (the columns the query names, whole, at their storage width: the bytes a scan of its inputs reads,
// the bound bench/ssb/plot_ssb.py divides by the copy bandwidth) and, for a query the backend refuses, "error" instead
// of times. --devices LIST (e.g. 0,1): each gfxq engine runs the queries twice over the same loaded tables, on the
// list's first device ("devices": 1) and partitioned over the whole list (docs/MULTI_GPU.md; "devices": N, with
// "exchange_bytes", "exchange_ms" and "partitioning" of the best run). --explain FILE: the timed engine's report of
// each gfxq query (plan, passes with their GPU times, submissions and waits) and an untimed run's (each
// pass's wall time without the waits timing adds) appended to FILE as text. --pipeline-stats FILE: each
// compute pipeline the untimed engine created, with its driver's statistics (registers, spills, shared memory;
// EngineOptions::pipeline_statistics), one JSON line each appended to FILE. --check (with --data DIR): DuckDB
// loads DIR's files (untimed) and answers each query once before the gfxq engines run; each gfxq line then
// has "checked": true when the engine's first answer (from the text) and its last timed answer (prepared)
// both equal DuckDB's (ssb::compare), else "checked": false and "mismatch" (the first difference).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "gfxq/engine.h"
#include "gfxq/error.h"
#include "gfxq/ssb.h"
#include "ssb/ssb_harness.h"

namespace {

std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

struct Settings {
  std::string data, queries = GFXQ_SSB_QUERY_DIR, engines = "duckdb", sf = "null";
  bool generate = false;             // --generate: the tables made in memory instead of read from --data
  bool all_columns = false;          // --all-columns: with --generate, every column, not only the queries'
  std::string seed;                  // --seed: the generator's seed (--generate only; default 1)
  std::vector<std::string> devices;  // --devices: a device set to run the gfxq engines on too
  std::string explain;               // --explain: where the timed engine's reports go ("": nowhere)
  std::string pipeline_stats;        // --pipeline-stats: where the untimed engine's pipelines' statistics go
  bool check = false;                // --check: every gfxq answer compared with DuckDB's
  int repeats = 5;
  double warmup_s = 0.5;
  unsigned threads = 0;
};

bool is_number(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0';
}

int usage(const std::string& message) {
  std::cerr
      << "gfxq_ssb_bench: " << message
      << "\nusage: gfxq_ssb_bench (--data DIR [--sf N] | --generate --sf N [--seed S] [--all-columns]) [--repeats R] "
         "[--warmup S] [--threads T] [--queries DIR] [--engines duckdb,gfxq-auto,gfxq-compute,gfxq-joins,gfxq-cpu] "
         "[--devices LIST] [--explain FILE] [--pipeline-stats FILE] [--check]\n";
  return 2;
}

// Runs `query` untimed for `seconds` (the steady state the timed runs measure).
template <class F>
void warm_up(double seconds, F&& query) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) query();
}

void run_duckdb(const Settings& s, const std::vector<gfxq::ssb::Query>& queries) {
  gfxq::duckdb::Client db;
  db.set_threads(s.threads);
  const unsigned threads = s.threads ? s.threads : std::max(1u, std::thread::hardware_concurrency());
  const std::string version = db.version();
  const double load = gfxq::ssb::load_tables(db, s.data);
  std::cout << "{\"engine\": \"duckdb\", \"version\": \"" << version << "\", \"sf\": " << s.sf
            << ", \"threads\": " << threads << ", \"load_s\": " << load << ", \"date\": \"" << today() << "\"}\n";
  for (const auto& q : queries) {
    gfxq::duckdb::Client::Prepared statement = db.prepare(q.sql);
    const size_t rows = db.execute(statement).rows.size();  // untimed: hot caches
    warm_up(s.warmup_s, [&] { db.execute(statement); });
    std::vector<double> times, sql_times;
    for (int r = 0; r < s.repeats; ++r) times.push_back(db.execute(statement).seconds);
    for (int r = 0; r < s.repeats; ++r) sql_times.push_back(db.query(q.sql).seconds);
    std::sort(times.begin(), times.end());
    std::sort(sql_times.begin(), sql_times.end());
    std::cout << "{\"engine\": \"duckdb\", \"query\": \"" << q.name << "\", \"sf\": " << s.sf
              << ", \"threads\": " << threads << ", \"rows\": " << rows << ", \"best_s\": " << times.front()
              << ", \"median_s\": " << times[times.size() / 2] << ", \"sql_best_s\": " << sql_times.front()
              << ", \"runs\": " << s.repeats << ", \"version\": \"" << version << "\", \"date\": \"" << today() << "\"}"
              << std::endl;
  }
}

// A JSON string literal of `text` (quotes and backslashes escaped, control characters dropped).
std::string json(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

// The words of `sql` (letters, digits and '_'): the names it holds.
std::set<std::string> words_of(const std::string& sql) {
  std::set<std::string> words;
  std::string word;
  for (const char c : sql + " ") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
    } else if (!word.empty()) {
      words.insert(word);
      word.clear();
    }
  }
  return words;
}

// Bytes of the catalog's columns that `sql` names (SSB column names are unique across its tables), at
// their storage width (4 bytes; 8 for BIGINT and DOUBLE).
uint64_t named_column_bytes(const std::string& sql, const gfxq::Catalog& catalog) {
  const std::set<std::string> words = words_of(sql);
  uint64_t bytes = 0;
  for (const std::string& t : gfxq::ssb_table_names()) {
    if (!catalog.contains(t)) continue;
    const gfxq::Table& table = catalog.get(t);
    for (const gfxq::Column& c : table.columns)
      if (words.count(c.name))
        bytes += table.rows() * (c.type == gfxq::Type::Int64 || c.type == gfxq::Type::Float64 ? 8 : 4);
  }
  return bytes;
}

// DuckDB's answer to each query by name (--check), or empty.
using Answers = std::map<std::string, gfxq::duckdb::QueryResult>;

// DuckDB's answers to `queries` over --data's files (untimed).
Answers duckdb_answers(const Settings& s, const std::vector<gfxq::ssb::Query>& queries) {
  gfxq::duckdb::Client db;
  db.set_threads(s.threads);
  gfxq::ssb::load_tables(db, s.data);
  Answers answers;
  for (const auto& q : queries) answers.emplace(q.name, db.query(q.sql));
  return answers;
}

// Runs every query on `gfxq_engine` (over `devices` devices) and prints its line; `timed_engine`
// (the same options with gpu_timing) gives the GPU time; `answers` (when not empty) the expected results.
void run_queries(const Settings& s, const std::vector<gfxq::ssb::Query>& queries, const std::string& engine,
                 const gfxq::Catalog& catalog, gfxq::Engine& gfxq_engine, gfxq::Engine& timed_engine, size_t devices,
                 const Answers& answers) {
  const gfxq::Backend backend = gfxq::parse_backend(engine == "gfxq-joins" ? "compute" : engine.substr(5));
  for (const auto& q : queries) {
    std::cout << "{\"engine\": \"" << engine << "\", \"query\": \"" << q.name << "\", \"sf\": " << s.sf;
    try {
      auto t0 = std::chrono::steady_clock::now();
      gfxq::Result first = gfxq_engine.execute_sql(q.sql, catalog, backend);
      const double cold = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      // The timed runs: the statement prepared once (parsed, bound and placed), as an application
      // that runs a query repeatedly would; the text run whole each time is timed beside it.
      gfxq::PreparedStatement statement = gfxq_engine.prepare(q.sql, catalog, backend);
      warm_up(s.warmup_s, [&] { gfxq_engine.execute(statement, catalog); });
      struct Run {
        double wall = 0, exchange_ms = 0;  // wall s, exchange ms
        uint64_t exchange_bytes = 0, submissions = 0, waits = 0;
        bool operator<(const Run& o) const { return wall < o.wall; }
      };
      std::vector<Run> runs;
      std::string mismatch;
      if (!answers.empty()) mismatch = gfxq::ssb::compare(answers.at(q.name), first.table, q.sql);
      for (int r = 0; r < s.repeats; ++r) {
        t0 = std::chrono::steady_clock::now();
        const gfxq::Result res = gfxq_engine.execute(statement, catalog);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!answers.empty() && r + 1 == s.repeats && mismatch.empty())  // untimed
          mismatch = gfxq::ssb::compare(answers.at(q.name), res.table, q.sql);
        runs.push_back({wall, res.report.exchange_ms, res.report.exchange_bytes, res.report.gpu_submissions,
                        res.report.gpu_waits});
      }
      std::sort(runs.begin(), runs.end());
      double sql_best = 1e300;
      for (int r = 0; r < s.repeats; ++r) {
        t0 = std::chrono::steady_clock::now();
        gfxq_engine.execute_sql(q.sql, catalog, backend);
        sql_best = std::min(sql_best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      double gpu = 0;
      if (backend != gfxq::Backend::Cpu) {
        gfxq::PreparedStatement timed = timed_engine.prepare(q.sql, catalog, backend);
        timed_engine.execute(timed, catalog);
        const gfxq::ExecutionReport report = timed_engine.execute(timed, catalog).report;
        for (const auto& p : report.passes) gpu += p.gpu_ms.value_or(0);
        if (!s.explain.empty()) {
          // The timed engine's report gives each pass's GPU time; an untimed run's, the host's share.
          const gfxq::ExecutionReport untimed = gfxq_engine.execute(statement, catalog).report;
          std::ofstream(s.explain, std::ios::app)
              << "== " << engine << " " << q.name << " (devices " << devices << ", GPU timing)\n"
              << report.text() << "\n== " << engine << " " << q.name << " (devices " << devices << ", untimed)\n"
              << untimed.text() << "\n";
        }
      }
      std::map<std::string, int> nodes;
      // A partitioned query's nodes: device 0's fragment (the merge runs on the host).
      for (const auto& n : first.report.partitions.empty() ? first.report.plan : first.report.partitions[0].plan)
        ++nodes[gfxq::to_string(n.backend)];
      std::string placed;
      for (const auto& [b, n] : nodes) placed += (placed.empty() ? "" : ", ") + json(b) + ": " + std::to_string(n);
      std::cout << ", \"devices\": " << devices;
      if (devices > 1)
        std::cout << ", \"exchange_bytes\": " << runs.front().exchange_bytes
                  << ", \"exchange_ms\": " << runs.front().exchange_ms
                  << ", \"partitioning\": " << json(first.report.partitioning);
      std::cout << ", \"rows\": " << first.table.rows() << ", \"cold_s\": " << cold
                << ", \"best_s\": " << runs.front().wall << ", \"median_s\": " << runs[runs.size() / 2].wall
                << ", \"sql_best_s\": " << sql_best << ", \"gpu_ms\": " << gpu
                << ", \"submissions\": " << runs.front().submissions << ", \"waits\": " << runs.front().waits
                << ", \"nodes\": {" << placed << "}, \"bytes\": " << named_column_bytes(q.sql, catalog)
                << ", \"runs\": " << s.repeats;
      if (!answers.empty()) {
        std::cout << ", \"checked\": " << (mismatch.empty() ? "true" : "false");
        if (!mismatch.empty()) std::cout << ", \"mismatch\": " << json(mismatch);
      }
    } catch (const gfxq::Error& e) {
      std::cout << ", \"error\": " << json(e.what());
    }
    std::cout << ", \"date\": \"" << today() << "\"}" << std::endl;
  }
}

// The catalog gfxq's engines query: DIR's files, or (--generate) the tables made in memory, with only the
// columns some query names unless --all-columns. Prints the load line.
gfxq::Catalog load_catalog(const Settings& s, const std::vector<gfxq::ssb::Query>& queries) {
  const auto start = std::chrono::steady_clock::now();
  gfxq::Catalog catalog;
  if (s.generate) {
    gfxq::SsbOptions options;
    options.scale_factor = std::strtod(s.sf.c_str(), nullptr);
    options.seed = s.seed.empty() ? 1 : std::strtoull(s.seed.c_str(), nullptr, 10);
    options.threads = s.threads;
    if (!s.all_columns) {
      std::set<std::string> named;
      for (const auto& q : queries) named.merge(words_of(q.sql));
      for (const std::string& t : gfxq::ssb_table_names())
        for (const std::string& c : gfxq::ssb_column_names(t))
          if (named.count(c)) options.columns.push_back(c);
    }
    for (auto& [name, table] : gfxq::generate_ssb_tables(options)) catalog.add(name, std::move(table));
  } else {
    for (const std::string& t : gfxq::ssb_table_names()) catalog.add(t, gfxq::read_csv_file(s.data + "/" + t + ".csv"));
  }
  const double load = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t columns = 0;
  for (const std::string& t : catalog.names()) columns += catalog.get(t).columns.size();
  std::cout << "{\"engine\": \"gfxq\", \"sf\": " << s.sf << ", \"source\": \"" << (s.generate ? "generated" : "csv")
            << "\", \"columns\": " << columns << ", \"load_s\": " << load << ", \"date\": \"" << today() << "\"}"
            << std::endl;
  return catalog;
}

void run_gfxq(const Settings& s, const std::vector<gfxq::ssb::Query>& queries, const std::string& engine,
              const gfxq::Catalog& catalog, const Answers& answers) {
  // One device (the default, or the list's first), then the device set.
  std::vector<std::vector<std::string>> sets = {{}};
  if (!s.devices.empty()) sets = {{s.devices[0]}, s.devices};
  for (const auto& devices : sets) {
    gfxq::EngineOptions options;
    options.vk_devices = devices;
    options.compute.star_aggregate = engine != "gfxq-joins";
    options.pipeline_statistics = !s.pipeline_stats.empty();
    gfxq::Engine gfxq_engine(options);
    options.gpu_timing = true;
    options.pipeline_statistics = false;
    gfxq::Engine timed_engine(options);
    run_queries(s, queries, engine, catalog, gfxq_engine, timed_engine, std::max<size_t>(1, devices.size()), answers);
    if (!s.pipeline_stats.empty()) {
      std::ofstream out(s.pipeline_stats, std::ios::app);
      for (const auto& [name, stats] : gfxq_engine.pipeline_statistics())
        out << "{\"engine\": \"" << engine << "\", \"pipeline\": " << json(name) << ", \"statistics\": " << json(stats)
            << "}\n";
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--generate" || a == "--all-columns" || a == "--check") {
      (a == "--generate" ? s.generate : a == "--check" ? s.check : s.all_columns) = true;
      continue;
    }
    if (i + 1 >= argc) return usage(a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--data") {
      s.data = v;
    } else if (a == "--queries") {
      s.queries = v;
    } else if (a == "--engines") {
      s.engines = v;
    } else if (a == "--devices") {
      std::stringstream devices(v);
      for (std::string d; std::getline(devices, d, ',');) s.devices.push_back(d);
    } else if (a == "--explain") {
      s.explain = v;
    } else if (a == "--pipeline-stats") {
      s.pipeline_stats = v;
    } else if (a == "--sf") {
      if (!is_number(v)) return usage("--sf needs a number, got '" + v + "'");
      s.sf = v;
    } else if (a == "--repeats") {
      if (!is_number(v)) return usage("--repeats needs a number, got '" + v + "'");
      s.repeats = std::max(1, std::atoi(v.c_str()));
    } else if (a == "--warmup") {
      if (!is_number(v)) return usage("--warmup needs seconds, got '" + v + "'");
      s.warmup_s = std::max(0.0, std::atof(v.c_str()));
    } else if (a == "--seed") {
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
        return usage("--seed needs a non-negative integer, got '" + v + "'");
      s.seed = v;
    } else if (a == "--threads") {
      if (!is_number(v)) return usage("--threads needs a number, got '" + v + "'");
      s.threads = static_cast<unsigned>(std::max(0, std::atoi(v.c_str())));
    } else {
      return usage("unknown argument '" + a + "'");
    }
  }
  if (s.generate && !s.data.empty()) return usage("--generate and --data exclude each other");
  if (s.generate && s.sf == "null") return usage("--generate needs --sf N");
  if (s.check && s.generate) return usage("--check compares with DuckDB over --data DIR's files, not --generate");
  if (!s.generate && (s.all_columns || !s.seed.empty())) return usage("--seed and --all-columns go with --generate");
  if (!s.generate && s.data.empty())
    return usage("--data DIR (make it with: gfxq gen ssb --sf N --out DIR) or --generate --sf N is required");
  std::vector<std::string> engines;
  std::stringstream list(s.engines);
  for (std::string engine; std::getline(list, engine, ',');) {
    if (engine != "duckdb" && engine != "gfxq-auto" && engine != "gfxq-compute" && engine != "gfxq-joins" &&
        engine != "gfxq-cpu")
      return usage("unknown engine '" + engine + "' (duckdb, gfxq-auto, gfxq-compute, gfxq-joins, gfxq-cpu)");
    if (engine == "duckdb" && s.generate)
      return usage("DuckDB reads the CSV files: run --engines duckdb with --data DIR, not --generate");
    engines.push_back(engine);
  }
  try {
    const auto queries = gfxq::ssb::load_queries(s.queries);
    std::optional<gfxq::Catalog> catalog;  // loaded before the first gfxq engine, shared by the others
    Answers answers;                       // --check: DuckDB's, before the first gfxq engine
    for (const std::string& engine : engines) {
      if (engine == "duckdb") {
        run_duckdb(s, queries);
        continue;
      }
      if (s.check && answers.empty()) answers = duckdb_answers(s, queries);
      if (!catalog) catalog = load_catalog(s, queries);
      run_gfxq(s, queries, engine, *catalog, answers);
    }
  } catch (const gfxq::Error& e) {
    std::cerr << "gfxq_ssb_bench: " << gfxq::to_string(e.code()) << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
