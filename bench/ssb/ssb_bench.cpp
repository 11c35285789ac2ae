// gfxq_ssb_bench: times the 13 SSB queries on generated data (gfxq gen ssb), one JSON line each.
//   gfxq_ssb_bench --data DIR [--sf N] [--repeats R] [--threads T] [--queries DIR] [--engines duckdb]
// Per engine: one line {"engine", "load_s", ...} for loading DIR's five CSV files, then per query
// {"engine", "query", "sf", "threads", "rows", "best_s", "median_s", "runs", "version", "date"}:
// the query runs once untimed (hot caches), then R times; best and median of those R wall times.
// DuckDB runs in-process on T threads (default: all cores). --sf only labels the lines.
// Engines: duckdb (the CPU peer). gfxq's backends join here once the engine runs SSB (docs/SSB.md).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <sstream>
#include <thread>

#include "gfxq/error.h"
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
  int repeats = 5;
  unsigned threads = 0;
};

bool is_number(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0';
}

int usage(const std::string& message) {
  std::cerr << "gfxq_ssb_bench: " << message
            << "\nusage: gfxq_ssb_bench --data DIR [--sf N] [--repeats R] [--threads T] [--queries DIR] "
               "[--engines duckdb]\n";
  return 2;
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
    const size_t rows = db.query(q.sql).rows.size();  // untimed: hot caches
    std::vector<double> times;
    for (int r = 0; r < s.repeats; ++r) times.push_back(db.query(q.sql).seconds);
    std::sort(times.begin(), times.end());
    std::cout << "{\"engine\": \"duckdb\", \"query\": \"" << q.name << "\", \"sf\": " << s.sf
              << ", \"threads\": " << threads << ", \"rows\": " << rows << ", \"best_s\": " << times.front()
              << ", \"median_s\": " << times[times.size() / 2] << ", \"runs\": " << s.repeats << ", \"version\": \""
              << version << "\", \"date\": \"" << today() << "\"}" << std::endl;
  }
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage(a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--data") {
      s.data = v;
    } else if (a == "--queries") {
      s.queries = v;
    } else if (a == "--engines") {
      s.engines = v;
    } else if (a == "--sf") {
      if (!is_number(v)) return usage("--sf needs a number, got '" + v + "'");
      s.sf = v;
    } else if (a == "--repeats") {
      if (!is_number(v)) return usage("--repeats needs a number, got '" + v + "'");
      s.repeats = std::max(1, std::atoi(v.c_str()));
    } else if (a == "--threads") {
      if (!is_number(v)) return usage("--threads needs a number, got '" + v + "'");
      s.threads = static_cast<unsigned>(std::max(0, std::atoi(v.c_str())));
    } else {
      return usage("unknown argument '" + a + "'");
    }
  }
  if (s.data.empty()) return usage("--data DIR is required (make it with: gfxq gen ssb --sf N --out DIR)");
  std::vector<std::string> engines;
  std::stringstream list(s.engines);
  for (std::string engine; std::getline(list, engine, ',');) {
    if (engine != "duckdb") return usage("unknown engine '" + engine + "' (duckdb)");
    engines.push_back(engine);
  }
  try {
    const auto queries = gfxq::ssb::load_queries(s.queries);
    for (const std::string& engine : engines)
      if (engine == "duckdb") run_duckdb(s, queries);
  } catch (const gfxq::Error& e) {
    std::cerr << "gfxq_ssb_bench: " << gfxq::to_string(e.code()) << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
