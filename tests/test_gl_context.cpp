// The headless OpenGL context: creation, capabilities, a depth-tested draw counted by an occlusion
// query, debug output, checked calls and the program cache.
#include <glad/egl.h>
#include <glad/gl.h>

#include <vector>

#include "gfxq/error.h"
#include "gl/check.h"
#include "gpu_support.h"

using gfxq::Error;
using gfxq::ErrorCode;
using gfxq::test::gl_context;

TEST_CASE("gl: headless context comes up and fills capabilities") {
  const gfxq::GlCapabilities& caps = gl_context().caps();
  MESSAGE(caps.text());
  CHECK(caps.available);
  CHECK((caps.platform == "EGL device" || caps.platform == "EGL surfaceless"));
  CHECK(caps.major * 10 + caps.minor >= 45);
  CHECK(!caps.vendor.empty());
  CHECK(!caps.renderer.empty());
  CHECK(!caps.glsl_version.empty());
  CHECK(caps.float_depth);
  CHECK(caps.clip_control);
  CHECK(caps.khr_debug);
  CHECK(caps.conditional_render);
  CHECK(caps.occlusion_counter_bits > 0);
  CHECK(caps.timer_counter_bits > 0);
  CHECK(caps.max_framebuffer_width > 0);
  CHECK(caps.max_framebuffer_height > 0);
  CHECK(caps.max_texture_size > 0);
  CHECK(caps.max_renderbuffer_size > 0);
  CHECK(caps.stencil_bits == 8);
  for (const auto& e : caps.extensions) CHECK(e.rfind("GL_", 0) == 0);
  CHECK(caps.text().find("occlusion counter bits:") != std::string::npos);
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("gl: depth test pass and fail counted exactly by an occlusion query") {
  gfxq::gl::Context& context = gl_context();
  constexpr int kWidth = 61, kHeight = 37;  // odd sizes: no power-of-two luck

  GLuint color = 0, depth = 0, fbo = 0, vao = 0, query = 0;
  glCreateRenderbuffers(1, &color);
  glNamedRenderbufferStorage(color, GL_R32F, kWidth, kHeight);
  glCreateRenderbuffers(1, &depth);
  glNamedRenderbufferStorage(depth, GL_DEPTH32F_STENCIL8, kWidth, kHeight);
  glCreateFramebuffers(1, &fbo);
  glNamedFramebufferRenderbuffer(fbo, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
  glNamedFramebufferRenderbuffer(fbo, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, depth);
  REQUIRE(glCheckNamedFramebufferStatus(fbo, GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE);
  glCreateVertexArrays(1, &vao);  // core profile draws need a bound VAO, even an empty one
  glCreateQueries(GL_SAMPLES_PASSED, 1, &query);

  GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, fbo));
  glViewport(0, 0, kWidth, kHeight);
  // Depth in [0, 1] straight from NDC z, so the values below are stored exactly in float depth.
  glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
  const GLfloat zero[4] = {0, 0, 0, 0};
  glClearNamedFramebufferfv(fbo, GL_COLOR, 0, zero);
  glClearNamedFramebufferfi(fbo, GL_DEPTH_STENCIL, 0, 0.5f, 0);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  const GLuint program = context.program("fullscreen.vert", "constant_color.frag");
  CHECK(context.program("fullscreen.vert", "constant_color.frag") == program);  // cached
  glUseProgram(program);
  glBindVertexArray(vao);

  auto draw_counted = [&](float z, float value) {
    glProgramUniform1f(program, 0, z);
    glProgramUniform4f(program, 1, value, 0, 0, 1);
    glBeginQuery(GL_SAMPLES_PASSED, query);
    GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 3));
    glEndQuery(GL_SAMPLES_PASSED);
    GLuint64 samples = ~GLuint64(0);
    GL_CHECK(glGetQueryObjectui64v(query, GL_QUERY_RESULT, &samples));
    return samples;
  };
  CHECK(draw_counted(0.25f, 0.75f) == GLuint64(kWidth) * kHeight);  // 0.25 < 0.5: every pixel passes
  CHECK(draw_counted(0.375f, 0.5f) == 0);                           // 0.375 < 0.25 fails everywhere

  std::vector<float> pixels(size_t(kWidth) * kHeight, -1.0f);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  GL_CHECK(glReadPixels(0, 0, kWidth, kHeight, GL_RED, GL_FLOAT, pixels.data()));
  size_t wrong_color = 0;
  for (float p : pixels) wrong_color += p != 0.75f;
  CHECK(wrong_color == 0);
  GL_CHECK(glReadPixels(0, 0, kWidth, kHeight, GL_DEPTH_COMPONENT, GL_FLOAT, pixels.data()));
  size_t wrong_depth = 0;
  for (float p : pixels) wrong_depth += p != 0.25f;
  CHECK(wrong_depth == 0);

  // Leave the shared context as the next test expects it.
  glDisable(GL_DEPTH_TEST);
  glClipControl(GL_LOWER_LEFT, GL_NEGATIVE_ONE_TO_ONE);
  glUseProgram(0);
  glBindVertexArray(0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteQueries(1, &query);
  glDeleteVertexArrays(1, &vao);
  glDeleteFramebuffers(1, &fbo);
  glDeleteRenderbuffers(1, &depth);
  glDeleteRenderbuffers(1, &color);
  GL_CHECK(glFinish());
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("gl: debug output records a GL error and GL_CHECK names it") {
  gfxq::gl::Context& context = gl_context();
  GFXQ_CHECK_NO_GL_MESSAGES();
  glBindTexture(GL_DEPTH_TEST, 0);  // not a texture target: GL_INVALID_ENUM
  CHECK(glGetError() == GL_INVALID_ENUM);
  auto messages = context.take_debug_messages();
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].find("GL ERROR") == 0);
  CHECK(context.take_debug_messages().empty());  // taken means cleared

  try {
    GL_CHECK(glBindTexture(GL_DEPTH_TEST, 0));
    FAIL("GL_CHECK did not throw");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Internal);
    CHECK(std::string(e.what()).find("GL_INVALID_ENUM after glBindTexture(GL_DEPTH_TEST, 0)") != std::string::npos);
  }
  CHECK(glGetError() == GL_NO_ERROR);  // drained by GL_CHECK
  CHECK(context.take_debug_messages().size() == 1);
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("gl: programs of unknown shaders are errors, not crashes") {
  gfxq::gl::Context& context = gl_context();
  CHECK_THROWS_AS(context.program("no_such.vert", "constant_color.frag"), Error);
  CHECK_THROWS_AS(context.compute_program("no_such.comp"), Error);
  CHECK(glGetError() == GL_NO_ERROR);
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("gl: a second headless context comes and goes without disturbing the first") {
  gl_context();
  {
    auto second = gfxq::gl::Context::create_headless({.debug = true});
    CHECK(second->caps().available);
    CHECK(second->caps().platform == gl_context().caps().platform);
    second->make_current();
    GLuint rb = 0;
    glCreateRenderbuffers(1, &rb);
    CHECK(rb != 0);
    CHECK(second->take_debug_messages().empty());
  }
  // The first context still works after the second (sharing its EGL display) is destroyed.
  gfxq::gl::Context& context = gl_context();
  GLuint rb = 0;
  glCreateRenderbuffers(1, &rb);
  glNamedRenderbufferStorage(rb, GL_R32F, 4, 4);
  GLint width = 0;
  glGetNamedRenderbufferParameteriv(rb, GL_RENDERBUFFER_WIDTH, &width);
  CHECK(width == 4);
  glDeleteRenderbuffers(1, &rb);
  CHECK(context.caps().renderer == std::string(reinterpret_cast<const char*>(glGetString(GL_RENDERER))));
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("gl: adopting a context made current elsewhere shares caps, debug output and programs") {
  gl_context();
  {
    // Stands in for a GLFW window: a context gfxq did not make, current on this thread.
    auto owner = gfxq::gl::Context::create_headless({});
    owner->make_current();
    auto get_proc = +[](const char* name) -> void* { return reinterpret_cast<void*>(eglGetProcAddress(name)); };
    auto adopted = gfxq::gl::Context::adopt_current(get_proc, "test window", {.debug = true});
    CHECK(adopted->caps().platform == "test window");
    CHECK(adopted->caps().renderer == owner->caps().renderer);
    CHECK(adopted->caps().major == owner->caps().major);
    CHECK(adopted->program("fullscreen.vert", "constant_color.frag") != 0);
    adopted->make_current();  // no-op for adopted contexts
    glBindTexture(GL_DEPTH_TEST, 0);
    CHECK(glGetError() == GL_INVALID_ENUM);
    CHECK(adopted->take_debug_messages().size() == 1);
    CHECK(owner->take_debug_messages().empty());  // created without debug
    adopted.reset();                              // while its context is current, as documented
    CHECK(glGetError() == GL_NO_ERROR);
  }
  gl_context();
  GFXQ_CHECK_NO_GL_MESSAGES();
}
