#pragma once
// GPU memory of the raster path: every texture, renderbuffer and buffer store a query makes is
// allocated here, through Context::allocate, which counts it (FaultInjection::fail_device_allocation)
// and turns GL_OUT_OF_MEMORY into Error(OutOfDeviceMemory) naming the bytes and what they were for.
// The caller creates the object (glCreate*) and owns it, so that it is deleted on error too.
//
// Formats: GL_R8UI, GL_R32UI, GL_R32F, GL_RGBA32UI, GL_RGBA32F and GL_DEPTH32F_STENCIL8 (8 bytes a
// texel: a float depth and a stencil byte, padded); any other is Error(Internal).

#include <glad/gl.h>

#include <cstdint>
#include <string>

#include "gl/context.h"

namespace gfxq::gl {

//! One level of `format`, width x height texels, for the GL_TEXTURE_2D `texture`
//! (glTextureStorage2D); `what` names its use in an error.
void texture_storage(Context& context, GLuint texture, GLenum format, uint32_t width, uint32_t height,
                     const std::string& what);
//! One level of `format`, width x height texels in each of `layers` layers, for the
//! GL_TEXTURE_2D_ARRAY `texture` (glTextureStorage3D).
void texture_array_storage(Context& context, GLuint texture, GLenum format, uint32_t width, uint32_t height,
                           uint32_t layers, const std::string& what);
//! `format`, width x height pixels, for `renderbuffer` (glNamedRenderbufferStorage).
void renderbuffer_storage(Context& context, GLuint renderbuffer, GLenum format, uint32_t width, uint32_t height,
                          const std::string& what);
//! `bytes` of immutable storage with `flags` for `buffer` (glNamedBufferStorage, no initial data).
void buffer_storage(Context& context, GLuint buffer, uint64_t bytes, GLbitfield flags, const std::string& what);

}  // namespace gfxq::gl
