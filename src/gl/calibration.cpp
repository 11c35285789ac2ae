#include "gl/calibration.h"

#include <glad/gl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "core/trace_text.h"
#include "gfxq/error.h"
#include "gl/check.h"
#include "gl/context.h"
#include "gl/count.h"
#include "gl/depth_encode.h"
#include "gl/group_by.h"
#include "gl/select.h"
#include "gl/storage.h"

namespace gfxq::gl {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kHeader = "# gfxq raster calibration v2";
constexpr uint32_t kMinSide = 256;        // the rate passes' framebuffer side, doubled while a
constexpr uint32_t kMaxSide = 2048;       // measurement lasts less than kEnough
constexpr double kEnough = 1e-3;          // GPU seconds a rate measurement should last
constexpr int kDraws = 4;                 // draws per timed rate measurement
constexpr int kRepeats = 3;               // timed measurements; the best counts
constexpr uint32_t kSmallSide = 8;        // the overhead passes' viewport side
constexpr int kSmallDraws = 256;          // small passes timed together
constexpr uint32_t kProbeSide = 256;      // the exactness probe's framebuffer side
constexpr uint64_t kMinPoints = 1 << 12;  // records of the GROUP BY point measurement, times 4
constexpr uint64_t kMaxPoints = 1 << 22;  // while it takes less than kEnough seconds
constexpr uint32_t kReadbackSide = 512;   // the readback's RGBA32F texture side (4 MiB)
constexpr int32_t kQueryRows = 4096;      // rows of the whole small query

// The depth values the exactness probe compares: 24-bit boundaries and a few others.
constexpr uint32_t kProbeKeys[] = {1,        2,        255,      256,      65535,    65536,    65537,
                                   0x7fffff, 0x800000, 0x800001, 0xfffffe, 0x123456, 0xabcdef, 0x5a5a5a};

// GL objects of the measurement in `context`, deleted on return and on error; the state reset as
// the raster path leaves it.
struct Objects {
  Context& context;
  std::vector<GLuint> framebuffers, renderbuffers, textures, queries;
  GLuint vertex_array = 0;
  GLint viewport[4] = {0, 0, 0, 0};
  explicit Objects(Context& c) : context(c) {
    glGetIntegerv(GL_VIEWPORT, viewport);
    glCreateVertexArrays(1, &vertex_array);
    glBindVertexArray(vertex_array);
  }
  Objects(const Objects&) = delete;
  Objects& operator=(const Objects&) = delete;
  ~Objects() {
    restore_default_state(false);
    if (!queries.empty()) glDeleteQueries(GLsizei(queries.size()), queries.data());
    if (!framebuffers.empty()) glDeleteFramebuffers(GLsizei(framebuffers.size()), framebuffers.data());
    if (!renderbuffers.empty()) glDeleteRenderbuffers(GLsizei(renderbuffers.size()), renderbuffers.data());
    if (!textures.empty()) glDeleteTextures(GLsizei(textures.size()), textures.data());
    glDeleteVertexArrays(1, &vertex_array);
    glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
  }
  // A framebuffer with a side x side GL_DEPTH32F_STENCIL8 renderbuffer, bound.
  GLuint depth_framebuffer(uint32_t side) {
    GLuint rb = 0, fb = 0;
    glCreateRenderbuffers(1, &rb);
    renderbuffers.push_back(rb);
    renderbuffer_storage(context, rb, GL_DEPTH32F_STENCIL8, side, side, "the calibration's depth-stencil buffer");
    glCreateFramebuffers(1, &fb);
    framebuffers.push_back(fb);
    glNamedFramebufferRenderbuffer(fb, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, rb);
    glNamedFramebufferDrawBuffer(fb, GL_NONE);
    glNamedFramebufferReadBuffer(fb, GL_NONE);
    glBindFramebuffer(GL_FRAMEBUFFER, fb);
    glViewport(0, 0, GLsizei(side), GLsizei(side));
    check_error("calibration framebuffer");
    return fb;
  }
  GLuint query(GLenum target) {
    GLuint q = 0;
    glCreateQueries(target, 1, &q);
    queries.push_back(q);
    return q;
  }
  // The result of query `q`, which has ended (after the context's bounded wait when not available yet).
  uint64_t result(GLuint q) { return query_result(context, q, "raster calibration: a measurement's query"); }
};

// The best GPU seconds of `draw` over kRepeats runs, each inside one GL_TIME_ELAPSED query.
template <class Draw>
double best_seconds(Objects& gl, const Draw& draw) {
  const GLuint timer = gl.query(GL_TIME_ELAPSED);
  double best = 1e30;
  for (int r = 0; r < kRepeats; ++r) {
    {
      ScopedQuery timed(GL_TIME_ELAPSED, timer);
      draw();
    }
    best = std::min(best, double(gl.result(timer)) / 1e9);
  }
  return std::max(best, 1e-9);
}

// The fragments of one full-screen draw that pass, by an occlusion query.
uint64_t passed(Objects& gl) {
  const GLuint q = gl.query(GL_SAMPLES_PASSED);
  {
    ScopedQuery counted(GL_SAMPLES_PASSED, q);
    glDrawArrays(GL_TRIANGLES, 0, 3);
  }
  return gl.result(q);
}

// Whether a stored depth of k * 2^-24 (by a clear, or by gl_FragDepth) and an incoming constant of
// k' * 2^-24 (by gl_FragDepth, or by the vertices' z) compare as the integers k and k' at every pixel,
// for k' = k - 1, k, k + 1 and the depth functions LESS, EQUAL, GREATER.
void probe(Context& context, Objects& gl, RasterCalibration& c) {
  gl.depth_framebuffer(kProbeSide);
  const GLuint constant = context.program("fullscreen.vert", "raster_constant.frag");
  const GLuint flat = context.program("fullscreen.vert", "raster_empty.frag");
  const uint64_t all = uint64_t(kProbeSide) * kProbeSide;
  glEnable(GL_DEPTH_TEST);
  bool clear_exact = true, vertex_exact = true;
  const auto incoming = [&](GLuint program, uint32_t k) {
    glUseProgram(program);
    glProgramUniform1f(program, 0, depth_of(k));
    if (program == constant) glProgramUniform1f(program, 1, depth_of(k));
  };
  // Counts of the three comparisons of incoming k - 1, k, k + 1 with the stored k.
  const auto compare = [&](GLuint program, uint32_t k) {
    glDepthMask(GL_FALSE);
    bool exact = true;
    const std::pair<uint32_t, GLenum> tests[] = {{k - 1, GL_LESS}, {k, GL_EQUAL},   {k + 1, GL_GREATER},
                                                 {k, GL_LESS},     {k, GL_GREATER}, {k + 1, GL_EQUAL}};
    for (size_t i = 0; i < std::size(tests); ++i) {
      incoming(program, tests[i].first);
      glDepthFunc(tests[i].second);
      exact = exact && passed(gl) == (i < 3 ? all : 0);
    }
    return exact;
  };
  for (const uint32_t k : kProbeKeys) {
    // Stored by a clear; incoming by gl_FragDepth (exact by the GL spec).
    const GLfloat depth = depth_of(k);
    glDepthMask(GL_TRUE);
    glClearBufferfv(GL_DEPTH, 0, &depth);
    clear_exact = compare(constant, k) && clear_exact;
    // Stored by gl_FragDepth; incoming from the vertices' z.
    incoming(constant, k);
    glDepthFunc(GL_ALWAYS);
    glDepthMask(GL_TRUE);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    vertex_exact = compare(flat, k) && vertex_exact;
  }
  check_error("calibration exactness probe");
  c.clear_depth_exact = clear_exact;
  c.vertex_depth_exact = vertex_exact;
}

// Fill and value rates at one framebuffer side: the GPU seconds of kDraws full-screen draws each.
struct Rates {
  double fill = 0, value = 0;
};

Rates rates_at(Context& context, Objects& gl, uint32_t side) {
  const GLuint fb = gl.depth_framebuffer(side);
  const GLuint flat = context.program("fullscreen.vert", "raster_empty.frag");
  const GLuint value = context.program("fullscreen.vert", "raster_value.frag");
  GLuint column = 0;
  glCreateTextures(GL_TEXTURE_2D, 1, &column);
  gl.textures.push_back(column);
  texture_storage(context, column, GL_R32UI, side, side, "the calibration's value column");
  glTextureParameteri(column, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTextureParameteri(column, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  const GLuint zero = 0;
  glClearTexImage(column, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
  Rates r;
  // The ceiling: a constant-depth pass with a passing depth test and a stencil write.
  glClearNamedFramebufferfi(fb, GL_DEPTH_STENCIL, 0, 1.0f, 0);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_FALSE);
  glEnable(GL_STENCIL_TEST);
  glStencilFunc(GL_ALWAYS, 1, 0xff);
  glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
  glUseProgram(flat);
  glProgramUniform1f(flat, 0, 0.5f);
  r.fill = best_seconds(gl, [&] {
    for (int i = 0; i < kDraws; ++i) glDrawArrays(GL_TRIANGLES, 0, 3);
  });
  // A column's values as depth (copy-to-depth, or a column compared with a cleared constant).
  glDepthFunc(GL_ALWAYS);
  glDepthMask(GL_TRUE);
  glUseProgram(value);
  glProgramUniform1ui(value, 1, 0u);
  glProgramUniform1ui(value, 2, 0u);
  glProgramUniform1ui(value, 3, 0u);
  glBindTextureUnit(0, column);
  r.value = best_seconds(gl, [&] {
    for (int i = 0; i < kDraws; ++i) glDrawArrays(GL_TRIANGLES, 0, 3);
  });
  glBindTextureUnit(0, 0);
  restore_default_state(false);
  glBindVertexArray(gl.vertex_array);
  glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
  check_error("calibration rates");
  return r;
}

// Fill and value rates (the framebuffer grown until a measurement lasts kEnough), and the cost of
// a small pass.
void rates(Context& context, Objects& gl, RasterCalibration& c) {
  uint32_t side = kMinSide;
  Rates r = rates_at(context, gl, side);
  while (side < kMaxSide && std::min(r.fill, r.value) < kEnough) {
    side *= 2;
    r = rates_at(context, gl, side);
  }
  const double fragments = double(side) * side * kDraws;
  c.fill_rate = fragments / r.fill;
  c.value_rate = fragments / r.value;
  // Many small passes, each with an occlusion query as the raster passes have.
  gl.depth_framebuffer(kSmallSide);
  const GLuint flat = context.program("fullscreen.vert", "raster_empty.frag");
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_FALSE);
  glUseProgram(flat);
  glProgramUniform1f(flat, 0, 0.5f);
  const GLuint samples = gl.query(GL_SAMPLES_PASSED);
  const double small = best_seconds(gl, [&] {
    for (int i = 0; i < kSmallDraws; ++i) {
      ScopedQuery counted(GL_SAMPLES_PASSED, samples);
      glDrawArrays(GL_TRIANGLES, 0, 3);
    }
  });
  c.pass_overhead_s = std::max(0.0, small / kSmallDraws - double(kSmallSide) * kSmallSide / c.fill_rate);
  restore_default_state(false);
  check_error("calibration small passes");
}

// GROUP BY's records per second: one point per record into 1024 groups, one channel; the records
// grown until the draws last kEnough.
void points(Context& context, RasterCalibration& c) {
  for (uint64_t rows = kMinPoints;; rows *= 4) {
    std::vector<int32_t> keys(rows);
    for (uint64_t i = 0; i < rows; ++i) keys[i] = int32_t((i * 2654435761u) % 1024);
    Table table;
    table.columns.push_back(Column::ints("g", std::move(keys)));
    const RasterOptions options;
    const RasterInput input(context, table, {0}, options);
    double best = 1e30;
    for (int r = 0; r < kRepeats; ++r) {
      const GroupByOutput out =
          group_by(context, input, {0}, {{AggKind::Count, std::nullopt, "COUNT(*)"}}, {}, options);
      for (const auto& p : out.passes)
        if (p.kind == "group-blend" && p.gpu_ms && *p.gpu_ms > 0) best = std::min(best, *p.gpu_ms / 1e3);
    }
    if (best >= 1e30) return;  // no timer result: no rate
    c.point_rate = double(rows) / best;
    if (best >= kEnough || rows >= kMaxPoints) return;
  }
}

// Bytes per second of reading an RGBA32F texture back into host memory.
void readback(Objects& gl, RasterCalibration& c) {
  GLuint texture = 0;
  glCreateTextures(GL_TEXTURE_2D, 1, &texture);
  gl.textures.push_back(texture);
  texture_storage(gl.context, texture, GL_RGBA32F, kReadbackSide, kReadbackSide, "the calibration's readback texture");
  const GLfloat zero[4] = {0, 0, 0, 0};
  glClearTexImage(texture, 0, GL_RGBA, GL_FLOAT, zero);
  std::vector<float> host(uint64_t(kReadbackSide) * kReadbackSide * 4);
  double best = 1e30;
  for (int r = 0; r < kRepeats; ++r) {
    gl.context.finish("raster calibration: before the readback");
    const auto start = Clock::now();
    glGetTextureSubImage(texture, 0, 0, 0, 0, GLsizei(kReadbackSide), GLsizei(kReadbackSide), 1, GL_RGBA, GL_FLOAT,
                         GLsizei(host.size() * sizeof(float)), host.data());
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  c.readback_bytes_per_s = double(host.size() * sizeof(float)) / std::max(best, 1e-9);
  check_error("calibration readback");
}

// Wall seconds of a whole small query as the backend runs one: a column of kQueryRows uploaded, a
// one-clause COUNT (stencil-init, the constant, the compare with the count fused) and its count read
// back, waited for; the best of kRepeats.
void small_query(Context& context, RasterCalibration& c) {
  std::vector<int32_t> keys(kQueryRows);
  for (int32_t i = 0; i < kQueryRows; ++i) keys[size_t(i)] = i;
  Table table;
  table.columns.push_back(Column::ints("k", std::move(keys)));
  Cnf cnf;
  cnf.clauses.push_back({{Comparison{ColumnRef{"", "k"}, CmpOp::Lt, double(kQueryRows / 2)}}});
  const BoundCnf where = bind_where(cnf, table, "t");
  const RasterOptions options = calibrated_options(c);
  double best = 1e30;
  for (int r = 0; r < kRepeats; ++r) {
    context.finish("raster calibration: before the small query");
    const auto start = Clock::now();
    const RasterInput input(context, table, {0}, options);
    const WhereResult result = evaluate_where(context, input, where, WhereOutput::Count, options);
    context.finish("raster calibration: the small query");
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    if (result.count != uint64_t(kQueryRows / 2))
      throw Error(ErrorCode::Internal, "raster calibration: the small query counted " + std::to_string(result.count) +
                                           " rows, not " + std::to_string(kQueryRows / 2));
  }
  c.query_s = best;
}

std::string device_of(const GlCapabilities& caps) {
  return caps.vendor + " / " + caps.renderer + " / " + caps.version;
}

// The figures of `device` in the cache file, if it holds them.
std::optional<RasterCalibration> load(const std::string& path, const std::string& device) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || line != kHeader) return std::nullopt;
  std::map<std::string, std::string> fields;
  while (std::getline(in, line)) {
    const auto space = line.find(' ');
    if (space != std::string::npos) fields[line.substr(0, space)] = line.substr(space + 1);
  }
  if (fields["device"] != device) return std::nullopt;
  RasterCalibration c;
  c.device = device;
  try {
    c.vertex_depth_exact = fields.at("vertex_depth_exact") == "1";
    c.clear_depth_exact = fields.at("clear_depth_exact") == "1";
    c.fill_rate = std::stod(fields.at("fill_rate"));
    c.value_rate = std::stod(fields.at("value_rate"));
    c.pass_overhead_s = std::stod(fields.at("pass_overhead_s"));
    c.point_rate = std::stod(fields.at("point_rate"));
    c.readback_bytes_per_s = std::stod(fields.at("readback_bytes_per_s"));
    c.query_s = std::stod(fields.at("query_s"));
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged or older file: measure again
  }
  return c;
}

// Writes the figures (to a temporary file renamed into place, so readers never see half a file);
// failures are ignored.
void store(const std::string& path, const RasterCalibration& c) {
  std::error_code ec;
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary);
    if (!out) return;
    out.precision(17);
    out << kHeader << "\n"
        << "device " << c.device << "\n"
        << "vertex_depth_exact " << (c.vertex_depth_exact ? 1 : 0) << "\n"
        << "clear_depth_exact " << (c.clear_depth_exact ? 1 : 0) << "\n"
        << "fill_rate " << c.fill_rate << "\n"
        << "value_rate " << c.value_rate << "\n"
        << "pass_overhead_s " << c.pass_overhead_s << "\n"
        << "point_rate " << c.point_rate << "\n"
        << "readback_bytes_per_s " << c.readback_bytes_per_s << "\n"
        << "query_s " << c.query_s << "\n";
    if (!out) return;
  }
  std::filesystem::rename(temporary, target, ec);
  if (ec) std::filesystem::remove(temporary, ec);
}

