// The windowed front end: GLFW (OpenGL 4.5 core, adopted by gfxq), Dear ImGui's GLFW and OpenGL 3
// backends, keys (space, backspace, R, Esc) and the --script runner.
// glad first: GLFW must not include the system GL header.
#include <glad/gl.h>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <cstdio>
#include <deque>
#include <memory>
#include <optional>

#include "gl/context.h"
#include "visual/app.h"
#include "visual/frontends.h"
#include "visual/views.h"

namespace gfxq::visual {

namespace {

// glfwTerminate on every way out.
struct GlfwLibrary {
  GlfwLibrary() : ok(glfwInit() == GLFW_TRUE) {}
  ~GlfwLibrary() {
    if (ok) glfwTerminate();
  }
  GlfwLibrary(const GlfwLibrary&) = delete;
  GlfwLibrary& operator=(const GlfwLibrary&) = delete;
  bool ok;
};

// ImGui's context and backends, shut down before the window goes.
struct ImGuiSession {
  explicit ImGuiSession(GLFWwindow* window) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 410 core");
  }
  ~ImGuiSession() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  ImGuiSession(const ImGuiSession&) = delete;
  ImGuiSession& operator=(const ImGuiSession&) = delete;
};

// The command a key asks for this frame, if any (not while the query text is being edited).
std::optional<Command> key_command() {
  if (ImGui::GetIO().WantTextInput) return std::nullopt;
  if (ImGui::IsKeyPressed(GLFW_KEY_SPACE)) return Command::Next;
  if (ImGui::IsKeyPressed(GLFW_KEY_BACKSPACE)) return Command::Prev;
  if (ImGui::IsKeyPressed(GLFW_KEY_R, false)) return Command::Rerun;
  if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) return Command::Quit;
  return std::nullopt;
}

void print_debug_messages(gl::Context& context, bool& any) {
  for (const auto& m : context.take_debug_messages()) {
    std::fprintf(stderr, "gfxq-visual: GL: %s\n", m.c_str());
    any = true;
  }
}

}  // namespace

int run_window(const Options& options, Catalog catalog) {
  GlfwLibrary glfw;
  if (!glfw.ok) {
    std::fprintf(stderr, "gfxq-visual: GLFW cannot start (no display?); use --screenshot for headless output\n");
    return kFailure;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  std::unique_ptr<GLFWwindow, decltype(&glfwDestroyWindow)> window(
      glfwCreateWindow(int(options.width), int(options.height), "gfxq-visual", nullptr, nullptr), glfwDestroyWindow);
  if (!window) {
    std::fprintf(stderr, "gfxq-visual: no OpenGL 4.5 core window could be created\n");
    return kFailure;
  }
  glfwMakeContextCurrent(window.get());
  glfwSwapInterval(1);
  auto get_proc = +[](const char* name) -> void* { return reinterpret_cast<void*>(glfwGetProcAddress(name)); };
  const auto context = gl::Context::adopt_current(get_proc, "GLFW window", {.debug = options.debug});
  bool gl_messages = false;
  bool failed = false;
  {
    ImGuiSession imgui(window.get());
    App app(*context, std::move(catalog), options.generator, options.query);
    app.select_step(options.pass.value_or(1) - 1);
    app.select_tile(options.tile - 1);
    std::deque<Command> script;
    if (options.script) script.assign(options.script->begin(), options.script->end());
    if (options.script) std::printf("start: %s\n", app.status_line().c_str());
    failed = !app.run().ok();
    for (int frame = 0; !app.quit_requested() && !glfwWindowShouldClose(window.get()); ++frame) {
      glfwPollEvents();
      // A script starts once the first frames are on screen and waits for a Play to finish.
      if (options.script && frame >= 2 && !app.playing()) {
        if (script.empty()) break;
        const Command c = script.front();
        script.pop_front();
        app.apply(c);
        failed = failed || !app.run().ok();
        std::printf("%s\n", app.status_line().c_str());
      }
      if (app.tick() && options.script) std::printf("%s\n", app.status_line().c_str());
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();
      if (const auto c = key_command()) app.apply(*c);
      int width = 0, height = 0;
      glfwGetFramebufferSize(window.get(), &width, &height);
      draw_ui(app, ImGui::GetIO().DisplaySize.x, ImGui::GetIO().DisplaySize.y);
      ImGui::Render();
      glViewport(0, 0, width, height);
      glClearColor(0.08f, 0.08f, 0.1f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      glfwSwapBuffers(window.get());
      print_debug_messages(*context, gl_messages);
    }
    std::fflush(stdout);
  }
  print_debug_messages(*context, gl_messages);
  if (options.debug && gl_messages) return kFailure;
  return options.script && failed ? kFailure : kOk;
}

}  // namespace gfxq::visual
