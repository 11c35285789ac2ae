# Every embedded shader, declared once. Vulkan: gfxq_vk_shader(NAME SOURCE [DEFINES ...]).
# OpenGL: gfxq_gl_shader(SOURCE). See cmake/GfxqShaders.cmake.
# Each operator family declares its shaders in its own shaders/{gl,vk}/<family>.shaders.cmake.
gfxq_vk_shader(fill_u32 fill_u32.comp)
gfxq_vk_shader(iota_u32 iota_u32.comp)
gfxq_gl_shader(fullscreen.vert)
gfxq_gl_shader(constant_color.frag)
file(GLOB _gfxq_family_shader_lists CONFIGURE_DEPENDS ${GFXQ_SHADER_DIR}/gl/*.shaders.cmake
     ${GFXQ_SHADER_DIR}/vk/*.shaders.cmake)
list(SORT _gfxq_family_shader_lists)
foreach(_list IN LISTS _gfxq_family_shader_lists)
  include(${_list})
endforeach()
