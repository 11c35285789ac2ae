#include "cli/cli.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli/format.h"
#include "cli/gen_ssb.h"
#include "cli/shell.h"
#include "gfxq/gfxq.h"
#include "gfxq/placement.h"

#ifndef GFXQ_VERSION
#define GFXQ_VERSION "unknown"
#endif

namespace gfxq::cli {

namespace {

constexpr const char* kUsage =
    R"(usage: gfxq COMMAND [OPTIONS]   (gfxq help COMMAND, or COMMAND --help, for its options)
  gfxq info
      OpenGL and Vulkan devices and their capability records.
  gfxq sql [--backend cpu|raster|compute|auto] [--devices LIST] [--explain|--plan] --table NAME=PATH ... "SELECT ..."
      Runs a query; prints the result (CSV, or --format table|json, to --output FILE), the
      execution report on stderr (--explain), or only the placed plan (--plan, runs nothing).
      PATH is a .csv file or a gfxq column file (.gfxq).
  gfxq shell [--backend B] [--devices LIST] [--table NAME=PATH ...] [-f FILE]
      Reads SQL statements (ending in ';') and dot commands from the terminal, a pipe or FILE;
      tables stay loaded (and resident on the GPU) across statements. .help lists the commands.
  gfxq gen --out PATH [--rows N] [--seed S] [--column NAME:TYPE[:DIST[:LO:HI]]] ...
      Writes a generated table as CSV (PATH.csv) or a gfxq column file (PATH.gfxq).
  gfxq gen ssb --sf N --out DIR [--seed S] [--threads T]
      Writes the Star Schema Benchmark's tables as DIR/lineorder.csv, date.csv, customer.csv,
      supplier.csv, part.csv at scale factor N (0 < N <= 300); docs/SSB.md describes the data.
  gfxq convert IN OUT
      Converts a table between .csv and .gfxq (docs/FORMATS.md).
  gfxq demo [--rows N] [--seed S]
      Generates a table and runs example queries end to end on every backend, headless.
  gfxq --version
exit status: 0 ok, 2 bad query or input, 3 the backend cannot run the query, 1 other failure.
)";

constexpr const char* kInfoHelp = R"(usage: gfxq info
  Starts an OpenGL and a Vulkan context and prints their capability records: the device, the
  driver, and what each backend can use (depth bounds test, occlusion counter bits, subgroup size,
  shared memory, storage binding size, ...). GFXQ_VK_DEVICE=<index or name> picks the Vulkan device.
)";

constexpr const char* kSqlHelp = R"(usage: gfxq sql [OPTIONS] --table NAME=PATH ... "SELECT ..."
  Runs one query over the named tables and prints its result.
options:
  --table NAME=PATH    a table: PATH is .csv (docs/SQL.md, "CSV") or .gfxq (docs/FORMATS.md); repeatable
  --backend B          cpu | raster | compute | auto (default auto: compute on a GPU, else cpu)
  --devices LIST       Vulkan devices, e.g. 0,1: the query runs partitioned across them when its plan
                       splits exactly (docs/MULTI_GPU.md; --explain shows each device's part);
                       default GFXQ_VK_DEVICE, which takes the same list
  --explain            the execution report on stderr: the plan with each node's backend,
                       algorithm, rows and time, why it was placed there, every pass with its GPU
                       time (timing makes the host wait for each pass), and the GPU submissions
  --plan               print the plan with each node's placement and why, and run nothing
  --output FILE        write the result to FILE instead of stdout
  --format F           csv (default; header, then rows) | table (aligned columns) | json (an array of
                       row objects); without --format, an --output FILE ending in .json or .txt
                       picks json or table
exit status: 0 ok, 2 bad query or input (the message says what and where), 3 the backend cannot
run the query (it names the operator and why), 1 other failure.
)";

constexpr const char* kShellHelp = R"(usage: gfxq shell [OPTIONS]
  Reads SQL statements and dot commands, one process, one engine: tables stay loaded, and their
  columns resident on the GPU, across statements. Statements end with ';' and may span lines.
  In a terminal: prompts and aligned tables; from a pipe or -f FILE: CSV, no prompts.
