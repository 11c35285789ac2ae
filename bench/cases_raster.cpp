// Raster-path benchmark cases (src/gl/select.h, src/gl/aggregate.h), each timed with GL timer
// queries (best of env.repeats) and checked against a count (aggregates: the SUM or KTH_LARGEST)
// computed on the host. Ceiling: the plain depth-pass fill rate (a constant-depth full-screen pass
// with depth test, stencil write and an occlusion query) over the same tiles, measured in the same
// run; ratios are fragments/s against it.
//
// Joins (raster.join_equi, raster.join_band): the paper's case, outer = rows (2^20 ~ 10^6), inner =
// rows / 100 (~10^4); keys INT uniform in [0, 9999] on both sides, so an equi-join pairs 10^-4 of
// the (outer, inner) pairs and the band s.k BETWEEN r.k - 24 AND r.k + 25 (50 keys) 5 * 10^-3.
// raster.join_equi and join_band batch the probes (one search draw per batch; items: counts, so
// compare their seconds), raster.join_equi_passes counts by occlusion passes per distinct bound,
// raster.join_equi_per_probe by the paper's passes for every probe.
// Sorts (raster.sort_pairs, raster.sort_blend) sort column k and time the network's passes only.
// raster.compare_calibrated and raster.count_query_calibrated run with gl::calibrated_options, the
// options the raster backend runs on this device (the vertex-z constant and the constant by a clear
// where the calibration's probe found them exact); raster.compare and raster.count_query with the
// defaults, so one run compares both.
//
// Data: k and v are INT uniform in [0, 2^24 - 1] (their keys fit a 24-bit window: one pass per
// comparison), f is FLOAT uniform in [0, 1] (32-bit keys: hi16 + lo16 passes), g is INT uniform in
// [0, 1023] (the GROUP BY cases' key: 1024 groups, direct ids).
// GROUP BY (raster.group_by_*): the operator gl::group_by on the held columns, timed by the sum of
// its group-blend passes' GL_TIME_ELAPSED queries (the draws; readbacks and, for rank ids, the
// sort reported apart in the note), checked against the CPU reference engine, whose time for the
// same query in the same run is in the note. raster.group_by_count (one channel) is the primitive
// the others are built of: one point per record at its group's pixel. Tiles are the
// raster path's default (8192 x 8192, or less where the driver's limits are lower), or N x N with
// the environment variable GFXQ_RASTER_TILE=N; textures stay resident while cases run at one size.
#include <glad/gl.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bench.h"
#include "core/bind.h"
#include "core/order_key.h"
#include "gfxq/cpu.h"
#include "gfxq/error.h"
#include "gfxq/sql.h"
#include "gl/aggregate.h"
#include "gl/calibration.h"
#include "gl/check.h"
#include "gl/context.h"
#include "gl/cost.h"
#include "gl/count.h"
#include "gl/group_by.h"
#include "gl/join.h"
#include "gl/select.h"
#include "gl/sort.h"

