#include "gl/context.h"

#include <glad/egl.h>
#include <glad/gl.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "core/shaders.h"
#include "gfxq/error.h"
#include "gl/check.h"

namespace gfxq::gl {

struct Context::Native {
  EGLDisplay display = EGL_NO_DISPLAY;  // EGL_NO_DISPLAY for an adopted context
  EGLContext context = EGL_NO_CONTEXT;  // EGL_NO_CONTEXT for an adopted context
  bool debug = false;
  uint64_t wait_timeout_ns = 0;     // ContextOptions::wait_timeout_ns
  FaultInjection faults;            // ContextOptions::faults
  uint64_t checks = 0;              // check_alive() calls (fault injection counts them)
  uint64_t waits = 0;               // finish() calls (fault injection counts them)
  uint64_t allocations = 0;         // allocate() calls (fault injection counts them)
  std::optional<std::string> lost;  // why the context is lost, once it is
  std::mutex log_mutex;
  std::vector<std::string> log;
  std::map<std::pair<std::string, std::string>, GLuint> programs;
  std::map<std::string, GLuint, std::less<>> compute_programs;
};

namespace {

const char* egl_error_name(EGLint e) {
  switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return "EGL error (unknown)";
  }
}

//! "<call> failed: <eglGetError name>".
std::string egl_failure(const char* call) {
  return std::string(call) + " failed: " + egl_error_name(eglGetError());
}

bool has_extension(const char* list, std::string_view name) {
  if (!list) return false;
  std::string_view rest(list);
  while (!rest.empty()) {
    const size_t space = rest.find(' ');
    if (rest.substr(0, space) == name) return true;
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  return false;
}

// EGL hands out one EGLDisplay per (platform, device) for the whole process, so two Contexts on one
// device share it and eglTerminate by one would pull it from under the other. Contexts count their
// display's users; the last one terminates it. Never destroyed: a Context may be destroyed during
// static destruction, after this table would have been.
struct DisplayUsers {
  std::mutex mutex;
  std::map<EGLDisplay, int> count;
};
DisplayUsers& display_users() {
  static auto* users = new DisplayUsers;
  return *users;
}

void acquire_display(EGLDisplay display) {
  auto& u = display_users();
  std::lock_guard lock(u.mutex);
  ++u.count[display];
}

void release_display(EGLDisplay display) {
  auto& u = display_users();
  std::lock_guard lock(u.mutex);
  auto it = u.count.find(display);
  if (it != u.count.end() && --it->second > 0) return;
  if (it != u.count.end()) u.count.erase(it);
  eglTerminate(display);
}

//! Terminates a display a failed attempt initialized, unless a live Context uses it.
void drop_unused_display(EGLDisplay display) {
  auto& u = display_users();
  std::lock_guard lock(u.mutex);
  if (!u.count.contains(display)) eglTerminate(display);
}

GLADapiproc load_egl_proc(const char* name) {
  return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name));
}

GLADapiproc load_user_proc(void* user, const char* name) {
  auto get_proc = *static_cast<void* (**)(const char*)>(user);
  return reinterpret_cast<GLADapiproc>(get_proc(name));
}

//! A context made current on one display.
struct Made {
  EGLDisplay display;
  EGLContext context;
};

