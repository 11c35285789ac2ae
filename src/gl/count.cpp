#include "gl/count.h"

#include <algorithm>

#include "gfxq/error.h"
#include "gl/check.h"
#include "gl/context.h"

namespace gfxq::gl {

QueryBatch::~QueryBatch() {
  if (!queries_.empty()) glDeleteQueries(GLsizei(queries_.size()), queries_.data());
}

uint64_t query_result(Context& context, GLuint query, const char* what) {
  GLuint available = GL_FALSE;
  glGetQueryObjectuiv(query, GL_QUERY_RESULT_AVAILABLE, &available);
  if (!available) context.finish(what);
  GLuint64 value = 0;
  glGetQueryObjectui64v(query, GL_QUERY_RESULT, &value);
  return value;
}

GLuint QueryBatch::make(GLenum target) {
  GLuint query = 0;
  glCreateQueries(target, 1, &query);
  queries_.push_back(query);
  pending_ = true;
  return query;
}

uint64_t QueryBatch::result(GLuint query) const {
  // One wait for every query made so far. A query made before that wait but ended after it (the
  // raster path reads none so) would be caught by query_result's availability check.
  if (pending_) wait("reading occlusion and timer query results");
  return query_result(*context_, query, "reading occlusion and timer query results");
}

void QueryBatch::wait(const char* what) const {
  context_->finish(what);
  pending_ = false;
}

ScopedQuery::ScopedQuery(GLenum target, GLuint query) : target_(target), query_(query) {
  if (query_) glBeginQuery(target_, query_);
}

ScopedQuery::~ScopedQuery() {
  if (query_) glEndQuery(target_);
}

uint64_t fragments_per_query(const GlCapabilities& caps, uint64_t forced) {
  if (caps.occlusion_counter_bits <= 0)
    throw Error(ErrorCode::Unsupported, "raster: the driver's occlusion queries have no counter bits (" +
                                            caps.renderer + "), so COUNT cannot be read exactly");
  const int bits = std::min(caps.occlusion_counter_bits, 62);
  const uint64_t cap = (uint64_t(1) << bits) - 1;
  return forced ? std::min(cap, forced) : cap;
}

std::vector<Band> count_bands(uint32_t width, uint32_t height, uint64_t cap) {
  std::vector<Band> bands;
  if (uint64_t(width) * height <= cap) {
    bands.push_back({0, 0, GLsizei(width), GLsizei(height)});
  } else if (width <= cap) {
    const uint32_t rows = static_cast<uint32_t>(cap / width);  // whole pixel rows per band
    for (uint32_t y = 0; y < height; y += rows)
      bands.push_back({0, GLint(y), GLsizei(width), GLsizei(std::min(rows, height - y))});
  } else {
    const uint32_t span = static_cast<uint32_t>(cap);  // pieces of one pixel row
    for (uint32_t y = 0; y < height; ++y)
      for (uint32_t x = 0; x < width; x += span)
        bands.push_back({GLint(x), GLint(y), GLsizei(std::min(span, width - x)), 1});
  }
  return bands;
}

std::vector<Band> record_bands(uint32_t width, uint64_t records, uint64_t cap) {
  std::vector<Band> bands;
  const auto full = static_cast<uint32_t>(records / width);
  const auto rest = static_cast<uint32_t>(records % width);
  if (full > 0) bands = count_bands(width, full, cap);
  if (rest > 0)
    for (Band b : count_bands(rest, 1, cap)) {
      b.y = GLint(full);
      bands.push_back(b);
    }
  return bands;
}

std::vector<GLuint> issue_count(QueryBatch& batch, GLuint program, uint32_t width, uint32_t height, GLint ref,
                                GLuint mask, uint64_t cap) {
  glUseProgram(program);
  glProgramUniform1f(program, 0, 0.0f);
  glStencilFunc(GL_EQUAL, ref, mask);
  glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
  glStencilMask(0);
  const std::vector<Band> bands = count_bands(width, height, cap);
  const bool scissored = bands.size() > 1;
  if (scissored) glEnable(GL_SCISSOR_TEST);
  std::vector<GLuint> queries;
  for (const Band& b : bands) {
    if (scissored) glScissor(b.x, b.y, b.width, b.height);
    queries.push_back(batch.make(GL_SAMPLES_PASSED));
    ScopedQuery counted(GL_SAMPLES_PASSED, queries.back());
    glDrawArrays(GL_TRIANGLES, 0, 3);
  }
  if (scissored) glDisable(GL_SCISSOR_TEST);
  return queries;
}

}  // namespace gfxq::gl