namespace gfxq::bench {

namespace {

constexpr double kWindowTop = 16777215.0;  // 2^24 - 1
constexpr double kGroups = 1024;           // values of the group column g

// The raster options of every case: the default tile, or GFXQ_RASTER_TILE=N for N x N tiles.
gl::RasterOptions bench_options() {
  gl::RasterOptions options;
  if (const char* tile = std::getenv("GFXQ_RASTER_TILE")) {
    const auto n = static_cast<uint32_t>(std::strtoul(tile, nullptr, 10));
    if (n == 0) throw Error(ErrorCode::InvalidQuery, std::string("GFXQ_RASTER_TILE=") + tile + " is not a tile size");
    options.tile_width = options.tile_height = n;
  }
  return options;
}

// A number with 17 significant digits.
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

gl::Context& context_of(const Env& env) {
  if (!env.gl) throw Error(ErrorCode::Unsupported, "no GL context");
  return *env.gl;
}

// The device's calibration, measured once per run (no cache file: the run's own figures).
const gl::RasterCalibration& calibration(const Env& env) {
  static const gl::RasterCalibration measured = gl::calibrate(context_of(env), "");
  return measured;
}

// `m` with the raster cost model's prediction for `node` in its note, beside the measurement.
Measurement predicted(const Env& env, Measurement m, const gl::PlanNodeShape& node) {
  const gl::CostEstimate e = gl::RasterCostModel(calibration(env)).estimate(node);
  m.note +=
      "; PREDICTED " + std::to_string(e.seconds) + " s (" + std::to_string(e.passes) + " passes; " + e.basis + ")";
  return m;
}

using Shape = gl::PlanNodeShape;

// The table and its uploaded columns at one size, kept while cases run at that size.
struct Data {
  uint64_t rows = 0;
  Table table;
  std::unique_ptr<gl::RasterInput> input;
};

Data& data_for(const Env& env, uint64_t rows) {
  // Never destroyed: its textures belong to the GL context, which main() releases first.
  static auto* held = new Data;
  Data& data = *held;
  if (data.input && data.rows == rows) return data;
  data.input.reset();  // frees the previous size's textures first
  data.rows = rows;
  data.table = generate_table({{"k", Type::Int32, Distribution::Uniform, 0, kWindowTop},
                               {"v", Type::Int32, Distribution::Uniform, 0, kWindowTop},
                               {"f", Type::Float32, Distribution::Uniform, 0, 1},
                               {"g", Type::Int32, Distribution::Uniform, 0, kGroups - 1}},
                              rows, env.seed);
  data.input = std::make_unique<gl::RasterInput>(context_of(env), data.table, std::vector<size_t>{0, 1, 2, 3},
                                                 gl::RasterOptions{});
  return data;
}

// A host count of the rows where `pred(k, v, f)` holds.
template <class Pred>
uint64_t host_count(const Table& t, Pred pred) {
  const auto& k = t.columns[0].as<int32_t>();
  const auto& v = t.columns[1].as<int32_t>();
  const auto& f = t.columns[2].as<float>();
  uint64_t n = 0;
  for (uint64_t i = 0; i < k.size(); ++i) n += pred(k[i], v[i], f[i]) ? 1 : 0;
  return n;
}

// The options of the cases that time one primitive pass: each column copied to depth and compared
// with the constant, then a stencil-only count pass (the plan before constant-by-clear and fused
// counts).
gl::RasterOptions unfused_options() {
  gl::RasterOptions options = bench_options();
  options.constant_by_clear = false;
  options.fuse_count = false;
  return options;
}

// Runs the COUNT of `where` env.repeats times; the time is the best sum of the GPU times of the
// passes whose kind is in `kinds` (all GPU passes when empty), items their fragments, or `rows`
// when `per_row` (the whole query's records per second, against one fill pass over them).
Measurement run_where(Env& env, uint64_t rows, const std::string& where, const std::vector<std::string>& kinds,
                      uint64_t expected, const gl::RasterOptions& options = bench_options(), bool per_row = false) {
  gl::Context& context = context_of(env);
  Data& data = data_for(env, rows);
  const BoundCnf cnf = bind_where(sql::parse("SELECT COUNT(*) FROM t WHERE " + where).where, data.table, "t");
  Measurement m;
  m.seconds = 1e30;
  for (int r = 0; r < std::max(1, env.repeats); ++r) {
    const gl::WhereResult result = gl::evaluate_where(context, *data.input, cnf, gl::WhereOutput::Count, options);
    double ms = 0;
    uint64_t fragments = 0;
    size_t passes = 0;
    for (const auto& p : result.passes) {
      const bool wanted =
          kinds.empty() ? p.kind != "fold" : std::find(kinds.begin(), kinds.end(), p.kind) != kinds.end();
      if (!wanted || p.items == 0) continue;  // a fused count pass draws nothing
      if (!p.gpu_ms) throw Error(ErrorCode::Unsupported, "no GPU timer result for pass " + p.kind);
      ms += *p.gpu_ms;
      fragments += p.items;
      ++passes;
    }
    if (passes == 0) throw Error(ErrorCode::Unsupported, "no timed pass of the wanted kinds in: " + result.algorithm);
    if (result.count != expected) m.checked = false;
    if (ms / 1e3 < m.seconds) {
      m.seconds = ms / 1e3;
      m.items = per_row ? rows : fragments;
      m.note = std::string(per_row ? "items = rows (the query's time against one fill pass over them); " : "") +
               std::to_string(passes) + " timed pass(es) (" + std::to_string(fragments) + " fragments) of " +
               result.algorithm + "; count " + std::to_string(result.count) +
               (result.count == expected ? " (checked)" : " != host count " + std::to_string(expected));
    }
  }
  m.bytes = rows * 4;
  return m;
}

// Runs the aggregate query `sql` (one aggregate item over t) through gl::execute_aggregates
// env.repeats times, each inside one GL_TIME_ELAPSED query around the whole call (per-pass timer
// queries off: they cannot nest). The time is the GPU time of the upload of the query's columns, the
// WHERE's passes and the aggregate passes, including GPU idle time between the bitwise search's round
// trips. Items are the fragments of every GPU pass in the trace (WHERE and aggregate passes; not the
// upload).
Measurement run_aggregate(Env& env, uint64_t rows, const std::string& sql, double expected, double tolerance = 0) {
  gl::Context& context = context_of(env);
  Data& data = data_for(env, rows);
  Catalog catalog;
  catalog.add("t", data.table);
  const BoundQuery bq = bind(sql::parse(sql), catalog);
  gl::RasterOptions options = bench_options();
  options.pass_queries = false;
  GLuint timer = 0;
  glCreateQueries(GL_TIME_ELAPSED, 1, &timer);
  Measurement m;
  m.seconds = 1e30;
  std::string failure;
  try {
    for (int r = 0; r < std::max(1, env.repeats); ++r) {
      std::optional<Result> result;
      {
        gl::ScopedQuery timed(GL_TIME_ELAPSED, timer);
        result = gl::execute_aggregates(context, bq, options);
      }
      GLuint64 ns = 0;
      glGetQueryObjectui64v(timer, GL_QUERY_RESULT, &ns);
      gl::check_error("raster aggregate benchmark");
      uint64_t fragments = 0;
      size_t passes = 0;
      for (const auto& p : result->report.passes) {
        if (p.kind == "fold" || p.kind == "upload") continue;
        fragments += p.items;
        ++passes;
      }
      std::optional<double> got;
      if (result->table.rows() == 1) {
        const Value v = result->table.columns[0].value(0);
        if (const auto* i = std::get_if<int64_t>(&v)) got = double(*i);  // |sum| < 2^53 here: exact
        if (const auto* i = std::get_if<int32_t>(&v)) got = *i;
        if (const auto* d = std::get_if<double>(&v)) got = *d;
      }
      const bool ok = got && std::fabs(*got - expected) <= tolerance;
      if (!ok) m.checked = false;
      if (double(ns) / 1e9 < m.seconds) {
        m.seconds = double(ns) / 1e9;
        m.items = fragments;
        m.note = "GL_TIME_ELAPSED around the whole execute_aggregates call (upload + WHERE + aggregate passes), " +
                 std::to_string(passes) + " GPU pass record(s) of " + result->report.algorithm + "; result " +
                 (got ? number(*got) : std::string("NULL")) +
                 (ok ? " (checked" +
                           (tolerance > 0 ? ", within " + number(tolerance) + " of the host's double sum" : "") + ")"
                     : " != host " + number(expected));
      }
    }
  } catch (const Error& e) {
    failure = e.what();
  }
  glDeleteQueries(1, &timer);
  if (!failure.empty()) throw Error(ErrorCode::Internal, failure);
  m.bytes = rows * 4;
  return m;
}

// The ceiling: a full-screen constant-depth pass per tile with depth test (GL_LESS, passing),
// stencil write (REPLACE) and an occlusion query, on the raster path's framebuffer format.
Measurement depth_fill(Env& env, uint64_t rows) {
  gl::Context& context = context_of(env);
  const auto [w, h] = gl::tile_size(context.caps(), bench_options());
  const gl::TileLayout layout = gl::tile_layout(rows, w, h);
  GLuint depth_stencil = 0, framebuffer = 0, vertex_array = 0, timer = 0;
  glCreateRenderbuffers(1, &depth_stencil);
  glNamedRenderbufferStorage(depth_stencil, GL_DEPTH32F_STENCIL8, GLsizei(layout.width), GLsizei(layout.height));
  glCreateFramebuffers(1, &framebuffer);
  glNamedFramebufferRenderbuffer(framebuffer, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, depth_stencil);
  glNamedFramebufferDrawBuffer(framebuffer, GL_NONE);
  glCreateVertexArrays(1, &vertex_array);
  glCreateQueries(GL_TIME_ELAPSED, 1, &timer);
  const GLuint program = context.program("fullscreen.vert", "raster_empty.frag");
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glBindVertexArray(vertex_array);
  glUseProgram(program);
  glProgramUniform1f(program, 0, 0.5f);
  glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_FALSE);
  glEnable(GL_STENCIL_TEST);
  glStencilFunc(GL_ALWAYS, 1, 0xff);
  glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
  Measurement m;
  m.seconds = 1e30;
  m.note = "fullscreen.vert + raster_empty.frag at depth 0.5 over 1.0, GL_DEPTH32F_STENCIL8 " +
           std::to_string(layout.width) + "x" + std::to_string(layout.height) + ", " + std::to_string(layout.tiles()) +
           " tile(s)";
  std::string failure;
  try {
    for (int r = 0; r < std::max(1, env.repeats); ++r) {
      glStencilMask(0xff);
      glDepthMask(GL_TRUE);
      glClearNamedFramebufferfi(framebuffer, GL_DEPTH_STENCIL, 0, 1.0f, 0);
      glDepthMask(GL_FALSE);
      gl::QueryBatch batch(context);
      std::vector<GLuint> samples;
      uint64_t fragments = 0;
      {
        gl::ScopedQuery timed(GL_TIME_ELAPSED, timer);
        for (uint64_t t = 0; t < layout.tiles(); ++t) {
          glViewport(0, 0, GLsizei(layout.width), GLsizei(layout.pixel_rows(t)));
          samples.push_back(batch.make(GL_SAMPLES_PASSED));
          gl::ScopedQuery counted(GL_SAMPLES_PASSED, samples.back());
          glDrawArrays(GL_TRIANGLES, 0, 3);
          fragments += uint64_t(layout.width) * layout.pixel_rows(t);
        }
      }
      GLuint64 ns = 0;
      glGetQueryObjectui64v(timer, GL_QUERY_RESULT, &ns);
      uint64_t passed = 0;
      for (GLuint q : samples) passed += batch.result(q);
      gl::check_error("depth fill ceiling");
      if (passed != fragments) m.checked = false;
      if (double(ns) / 1e9 < m.seconds) {
        m.seconds = double(ns) / 1e9;
        m.items = fragments;
      }
    }
  } catch (const Error& e) {
    failure = e.what();
  }
  // Back to GL's defaults (as the raster path leaves the context), then release.
  gl::restore_default_state(false);
  glDeleteQueries(1, &timer);
  glDeleteVertexArrays(1, &vertex_array);
  glDeleteFramebuffers(1, &framebuffer);
  glDeleteRenderbuffers(1, &depth_stencil);
  if (!failure.empty()) throw Error(ErrorCode::Internal, failure);
  m.bytes = rows * 4;
  return m;
}

const char* kCeiling = "raster.ceiling_depth_fill";

Registrar ceiling{{kCeiling, "raster", "", true, depth_fill}};

Registrar copy_to_depth{{"raster.copy_to_depth", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                           const auto& t = data_for(env, rows).table;
                           return run_where(env, rows, "k < 8000000", {"copy-to-depth"},
                                            host_count(t, [](int32_t k, int32_t, float) { return k < 8000000; }),
                                            unfused_options());
                         }}};

