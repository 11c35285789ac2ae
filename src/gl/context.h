#pragma once
// The OpenGL context of the raster backend: headless through EGL (device platform first, then
// Mesa's surfaceless platform) or adopted from a window toolkit (GLFW) that made it current.
// Everything after creation (capabilities, debug output, programs) is shared by both.
//
// GL entry points are loaded by glad into process-wide pointers (include <glad/gl.h> and
// "gl/check.h" in code that draws). A Context is not thread-safe; use it on the thread that made
// it current. libEGL stays loaded for the life of the process (Mesa registers exit handlers in it).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gfxq/capabilities.h"
#include "gfxq/engine.h"

namespace gfxq::gl {

//! How a context is created.
struct ContextOptions {
  bool debug = false;  //!< synchronous KHR_debug output; every non-notification message is recorded
  uint64_t wait_timeout_ns = 60ull * 1000 * 1000 * 1000;  //!< the longest finish() waits
  FaultInjection faults;  //!< lose_device: the k-th check_alive() finds the context lost (tests)
};

//! A current OpenGL 4.6 (or 4.5) core context with its capability record.
class Context {
 public:
  //! Creates a headless context and makes it current on the calling thread:
  //! EGL_EXT_platform_device (first device that gives a context), else EGL_MESA_platform_surfaceless;
  //! asks for 4.6 core, falls back to 4.5. Error(Unsupported) with every attempt's reason when none works.
  static std::unique_ptr<Context> create_headless(const ContextOptions& options);
  //! Adopts the context the caller made current (e.g. a GLFW window); `get_proc` loads GL entry
  //! points. Error(Unsupported) if it is older than 4.5. The caller keeps owning the context and
  //! must destroy this object while that context is still current (programs and the debug
  //! callback are released through it).
  static std::unique_ptr<Context> adopt_current(void* (*get_proc)(const char*), std::string platform,
                                                const ContextOptions& options);
  //! Releases the EGL context (headless) or the programs and debug callback (adopted).
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  //! What the driver reports, filled at creation.
  const GlCapabilities& caps() const noexcept { return caps_; }
  //! Makes this context current on the calling thread (headless contexts only; no-op otherwise).
  void make_current();
  //! Throws Error(DeviceLost) when the context is lost (a GPU reset reported by
  //! glGetGraphicsResetStatus, or FaultInjection::lose_device at the k-th call); from then on every
  //! call throws it (make a new context). The raster backend calls it before each query.
  void check_alive();
  //! Waits until the GPU has run every command issued so far (a fence and glClientWaitSync), at
  //! most ContextOptions::wait_timeout_ns: Error(Timeout) past it, Error(DeviceLost) when the
  //! context is lost. `what` names the wait in the message. Call it before blocking reads (query
  //! results, glReadPixels) so that they cannot block longer than the timeout.
  void finish(const char* what);
  //! Debug messages recorded since the last call (empty unless created with debug).
  std::vector<std::string> take_debug_messages();
  //! A linked program from embedded shaders (shaders/gl/...), compiled once and cached.
  //! Error(Internal) with the info log if compiling or linking fails.
  unsigned program(std::string_view vertex, std::string_view fragment);
  //! A linked compute program from an embedded shader, cached.
  unsigned compute_program(std::string_view compute);

  struct Native;  //!< EGL handles, program cache, debug log

 private:
  Context();
  void finish_setup(const ContextOptions& options);  // debug output, then capabilities

  GlCapabilities caps_;
  std::unique_ptr<Native> native_;
};

}  // namespace gfxq::gl
