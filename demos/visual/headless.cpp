// The headless front end: an EGL context (no display), Dear ImGui's OpenGL 3 backend drawing into
// a framebuffer object with io.DisplaySize set by hand, the pixels written as a PNG
// (stb_image_write), and an optional JSON sidecar with the shown pass's exact counts.
#include <glad/gl.h>

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

#include "gl/check.h"
#include "gl/context.h"
#include "visual/app.h"
#include "visual/frontends.h"
#include "visual/views.h"

namespace gfxq::visual {

namespace {

// Frames drawn before the screenshot: ImGui sizes auto-fitting items over the first frames.
constexpr int kFrames = 3;

// ImGui's context and OpenGL 3 backend, without a platform backend.
struct ImGuiSession {
  ImGuiSession(float width, float height) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(width, height);
    io.DeltaTime = 1.0f / 60.0f;
    ImGui::StyleColorsDark();
    ImGui_ImplOpenGL3_Init("#version 410 core");
  }
  ~ImGuiSession() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui::DestroyContext();
  }
  ImGuiSession(const ImGuiSession&) = delete;
  ImGuiSession& operator=(const ImGuiSession&) = delete;
};

// An RGBA8 colour target of width x height.
struct Target {
  Target(uint32_t width, uint32_t height) {
    glCreateTextures(GL_TEXTURE_2D, 1, &colour);
    glTextureStorage2D(colour, 1, GL_RGBA8, GLsizei(width), GLsizei(height));
    glCreateFramebuffers(1, &framebuffer);
    glNamedFramebufferTexture(framebuffer, GL_COLOR_ATTACHMENT0, colour, 0);
    if (glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      throw Error(ErrorCode::Internal, "gfxq-visual: the screenshot framebuffer is incomplete");
    gl::check_error("gfxq-visual: screenshot framebuffer");
  }
  ~Target() {
    glDeleteFramebuffers(1, &framebuffer);
    glDeleteTextures(1, &colour);
  }
  Target(const Target&) = delete;
  Target& operator=(const Target&) = delete;
  GLuint colour = 0, framebuffer = 0;
};

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The sidecar: what the screenshot shows, with exact counts and where the stencil view lies.
void write_sidecar(const std::string& path, const Options& options, const App& app) {
  const Run& run = app.run();
  std::ofstream out(path);
  out << "{\n  \"image\": {\"width\": " << options.width << ", \"height\": " << options.height << "},\n";
  out << "  \"query\": " << json_string(run.sql) << ",\n";
  out << "  \"path\": \""
      << (run.path == Path::Raster    ? "raster"
          : run.path == Path::Compute ? "compute"
          : run.path == Path::Cpu     ? "cpu"
                                      : "none")
      << "\",\n  \"result_ok\": " << (run.ok() ? "true" : "false") << ",\n";
  out << "  \"passes\": " << app.steps();
  if (const TileView* v = app.tile_view()) {
    const PassView& pass = run.passes[app.step()];
    uint64_t valid = 0;
    for (const TileView& t : pass.tiles) valid += t.satisfied;
    const ViewRect& r = app.stencil_rect();
    out << ",\n  \"pass\": " << app.step() + 1 << ",\n  \"kind\": " << json_string(pass.kind) << ",\n";
    out << "  \"tile\": " << v->tile + 1 << ",\n  \"tiles\": " << pass.tiles.size() << ",\n";
    out << "  \"records\": " << v->records << ",\n  \"valid_pixels\": " << v->satisfied
        << ",\n  \"pending_pixels\": " << v->pending << ",\n  \"rejected_pixels\": " << v->rejected
        << ",\n  \"valid_all_tiles\": " << valid << ",\n";
    out << "  \"occlusion\": " << (v->occlusion ? std::to_string(*v->occlusion) : "null") << ",\n";
    out << "  \"stencil_view\": {\"x\": " << r.x << ", \"y\": " << r.y << ", \"width\": " << r.width
        << ", \"height\": " << r.height << ", \"zoom\": " << r.zoom << ", \"scale\": " << v->scale
        << ", \"valid_rgb\": [" << int(palette::kSatisfied.r) << ", " << int(palette::kSatisfied.g) << ", "
        << int(palette::kSatisfied.b) << "]}";
  }
  out << "\n}\n";
  if (!out) throw Error(ErrorCode::Io, "gfxq-visual: cannot write " + path);
}

}  // namespace

int run_headless(const Options& options, Catalog catalog) {
  const auto context = gl::Context::create_headless({.debug = options.debug});
  int status = kOk;
  {
    ImGuiSession imgui(float(options.width), float(options.height));
    App app(*context, std::move(catalog), options.generator, options.query);
    if (options.pass && *options.pass > app.steps()) {
      std::fprintf(stderr, "gfxq-visual: --pass %zu, but the query has %zu raster pass(es)\n", *options.pass,
                   app.steps());
      return kBadInput;
    }
    app.select_step(options.pass ? *options.pass - 1 : app.steps());
    app.select_tile(options.tile - 1);
    std::printf("%s\n", app.status_line().c_str());

    const Target target(options.width, options.height);
    for (int frame = 0; frame < kFrames; ++frame) {
      ImGui_ImplOpenGL3_NewFrame();
      ImGui::NewFrame();
      draw_ui(app, float(options.width), float(options.height));
      ImGui::Render();
      // A query run resets the GL state (framebuffer 0): bind the target for every frame.
      glBindFramebuffer(GL_FRAMEBUFFER, target.framebuffer);
      glViewport(0, 0, GLsizei(options.width), GLsizei(options.height));
      glClearColor(0.08f, 0.08f, 0.1f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    }
    const size_t row = size_t(options.width) * 4;
    std::vector<uint8_t> pixels(row * options.height), flipped(pixels.size());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, GLsizei(options.width), GLsizei(options.height), GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    gl::check_error("gfxq-visual: reading the screenshot");
    for (uint32_t y = 0; y < options.height; ++y)  // GL's row 0 is the bottom; PNG's the top
      std::copy_n(&pixels[(options.height - 1 - y) * row], row, &flipped[y * row]);
    if (!stbi_write_png(options.screenshot.c_str(), int(options.width), int(options.height), 4, flipped.data(),
                        int(row)))
      throw Error(ErrorCode::Io, "gfxq-visual: cannot write " + options.screenshot);
    if (!options.sidecar.empty()) write_sidecar(options.sidecar, options, app);
    if (!app.run().ok()) status = kFailure;
  }
  for (const auto& m : context->take_debug_messages()) {
    std::fprintf(stderr, "gfxq-visual: GL: %s\n", m.c_str());
    status = kFailure;
  }
  return status;
}

}  // namespace gfxq::visual