options:
  --table NAME=PATH    load a table first (.csv or .gfxq); repeatable
  --backend B          cpu | raster | compute | auto (default auto); .backend changes it
  --devices LIST       Vulkan devices, e.g. 0,1: queries run partitioned across them (docs/MULTI_GPU.md)
  --format F           table | csv | json; .mode changes it
  -f FILE              read the statements from FILE instead of standard input
dot commands: .load NAME PATH, .drop NAME, .tables, .schema NAME, .backend B, .explain on|off,
  .timer on|off, .mode table|csv|json, .read FILE, .help, .quit
exit status: 0 when every statement succeeded, else the status of the first that failed (2 bad
query or input, 3 the backend cannot run it, 1 other failure); the shell goes on after an error.
)";

constexpr const char* kGenHelp =
    R"(usage: gfxq gen --out PATH [--rows N] [--seed S] [--column NAME:TYPE[:DIST[:LO:HI]]] ...
  Writes a seeded generated table (the same seed gives the same table on every machine).
options:
  --out PATH           PATH.csv: CSV with a typed header; PATH.gfxq: a gfxq column file
  --rows N             rows (default 1000)
  --seed S             seed (default 1)
  --column SPEC        NAME:TYPE[:DIST[:LO:HI]], repeatable; TYPE int|float; DIST uniform|skewed|
                       sorted|all-equal; LO, HI the value range. Default columns:
                       a:int:uniform:0:1000000, b:int:skewed:0:1000, c:float:uniform:0:1
  gfxq gen ssb ...     the Star Schema Benchmark's tables (gfxq help gen ssb)
)";

constexpr const char* kGenSsbHelp = R"(usage: gfxq gen ssb --sf N --out DIR [--seed S] [--threads T]
  Writes the Star Schema Benchmark's five tables as typed CSV files DIR/lineorder.csv, date.csv,
  customer.csv, supplier.csv, part.csv (docs/SSB.md), the same bytes for every thread count.
options:
  --sf N               scale factor, 0 < N <= 300 (lineorder has about 6,000,000 N rows)
  --out DIR            the folder (created if missing)
  --seed S             seed (default 1)
  --threads T          worker threads (default: all cores)
)";

constexpr const char* kConvertHelp = R"(usage: gfxq convert IN OUT
  Reads the table IN and writes it as OUT; each is a .csv file or a gfxq column file (.gfxq).
  CSV is read and written on all cores; a .gfxq file loads at page-cache speed (docs/FORMATS.md).
)";

constexpr const char* kDemoHelp = R"(usage: gfxq demo [--rows N] [--seed S]
  Generates a table (default 100000 rows, seed 42) and runs example queries on the CPU reference
  engine, then on the raster and compute backends, saying whether each gives the same result.
)";

//! A usage error: exit 2 with the message and a hint.
struct UsageError {
  std::string message;
};

// Edit distance between two short words: insertions, deletions, substitutions and swaps of two
// neighbouring characters ("tabel" is one swap from "table").
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> closest(const std::string& word, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    if (word.size() >= 3 && c.rfind(word, 0) == 0) return c;  // a prefix: "--tab" is "--table"
    const size_t d = edit_distance(word, c);
    const size_t allowed = std::max<size_t>(1, std::min(word.size(), c.size()) / 3);
    if (d <= allowed && (!best || d < best_distance)) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string progress_line(const std::string& what, uint64_t done, uint64_t total, const char* unit, double seconds) {
  const auto amount = [&](uint64_t n) {
    char buf[32];
    if (std::string(unit) == "B") {
      const double v = double(n);
      if (v >= 1e9)
        std::snprintf(buf, sizeof buf, "%.2f GB", v / 1e9);
      else if (v >= 1e6)
        std::snprintf(buf, sizeof buf, "%.1f MB", v / 1e6);
      else
        std::snprintf(buf, sizeof buf, "%.0f kB", v / 1e3);
    } else {
      std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(n), unit);
    }
    return std::string(buf);
  };
  std::string line = what + ": " + amount(done) + " of " + amount(total);
  char buf[96];
  const double percent = total ? 100.0 * double(done) / double(total) : 100.0;
  std::snprintf(buf, sizeof buf, " (%.0f%%)", percent);
  line += buf;
  if (seconds > 0 && done > 0) {
    const double rate = double(done) / seconds;
    line += ", " + amount(static_cast<uint64_t>(rate)) + "/s";
    if (done < total) {
      std::snprintf(buf, sizeof buf, ", ETA %.0f s", double(total - done) / rate);
      line += buf;
    }
  }
  return line;
}