Registrar compare{{"raster.compare", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                     const auto& t = data_for(env, rows).table;
                     return run_where(env, rows, "k < 8000000", {"compare"},
                                      host_count(t, [](int32_t k, int32_t, float) { return k < 8000000; }),
                                      unfused_options());
                   }}};

Registrar compare_vertex_z{{"raster.compare_vertex_z", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                              // The constant's depth from the vertices' z instead of gl_FragDepth.
                              const auto& t = data_for(env, rows).table;
                              gl::RasterOptions options = unfused_options();
                              options.vertex_constant_depth = true;
                              return run_where(env, rows, "k < 8000000", {"compare"},
                                               host_count(t, [](int32_t k, int32_t, float) { return k < 8000000; }),
                                               options);
                            }}};

Registrar compare_calibrated{
    {"raster.compare_calibrated", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
       // The compare pass the backend runs by default on this device: calibrated_options (the vertex-z
       // constant where the probe found it exact), copy-to-depth then compare, the compare pass timed.
       const auto& t = data_for(env, rows).table;
       gl::RasterOptions options = gl::calibrated_options(calibration(env));
       options.tile_width = bench_options().tile_width;
       options.tile_height = bench_options().tile_height;
       options.constant_by_clear = false;
       options.fuse_count = false;
       Measurement m = run_where(env, rows, "k < 8000000", {"compare"},
                                 host_count(t, [](int32_t k, int32_t, float) { return k < 8000000; }), options);
       m.note += std::string("; calibrated: vertex-z constant ") + (options.vertex_constant_depth ? "on" : "off");
       return m;
     }}};