//! Tries to make a 4.6 (then 4.5) core context current on `display`; appends the reasons of
//! failure to `failures` (prefixed by `label`) and returns nothing when it cannot.
std::optional<Made> try_display(EGLDisplay display, const std::string& label, bool debug,
                                std::vector<std::string>& failures) {
  if (display == EGL_NO_DISPLAY) {
    failures.push_back(label + ": " + egl_failure("eglGetPlatformDisplay"));
    return std::nullopt;
  }
  EGLint egl_major = 0, egl_minor = 0;
  if (!eglInitialize(display, &egl_major, &egl_minor)) {
    failures.push_back(label + ": " + egl_failure("eglInitialize"));
    return std::nullopt;
  }
  auto fail = [&](std::string why) -> std::optional<Made> {
    failures.push_back(label + ": " + why);
    drop_unused_display(display);
    return std::nullopt;
  };
  // Reload with the initialized display: EGL 1.4/1.5 entry points and this display's extensions.
  if (!gladLoaderLoadEGL(display)) return fail("loading EGL entry points for the display failed");
  const char* extensions = eglQueryString(display, EGL_EXTENSIONS);
  if (!has_extension(extensions, "EGL_KHR_surfaceless_context")) return fail("no EGL_KHR_surfaceless_context");
  if (!has_extension(extensions, "EGL_KHR_create_context") && !(egl_major > 1 || egl_minor >= 5))
    return fail("neither EGL 1.5 nor EGL_KHR_create_context");
  if (!eglBindAPI(EGL_OPENGL_API)) return fail(egl_failure("eglBindAPI(EGL_OPENGL_API)"));

  // Config-less where the display allows it (Mesa, recent NVIDIA), else any GL-renderable config:
  // the context never draws to an EGL surface, so the config's buffers do not matter.
  EGLConfig config = EGL_NO_CONFIG_KHR;
  if (!has_extension(extensions, "EGL_KHR_no_config_context") &&
      !has_extension(extensions, "EGL_MESA_configless_context")) {
    const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLint found = 0;
    if (!eglChooseConfig(display, config_attribs, &config, 1, &found) || found < 1)
      return fail("no config-less contexts and no OpenGL config (" + egl_failure("eglChooseConfig") + ")");
  }

  std::string why;
  for (int minor : {6, 5}) {
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                              4,
                              EGL_CONTEXT_MINOR_VERSION,
                              minor,
                              EGL_CONTEXT_OPENGL_PROFILE_MASK,
                              EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                              EGL_CONTEXT_FLAGS_KHR,
                              debug ? EGL_CONTEXT_OPENGL_DEBUG_BIT_KHR : 0,
                              EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, attribs);
    if (context == EGL_NO_CONTEXT) {
      why += (why.empty() ? "" : ", ") + ("4." + std::to_string(minor) + " core: " + egl_failure("eglCreateContext"));
      continue;
    }
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
      std::string reason = egl_failure("eglMakeCurrent(EGL_NO_SURFACE)");
      eglDestroyContext(display, context);
      return fail(reason);
    }
    if (!gladLoadGL(load_egl_proc)) {
      eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(display, context);
      return fail("loading OpenGL entry points failed");
    }
    return Made{display, context};
  }
  return fail(why);
}

EGLDisplay platform_display(EGLenum platform, void* native) {
  if (eglGetPlatformDisplayEXT) return eglGetPlatformDisplayEXT(platform, native, nullptr);
  if (eglGetPlatformDisplay) return eglGetPlatformDisplay(platform, native, nullptr);
  return EGL_NO_DISPLAY;
}

const char* source_name(GLenum source) {
  switch (source) {
    case GL_DEBUG_SOURCE_API: return "API";
    case GL_DEBUG_SOURCE_WINDOW_SYSTEM: return "WINDOW_SYSTEM";
    case GL_DEBUG_SOURCE_SHADER_COMPILER: return "SHADER_COMPILER";
    case GL_DEBUG_SOURCE_THIRD_PARTY: return "THIRD_PARTY";
    case GL_DEBUG_SOURCE_APPLICATION: return "APPLICATION";
    default: return "OTHER";
  }
}

const char* type_name(GLenum type) {
  switch (type) {
    case GL_DEBUG_TYPE_ERROR: return "ERROR";
    case GL_DEBUG_TYPE_DEPRECATED_BEHAVIOR: return "DEPRECATED_BEHAVIOR";
    case GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR: return "UNDEFINED_BEHAVIOR";
    case GL_DEBUG_TYPE_PORTABILITY: return "PORTABILITY";
    case GL_DEBUG_TYPE_PERFORMANCE: return "PERFORMANCE";
    case GL_DEBUG_TYPE_MARKER: return "MARKER";
    case GL_DEBUG_TYPE_PUSH_GROUP: return "PUSH_GROUP";
    case GL_DEBUG_TYPE_POP_GROUP: return "POP_GROUP";
    default: return "OTHER";
  }
}