namespace {

//! A progress line on stderr, redrawn at most ten times a second; only when stderr is a terminal.
class Progress {
 public:
  Progress(std::ostream& err, std::string what, const char* unit)
      : err_(err), enabled_(&err == &std::cerr && ::isatty(STDERR_FILENO)), what_(std::move(what)), unit_(unit) {}
  ~Progress() {
    if (shown_) err_ << "\r\033[K" << std::flush;  // clear the line: the result follows
  }
  //! A callback for CsvReadOptions/CsvWriteOptions::progress, or empty when not shown.
  std::function<void(uint64_t, uint64_t)> callback() {
    if (!enabled_) return {};
    return [this](uint64_t done, uint64_t total) { update(done, total); };
  }

 private:
  void update(uint64_t done, uint64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (shown_ && done < total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    shown_ = true;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    err_ << "\r\033[K" << progress_line(what_, done, total, unit_, seconds) << std::flush;
  }

  std::ostream& err_;
  bool enabled_;
  std::string what_;
  const char* unit_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A table file read with a progress line for CSV.
Table load_table(const std::string& path, std::ostream& err) {
  if (ends_with(path, ".csv")) {
    Progress progress(err, "reading " + excerpt(path, 4096), "B");
    CsvReadOptions options;
    options.progress = progress.callback();
    return read_csv_file(path, options);
  }
  return read_table_file(path);
}

// A table file written with a progress line for CSV.
void save_table(const std::string& path, const Table& table, std::ostream& err) {
  if (ends_with(path, ".csv")) {
    Progress progress(err, "writing " + path, "rows");
    CsvWriteOptions options;
    options.progress = progress.callback();
    write_csv_file(path, table, options);
    return;
  }
  write_table_file(path, table);
}

uint64_t parse_u64(const std::string& text, const char* what) {
  uint64_t v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size())
    throw UsageError{std::string(what) + " needs a non-negative integer below 2^64, got '" + excerpt(text) + "'"};
  return v;
}

double parse_double(const std::string& text, const char* what) {
  double v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size())
    throw UsageError{std::string(what) + " needs a number, got '" + excerpt(text) + "'"};
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

// "unknown option '--x' for gfxq sql", with the closest known option when one is close.
UsageError unknown(const std::string& what, const std::string& word, const std::string& command,
                   const std::vector<std::string>& known) {
  std::string message = "unknown " + what + " '" + excerpt(word) + "' for gfxq " + command;
  if (const auto guess = closest(word, known)) message += "; did you mean '" + *guess + "'?";
  return UsageError{message};
}

//! Walks argv: flags with values and positional arguments.
class Args {
 public:
  explicit Args(const std::vector<std::string>& args, size_t first) : args_(args), i_(first) {}
  bool done() const { return i_ >= args_.size(); }
  const std::string& next() { return args_[i_++]; }
  const std::string& value(const std::string& flag) {
    if (done()) throw UsageError{flag + " needs a value"};
    return next();
  }