std::string rate_text(double per_s, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g G %s/s", per_s / 1e9, unit);
  return buf;
}

}  // namespace

std::string RasterCalibration::text() const {
  char overhead[32], query[32];
  std::snprintf(overhead, sizeof overhead, "%.3g us", pass_overhead_s * 1e6);
  std::snprintf(query, sizeof query, "%.3g ms", query_s * 1e3);
  return "raster calibration (" + std::string(measured ? "measured now" : "from the cache") + "): " + device +
         "\n  fill " + rate_text(fill_rate, "fragments") + ", column values " + rate_text(value_rate, "fragments") +
         ", GROUP BY points " + rate_text(point_rate, "records") + ", small pass " + overhead + ", readback " +
         rate_text(readback_bytes_per_s, "bytes") + ", whole small query " + query +
         "\n  constant depth from vertex z exact: " + (vertex_depth_exact ? "yes" : "no") +
         ", depth clear exact: " + (clear_depth_exact ? "yes" : "no");
}

std::string default_calibration_path() {
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
    return std::string(cache) + "/gfxq/raster-calibration.txt";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/gfxq/raster-calibration.txt";
  return {};
}

RasterCalibration calibrate(Context& context, const std::string& cache_path) {
  const std::string device = device_of(context.caps());
  if (!cache_path.empty())
    if (auto cached = load(cache_path, device)) return *cached;
  const auto start = Clock::now();
  RasterCalibration c;
  c.device = device;
  c.measured = true;
  {
    Objects gl(context);
    glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
    probe(context, gl, c);
    rates(context, gl, c);
    readback(gl, c);
  }
  points(context, c);
  small_query(context, c);
  c.measure_ms = ms_since(start);
  if (!cache_path.empty()) store(cache_path, c);
  return c;
}

RasterOptions calibrated_options(const RasterCalibration& calibration) {
  RasterOptions options;
  options.vertex_constant_depth = calibration.vertex_depth_exact;
  options.constant_by_clear = calibration.clear_depth_exact;
  return options;
}

}  // namespace gfxq::gl
