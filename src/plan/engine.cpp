#include "gfxq/engine.h"

#include <array>
#include <chrono>

#include "gfxq/error.h"
#include "gfxq/sql.h"
#include "plan/backend.h"
#include "plan/engine_state.h"

namespace gfxq {

gl::Context* EngineState::gl() {
  if (!gl_tried_) {
    gl_tried_ = true;
    try {
      gl_ = gl::Context::create_headless({.debug = options.debug,
                                          .wait_timeout_ns = uint64_t(options.gpu_timeout_ms) * 1000000,
                                          .faults = options.faults});
      gl_caps = gl_->caps();
    } catch (const Error& e) {
      gl_caps = {};
      gl_caps.unavailable_reason = e.what();
    }
  }
  if (gl_) gl_->make_current();
  return gl_.get();
}

vk::Device* EngineState::vk() {
  if (!vk_tried_) {
    vk_tried_ = true;
    try {
      vk_ = vk::Device::create({.validation = options.debug,
                                .sync_validation = false,
                                .choice = options.vk_device,
                                .wait_timeout_ns = uint64_t(options.gpu_timeout_ms) * 1000000,
                                .faults = options.faults});
      vk_caps = vk_->caps();
    } catch (const Error& e) {
      vk_caps = {};
      vk_caps.unavailable_reason = e.what();
    }
  }
  return vk_.get();
}

struct Engine::Impl {
  EngineState state;
  std::array<std::unique_ptr<BackendImpl>, 3> backends;  // indexed by Backend (Cpu, Raster, Compute)

  BackendImpl& backend(Backend b) {
    auto& slot = backends[static_cast<size_t>(b)];
    if (!slot) slot = create_backend(b, state);
    return *slot;
  }
};

Engine::Engine(EngineOptions options) : impl_(std::make_unique<Impl>()) { impl_->state.options = std::move(options); }

Engine::~Engine() = default;

Result Engine::execute(const Query& query, const Catalog& catalog, Backend backend) {
  const auto start = std::chrono::steady_clock::now();
  Result result;
  if (backend == Backend::Auto) {
    result = run_auto(query, catalog);
  } else {
    result = impl_->backend(backend).execute(query, catalog);
    result.report.reason = "requested";
  }
  result.report.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// The planner's rule for Auto: the compute backend on a GPU Vulkan device (it is the fastest path
// on every GPU measured; the raster path is kept for what only it shows), else the CPU reference
// engine. A query the compute backend cannot run goes to the CPU engine, and the report says why.
Result Engine::run_auto(const Query& query, const Catalog& catalog) {
  EngineState& s = impl_->state;
  std::string why;
  if (!s.vk()) {
    why = "auto: no Vulkan device (" + s.vk_caps.unavailable_reason + "), so the CPU reference engine ran";
  } else if (s.vk_caps.device_type == "cpu") {
    why = "auto: the only Vulkan device, " + s.vk_caps.device_name +
          ", is a CPU implementation, so the CPU reference engine ran (faster there)";
  } else {
    try {
      Result r = impl_->backend(Backend::Compute).execute(query, catalog);
      r.report.reason = "auto: compute backend on " + s.vk_caps.device_name;
      return r;
    } catch (const Error& e) {
      if (e.code() != ErrorCode::Unsupported) throw;
      why = std::string("auto: ") + e.what() + ", so the CPU reference engine ran";
    }
  }
  Result r = impl_->backend(Backend::Cpu).execute(query, catalog);
  r.report.reason = why;
  return r;
}

Result Engine::execute_sql(std::string_view text, const Catalog& catalog, Backend backend) {
  return execute(sql::parse(text), catalog, backend);
}

const GlCapabilities& Engine::gl_capabilities() {
  impl_->state.gl();
  return impl_->state.gl_caps;
}

const VkCapabilities& Engine::vk_capabilities() {
  impl_->state.vk();
  return impl_->state.vk_caps;
}

std::vector<std::string> Engine::take_debug_messages() {
  std::vector<std::string> all;
  auto& s = impl_->state;
  if (auto* g = s.gl_caps.available ? s.gl() : nullptr)
    for (auto& m : g->take_debug_messages()) all.push_back("GL: " + m);
  if (auto* v = s.vk_caps.available ? s.vk() : nullptr)
    for (auto& m : v->take_debug_messages()) all.push_back("Vulkan: " + m);
  return all;
}

}  // namespace gfxq