Registrar compare_32bit{{"raster.compare_32bit_keys", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                           // f < 0.5 on full 32-bit float keys: copy hi16, strict, tie, copy lo16, final.
                           const auto& t = data_for(env, rows).table;
                           return run_where(env, rows, "f < 0.5", {"copy-to-depth", "compare"},
                                            host_count(t, [](int32_t, int32_t, float f) { return f < 0.5f; }));
                         }}};

Registrar range_bounds{{"raster.range_depth_bounds", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                          if (!context_of(env).caps().depth_bounds_test)
                            throw Error(ErrorCode::Unsupported, "no GL_EXT_depth_bounds_test on this driver");
                          const auto& t = data_for(env, rows).table;
                          return run_where(
                              env, rows, "k BETWEEN 3000000 AND 11000000", {},
                              host_count(t, [](int32_t k, int32_t, float) { return k >= 3000000 && k <= 11000000; }));
                        }}};

// A WHERE at CnfLimits' defaults (issue 26): 16 clauses of 16 comparisons, 256 in all, over the
// three columns (k and v through their 24-bit window, f as 32-bit keys), every comparison a pass or
// two. The time is the sum of every pass's GPU time; the count is checked against the CPU engine.
std::string cnf_at_limit() {
  std::string where;
  for (int c = 0; c < 16; ++c) {
    std::string clause;
    for (int t = 0; t < 16; ++t) {
      const int i = c * 16 + t;
      const char* column = i % 3 == 0 ? "k" : (i % 3 == 1 ? "v" : "f");
      const char* op = i % 2 ? " < " : " > ";
      const std::string value = i % 3 == 2 ? number(0.5 + (i % 7) * 0.06) : std::to_string(1000003 * (i % 13));
      clause += (clause.empty() ? "" : " OR ") + std::string(column) + op + value;
    }
    where += (where.empty() ? "(" : " AND (") + clause + ")";
  }
  return where;
}

Registrar cnf_limit{{"raster.cnf_at_limit", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                       const std::string where = cnf_at_limit();
                       Catalog catalog;
                       catalog.add("t", data_for(env, rows).table);
                       const Result want = cpu::execute(sql::parse("SELECT COUNT(*) FROM t WHERE " + where), catalog);
                       return run_where(env, rows, where, {},
                                        uint64_t(std::get<int64_t>(want.table.columns[0].value(0))));
                     }}};

Registrar range_counts{{"raster.range_count_fused", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                          // The same range as two one-pass counts without stencil (records <= hi minus
                          // records < lo: two clears, two fused-count draws), RasterOptions::range_by_counts.
                          const auto& t = data_for(env, rows).table;
                          gl::RasterOptions options = bench_options();
                          options.range_by_counts = true;
                          return run_where(
                              env, rows, "k BETWEEN 3000000 AND 11000000", {},
                              host_count(t, [](int32_t k, int32_t, float) { return k >= 3000000 && k <= 11000000; }),
                              options);
                        }}};

Registrar range_two{{"raster.range_two_pass", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                       const auto& t = data_for(env, rows).table;
                       gl::RasterOptions options = bench_options();
                       options.depth_bounds = false;
                       return run_where(
                           env, rows, "k BETWEEN 3000000 AND 11000000", {},
                           host_count(t, [](int32_t k, int32_t, float) { return k >= 3000000 && k <= 11000000; }),
                           options);
                     }}};

Registrar cnf3{{"raster.cnf3", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                  const auto& t = data_for(env, rows).table;
                  return run_where(env, rows, "(k < 4000000 OR v >= 9000000) AND f < 0.75 AND v <> 12345", {},
                                   host_count(t, [](int32_t k, int32_t v, float f) {
                                     return (k < 4000000 || v >= 9000000) && f < 0.75f && v != 12345;
                                   }));
                }}};

Registrar count{{"raster.count", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                   // The stencil-only count pass alone.
                   const auto& t = data_for(env, rows).table;
                   return run_where(env, rows, "k < 8000000", {"count"},
                                    host_count(t, [](int32_t k, int32_t, float) { return k < 8000000; }),
                                    unfused_options());
                 }}};

Registrar count_query{{"raster.count_query", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                         // A one-clause COUNT as the path runs it: the one-pass COUNT (the constant
                         // cleared into depth, k drawn against it over the records inside the
                         // occlusion queries, no stencil); rows/s.
                         const auto& t = data_for(env, rows).table;
                         return predicted(
                             env,
                             run_where(env, rows, "k < 8000000", {},
                                       host_count(t, [](int32_t k, int32_t, float) { return k < 8000000; }),
                                       bench_options(), true),
                             {.kind = Shape::Kind::Filter, .rows = rows});
                       }}};

