#pragma once
// Counting on the raster path: occlusion queries (GL_SAMPLES_PASSED on single-sample
// framebuffers, so samples are fragments) and timer queries, issued for every tile and pass and
// read back together at the end, so the GPU never waits for the host between tiles. Counters
// have GL_QUERY_COUNTER_BITS bits (32 on NVIDIA): no query covers more fragments than
// 2^bits - 1, and totals are added on the host in 64 bits.

#include <glad/gl.h>

#include <cstdint>
#include <vector>

#include "gfxq/capabilities.h"

namespace gfxq::gl {

//! Query objects of one execution, read back together and deleted with the batch.
class QueryBatch {
 public:
  QueryBatch() = default;
  ~QueryBatch();
  QueryBatch(const QueryBatch&) = delete;
  QueryBatch& operator=(const QueryBatch&) = delete;

  //! A new query object for `target` (GL_SAMPLES_PASSED or GL_TIME_ELAPSED).
  GLuint make(GLenum target);
  //! The 64-bit result of a query made here; waits for the GPU if it is not available yet.
  uint64_t result(GLuint query) const;

 private:
  std::vector<GLuint> queries_;
};

//! glBeginQuery / glEndQuery for one scope (ended on unwinding too, so no query stays active
//! after an error). A zero query does nothing.
class ScopedQuery {
 public:
  ScopedQuery(GLenum target, GLuint query);
  ~ScopedQuery();
  ScopedQuery(const ScopedQuery&) = delete;
  ScopedQuery& operator=(const ScopedQuery&) = delete;

 private:
  GLenum target_;
  GLuint query_;
};

//! The most fragments one occlusion query may count: 2^bits - 1 of the driver's counter (capped
//! at 2^62), or `forced` when it is non-zero and smaller (tests force small caps).
//! Error(Unsupported) when the driver has no occlusion counter bits.
uint64_t fragments_per_query(const GlCapabilities& caps, uint64_t forced);

//! Scissor rectangles covering a width x height viewport, row-major, each of at most `cap` pixels.
struct Band {
  GLint x, y;
  GLsizei width, height;
};
//! The bands of a width x height viewport for occlusion queries of at most `cap` fragments.
std::vector<Band> count_bands(uint32_t width, uint32_t height, uint64_t cap);

//! Issues the count pass over the current framebuffer's width x height viewport: a full-screen
//! draw of `program` (a constant-depth pass) per band under the stencil test
//! (stencil & mask) == ref, each inside its own occlusion query; returns the queries (sum their
//! results). Depth test and writes must be off; the stencil state is set here.
std::vector<GLuint> issue_count(QueryBatch& batch, GLuint program, uint32_t width, uint32_t height, GLint ref,
                                GLuint mask, uint64_t cap);

}  // namespace gfxq::gl
