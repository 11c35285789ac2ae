#pragma once
// The OpenGL context of the raster backend: headless through EGL (device platform first, then
// Mesa's surfaceless platform) or adopted from a window toolkit (GLFW) that made it current.
// Everything after creation (capabilities, debug output, programs) is shared by both.
//
// GL entry points are loaded by glad into process-wide pointers (include <glad/gl.h> and
// "gl/check.h" in code that draws). A Context is not thread-safe; use it on the thread that made
// it current. libEGL stays loaded for the life of the process (Mesa registers exit handlers in it).

#include <functional>
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
  //! Tests: lose_device, the k-th check_alive() finds the context lost; time_out_gpu_wait, the k-th
  //! finish() times out; fail_device_allocation, the k-th allocate() fails. Counted from creation.
  FaultInjection faults = {};
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
  //! most ContextOptions::wait_timeout_ns: Error(Timeout) naming `what` and
  //! EngineOptions::gpu_timeout_ms past it (or, without waiting, at the
  //! FaultInjection::time_out_gpu_wait-th call), Error(DeviceLost) when the context is lost. Every
  //! blocking read of the raster path (query results, glReadPixels, glGetTextureSubImage, a mapped
  //! buffer) comes after it, so none blocks longer than the timeout.
  void finish(const char* what);
  //! Runs `call`, one GL call making `bytes` of GPU memory (gl/storage.h makes every texture,
  //! renderbuffer and buffer store of the raster path through here), and checks it:
  //! Error(OutOfDeviceMemory) naming `bytes` and `what` when GL reports GL_OUT_OF_MEMORY, or,
  //! without running it, at the FaultInjection::fail_device_allocation-th call. `function` names
  //! the GL function in the message.
  void allocate(uint64_t bytes, const std::string& what, const char* function, const std::function<void()>& call);
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