Registrar count_query_calibrated{
    {"raster.count_query_calibrated", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
       // The one-clause COUNT with the options the backend runs on this device (calibrated_options):
       // the constant by a clear where clears are exact, the vertex-z constant where it is; rows/s.
       const auto& t = data_for(env, rows).table;
       gl::RasterOptions options = gl::calibrated_options(calibration(env));
       options.tile_width = bench_options().tile_width;
       options.tile_height = bench_options().tile_height;
       Measurement m = run_where(env, rows, "k < 8000000", {},
                                 host_count(t, [](int32_t k, int32_t, float) { return k < 8000000; }), options, true);
       m.note += std::string("; calibrated: constant by clear ") + (options.constant_by_clear ? "on" : "off") +
                 ", vertex-z constant " + (options.vertex_constant_depth ? "on" : "off");
       return m;
     }}};

Registrar count_query_stencil{{"raster.count_query_stencil", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                                 // The same COUNT without the one-pass form: stencil-init, the constant cleared into
                                 // depth, k drawn against it under the stencil with the occlusion count fused (the plan
                                 // before it).
                                 const auto& t = data_for(env, rows).table;
                                 gl::RasterOptions options = bench_options();
                                 options.single_pass_count = false;
                                 return run_where(env, rows, "k < 8000000", {},
                                                  host_count(t, [](int32_t k, int32_t, float) { return k < 8000000; }),
                                                  options, true);
                               }}};

Registrar count_query_unfused{{"raster.count_query_unfused", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                                 // The same COUNT with the passes of before: stencil-init, copy-to-depth, compare,
                                 // count pass.
                                 const auto& t = data_for(env, rows).table;
                                 return run_where(env, rows, "k < 8000000", {},
                                                  host_count(t, [](int32_t k, int32_t, float) { return k < 8000000; }),
                                                  unfused_options(), true);
                               }}};

constexpr int32_t kHalf = 8388608;  // 2^23: k < kHalf selects about half the rows

Registrar sum_bitplanes{{"raster.sum_bitplanes", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                           // SUM by 32 bit-plane occlusion-counted passes over the kept stencil.
                           const auto& k = data_for(env, rows).table.columns[0].as<int32_t>();
                           int64_t sum = 0;
                           for (int32_t x : k)
                             if (x < kHalf) sum += x;
                           return run_aggregate(env, rows, "SELECT SUM(k) FROM t WHERE k < 8388608", sum);
                         }}};

Registrar kth_largest{
    {"raster.kth_largest", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
       // KTH_LARGEST by 32 bitwise-search passes (one occlusion count read back each).
       const auto& k = data_for(env, rows).table.columns[0].as<int32_t>();
       std::vector<int32_t> selected;
       for (int32_t x : k)
         if (x < kHalf) selected.push_back(x);
       if (selected.size() < 1000) throw Error(ErrorCode::Unsupported, "fewer than 1000 selected rows at this size");
       std::nth_element(selected.begin(), selected.begin() + 999, selected.end(), std::greater<int32_t>());
       return run_aggregate(env, rows, "SELECT KTH_LARGEST(k, 1000) FROM t WHERE k < 8388608", selected[999]);
     }}};

Registrar sum_float{{"raster.sum_float_planes", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                       // SUM of FLOAT by exact fixed-point bit planes (one pass per bit position the column
                       // uses), checked within n * 2^-53 * sum|x| of the host's row-order double sum.
                       const Table& t = data_for(env, rows).table;
                       const auto& k = t.columns[0].as<int32_t>();
                       const auto& f = t.columns[2].as<float>();
                       double sum = 0, abs_sum = 0;
                       uint64_t n = 0;
                       for (uint64_t i = 0; i < k.size(); ++i)
                         if (k[i] < kHalf) {
                           sum += f[i];
                           abs_sum += std::fabs(double(f[i]));
                           ++n;
                         }
                       return run_aggregate(env, rows, "SELECT SUM(f) FROM t WHERE k < 8388608", sum,
                                            double(n) * std::ldexp(abs_sum, -53));
                     }}};

constexpr double kJoinDomain = 9999.0;  // keys in [0, 9999]: equi selectivity 10^-4

