#pragma once
// Counting on the raster path: occlusion queries (GL_SAMPLES_PASSED on single-sample
// framebuffers, so samples are fragments) and timer queries, issued for every tile and pass and
// read back together at the end, so the GPU never waits for the host between tiles. Counters
// have GL_QUERY_COUNTER_BITS bits (32 on NVIDIA): no query covers more fragments than
// 2^bits - 1, and totals are added on the host in 64 bits. Results are read after the context's
// bounded wait (Context::finish), never by a GL_QUERY_RESULT read that could block without limit.

#include <glad/gl.h>

#include <cstdint>
#include <vector>

#include "gfxq/capabilities.h"

namespace gfxq::gl {

class Context;

//! The 64-bit result of `query`, which has ended. When it is not available yet, first waits for the
//! GPU through context.finish(what) (Error(Timeout) past EngineOptions::gpu_timeout_ms).
uint64_t query_result(Context& context, GLuint query, const char* what);

//! Query objects of one execution, read back together and deleted with the batch.
class QueryBatch {
 public:
  //! An empty batch whose results are waited for through `context`.
  explicit QueryBatch(Context& context) : context_(&context) {}
  ~QueryBatch();
  QueryBatch(const QueryBatch&) = delete;
  QueryBatch& operator=(const QueryBatch&) = delete;

  //! A new query object for `target` (GL_SAMPLES_PASSED, GL_TIME_ELAPSED or GL_TIMESTAMP).
  GLuint make(GLenum target);
  //! The 64-bit result of a query made here, which has ended. The first read after queries were
  //! made waits for the GPU once (wait()), so the results of one phase cost one wait.
  uint64_t result(GLuint query) const;
  //! Waits for the GPU to run every command issued so far (Context::finish(what): Error(Timeout)
  //! past the timeout); results of queries ended before it, here or elsewhere, are then available.
  void wait(const char* what) const;

 private:
  Context* context_;
  std::vector<GLuint> queries_;
  mutable bool pending_ = false;  // queries made since the last wait
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
//! The bands covering exactly the first `records` pixels (row-major, row 0 at the bottom) of a
//! viewport `width` pixels wide, each of at most `cap` pixels: the whole pixel rows, then the
//! partial last row. Empty when `records` is 0.
std::vector<Band> record_bands(uint32_t width, uint64_t records, uint64_t cap);

//! Issues the count pass over the current framebuffer's width x height viewport: a full-screen
//! draw of `program` (a constant-depth pass) per band under the stencil test
//! (stencil & mask) == ref, each inside its own occlusion query; returns the queries (sum their
//! results). Depth test and writes must be off; the stencil state is set here.
std::vector<GLuint> issue_count(QueryBatch& batch, GLuint program, uint32_t width, uint32_t height, GLint ref,
                                GLuint mask, uint64_t cap);

}  // namespace gfxq::gl
