// Benchmark cases of loading data: CSV files read by gfxq (read_csv_file, all cores) against
// DuckDB's CSV reader (CREATE TABLE + COPY ... FROM, all cores, through its C API: bench/duckdb)
// on the same file in the same run. One file per column family and size, written once under the
// temp folder (kept between runs: $TMPDIR/gfxq_bench_io/<family>_<rows>_s<seed>.csv) and read from
// the page cache (an untimed read warms it). Every timed load runs in a fresh process
// (`gfxq_bench --io-child ENGINE PATH`), as a user's first load does: neither engine reuses memory
// that an earlier load faulted in. Each case reports the best of env.repeats loads (wall time of
// read_csv_file, or of DuckDB's CREATE TABLE + COPY; starting the process and DuckDB are not
// counted); bytes = the file's size, so the ratio is gfxq's load throughput over DuckDB's.
//
//   io.csv_duckdb_int / io.csv_int        4 int columns: uniform 0..10^6, skewed 0..1000, row
//                                         number, full int32 range
//   io.csv_duckdb_float / io.csv_float    4 float columns: [0, 1) in 2^-24 steps, [-1000, 1000)
//   io.csv_duckdb_string / io.csv_string  4 string columns: 25 nations, 1,000 brands, rows/100
//                                         customer names, rows/10 addresses (some with commas: quoted)
//   io.csv_duckdb_string_unique / io.csv_string_unique
//                                         2 string columns, every value distinct: addresses, names
//   io.csv_duckdb_date / io.csv_date      4 date columns: days of 1992-1998, of 1900-2100
//
//   io.column_read / io.column_file_int   one int column in a gfxq column file (docs/FORMATS.md):
//                                         read() of the whole file into fresh memory (the ceiling),
//                                         and read_column_file (goal: >= 2 GB/s at 2^28 rows)
//
// A string column's dictionary is sorted (gfxq::Dictionary), DuckDB's strings are not: the more
// distinct values, the more gfxq's load does beyond DuckDB's (string_unique is the extreme).
//
// The check: row counts, per-column sums (int), minimum and maximum (float, date) and distinct
// counts (string) equal DuckDB's.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench.h"
#include "core/huge_pages.h"
#include "duckdb/duckdb_client.h"
#include "gfxq/column_file.h"
#include "gfxq/error.h"
#include "gfxq/table.h"