// Runs SELECT r.i, s.i FROM r JOIN s ON r.k + lo <= s.k <= r.k + hi (outer `rows`, inner rows / 100)
// through gl::execute_join env.repeats times. The time is the sum of the GPU timer queries of the
// passes (the inner sort's stages and the probe batches); items are the fragments those passes
// drew. The pairs (row ids of both sides) are checked against the CPU reference engine's.
Measurement run_join(Env& env, uint64_t rows, double lo, double hi, bool share = true, bool search = true) {
  gl::Context& context = context_of(env);
  const uint64_t inner = std::max<uint64_t>(1, rows / 100);
  Catalog catalog;
  catalog.add("r", generate_table({{"k", Type::Int32, Distribution::Uniform, 0, kJoinDomain},
                                   {"i", Type::Int32, Distribution::Sorted, 0, double(rows - 1)}},
                                  rows, env.seed));
  catalog.add("s", generate_table({{"k", Type::Int32, Distribution::Uniform, 0, kJoinDomain},
                                   {"i", Type::Int32, Distribution::Sorted, 0, double(inner - 1)}},
                                  inner, env.seed + 1));
  Query q;
  q.table = "r";
  q.items = {ColumnRef{"r", "i"}, ColumnRef{"s", "i"}};
  q.join = JoinSpec{"s", ColumnRef{"r", "k"}, ColumnRef{"s", "k"}, lo, hi};
  const BoundQuery bq = bind(q, catalog);
  const Result want = cpu::execute(q, catalog);
  Measurement m;
  m.seconds = 1e30;
  for (int r = 0; r < std::max(1, env.repeats); ++r) {
    const auto wall = std::chrono::steady_clock::now();
    gl::RasterOptions options = bench_options();
    options.join_share_counts = share;
    options.join_search = search;
    const Result got = gl::execute_join(context, bq, options);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    double ms = 0;
    uint64_t fragments = 0, probe_fragments = 0;
    std::string fold_text;
    for (const auto& p : got.report.passes) {
      if (p.kind == "fold") fold_text = p.detail;
      if (!p.gpu_ms) continue;
      ms += *p.gpu_ms;
      fragments += p.items;
      if (p.kind.rfind("probe", 0) == 0) probe_fragments += p.items;
    }
    if (probe_fragments == 0) throw Error(ErrorCode::Unsupported, "no timed probe pass in: " + got.report.algorithm);
    const bool ok = got.table.rows() == want.table.rows() &&
                    got.table.columns[0].as<int32_t>() == want.table.columns[0].as<int32_t>() &&
                    got.table.columns[1].as<int32_t>() == want.table.columns[1].as<int32_t>();
    if (!ok) m.checked = false;
    if (ms / 1e3 < m.seconds) {
      m.seconds = ms / 1e3;
      m.items = fragments;
      m.note = "outer " + std::to_string(rows) + " x inner " + std::to_string(inner) + ", " +
               std::to_string(got.table.rows()) + " pairs" + (ok ? " (checked against the CPU)" : " != CPU") +
               "; GPU timer sum over sort + probe passes, " + std::to_string(probe_fragments) +
               " probe fragments; wall " + std::to_string(wall_s) + " s (host intervals, readbacks, gather); " +
               got.report.algorithm + "; " + fold_text;
    }
  }
  m.bytes = (rows + inner) * 4;
  return m;
}

Registrar join_equi{{"raster.join_equi", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                       return predicted(env, run_join(env, rows, 0, 0),
                                        {.kind = Shape::Kind::Join,
                                         .rows = rows,
                                         .inner_rows = std::max<uint64_t>(1, rows / 100),
                                         .distinct_probes = uint64_t(kJoinDomain) + 1});
                     }}};

Registrar calibration_case{{"raster.calibration", "raster", "", false, [](Env& env, uint64_t) {
                              // The calibration's own measurement (the figures the PREDICTED notes use).
                              const gl::RasterCalibration& c = calibration(env);
                              Measurement m;
                              m.seconds = c.measure_ms / 1e3;
                              m.note = c.text();
                              return m;
                            }}};

Registrar join_equi_per_probe{{"raster.join_equi_per_probe", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                                 // The paper's cost: every probe runs its passes (no counts shared).
                                 return run_join(env, rows, 0, 0, false, false);
                               }}};

Registrar join_equi_passes{{"raster.join_equi_passes", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                              // Occlusion-counted passes per distinct bound (shared counts), no search.
                              return run_join(env, rows, 0, 0, true, false);
                            }}};

Registrar join_band{{"raster.join_band", "raster", kCeiling, true,
                     [](Env& env, uint64_t rows) { return run_join(env, rows, -24, 25); }}};

// One sort of column k (slot 0) of `input`: the pair network (rows and keys) or the blending
// network (keys); returns the sort-network pass's GPU seconds and fragments, and checks the result
// exactly in O(n): pairs form a permutation of the rows whose keys are k's, in ascending
// (key, row id) order — which is exactly std::stable_sort's answer; blending gives keys ascending
// with the same count of every value as k (k < 2^24: one counter per value).
struct SortRun {
  double seconds = 0;
  uint64_t fragments = 0;
  std::string algorithm;
  std::string clock;  // how the time was taken, when not by GPU timestamps
  bool checked = false;
};

SortRun sort_once(gl::Context& context, const gl::RasterInput& input, const std::vector<int32_t>& k, bool blend,
                  const gl::RasterOptions& options) {
  SortRun run;
  std::vector<PassRecord> passes;
  const uint64_t n = k.size();
  if (blend) {
    const gl::KeySortOutput out = gl::sort_keys_blend(context, input, 0, false, options);
    passes = out.passes;
    run.algorithm = out.algorithm;
    std::vector<uint32_t> counts(1u << 24, 0);
    for (int32_t x : k) ++counts[uint32_t(x)];
    bool ok = out.keys.size() == n;
    for (uint64_t i = 0; ok && i < n; ++i) {
      const int32_t x = int_from_key(out.keys[i]);
      ok = x >= 0 && x < (1 << 24) && counts[uint32_t(x)]-- > 0 && (i == 0 || out.keys[i - 1] <= out.keys[i]);
    }
    run.checked = ok;
  } else {
    const gl::SortOutput out = gl::sort_rows(context, input, 0, false, options);
    passes = out.passes;
    run.algorithm = out.algorithm;
    std::vector<bool> seen(n, false);
    bool ok = out.rows.size() == n && out.keys.size() == n;
    for (uint64_t i = 0; ok && i < n; ++i) {
      const uint64_t r = out.rows[i];
      ok = r < n && !seen[r] && out.keys[i] == int_key(k[r]) &&
           (i == 0 || out.keys[i - 1] < out.keys[i] || (out.keys[i - 1] == out.keys[i] && out.rows[i - 1] < r));
      if (ok) seen[r] = true;
      if (!ok)
        run.clock +=
            "; first wrong record at " + std::to_string(i) + ": row " + std::to_string(r) + ", key " +
            std::to_string(out.keys[i]) +
            (i ? ", previous row " + std::to_string(out.rows[i - 1]) + " key " + std::to_string(out.keys[i - 1])
               : std::string());
    }
    run.checked = ok;
  }
  for (const auto& p : passes)
    if (p.kind == "sort-network") {
      // The stage runs between glFinish calls, so its wall time bounds the GPU's from above; it
      // stands in where the driver's timestamps are invalid (NVIDIA at 2^28), and says so.
      run.seconds = (p.gpu_ms ? *p.gpu_ms : p.wall_ms) / 1e3;
      if (!p.gpu_ms)
        run.clock +=
            "; TIME: host wall clock of the network between glFinish calls, because the GPU timestamps were "
            "invalid (" +
            p.detail.substr(p.detail.rfind('(') + 1);
      run.fragments = p.items;
    }
  return run;
}

