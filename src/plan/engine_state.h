#pragma once
// State shared by the Engine and its backends: options and lazily started GPU contexts.

#include <memory>
#include <optional>
#include <string>

#include "gfxq/engine.h"
#include "gl/context.h"
#include "vk/device.h"

namespace gfxq {

//! Options and the GPU contexts, started on first use. A context that fails to start leaves
//! a capability record with available=false and the reason; it is not retried.
struct EngineState {
  EngineOptions options;

  //! The GL context, or nullptr when none can be created (gl_caps.unavailable_reason says why).
  gl::Context* gl();
  //! The Vulkan device, or nullptr when none can be created (vk_caps.unavailable_reason says why).
  vk::Device* vk();

  GlCapabilities gl_caps;   //!< valid after gl() was called
  VkCapabilities vk_caps;   //!< valid after vk() was called

 private:
  bool gl_tried_ = false;
  bool vk_tried_ = false;
  std::unique_ptr<gl::Context> gl_;
  std::unique_ptr<vk::Device> vk_;
};

}  // namespace gfxq