const char* severity_name(GLenum severity) {
  switch (severity) {
    case GL_DEBUG_SEVERITY_HIGH: return "HIGH";
    case GL_DEBUG_SEVERITY_MEDIUM: return "MEDIUM";
    case GL_DEBUG_SEVERITY_LOW: return "LOW";
    default: return "NOTIFICATION";
  }
}

void GLAD_API_PTR on_debug_message(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                                   const GLchar* message, const void* user) {
  if (severity == GL_DEBUG_SEVERITY_NOTIFICATION) return;
  auto* native = static_cast<Context::Native*>(const_cast<void*>(user));
  // Called from inside the driver: nothing may escape.
  try {
    std::string text = std::string("GL ") + type_name(type) + " (" + severity_name(severity) + ", source " +
                       source_name(source) + ", id " + std::to_string(id) +
                       "): " + std::string(message, length >= 0 ? size_t(length) : std::strlen(message));
    std::lock_guard lock(native->log_mutex);
    native->log.push_back(std::move(text));
  } catch (...) {
  }
}

std::string shader_log(GLuint shader) {
  GLint length = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
  std::string log(size_t(std::max(length, 1)), '\0');
  glGetShaderInfoLog(shader, GLsizei(log.size()), nullptr, log.data());
  log.resize(std::strlen(log.c_str()));
  return log;
}

std::string program_log(GLuint program) {
  GLint length = 0;
  glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
  std::string log(size_t(std::max(length, 1)), '\0');
  glGetProgramInfoLog(program, GLsizei(log.size()), nullptr, log.data());
  log.resize(std::strlen(log.c_str()));
  return log;
}

GLuint compile(GLenum stage, std::string_view name) {
  const std::string_view source = shaders::glsl(name);
  const GLchar* text = source.data();
  const GLint length = GLint(source.size());
  GLuint shader = glCreateShader(stage);
  glShaderSource(shader, 1, &text, &length);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    std::string log = shader_log(shader);
    glDeleteShader(shader);
    throw Error(ErrorCode::Internal, "GL shader " + std::string(name) + " failed to compile: " + log);
  }
  return shader;
}

//! Compiles the embedded shaders of `stages` and links them; Error(Internal) with the info log.
GLuint link(std::initializer_list<std::pair<GLenum, std::string_view>> stages) {
  std::string label;
  std::vector<GLuint> shaders;
  auto release = [&] {
    for (GLuint s : shaders) glDeleteShader(s);
  };
  try {
    for (const auto& [stage, name] : stages) {
      label += (label.empty() ? "" : " + ") + std::string(name);
      shaders.push_back(compile(stage, name));
    }
  } catch (...) {
    release();
    throw;
  }
  GLuint program = glCreateProgram();
  for (GLuint s : shaders) glAttachShader(program, s);
  glLinkProgram(program);
  for (GLuint s : shaders) glDetachShader(program, s);
  release();
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    std::string log = program_log(program);
    glDeleteProgram(program);
    throw Error(ErrorCode::Internal, "GL program " + label + " failed to link: " + log);
  }
  check_error(("building GL program " + label).c_str());
  return program;
}

// The extensions gfxq looks for; those the driver has are listed in GlCapabilities::extensions.
constexpr std::string_view kWantedExtensions[] = {
    "GL_EXT_depth_bounds_test",
    "GL_NV_depth_buffer_float",
    "GL_ARB_gl_spirv",
    "GL_NV_conditional_render",
    "GL_ARB_conditional_render_inverted",
    "GL_KHR_debug",
    "GL_ARB_clip_control",
    "GL_ARB_direct_state_access",
    "GL_ARB_compute_shader",
    "GL_ARB_timer_query",
    "GL_ARB_gpu_shader_int64",
    "GL_ARB_shader_atomic_counter_ops",
};

std::string gl_string(GLenum name) {
  const GLubyte* s = glGetString(name);
  return s ? reinterpret_cast<const char*>(s) : "";
}

}  // namespace

Context::Context() : native_(std::make_unique<Native>()) {}