// A sort case: calibrates the network's fragment rate at 2^22 rows (best of two; below that size
// it just runs),
// estimates one run at `rows` from it and skips above ~20 s; otherwise runs as many repetitions
// (at most env.repeats) as fit in ~20 s and reports the best.
Measurement run_sort(Env& env, uint64_t rows, bool blend, uint32_t steps_per_pass = 0) {
  gl::Context& context = context_of(env);
  gl::RasterOptions options = bench_options();
  options.sort_steps_per_pass = steps_per_pass;
  constexpr double kBudget = 20.0;
  constexpr uint64_t kCalibration = uint64_t(1) << 22;
  const uint64_t padded = std::bit_ceil(rows);
  // Fragments the network draws (sort.cpp): blending 2 draws of N per step, pairs N/2 texels per
  // pass with 1 + sum over s = 2..p of ceil((s - 1) / steps per pass) passes.
  const uint64_t p = uint64_t(std::countr_zero(padded));
  const uint64_t per_pass = steps_per_pass ? steps_per_pass : 2;
  uint64_t passes = blend ? p * (p + 1) / 2 : 1;
  for (uint64_t s = 2; !blend && s <= p; ++s) passes += (s - 1 + per_pass - 1) / per_pass;
  const double fragments = double(passes) * double(padded) * (blend ? 2.0 : 0.5);
  int repeats = std::max(1, env.repeats);
  std::string estimate;
  if (rows > kCalibration) {
    const Table small =
        generate_table({{"k", Type::Int32, Distribution::Uniform, 0, kWindowTop}}, kCalibration, env.seed);
    const gl::RasterInput input(context, small, {0}, options);
    double rate = 0;
    for (int r = 0; r < 2; ++r) {
      const SortRun calibration = sort_once(context, input, small.columns[0].as<int32_t>(), blend, options);
      rate = std::max(rate, double(calibration.fragments) / calibration.seconds);
    }
    const double seconds = fragments / rate;
    estimate = "estimated " + std::to_string(seconds) + " s per sort from " + std::to_string(rate / 1e9) +
               " G fragments/s at 2^22 rows";
    if (seconds > kBudget) throw Error(ErrorCode::Unsupported, "skipped: " + estimate + ", over the ~20 s budget");
    repeats = std::clamp(int(kBudget / seconds), 1, repeats);
  }
  Data& data = data_for(env, rows);
  // The sort reads column k, the first slot of the held input.
  const auto& k = data.table.columns[0].as<int32_t>();
  Measurement m;
  m.seconds = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const SortRun run = sort_once(context, *data.input, k, blend, options);
    if (!run.checked) m.checked = false;
    if (run.seconds < m.seconds) {
      m.seconds = run.seconds;
      m.items = run.fragments;
      m.note = "GL_TIMESTAMP queries around the network passes (init, upload, readback excluded)" + run.clock +
               "; items = fragments the "
               "network draws: " +
               std::string(blend ? "2 x padded n per step (the MIN and MAX draws; the copies are not counted)"
                                 : "padded n / 2 texels per pass (2 records per texel, " + std::to_string(per_pass) +
                                       " texel steps per pass)") +
               ", " + std::to_string(passes) + " passes; best of " + std::to_string(repeats) + "; " + run.algorithm +
               (estimate.empty() ? "" : "; " + estimate) +
               (run.checked ? std::string(blend ? "; checked (ascending, the same count of every value as k)"
                                                : "; checked (std::stable_sort's order, proved in O(n))")
                            : std::string("; WRONG ORDER"));
    }
  }
  m.bytes = rows * (blend ? 4 : 8);
  return m;
}

Registrar sort_pairs{{"raster.sort_pairs", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                        return predicted(env, run_sort(env, rows, false), {.kind = Shape::Kind::Sort, .rows = rows});
                      }}};

// The pair network with 1 texel step per pass (the network before fusion: half as many reads per
// fragment, twice the writes and passes) and with 3 (8 reads per fragment, a third of the passes).
Registrar sort_pairs_1{{"raster.sort_pairs_1step", "raster", kCeiling, true,
                        [](Env& env, uint64_t rows) { return run_sort(env, rows, false, 1); }}};
Registrar sort_pairs_3{{"raster.sort_pairs_3steps", "raster", kCeiling, true,
                        [](Env& env, uint64_t rows) { return run_sort(env, rows, false, 3); }}};

