#include "visual/texture.h"

#include <glad/gl.h>

#include <algorithm>
#include <bit>

#include "gl/check.h"

namespace gfxq::visual {

Texture::~Texture() {
  release();
}

void Texture::release() {
  if (id_) glDeleteTextures(1, &id_);
  id_ = 0;
}

void Texture::upload(const Image& image) {
  release();
  if (image.width == 0 || image.height == 0) return;
  const auto levels = GLsizei(std::bit_width(std::max(image.width, image.height)));
  glCreateTextures(GL_TEXTURE_2D, 1, &id_);
  glTextureStorage2D(id_, levels, GL_RGBA8, GLsizei(image.width), GLsizei(image.height));
  glTextureParameteri(id_, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
  glTextureParameteri(id_, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTextureParameteri(id_, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTextureParameteri(id_, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTextureSubImage2D(id_, 0, 0, 0, GLsizei(image.width), GLsizei(image.height), GL_RGBA, GL_UNSIGNED_BYTE,
                      image.rgba.data());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glGenerateTextureMipmap(id_);
  gl::check_error("visual: image texture upload");
}

}  // namespace gfxq::visual
