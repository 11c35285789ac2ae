# Generates the glad2 loader (OpenGL 4.6 core + the extensions gfxq uses, EGL 1.5) into the build
# tree at configure time. --reproducible makes glad use the specs bundled with python3-glad (no network).
find_program(GFXQ_GLAD_EXECUTABLE glad PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT GFXQ_GLAD_EXECUTABLE)
  find_program(GFXQ_GLAD_EXECUTABLE glad REQUIRED)
endif()
set(GFXQ_GLAD_DIR ${CMAKE_CURRENT_BINARY_DIR}/glad)
set(GFXQ_GLAD_EXTENSIONS
  GL_EXT_depth_bounds_test GL_KHR_debug GL_ARB_gl_spirv GL_NV_conditional_render GL_NV_depth_buffer_float
  EGL_EXT_platform_device EGL_EXT_device_enumeration EGL_EXT_device_query EGL_EXT_platform_base
  EGL_MESA_platform_surfaceless EGL_KHR_create_context EGL_KHR_no_config_context EGL_KHR_surfaceless_context)
list(JOIN GFXQ_GLAD_EXTENSIONS "," _gfxq_glad_ext)
set(_gfxq_glad_stamp "${_gfxq_glad_ext}")
if(NOT EXISTS ${GFXQ_GLAD_DIR}/src/gl.c OR NOT "${GFXQ_GLAD_STAMP}" STREQUAL "${_gfxq_glad_stamp}")
  message(STATUS "gfxq: generating the glad loader in ${GFXQ_GLAD_DIR}")
  file(REMOVE_RECURSE ${GFXQ_GLAD_DIR})
  execute_process(
    COMMAND ${GFXQ_GLAD_EXECUTABLE} --quiet --reproducible --api gl:core=4.6,egl=1.5
            --extensions ${_gfxq_glad_ext} --out-path ${GFXQ_GLAD_DIR} c --loader
    RESULT_VARIABLE _gfxq_glad_rc OUTPUT_VARIABLE _gfxq_glad_out ERROR_VARIABLE _gfxq_glad_out)
  if(NOT _gfxq_glad_rc EQUAL 0)
    message(FATAL_ERROR "glad failed (${_gfxq_glad_rc}): ${_gfxq_glad_out}")
  endif()
  set(GFXQ_GLAD_STAMP "${_gfxq_glad_stamp}" CACHE INTERNAL "glad extension list of the generated loader")
endif()
add_library(gfxq_glad OBJECT ${GFXQ_GLAD_DIR}/src/gl.c ${GFXQ_GLAD_DIR}/src/egl.c)
target_include_directories(gfxq_glad PUBLIC ${GFXQ_GLAD_DIR}/include)
set(GFXQ_GLAD_INCLUDE_DIR ${GFXQ_GLAD_DIR}/include)