namespace gfxq::bench {
namespace {

uint64_t mix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// An address-like string of 10 to 40 letters, digits, spaces and commas, drawn from `seed`.
std::string address(uint64_t seed) {
  static const std::string chars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ, ";
  uint64_t s = seed;
  const uint64_t length = 10 + mix(s) % 31;
  std::string a;
  for (uint64_t i = 0; i < length; ++i) a += chars[mix(s) % (i == 0 || i + 1 == length ? 62 : chars.size())];
  return a;
}

// The columns of a family (the file comment lists them).
std::vector<std::string> columns_of(const std::string& family) {
  if (family == "string_unique") return {"a", "b"};
  return {"a", "b", "c", "d"};
}

Table make_table(const std::string& family, uint64_t rows, uint64_t seed) {
  uint64_t s = seed * 0x51ed27 + rows;
  Table t;
  if (family == "int") {
    std::vector<int32_t> a(rows), b(rows), c(rows), d(rows);
    for (uint64_t r = 0; r < rows; ++r) {
      a[r] = int32_t(mix(s) % 1000001);
      const double u = double(mix(s) >> 11) * 0x1p-53;
      b[r] = int32_t(std::floor(1000.0 * u * u * u));  // skewed towards 0
      c[r] = int32_t(r);
      d[r] = int32_t(uint32_t(mix(s)));
    }
    t.columns = {Column::ints("a", a), Column::ints("b", b), Column::ints("c", c), Column::ints("d", d)};
  } else if (family == "float") {
    std::vector<float> a(rows), b(rows), c(rows), d(rows);
    for (uint64_t r = 0; r < rows; ++r) {
      a[r] = float(mix(s) >> 40) * 0x1p-24f;
      b[r] = float(mix(s) >> 40) * 0x1p-24f;
      c[r] = (float(mix(s) >> 40) * 0x1p-24f - 0.5f) * 2000.0f;
      d[r] = (float(mix(s) >> 40) * 0x1p-24f - 0.5f) * 2000.0f;
    }
    t.columns = {Column::floats("a", a), Column::floats("b", b), Column::floats("c", c), Column::floats("d", d)};
  } else if (family == "string") {
    static const char* nations[25] = {"ALGERIA",      "ARGENTINA",  "BRAZIL",  "CANADA",         "EGYPT",
                                      "ETHIOPIA",     "FRANCE",     "GERMANY", "INDIA",          "INDONESIA",
                                      "IRAN",         "IRAQ",       "JAPAN",   "JORDAN",         "KENYA",
                                      "MOROCCO",      "MOZAMBIQUE", "PERU",    "CHINA",          "ROMANIA",
                                      "SAUDI ARABIA", "VIETNAM",    "RUSSIA",  "UNITED KINGDOM", "UNITED STATES"};
    std::vector<std::string> a(rows), b(rows), c(rows), d(rows);
    const uint64_t customers = std::max<uint64_t>(1, rows / 100), addresses = std::max<uint64_t>(1, rows / 10);
    for (uint64_t r = 0; r < rows; ++r) {
      a[r] = nations[mix(s) % 25];
      b[r] = "Brand#" + std::to_string(1000 + mix(s) % 1000);
      c[r] = "Customer#" + std::to_string(100000000 + mix(s) % customers);
      d[r] = address(mix(s) % addresses);
    }
    t.columns = {Column::strings("a", a), Column::strings("b", b), Column::strings("c", c), Column::strings("d", d)};
  } else if (family == "string_unique") {
    std::vector<std::string> a(rows), b(rows);
    for (uint64_t r = 0; r < rows; ++r) {
      a[r] = address(mix(s));
      b[r] = "Customer#" + std::to_string(1000000000 + r);
    }
    t.columns = {Column::strings("a", a), Column::strings("b", b)};
  } else {
    const int32_t d1992 = parse_date("1992-01-01")->days, d1900 = parse_date("1900-01-01")->days;
    std::vector<int32_t> a(rows), b(rows), c(rows), d(rows);
    for (uint64_t r = 0; r < rows; ++r) {
      a[r] = d1992 + int32_t(mix(s) % 2557);
      b[r] = d1992 + int32_t(mix(s) % 2557);
      c[r] = d1900 + int32_t(mix(s) % 73414);
      d[r] = d1900 + int32_t(mix(s) % 73414);
    }
    t.columns = {Column::dates("a", a), Column::dates("b", b), Column::dates("c", c), Column::dates("d", d)};
  }
  return t;
}

struct CsvFile {
  std::string path;
  uint64_t bytes = 0;
};

// The file of `family` at `rows` rows, written on first use.
const CsvFile& csv_file(const std::string& family, uint64_t rows, uint64_t seed) {
  static std::map<std::string, CsvFile> files;
  const std::string key = family + "_" + std::to_string(rows) + "_s" + std::to_string(seed);
  auto it = files.find(key);
  if (it != files.end()) return it->second;
  const auto dir = std::filesystem::temp_directory_path() / "gfxq_bench_io";
  std::filesystem::create_directories(dir);
  CsvFile f;
  f.path = (dir / (key + ".csv")).string();
  if (!std::filesystem::exists(f.path)) {
    write_csv_file(f.path + ".tmp", make_table(family, rows, seed));
    std::filesystem::rename(f.path + ".tmp", f.path);
  }
  f.bytes = std::filesystem::file_size(f.path);
  return files.emplace(key, f).first->second;
}

duckdb::Client& duck() {
  static std::unique_ptr<duckdb::Client> client;
  if (!client) {
    try {
      client = std::make_unique<duckdb::Client>();
    } catch (const Error& e) {
      throw Error(ErrorCode::Unsupported, std::string("DuckDB is not available: ") + e.what());
    }
  }
  return *client;
}

// What both engines must agree on: per column, one number as text.
std::vector<std::string> duckdb_summary(const std::string& family) {
  std::string sql = "SELECT COUNT(*)";
  for (const std::string& col : columns_of(family)) {
    if (family == "int") sql += ", SUM(" + col + ")";
    if (family == "float") sql += ", MIN(" + col + "), MAX(" + col + ")";
    if (family.rfind("string", 0) == 0) sql += ", COUNT(DISTINCT " + col + ")";
    if (family == "date") sql += ", MIN(" + col + ") - DATE '1970-01-01', MAX(" + col + ") - DATE '1970-01-01'";
  }
  const duckdb::QueryResult r = duck().query(sql + " FROM io_load");
  std::vector<std::string> out;
  for (const auto& cell : r.rows.at(0)) out.push_back(cell.value_or("NULL"));
  return out;
}

std::vector<std::string> gfxq_summary(const std::string& family, const Table& t) {
  std::vector<std::string> out = {std::to_string(t.rows())};
  for (const Column& c : t.columns) {
    if (family == "int") {
      int64_t sum = 0;
      for (int32_t v : c.as<int32_t>()) sum += v;
      out.push_back(std::to_string(sum));
    } else if (family == "float" || family == "date") {
      const auto minmax = [&](const auto& v) {
        if (v.empty()) {
          out.push_back("NULL");
          out.push_back("NULL");
          return;
        }
        const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
        out.push_back(format_value(*lo));
        out.push_back(format_value(*hi));
      };
      if (family == "float")
        minmax(c.as<float>());
      else
        minmax(c.as<int32_t>());
    } else {
      out.push_back(std::to_string(c.dictionary->size()));
    }
  }
  return out;
}

// DuckDB prints REAL values in its own shortest form: compare floats by value.
bool same(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    float x = 0, y = 0;
    const auto px = std::from_chars(a[i].data(), a[i].data() + a[i].size(), x);
    const auto py = std::from_chars(b[i].data(), b[i].data() + b[i].size(), y);
    if (px.ec != std::errc{} || py.ec != std::errc{} || x != y) return false;
  }
  return true;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The best wall seconds of `repeats` loads of `path` by `engine`, each in a fresh process.
double best_child_load(const std::string& engine, const std::string& path, int repeats) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    int out[2];
    if (::pipe(out) != 0) throw Error(ErrorCode::Io, "io bench: cannot make a pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::string self = "/proc/self/exe", flag = "--io-child";
    std::vector<char*> argv = {self.data(), flag.data(), const_cast<char*>(engine.c_str()),
                               const_cast<char*>(path.c_str()), nullptr};
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    std::string text;
    char buf[256];
    for (ssize_t got; (got = ::read(out[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(got));
    ::close(out[0]);
    int status = 0;
    if (spawned != 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw Error(ErrorCode::Internal, "io bench: the " + engine + " load of " + path + " failed: " + text);
    best = std::min(best, std::stod(text));
  }
  return best;
}

Measurement run_duckdb(Env& env, const std::string& family, uint64_t rows) {
  const CsvFile& f = csv_file(family, rows, env.seed);
  duckdb::Client& db = duck();
  db.load_csv("io_load", f.path);  // untimed: warms the page cache
  Measurement m;
  m.seconds = best_child_load("duckdb", f.path, env.repeats);
  m.bytes = f.bytes;
  m.items = rows * columns_of(family).size();
  m.checked = false;
  m.note = "DuckDB " + db.version() + ", " + std::to_string(std::thread::hardware_concurrency()) +
           " threads, COPY FROM into a typed table, fresh process per load";
  return m;
}

Measurement run_gfxq(Env& env, const std::string& family, uint64_t rows) {
  const CsvFile& f = csv_file(family, rows, env.seed);
  const Table t = read_csv_file(f.path);  // untimed: warms the page cache, and is checked
  Measurement m;
  m.seconds = best_child_load("gfxq", f.path, env.repeats);
  m.bytes = f.bytes;
  m.items = rows * columns_of(family).size();
  const std::vector<std::string> mine = gfxq_summary(family, t);
  try {
    duck().load_csv("io_load", f.path);
    const std::vector<std::string> theirs = duckdb_summary(family);
    if (!same(mine, theirs)) throw Error(ErrorCode::Internal, "gfxq and DuckDB read " + f.path + " differently");
    m.checked = true;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Unsupported) throw;
    m.checked = false;
  }
  m.note = "read_csv_file, " + std::to_string(std::thread::hardware_concurrency()) + " threads, " + t.schema() +
           ", fresh process per load";
  return m;
}

// The column file of one int column at `rows` rows, written on first use.
const CsvFile& column_file(uint64_t rows, uint64_t seed) {
  static std::map<std::string, CsvFile> files;
  const std::string key = "column_int_" + std::to_string(rows) + "_s" + std::to_string(seed);
  auto it = files.find(key);
  if (it != files.end()) return it->second;
  const auto dir = std::filesystem::temp_directory_path() / "gfxq_bench_io";
  std::filesystem::create_directories(dir);
  CsvFile f;
  f.path = (dir / (key + ".gfxq")).string();
  if (!std::filesystem::exists(f.path)) {
    uint64_t s = seed;
    std::vector<int32_t> v(rows);
    for (int32_t& x : v) x = int32_t(uint32_t(mix(s)));
    write_column_file(f.path, Table{{Column::ints("a", std::move(v))}});
  }
  f.bytes = std::filesystem::file_size(f.path);
  return files.emplace(key, f).first->second;
}

// Reads the whole file with read() into fresh memory (advised huge pages, as the loader's columns).
double read_whole_file(const std::string& path) {
  const auto t0 = std::chrono::steady_clock::now();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorCode::Io, "cannot open " + path);
  const auto size = static_cast<size_t>(::lseek(fd, 0, SEEK_END));
  std::vector<char> buffer;
  buffer.reserve(size);
  detail::advise_huge_pages(buffer.data(), size);
  buffer.resize(size);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, buffer.data() + done, size - done, static_cast<off_t>(done));
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  if (done != size) throw Error(ErrorCode::Io, "short read of " + path);
  return seconds_since(t0);
}

Measurement run_column_read(Env& env, uint64_t rows) {
  const CsvFile& f = column_file(rows, env.seed);
  read_whole_file(f.path);  // untimed: warms the page cache
  Measurement m;
  m.seconds = best_child_load("read", f.path, env.repeats);
  m.bytes = f.bytes;
  m.items = rows;
  m.checked = false;
  m.note = "read() of the file into fresh memory, one thread, fresh process per run";
  return m;
}

Measurement run_column_file(Env& env, uint64_t rows) {
  const CsvFile& f = column_file(rows, env.seed);
  const Table t = read_column_file(f.path);  // untimed: warms the page cache, and is checked
  uint64_t s = env.seed;
  const auto& v = t.columns.at(0).as<int32_t>();
  for (uint64_t r = 0; r < rows; ++r)
    if (v[r] != int32_t(uint32_t(mix(s))))
      throw Error(ErrorCode::Internal, "column file read back wrong at row " + std::to_string(r));
  Measurement m;
  m.seconds = best_child_load("column", f.path, env.repeats);
  m.bytes = f.bytes;
  m.items = rows;
  m.note =
      "read_column_file, " + std::to_string(std::thread::hardware_concurrency()) + " threads, fresh process per load";
  return m;
}

struct Register {
  Register() {
    for (const std::string family : {"int", "float", "string", "date", "string_unique"}) {
      registry().push_back(Case{"io.csv_duckdb_" + family, "cpu", "", false,
                                [family](Env& env, uint64_t rows) { return run_duckdb(env, family, rows); }});
      registry().push_back(Case{"io.csv_" + family, "cpu", "io.csv_duckdb_" + family, false,
                                [family](Env& env, uint64_t rows) { return run_gfxq(env, family, rows); }});
    }
    registry().push_back(Case{"io.column_read", "cpu", "", false, run_column_read});
    registry().push_back(Case{"io.column_file_int", "cpu", "io.column_read", false, run_column_file});
  }
} register_io_cases;

}  // namespace

int io_child(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: gfxq_bench --io-child gfxq|duckdb|column|read PATH\n";
    return 2;
  }
  const std::string engine = argv[0], path = argv[1];
  try {
    double seconds = 0;
    if (engine == "gfxq") {
      const auto t0 = std::chrono::steady_clock::now();
      const Table t = read_csv_file(path);
      seconds = seconds_since(t0);
    } else if (engine == "column") {
      const auto t0 = std::chrono::steady_clock::now();
      const Table t = read_column_file(path);
      seconds = seconds_since(t0);
    } else if (engine == "read") {
      seconds = read_whole_file(path);
    } else if (engine == "duckdb") {
      duckdb::Client db;
      seconds = db.load_csv("io_load", path);
    } else {
      std::cerr << "unknown engine " << engine << "\n";
      return 2;
    }
    std::printf("%.9g\n", seconds);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}

}  // namespace gfxq::bench
