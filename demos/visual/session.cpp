#include "visual/session.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

#include "gfxq/cpu.h"
#include "gfxq/error.h"
#include "gfxq/sql.h"
#include "gl/execute.h"

namespace gfxq::visual {

namespace {

// Tiles no larger than this a side keep every pass's readback small.
constexpr uint32_t kMaxTile = 2048;

constexpr std::array<Example, 7> kExamples{{
    {"range (BETWEEN)", "SELECT COUNT(*) FROM t WHERE a BETWEEN 250000 AND 750000"},
    {"3-clause CNF", "SELECT COUNT(*) FROM t WHERE (a < 300000 OR c > 0.8) AND b >= -500 AND (c < 0.9 OR b = 7)"},
    {"COUNT with WHERE", "SELECT COUNT(*) FROM t WHERE b < 0"},
    {"columns, WHERE, LIMIT", "SELECT a, b, c FROM t WHERE c < 0.01 AND b > 0 LIMIT 10"},
    {"COUNT / SUM / MEDIAN (compute)", "SELECT COUNT(*), SUM(a), MEDIAN(b) FROM t WHERE c < 0.5"},
    {"ORDER BY (sort passes not shown)", "SELECT a, c FROM t WHERE b > 900 ORDER BY c DESC LIMIT 10"},
    {"join (CPU)", "SELECT COUNT(*) FROM t JOIN s ON t.b = s.k WHERE t.a < 100000"},
}};

// The CSV lines of a table (header first), as `gfxq sql` prints them.
std::vector<std::string> csv_lines(const Table& table) {
  std::ostringstream out;
  write_csv(out, table, false);
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Empty when the tables print alike, else the first difference.
std::string difference(const Table& got, const Table& want) {
  const auto a = csv_lines(got), b = csv_lines(want);
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string x = i < a.size() ? a[i] : "(none)", y = i < b.size() ? b[i] : "(none)";
    if (x != y)
      return (i == 0 ? std::string("header") : "row " + std::to_string(i)) + ": got " + x + ", CPU reference " + y +
             " (" + std::to_string(a.size() - 1) + " vs " + std::to_string(b.size() - 1) + " rows)";
  }
  return "";
}

// Square-ish tiles: the records of a table up to kMaxTile^2 rows fill one tile.
gl::RasterOptions raster_options(uint64_t rows, gl::PassObserver& observer) {
  gl::RasterOptions options;
  const auto side = uint32_t(std::clamp<double>(std::ceil(std::sqrt(double(rows))), 1.0, double(kMaxTile)));
  options.tile_width = side;
  options.tile_height = side;
  options.observer = &observer;
  return options;
}

}  // namespace

void add_generated_tables(Catalog& catalog, const GeneratorSettings& settings) {
  catalog.add("t", generate_table({{"a", Type::Int32, settings.dist, 0, 1000000},
                                   {"b", Type::Int32, settings.dist, -1000, 1000},
                                   {"c", Type::Float32, settings.dist, 0, 1}},
                                  settings.rows, settings.seed));
  catalog.add("s", generate_table({{"k", Type::Int32, Distribution::Uniform, -1000, 1000},
                                   {"w", Type::Float32, Distribution::Uniform, -1, 1}},
                                  1000, settings.seed + 1));
}

std::span<const Example> examples() {
  return kExamples;
}

Session::Session(gl::Context& context, Catalog catalog) : context_(context), catalog_(std::move(catalog)) {}

Run Session::run(const std::string& sql) {
  Run run;
  run.sql = sql;
  Query query;
  try {
    query = sql::parse(sql);
    Result reference = cpu::execute(query, catalog_);
    run.reference = std::move(reference.table);
    run.report = std::move(reference.report);  // shown when no GPU backend runs the query
  } catch (const Error& e) {
    run.error = std::string(to_string(e.code())) + ": " + e.what();
    return run;
  }
  try {
    PassRecorder recorder;
    Result r = gl::execute(context_, query, catalog_, raster_options(catalog_.get(query.table).rows(), recorder));
    run.passes = recorder.take();
    run.path = Path::Raster;
    run.report = std::move(r.report);
    run.table = std::move(r.table);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Unsupported) {
      run.error = std::string("raster: ") + to_string(e.code()) + ": " + e.what();
      return run;
    }
    run.raster_error = e.what();
  }
  if (run.path == Path::None) {
    try {
      Result r = engine_.execute(query, catalog_, Backend::Compute);
      run.path = Path::Compute;
      run.report = std::move(r.report);
      run.table = std::move(r.table);
    } catch (const Error& e) {
      run.compute_error = std::string(to_string(e.code())) + ": " + e.what();
      run.path = Path::Cpu;
      run.table = run.reference;
    }
  }
  run.difference = difference(run.table, run.reference);
  return run;
}

}  // namespace gfxq::visual
