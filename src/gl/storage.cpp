#include "gl/storage.h"

#include "gfxq/error.h"

namespace gfxq::gl {

namespace {

struct Format {
  const char* name;
  uint64_t bytes;  // per texel
};

Format format_of(GLenum format) {
  switch (format) {
    case GL_R8UI: return {"R8UI", 1};
    case GL_R32UI: return {"R32UI", 4};
    case GL_R32F: return {"R32F", 4};
    case GL_RGBA32UI: return {"RGBA32UI", 16};
    case GL_RGBA32F: return {"RGBA32F", 16};
    case GL_DEPTH32F_STENCIL8: return {"DEPTH32F_STENCIL8", 8};
    default: break;
  }
  throw Error(ErrorCode::Internal, "raster: no texel size known for GL format " + std::to_string(format));
}

// "<what> (a <w>x<h>[x<layers>] <format> <kind>)"
std::string described(const std::string& what, const Format& f, uint32_t width, uint32_t height, uint32_t layers,
                      const char* kind) {
  std::string text = what + " (a " + std::to_string(width) + "x" + std::to_string(height);
  if (layers > 1) text.append("x").append(std::to_string(layers));
  return text.append(" ").append(f.name).append(" ").append(kind).append(")");
}

}  // namespace

void texture_storage(Context& context, GLuint texture, GLenum format, uint32_t width, uint32_t height,
                     const std::string& what) {
  const Format f = format_of(format);
  context.allocate(f.bytes * width * height, described(what, f, width, height, 1, "texture"), "glTextureStorage2D",
                   [&] { glTextureStorage2D(texture, 1, format, GLsizei(width), GLsizei(height)); });
}

void texture_array_storage(Context& context, GLuint texture, GLenum format, uint32_t width, uint32_t height,
                           uint32_t layers, const std::string& what) {
  const Format f = format_of(format);
  context.allocate(f.bytes * width * height * layers, described(what, f, width, height, layers, "texture array"),
                   "glTextureStorage3D",
                   [&] { glTextureStorage3D(texture, 1, format, GLsizei(width), GLsizei(height), GLsizei(layers)); });
}

void renderbuffer_storage(Context& context, GLuint renderbuffer, GLenum format, uint32_t width, uint32_t height,
                          const std::string& what) {
  const Format f = format_of(format);
  context.allocate(f.bytes * width * height, described(what, f, width, height, 1, "renderbuffer"),
                   "glNamedRenderbufferStorage",
                   [&] { glNamedRenderbufferStorage(renderbuffer, format, GLsizei(width), GLsizei(height)); });
}

void buffer_storage(Context& context, GLuint buffer, uint64_t bytes, GLbitfield flags, const std::string& what) {
  context.allocate(bytes, what + " (a buffer)", "glNamedBufferStorage",
                   [&] { glNamedBufferStorage(buffer, GLsizeiptr(bytes), nullptr, flags); });
}

}  // namespace gfxq::gl