std::unique_ptr<Context> Context::create_headless(const ContextOptions& options) {
  // Loads libEGL and its client entry points (eglQueryDevicesEXT, eglGetPlatformDisplayEXT).
  // libEGL is never unloaded: Mesa's exit handlers live in it.
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
    throw Error(ErrorCode::Unsupported,
                "no headless OpenGL: libEGL.so.1 could not be loaded or has no client extensions");
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  std::vector<std::string> failures;
  std::optional<Made> made;
  std::string platform;

  if (has_extension(client, "EGL_EXT_platform_device")) {
    auto query_devices = eglQueryDevicesEXT
                             ? eglQueryDevicesEXT
                             : reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    EGLint count = 0;
    if (!query_devices || !query_devices(0, nullptr, &count)) {
      failures.push_back("EGL device: " + egl_failure("eglQueryDevicesEXT"));
    } else {
      std::vector<EGLDeviceEXT> devices(size_t(std::max(count, 0)));
      if (count > 0 && !query_devices(count, devices.data(), &count)) count = 0;
      if (count == 0) failures.push_back("EGL device: no devices");
      platform = "EGL device";
      for (EGLint i = 0; i < count && !made; ++i)
        made = try_display(platform_display(EGL_PLATFORM_DEVICE_EXT, devices[size_t(i)]),
                           "EGL device " + std::to_string(i), options.debug, failures);
    }
  } else {
    failures.push_back("EGL device: no EGL_EXT_platform_device");
  }
  if (!made) {
    if (has_extension(client, "EGL_MESA_platform_surfaceless")) {
      platform = "EGL surfaceless";
      made = try_display(platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY), platform, options.debug,
                         failures);
    } else {
      failures.push_back("EGL surfaceless: no EGL_MESA_platform_surfaceless");
    }
  }
  if (!made) {
    std::string message = "no headless OpenGL 4.5+ context";
    for (const auto& f : failures) message += "; " + f;
    throw Error(ErrorCode::Unsupported, message);
  }

  std::unique_ptr<Context> context(new Context());
  context->native_->display = made->display;
  context->native_->context = made->context;
  acquire_display(made->display);
  context->caps_.platform = platform;
  context->finish_setup(options);
  return context;
}

std::unique_ptr<Context> Context::adopt_current(void* (*get_proc)(const char*), std::string platform,
                                                const ContextOptions& options) {
  const int version = get_proc ? gladLoadGLUserPtr(load_user_proc, &get_proc) : 0;
  if (!version)
    throw Error(ErrorCode::Unsupported, "no OpenGL entry points from the current context (is one current?)");
  if (GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version) < 45)
    throw Error(ErrorCode::Unsupported, "OpenGL 4.5 is required; the current context (" + platform + ") is " +
                                            std::to_string(GLAD_VERSION_MAJOR(version)) + "." +
                                            std::to_string(GLAD_VERSION_MINOR(version)));
  std::unique_ptr<Context> context(new Context());
  context->caps_.platform = std::move(platform);
  context->finish_setup(options);
  return context;
}

