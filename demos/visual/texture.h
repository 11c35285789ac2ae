#pragma once
// An Image as a GL texture that Dear ImGui can draw: enlarged with nearest filtering (one cell
// stays one block of identical screen pixels), reduced through mipmaps. Needs the GL context
// current while it lives.

#include "visual/pass_view.h"

namespace gfxq::visual {

//! A GL_RGBA8 texture holding one Image; re-created by upload().
class Texture {
 public:
  Texture() = default;
  ~Texture();
  Texture(const Texture&) = delete;
  Texture& operator=(const Texture&) = delete;

  //! Replaces the texture with `image` (an empty image leaves none).
  void upload(const Image& image);
  //! The texture name for ImGui::Image (0: none).
  unsigned id() const noexcept { return id_; }

 private:
  void release();
  unsigned id_ = 0;
};

}  // namespace gfxq::visual