Registrar sort_blend{
    {"raster.sort_blend", "raster", kCeiling, true, [](Env& env, uint64_t rows) { return run_sort(env, rows, true); }}};

// Runs `sql` (SELECT g, aggregates FROM t GROUP BY g) on the CPU reference engine once (its time
// goes in the note), then gl::group_by on the held columns env.repeats times with `ids`. The time
// is the best sum of the group-blend passes' GPU times (the draws); items the points drawn.
Measurement run_group_by(Env& env, uint64_t rows, const std::string& sql, const std::vector<gl::GroupAggregate>& aggs,
                         gl::GroupIds ids) {
  gl::Context& context = context_of(env);
  if (ids == gl::GroupIds::Rank && rows > (uint64_t(1) << 24))
    throw Error(ErrorCode::Unsupported,
                "skipped: rank ids sort every row with the pair network (0.66 s at 2^24, 14.5 s at 2^28 on the H200)");
  Data& data = data_for(env, rows);
  Catalog catalog;
  catalog.add("t", data.table);
  const auto cpu_start = std::chrono::steady_clock::now();
  const Result want = cpu::execute(sql::parse(sql), catalog);
  const double cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - cpu_start).count();
  gl::RasterOptions options = bench_options();
  options.group_ids = ids;
  Measurement m;
  m.seconds = 1e30;
  for (int r = 0; r < std::max(1, env.repeats); ++r) {
    const auto wall = std::chrono::steady_clock::now();
    const gl::GroupByOutput out = gl::group_by(context, *data.input, {3}, aggs, {}, options);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    double ms = 0, sort_ms = 0, readback_ms = 0;
    uint64_t points = 0;
    std::string blends;
    for (const auto& p : out.passes) {
      if (p.kind == "group-blend") {
        if (!p.gpu_ms) throw Error(ErrorCode::Unsupported, "no GPU timer result for " + p.kind);
        ms += *p.gpu_ms;
        points += p.items;
        blends += "; " + p.detail;
      }
      if (p.kind == "group-readback") readback_ms += p.wall_ms;
      if (p.kind == "sort-network") sort_ms += p.gpu_ms.value_or(p.wall_ms);
    }
    bool ok = out.groups() == want.table.rows();
    for (uint64_t g = 0; ok && g < out.groups(); ++g) {
      ok = int_from_key(out.keys[0][g]) == want.table.columns[0].as<int32_t>()[g];
      for (size_t a = 0; ok && a < aggs.size(); ++a) ok = out.value(a, g) == want.table.columns[a + 1].value(g);
    }
    if (!ok) m.checked = false;
    if (ms / 1e3 < m.seconds) {
      m.seconds = ms / 1e3;
      m.items = points;
      m.note = std::to_string(out.groups()) + " groups" + (ok ? " (checked against the CPU)" : " != CPU") +
               "; GL_TIME_ELAPSED sum of the group-blend draws; readbacks " + std::to_string(readback_ms) +
               " ms (host)" + (sort_ms > 0 ? ", rank sort network " + std::to_string(sort_ms) + " ms" : "") +
               ", whole call " + std::to_string(wall_s) + " s wall; CPU reference engine " + std::to_string(cpu_s) +
               " s for the query; " + out.algorithm + blends;
    }
  }
  m.bytes = rows * 4 * (1 + aggs.size());
  return m;
}

const std::vector<gl::GroupAggregate> kCount = {{AggKind::Count, std::nullopt, "COUNT(*)"}};

Registrar group_by_count{
    {"raster.group_by_count", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
       // The primitive: one point per record at its group's pixel, one channel.
       return predicted(env,
                        run_group_by(env, rows, "SELECT g, COUNT(*) FROM t GROUP BY g", kCount, gl::GroupIds::Auto),
                        {.kind = Shape::Kind::GroupBy, .rows = rows, .groups = 1024});
     }}};

Registrar group_by_sum{
    {"raster.group_by_sum", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
       // COUNT and SUM of v (24 bit planes): 25 additive channels, one pass.
       return predicted(env,
                        run_group_by(env, rows, "SELECT g, COUNT(*), SUM(v) FROM t GROUP BY g",
                                     {kCount[0], {AggKind::Sum, 1, "SUM(v)"}}, gl::GroupIds::Auto),
                        {.kind = Shape::Kind::GroupBy, .rows = rows, .sums = 1, .sum_planes = 24, .groups = 1024});
     }}};

Registrar group_by_minmax{
    {"raster.group_by_minmax", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
       // MIN and MAX of v: high 24 bits, then low 8 bits (two rounds).
       return predicted(env,
                        run_group_by(env, rows, "SELECT g, MIN(v), MAX(v) FROM t GROUP BY g",
                                     {{AggKind::Min, 1, "MIN(v)"}, {AggKind::Max, 1, "MAX(v)"}}, gl::GroupIds::Auto),
                        {.kind = Shape::Kind::GroupBy, .rows = rows, .searches = 2, .groups = 1024});
     }}};

Registrar group_by_rank{{"raster.group_by_rank", "raster", kCeiling, true, [](Env& env, uint64_t rows) {
                           // COUNT and SUM with rank ids (the raster sort of g first; its time in the note).
                           return run_group_by(env, rows, "SELECT g, COUNT(*), SUM(v) FROM t GROUP BY g",
                                               {kCount[0], {AggKind::Sum, 1, "SUM(v)"}}, gl::GroupIds::Rank);
                         }}};

}  // namespace

}  // namespace gfxq::bench