 private:
  const std::vector<std::string>& args_;
  size_t i_;
};

bool wants_help(const std::vector<std::string>& args, size_t first) {
  return std::any_of(args.begin() + static_cast<ptrdiff_t>(std::min(first, args.size())), args.end(),
                     [](const std::string& a) { return a == "--help" || a == "-h"; });
}

ColumnSpec parse_column_spec(const std::string& text) {
  const auto parts = split(text, ':');
  if (parts.size() < 2 || parts.size() == 4 || parts.size() > 5 || parts[0].empty())
    throw UsageError{"--column needs NAME:TYPE[:DIST[:LO:HI]], got '" + excerpt(text) + "'"};
  ColumnSpec spec;
  spec.name = parts[0];
  if (parts[1] == "int")
    spec.type = Type::Int32;
  else if (parts[1] == "float")
    spec.type = Type::Float32;
  else
    throw UsageError{"--column '" + excerpt(text) + "': type must be int or float"};
  if (parts.size() >= 3) spec.dist = parse_distribution(parts[2]);
  if (parts.size() == 5) {
    spec.lo = parse_double(parts[3], "--column LO");
    spec.hi = parse_double(parts[4], "--column HI");
  }
  return spec;
}

std::vector<ColumnSpec> default_columns() {
  return {{"a", Type::Int32, Distribution::Uniform, 0, 1000000},
          {"b", Type::Int32, Distribution::Skewed, 0, 1000},
          {"c", Type::Float32, Distribution::Uniform, 0, 1}};
}

int cmd_info(Args& args, std::ostream& out) {
  if (!args.done()) throw unknown("argument", args.next(), "info", {"--help"});
  Engine engine;
  out << engine.gl_capabilities().text() << "\n";
  out << engine.vk_capabilities().text() << "\n";
  out << placement_figures();
  return kOk;
}

Format parse_format(const std::string& text) {
  if (const auto f = format_named(text)) return *f;
  std::string message = "--format takes csv, table or json, got '" + excerpt(text) + "'";
  if (const auto guess = closest(text, {"csv", "table", "json"})) message += "; did you mean '" + *guess + "'?";
  throw UsageError{message};
}

//! The value of --backend: its names as to_string(Backend) gives them.
Backend backend_option(const std::string& text) {
  try {
    return parse_backend(text);
  } catch (const Error&) {
    throw UsageError{"--backend must be cpu, raster, compute or auto, got '" + excerpt(text) + "'"};
  }
}

// Loads the table of a --table NAME=PATH option into `catalog`.
void add_table(Catalog& catalog, const std::string& v, std::ostream& err) {
  const auto eq = v.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
    throw UsageError{"--table needs NAME=PATH (a .csv or .gfxq file), got '" + excerpt(v) + "'"};
  const std::string name = v.substr(0, eq);
  if (!sql::is_identifier(name))
    throw UsageError{"--table name '" + excerpt(name) +
                     "' cannot be named in a query (a letter or '_', then letters, digits or '_'; not a keyword)"};
  if (catalog.contains(name)) throw UsageError{"--table " + name + " is given twice"};
  catalog.add(name, load_table(v.substr(eq + 1), err));
}

//! The value of --devices: device choices separated by commas.
std::vector<std::string> devices_option(const std::string& text) {
  std::vector<std::string> devices;
  for (size_t at = 0;;) {
    const size_t end = text.find(',', at);
    devices.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (devices.back().empty())
      throw UsageError{"--devices '" + excerpt(text) + "': entry " + std::to_string(devices.size() - 1) +
                       " is empty (a list of device indices or names, e.g. 0,1)"};
    if (end == std::string::npos) return devices;
    at = end + 1;
  }
}

int cmd_sql(Args& args, std::ostream& out, std::ostream& err) {
  static const std::vector<std::string> kOptions = {"--backend", "--devices", "--explain", "--plan",
                                                    "--table",   "--output",  "--format",  "--help"};
  Backend backend = Backend::Auto;
  EngineOptions engine_options;
  bool explain = false, plan = false;
  Catalog catalog;
  std::string query, output;
  std::optional<Format> format;
  while (!args.done()) {
    const std::string& a = args.next();
    if (a == "--backend") {
      backend = backend_option(args.value(a));
    } else if (a == "--devices") {
      engine_options.vk_devices = devices_option(args.value(a));
    } else if (a == "--explain") {
      explain = true;
      engine_options.gpu_timing = true;
    } else if (a == "--plan") {
      plan = true;
    } else if (a == "--table") {
      add_table(catalog, args.value(a), err);
    } else if (a == "--output") {
      output = args.value(a);
    } else if (a == "--format") {
      format = parse_format(args.value(a));
    } else if (a.size() > 1 && a[0] == '-') {
      throw unknown("option", a, "sql", kOptions);
    } else if (query.empty()) {
      query = a;
    } else {
      throw UsageError{"gfxq sql takes one query; extra argument '" + excerpt(a) + "' (quote the query)"};
    }
  }
  if (query.empty()) throw UsageError{"gfxq sql needs a query, e.g. \"SELECT COUNT(*) FROM t\""};
  if (!format)
    format = ends_with(output, ".json") ? Format::Json : ends_with(output, ".txt") ? Format::Table : Format::Csv;
  Engine engine(engine_options);
  if (plan) {
    out << engine.explain_sql(query, catalog, backend).text();
    return kOk;
  }
  Result result = engine.execute_sql(query, catalog, backend);
  if (output.empty()) {
    write_result(out, result.table, *format);
  } else {
    std::ostringstream text;
    write_result(text, result.table, *format);
    std::ofstream file(output, std::ios::binary | std::ios::trunc);
    if (!file.is_open()) throw Error(ErrorCode::Io, "cannot open '" + excerpt(output, 4096) + "' for writing");
    const std::string bytes = text.str();
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    file.close();
    if (file.fail()) throw Error(ErrorCode::Io, "cannot write '" + excerpt(output, 4096) + "'");
  }
  if (explain) err << result.report.text();
  return kOk;
}

int cmd_shell(Args& args, std::ostream& out, std::ostream& err) {
  static const std::vector<std::string> kOptions = {"--backend", "--devices", "--table", "-f", "--format", "--help"};
  ShellOptions options;
  EngineOptions engine_options;
  Catalog catalog;
  std::string file;
  bool format_given = false;
  while (!args.done()) {
    const std::string& a = args.next();
    if (a == "--backend") {
      options.backend = backend_option(args.value(a));
    } else if (a == "--devices") {
      engine_options.vk_devices = devices_option(args.value(a));
    } else if (a == "--table") {
      add_table(catalog, args.value(a), err);
    } else if (a == "-f") {
      file = args.value(a);
    } else if (a == "--format") {
      options.format = parse_format(args.value(a));
      format_given = true;
    } else {
      throw unknown("option", a, "shell", kOptions);
    }
  }
  Engine engine(engine_options);
  if (!file.empty()) {
    std::ifstream in(file);
    if (!in) throw Error(ErrorCode::Io, "cannot open '" + excerpt(file, 4096) + "'");
    if (!format_given) options.format = Format::Csv;
    return run_shell(in, out, err, catalog, engine, options);
  }
  // A terminal gets prompts and aligned tables; a pipe gets CSV.
  const bool terminal = &out == &std::cout && ::isatty(STDIN_FILENO) && ::isatty(STDOUT_FILENO);
  options.prompt = terminal;
  if (!format_given && !terminal) options.format = Format::Csv;
  return run_shell(std::cin, out, err, catalog, engine, options);
}

int cmd_gen(Args& args, std::ostream& out, std::ostream& err) {
  static const std::vector<std::string> kOptions = {"--rows", "--seed", "--out", "--column", "--help"};
  uint64_t rows = 1000, seed = 1;
  std::string path;
  std::vector<ColumnSpec> columns;
  while (!args.done()) {
    const std::string& a = args.next();
    if (a == "--rows")
      rows = parse_u64(args.value(a), "--rows");
    else if (a == "--seed")
      seed = parse_u64(args.value(a), "--seed");
    else if (a == "--out")
      path = args.value(a);
    else if (a == "--column")
      columns.push_back(parse_column_spec(args.value(a)));
    else
      throw unknown("argument", a, "gen", kOptions);
  }
  if (path.empty()) throw UsageError{"gfxq gen needs --out PATH.csv or PATH.gfxq"};
  if (!ends_with(path, ".csv") && !ends_with(path, ".gfxq"))
    throw UsageError{"gfxq gen --out takes a .csv or .gfxq path, got '" + excerpt(path) + "'"};
  if (columns.empty()) columns = default_columns();
  Table table;
  try {
    table = generate_table(columns, rows, seed);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::ResultTooLarge) throw;
    throw UsageError{"--rows " + std::to_string(rows) + " is too many: " + e.what()};
  }
  save_table(path, table, err);
  out << "wrote " << rows << " rows (" << table.schema() << ", seed " << seed << ") to " << path << "\n";
  return kOk;
}

int cmd_gen_ssb(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  static const std::vector<std::string> kOptions = {"--sf", "--out", "--seed", "--threads", "--help"};
  // Options are checked here for a close match; gen_ssb reads them.
  for (size_t i = 2; i < args.size(); i += 2)
    if (std::find(kOptions.begin(), kOptions.end(), args[i]) == kOptions.end())
      throw unknown("argument", args[i], "gen ssb", kOptions);
  return gen_ssb(args, 2, out, err);
}

int cmd_convert(Args& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> paths;
  while (!args.done()) {
    const std::string& a = args.next();
    if (a.rfind("--", 0) == 0) throw unknown("option", a, "convert", {"--help"});
    paths.push_back(a);
  }
  if (paths.size() != 2) throw UsageError{"gfxq convert takes IN and OUT, e.g. gfxq convert t.csv t.gfxq"};
  if (!ends_with(paths[1], ".csv") && !ends_with(paths[1], ".gfxq"))
    throw UsageError{"gfxq convert writes a .csv or .gfxq path, got '" + paths[1] + "'"};
  const auto start = std::chrono::steady_clock::now();
  const Table table = load_table(paths[0], err);
  save_table(paths[1], table, err);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "wrote " << table.rows() << " rows (" << table.schema() << ") from " << paths[0] << " to " << paths[1]
      << " in " << seconds << " s\n";
  return kOk;
}

int cmd_demo(Args& args, std::ostream& out) {
  static const std::vector<std::string> kOptions = {"--rows", "--seed", "--help"};
  uint64_t rows = 100000, seed = 42;
  while (!args.done()) {
    const std::string& a = args.next();
    if (a == "--rows")
      rows = parse_u64(args.value(a), "--rows");
    else if (a == "--seed")
      seed = parse_u64(args.value(a), "--seed");
    else
      throw unknown("argument", a, "demo", kOptions);
  }
  Engine engine;
  const auto& gl = engine.gl_capabilities();
  const auto& vk = engine.vk_capabilities();
  out << "gfxq demo: " << rows << " generated rows (seed " << seed << ")\n";
  out << "  OpenGL: "
      << (gl.available ? gl.renderer + " (" + gl.platform + ", GL " + std::to_string(gl.major) + "." +
                             std::to_string(gl.minor) + ")"
                       : "unavailable: " + gl.unavailable_reason)
      << "\n";
  out << "  Vulkan: "
      << (vk.available ? vk.device_name + " (" + vk.device_type + ")" : "unavailable: " + vk.unavailable_reason)
      << "\n\n";

  Catalog catalog;
  catalog.add("t", generate_table(default_columns(), rows, seed));
  catalog.add("s", generate_table({{"b", Type::Int32, Distribution::Uniform, 0, 1000},
                                   {"w", Type::Float32, Distribution::Uniform, -1, 1}},
                                  1000, seed + 1));
  const char* queries[] = {
      "SELECT COUNT(*) FROM t WHERE a BETWEEN 250000 AND 750000",
      "SELECT COUNT(*), SUM(a), AVG(c) FROM t WHERE (a < 500000 OR b = 0) AND c >= 0.25 AND NOT b > 900",
      "SELECT MIN(a), MAX(a), MEDIAN(a), QUANTILE(c, 0.9), KTH_LARGEST(b, 10) FROM t WHERE c < 0.5",
      "SELECT b, COUNT(*), SUM(a) FROM t WHERE b < 5 GROUP BY b",
      "SELECT a, b, c FROM t WHERE a > 990000 ORDER BY c DESC LIMIT 5",
      "SELECT COUNT(*) FROM t JOIN s ON t.b = s.b WHERE t.a < 1000",
  };
  for (const char* q : queries) {
    out << "> " << q << "\n";
    Result reference = engine.execute_sql(q, catalog, Backend::Cpu);
    write_csv(out, reference.table, false);
    out << reference.report.text();
    for (Backend b : {Backend::Raster, Backend::Compute}) {
      try {
        Result r = engine.execute_sql(q, catalog, b);
        std::ostringstream got, want;
        write_csv(got, r.table, false);
        write_csv(want, reference.table, false);
        out << "  " << to_string(b) << ": " << (got.str() == want.str() ? "same result as cpu" : "DIFFERS from cpu")
            << " (" << r.report.algorithm << ", " << r.report.total_ms << " ms)\n";
      } catch (const Error& e) {
        out << "  " << to_string(b) << ": " << to_string(e.code()) << ": " << e.what() << "\n";
      }
    }
    out << "\n";
  }
  return kOk;
}

const std::vector<std::string>& command_names() {
  static const std::vector<std::string> names = {"info", "sql", "shell", "gen", "convert", "demo", "help", "version"};
  return names;
}

// The help of `command` (words after "help", or the command with --help).
const char* help_of(const std::vector<std::string>& words) {
  if (words.empty()) return kUsage;
  const std::string& c = words[0];
  if (c == "info") return kInfoHelp;
  if (c == "sql") return kSqlHelp;
  if (c == "shell") return kShellHelp;
  if (c == "gen") return words.size() > 1 && words[1] == "ssb" ? kGenSsbHelp : kGenHelp;
  if (c == "convert") return kConvertHelp;
  if (c == "demo") return kDemoHelp;
  if (c == "help" || c == "version" || c == "--version") return kUsage;
  throw unknown("command", c, "help", command_names());
}

}  // namespace