void Context::finish_setup(const ContextOptions& options) {
  native_->wait_timeout_ns = options.wait_timeout_ns;
  native_->faults = options.faults;
  if (options.debug) {
    native_->debug = true;
    glEnable(GL_DEBUG_OUTPUT);
    // Synchronous: the message arrives inside the offending call, on this thread.
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(on_debug_message, native_.get());
    glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
    // NVIDIA reports where it placed each renderbuffer (131169) and buffer (131185) as LOW
    // "detailed info" messages; they describe no problem.
    // Its "texture state usage warning" (131204, LOW) names a sampler unit with no texture bound when
    // a program declares a sampler its current variant does not read (the GROUP BY's kept-stencil
    // texture, the sort's second input); no texel is read from it, and the differential tests check
    // every result.
    const GLuint nvidia_info[] = {131169, 131185, 131204};
    glDebugMessageControl(GL_DEBUG_SOURCE_API, GL_DEBUG_TYPE_OTHER, GL_DONT_CARE, 3, nvidia_info, GL_FALSE);
    // NVIDIA's "shader in program N is being recompiled based on GL state" (131218, MEDIUM
    // performance hint, once per process when a program meets new state, e.g. the sort's integer
    // targets): a driver-internal recompile, not a misuse of GL.
    const GLuint nvidia_recompile = 131218;
    glDebugMessageControl(GL_DEBUG_SOURCE_API, GL_DEBUG_TYPE_PERFORMANCE, GL_DONT_CARE, 1, &nvidia_recompile, GL_FALSE);
  }

  GlCapabilities& c = caps_;
  c.available = true;
  c.vendor = gl_string(GL_VENDOR);
  c.renderer = gl_string(GL_RENDERER);
  c.version = gl_string(GL_VERSION);
  c.glsl_version = gl_string(GL_SHADING_LANGUAGE_VERSION);
  glGetIntegerv(GL_MAJOR_VERSION, &c.major);
  glGetIntegerv(GL_MINOR_VERSION, &c.minor);
  const int version = c.major * 10 + c.minor;

  GLint count = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &count);
  for (GLint i = 0; i < count; ++i) {
    const auto* name = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, GLuint(i)));
    if (!name) continue;
    for (std::string_view wanted : kWantedExtensions)
      if (wanted == name) c.extensions.emplace_back(name);
  }
  auto has = [&](std::string_view name) {
    for (const auto& e : c.extensions)
      if (e == name) return true;
    return false;
  };
  c.depth_bounds_test = has("GL_EXT_depth_bounds_test");
  c.nv_depth_buffer_float = has("GL_NV_depth_buffer_float");
  c.float_depth = version >= 30;  // GL_DEPTH32F_STENCIL8 is core since 3.0
  c.clip_control = version >= 45 || has("GL_ARB_clip_control");
  c.gl_spirv = version >= 46 || has("GL_ARB_gl_spirv");
  c.khr_debug = version >= 43 || has("GL_KHR_debug");
  c.conditional_render = version >= 30;
  c.nv_conditional_render = has("GL_NV_conditional_render");

  glGetQueryiv(GL_SAMPLES_PASSED, GL_QUERY_COUNTER_BITS, &c.occlusion_counter_bits);
  glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &c.timer_counter_bits);
  glGetIntegerv(GL_MAX_FRAMEBUFFER_WIDTH, &c.max_framebuffer_width);
  glGetIntegerv(GL_MAX_FRAMEBUFFER_HEIGHT, &c.max_framebuffer_height);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &c.max_texture_size);
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &c.max_renderbuffer_size);
  // The stencil bits of gfxq's depth-stencil format, as the driver allocates it (a 1x1 probe at
  // creation, outside allocate(): no query's allocation, so fault injection does not count it).
  GLuint probe = 0;
  glCreateRenderbuffers(1, &probe);
  glNamedRenderbufferStorage(probe, GL_DEPTH32F_STENCIL8, 1, 1);
  glGetNamedRenderbufferParameteriv(probe, GL_RENDERBUFFER_STENCIL_SIZE, &c.stencil_bits);
  glDeleteRenderbuffers(1, &probe);
  check_error("reading OpenGL capabilities");
}

