# Every embedded shader, declared once. Vulkan: gfxq_vk_shader(NAME SOURCE [DEFINES ...]).
# OpenGL: gfxq_gl_shader(SOURCE). See cmake/GfxqShaders.cmake.
gfxq_vk_shader(fill_u32 fill_u32.comp)
gfxq_vk_shader(iota_u32 iota_u32.comp)
gfxq_gl_shader(fullscreen.vert)
gfxq_gl_shader(constant_color.frag)
