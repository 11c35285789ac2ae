#include "cli/cli.h"
#include "cli/gen_ssb.h"

#include <charconv>
#include <fstream>
#include <ostream>
#include <sstream>

#include "gfxq/gfxq.h"

namespace gfxq::cli {

namespace {

constexpr const char* kUsage = R"(usage:
  gfxq info
      OpenGL and Vulkan devices and their capability records.
  gfxq sql [--backend cpu|raster|compute|auto] [--explain] --table NAME=PATH ... "SELECT ..."
      Runs a query; prints the result as CSV on stdout, the execution report on stderr (--explain).
      PATH is a .csv file or a gfxq column file (.gfxq, docs/FORMATS.md).
  gfxq gen --out PATH [--rows N] [--seed S] [--column NAME:TYPE[:DIST[:LO:HI]]] ...
      Writes a generated table as CSV (PATH.csv) or a gfxq column file (PATH.gfxq).
      TYPE int|float; DIST uniform|skewed|sorted|all-equal.
      Default columns: a:int:uniform:0:1000000, b:int:skewed:0:1000, c:float:uniform:0:1.
  gfxq gen ssb --sf N --out DIR [--seed S] [--threads T]
      Writes the Star Schema Benchmark's tables as DIR/lineorder.csv, date.csv, customer.csv,
      supplier.csv, part.csv at scale factor N (0 < N <= 300); docs/SSB.md describes the data.
  gfxq demo [--rows N] [--seed S]
      Generates a table and runs example queries end to end on every backend, headless.
exit status: 0 ok, 2 bad query or input, 3 the backend cannot run the query, 1 other failure.
)";

//! A usage error: exit 2 with the message and a hint.
struct UsageError {
  std::string message;
};

uint64_t parse_u64(const std::string& text, const char* what) {
  uint64_t v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size())
    throw UsageError{std::string(what) + " needs a non-negative integer, got '" + text + "'"};
  return v;
}

double parse_double(const std::string& text, const char* what) {
  double v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size())
    throw UsageError{std::string(what) + " needs a number, got '" + text + "'"};
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

ColumnSpec parse_column_spec(const std::string& text) {
  const auto parts = split(text, ':');
  if (parts.size() < 2 || parts.size() == 4 || parts.size() > 5 || parts[0].empty())
    throw UsageError{"--column needs NAME:TYPE[:DIST[:LO:HI]], got '" + text + "'"};
  ColumnSpec spec;
  spec.name = parts[0];
  if (parts[1] == "int") spec.type = Type::Int32;
  else if (parts[1] == "float") spec.type = Type::Float32;
  else throw UsageError{"--column '" + text + "': type must be int or float"};
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

int cmd_info(std::ostream& out) {
  Engine engine;
  out << engine.gl_capabilities().text() << "\n";
  out << engine.vk_capabilities().text();
  return kOk;
}

int cmd_sql(Args& args, std::ostream& out, std::ostream& err) {
  Backend backend = Backend::Auto;
  bool explain = false;
  Catalog catalog;
  std::string query;
  while (!args.done()) {
    const std::string& a = args.next();
    if (a == "--backend") {
      backend = parse_backend(args.value(a));
    } else if (a == "--explain") {
      explain = true;
    } else if (a == "--table") {
      const std::string& v = args.value(a);
      const auto eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
        throw UsageError{"--table needs NAME=PATH (a .csv or .gfxq file), got '" + v + "'"};
      catalog.add(v.substr(0, eq), read_table_file(v.substr(eq + 1)));
    } else if (a.rfind("--", 0) == 0) {
      throw UsageError{"unknown option '" + a + "' for gfxq sql"};
    } else if (query.empty()) {
      query = a;
    } else {
      throw UsageError{"gfxq sql takes one query; extra argument '" + a + "' (quote the query)"};
    }
  }
  if (query.empty()) throw UsageError{"gfxq sql needs a query, e.g. \"SELECT COUNT(*) FROM t\""};
  Engine engine;
  Result result = engine.execute_sql(query, catalog, backend);
  write_csv(out, result.table, /*typed_header=*/false);
  if (explain) err << result.report.text();
  return kOk;
}

int cmd_gen(Args& args, std::ostream& out) {
  uint64_t rows = 1000, seed = 1;
  std::string path;
  std::vector<ColumnSpec> columns;
  while (!args.done()) {
    const std::string& a = args.next();
    if (a == "--rows") rows = parse_u64(args.value(a), "--rows");
    else if (a == "--seed") seed = parse_u64(args.value(a), "--seed");
    else if (a == "--out") path = args.value(a);
    else if (a == "--column") columns.push_back(parse_column_spec(args.value(a)));
    else throw UsageError{"unknown argument '" + a + "' for gfxq gen"};
  }
  if (path.empty()) throw UsageError{"gfxq gen needs --out PATH.csv or PATH.gfxq"};
  if (columns.empty()) columns = default_columns();
  const Table table = generate_table(columns, rows, seed);
  write_table_file(path, table);
  out << "wrote " << rows << " rows (" << table.schema() << ", seed " << seed << ") to " << path << "\n";
  return kOk;
}

int cmd_demo(Args& args, std::ostream& out) {
  uint64_t rows = 100000, seed = 42;
  while (!args.done()) {
    const std::string& a = args.next();
    if (a == "--rows") rows = parse_u64(args.value(a), "--rows");
    else if (a == "--seed") seed = parse_u64(args.value(a), "--seed");
    else throw UsageError{"unknown argument '" + a + "' for gfxq demo"};
  }
  Engine engine;
  const auto& gl = engine.gl_capabilities();
  const auto& vk = engine.vk_capabilities();
  out << "gfxq demo: " << rows << " generated rows (seed " << seed << ")\n";
  out << "  OpenGL: " << (gl.available ? gl.renderer + " (" + gl.platform + ", GL " + std::to_string(gl.major) + "." +
                                              std::to_string(gl.minor) + ")"
                                        : "unavailable: " + gl.unavailable_reason)
      << "\n";
  out << "  Vulkan: " << (vk.available ? vk.device_name + " (" + vk.device_type + ")" : "unavailable: " + vk.unavailable_reason)
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

int exit_code(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidQuery:
    case ErrorCode::InvalidInput:
    case ErrorCode::Io: return kBadInput;
    case ErrorCode::Unsupported: return kUnsupported;
    default: return kFailure;
  }
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? err : out) << kUsage;
    return args.empty() ? kBadInput : kOk;
  }
  try {
    Args rest(args, 1);
    const std::string& cmd = args[0];
    if (cmd == "info") return cmd_info(out);
    if (cmd == "sql") return cmd_sql(rest, out, err);
    if (cmd == "gen" && args.size() > 1 && args[1] == "ssb") return gen_ssb(args, 2, out, err);
    if (cmd == "gen") return cmd_gen(rest, out);
    if (cmd == "demo") return cmd_demo(rest, out);
    throw UsageError{"unknown command '" + cmd + "'"};
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