int exit_code(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidQuery:
    case ErrorCode::InvalidInput:
    case ErrorCode::Io: return kBadInput;
    case ErrorCode::Unsupported: return kUnsupported;
    default: return kFailure;
  }
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    if (args.empty()) {
      err << kUsage;
      return kBadInput;
    }
    const std::string& cmd = args[0];
    if (cmd == "--help" || cmd == "-h") {
      out << kUsage;
      return kOk;
    }
    if (cmd == "help") {
      out << help_of(std::vector<std::string>(args.begin() + 1, args.end()));
      return kOk;
    }
    if (cmd == "--version" || cmd == "version") {
      out << "gfxq " << GFXQ_VERSION << "\n";
      return kOk;
    }
    const bool ssb = cmd == "gen" && args.size() > 1 && args[1] == "ssb";
    if (std::find(command_names().begin(), command_names().end(), cmd) != command_names().end() &&
        wants_help(args, 1)) {
      out << help_of({cmd, ssb ? "ssb" : ""});
      return kOk;
    }
    Args rest(args, 1);
    if (cmd == "info") return cmd_info(rest, out);
    if (cmd == "sql") return cmd_sql(rest, out, err);
    if (cmd == "shell") return cmd_shell(rest, out, err);
    if (ssb) return cmd_gen_ssb(args, out, err);
    if (cmd == "gen") return cmd_gen(rest, out, err);
    if (cmd == "convert") return cmd_convert(rest, out, err);
    if (cmd == "demo") return cmd_demo(rest, out);
    std::string message = "unknown command '" + excerpt(cmd) + "'";
    if (const auto guess = closest(cmd, command_names())) message += "; did you mean '" + *guess + "'?";
    throw UsageError{message};
  } catch (const UsageError& e) {
    err << "gfxq: " << e.message << "\n(run 'gfxq help' for usage)\n";
    return kBadInput;
  } catch (const Error& e) {
    err << "gfxq: " << to_string(e.code()) << ": " << e.what() << "\n";
    return exit_code(e.code());
  } catch (const std::exception& e) {
    err << "gfxq: internal error: " << e.what() << "\n";
    return kFailure;
  }
}

}  // namespace gfxq::cli
