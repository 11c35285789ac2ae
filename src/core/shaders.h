#pragma once
// Lookup of the shaders embedded at build time (cmake/GfxqShaders.cmake, shaders/shaders.cmake).

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gfxq::shaders {

//! SPIR-V words of an embedded Vulkan compute shader.
struct Spirv {
  const uint32_t* words;  //!< first word
  size_t count;           //!< number of 32-bit words
};

//! The SPIR-V shader declared as `name` in shaders/shaders.cmake; Error(Internal) if absent.
Spirv spirv(std::string_view name);
//! The GL shader source shaders/gl/`name` (includes resolved); Error(Internal) if absent.
std::string_view glsl(std::string_view name);

}  // namespace gfxq::shaders