Context::~Context() {
  Native& n = *native_;
  const bool current = n.context != EGL_NO_CONTEXT ? eglGetCurrentContext() == n.context : true;
  if (current && n.debug) glDebugMessageCallback(nullptr, nullptr);
  if (n.context == EGL_NO_CONTEXT) {
    // Adopted: the caller owns the context, so hand back what gfxq created in it.
    for (const auto& [names, program] : n.programs) glDeleteProgram(program);
    for (const auto& [name, program] : n.compute_programs) glDeleteProgram(program);
    return;
  }
  // Destroying the EGL context frees its programs and buffers.
  if (current) eglMakeCurrent(n.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(n.display, n.context);
  release_display(n.display);
}

void Context::make_current() {
  const Native& n = *native_;
  if (n.context == EGL_NO_CONTEXT || eglGetCurrentContext() == n.context) return;
  if (!eglMakeCurrent(n.display, EGL_NO_SURFACE, EGL_NO_SURFACE, n.context)) {
    const EGLint e = eglGetError();
    throw Error(e == EGL_CONTEXT_LOST ? ErrorCode::DeviceLost : ErrorCode::Internal,
                std::string("eglMakeCurrent failed: ") + egl_error_name(e));
  }
}

void Context::check_alive() {
  Native& n = *native_;
  const uint64_t check = ++n.checks;
  if (!n.lost) {
    if (check == n.faults.lose_device)
      n.lost = "injected: FaultInjection, check " + std::to_string(check);
    else if (const GLenum status = glGetGraphicsResetStatus(); status != GL_NO_ERROR)
      n.lost = std::string("glGetGraphicsResetStatus reported ") +
               (status == GL_GUILTY_CONTEXT_RESET     ? "GL_GUILTY_CONTEXT_RESET"
                : status == GL_INNOCENT_CONTEXT_RESET ? "GL_INNOCENT_CONTEXT_RESET"
                                                      : "GL_UNKNOWN_CONTEXT_RESET");
  }
  if (n.lost)
    throw Error(ErrorCode::DeviceLost,
                "the OpenGL context on " + caps_.renderer + " was lost (" + *n.lost + "); create a new engine");
}

void Context::finish(const char* what) {
  Native& n = *native_;
  if (n.lost)
    throw Error(ErrorCode::DeviceLost, std::string(what) + ": the OpenGL context on " + caps_.renderer +
                                           " was lost earlier (" + *n.lost + ")");
  const uint64_t wait = ++n.waits;
  if (wait == n.faults.time_out_gpu_wait)
    throw Error(ErrorCode::Timeout, std::string(what) + ": the GPU did not finish within " +
                                        std::to_string(n.wait_timeout_ns / 1000000) +
                                        " ms (injected: FaultInjection, wait " + std::to_string(wait) +
                                        ") (EngineOptions::gpu_timeout_ms)");
  GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  if (!fence) check_error("glFenceSync");
  // The first wait flushes the commands; later ones only wait (in slices, so a lost context shows).
  const uint64_t slice = std::min<uint64_t>(n.wait_timeout_ns, 100ull * 1000 * 1000);
  GLenum r = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, slice);
  for (uint64_t waited = slice; (r == GL_TIMEOUT_EXPIRED) && waited < n.wait_timeout_ns; waited += slice)
    r = glClientWaitSync(fence, 0, std::min(slice, n.wait_timeout_ns - waited));
  glDeleteSync(fence);
  if (r == GL_WAIT_FAILED) check_error(what);
  if (r == GL_TIMEOUT_EXPIRED)
    throw Error(ErrorCode::Timeout, std::string(what) + ": the GPU did not finish within " +
                                        std::to_string(n.wait_timeout_ns / 1000000) +
                                        " ms (EngineOptions::gpu_timeout_ms)");
}

void Context::allocate(uint64_t bytes, const std::string& what, const char* function,
                       const std::function<void()>& call) {
  const uint64_t index = ++native_->allocations;
  const auto out_of_memory = [&](const std::string& cause) {
    return Error(ErrorCode::OutOfDeviceMemory,
                 "raster: out of GPU memory allocating " + what + " (" + std::to_string(bytes) + " bytes): " + cause);
  };
  if (index == native_->faults.fail_device_allocation)
    throw out_of_memory("injected failure of GL allocation " + std::to_string(index) + " (FaultInjection)");
  call();
  try {
    check_error(function);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::OutOfDeviceMemory) throw;
    throw out_of_memory(e.what());
  }
}

std::vector<std::string> Context::take_debug_messages() {
  std::lock_guard lock(native_->log_mutex);
  return std::exchange(native_->log, {});
}

unsigned Context::program(std::string_view vertex, std::string_view fragment) {
  auto key = std::make_pair(std::string(vertex), std::string(fragment));
  auto it = native_->programs.find(key);
  if (it != native_->programs.end()) return it->second;
  const GLuint p = link({{GL_VERTEX_SHADER, vertex}, {GL_FRAGMENT_SHADER, fragment}});
  native_->programs.emplace(std::move(key), p);
  return p;
}

unsigned Context::compute_program(std::string_view compute) {
  auto it = native_->compute_programs.find(compute);
  if (it != native_->compute_programs.end()) return it->second;
  const GLuint p = link({{GL_COMPUTE_SHADER, compute}});
  native_->compute_programs.emplace(std::string(compute), p);
  return p;
}

}  // namespace gfxq::gl
