#pragma once
// Checked OpenGL calls: GL_CHECK(glFoo(...)) drains glGetError after the call and throws a gfxq::Error
// naming the error enum and the call, e.g. "GL_INVALID_OPERATION after glDrawArrays(GL_TRIANGLES, 0, 3)".
// The check is always on: a GL error on the raster path is a wrong answer, not a warning. Keep it out
// of per-fragment-count inner loops where one check after the loop suffices.

#include <glad/gl.h>

#include <string>

#include "gfxq/error.h"

namespace gfxq::gl {

//! The enum name of a glGetError value, e.g. "GL_INVALID_ENUM".
inline const char* error_name(GLenum error) noexcept {
  switch (error) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    case GL_CONTEXT_LOST: return "GL_CONTEXT_LOST";
    default: return "GL error (unknown)";
  }
}

//! Drains glGetError; throws if any error was pending: GL_OUT_OF_MEMORY -> OutOfDeviceMemory,
//! GL_CONTEXT_LOST -> DeviceLost, anything else -> Internal. `what` names the call checked.
inline void check_error(const char* what) {
  GLenum first = glGetError();
  if (first == GL_NO_ERROR) return;
  std::string message = std::string(error_name(first)) + " after " + what;
  // GL keeps one flag per error kind; report every pending one (bounded: a lost context repeats).
  for (int i = 0; i < 8; ++i) {
    const GLenum more = glGetError();
    if (more == GL_NO_ERROR || more == GL_CONTEXT_LOST) break;
    message += std::string(" (and ") + error_name(more) + ")";
  }
  switch (first) {
    case GL_OUT_OF_MEMORY: throw Error(ErrorCode::OutOfDeviceMemory, message);
    case GL_CONTEXT_LOST: throw Error(ErrorCode::DeviceLost, message);
    default: throw Error(ErrorCode::Internal, message);
  }
}

}  // namespace gfxq::gl

//! Runs a GL call, then throws gfxq::Error if glGetError reports an error (see gl::check_error).
#define GL_CHECK(call)              \
  do {                              \
    call;                           \
    ::gfxq::gl::check_error(#call); \
  } while (0)
