#pragma once
// Shared helpers of the GPU tests: one headless GL context (debug output on) and one Vulkan device
// (validation and synchronization validation on) per test process, and checks that nothing was
// reported. Every GPU test ends with GFXQ_CHECK_NO_GL_MESSAGES() / GFXQ_CHECK_NO_VK_MESSAGES().
//
// GFXQ_TEST_VALIDATION=0 turns Vulkan validation off (for machines without the layer, such as the
// GPU machine); CI keeps it on and fails if the layer is missing.

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gfxq/gfxq.h"
#include "gl/context.h"
#include "vk/device.h"

namespace gfxq::test {

//! Whether Vulkan validation is on for the test device (GFXQ_TEST_VALIDATION, default on).
inline bool vk_validation_wanted() {
  const char* v = std::getenv("GFXQ_TEST_VALIDATION");
  return !(v && std::strcmp(v, "0") == 0);
}

//! Releases of process-wide GPU objects, run by tests/main.cpp after the tests and before static
//! destruction: drivers (NVIDIA's) tear themselves down at exit, and a context or device destroyed
//! after that crashes the process.
inline std::vector<std::function<void()>>& gpu_teardown() {
  static std::vector<std::function<void()>> steps;
  return steps;
}

//! A process-wide object made by `make()` on first use and released by release_gpu_objects().
template <class T, class Make>
T& process_wide(Make make) {
  static std::unique_ptr<T> object;
  if (!object) {
    object = make();
    gpu_teardown().push_back([] { object.reset(); });
  }
  return *object;
}

//! Releases every process-wide GPU object, newest first.
inline void release_gpu_objects() {
  auto& steps = gpu_teardown();
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) (*it)();
  steps.clear();
}

//! The process-wide headless GL context (debug on), made current on the calling thread.
//! Throws gfxq::Error (failing the test) when no context can be created.
inline gl::Context& gl_context() {
  gl::Context& context = process_wide<gl::Context>([] { return gl::Context::create_headless({.debug = true}); });
  context.make_current();
  return context;
}

//! The process-wide Vulkan device, with validation and synchronization validation unless disabled.
inline vk::Device& vk_device() {
  return process_wide<vk::Device>([] {
    return vk::Device::create({.validation = vk_validation_wanted(), .sync_validation = vk_validation_wanted()});
  });
}

//! The process-wide engine of the compute-backend tests (debug output and Vulkan validation as
//! vk_validation_wanted() says): device creation with validation is slow on lavapipe.
inline Engine& debug_engine() {
  return process_wide<Engine>([] {
    EngineOptions options;
    options.debug = vk_validation_wanted();
    return std::make_unique<Engine>(options);
  });
}

//! All messages as one string, one per line, for a failure report.
inline std::string joined(const std::vector<std::string>& messages) {
  std::string out;
  for (const auto& m : messages) out += m + "\n";
  return out;
}

}  // namespace gfxq::test

//! Fails the test if the process-wide GL context recorded debug messages; clears them.
#define GFXQ_CHECK_NO_GL_MESSAGES()                                               \
  do {                                                                            \
    const auto gfxq_messages_ = ::gfxq::test::gl_context().take_debug_messages(); \
    CHECK_MESSAGE(gfxq_messages_.empty(), ::gfxq::test::joined(gfxq_messages_));  \
  } while (0)

//! Fails the test if the process-wide Vulkan device recorded validation messages; clears them.
#define GFXQ_CHECK_NO_VK_MESSAGES()                                              \
  do {                                                                           \
    const auto gfxq_messages_ = ::gfxq::test::vk_device().take_debug_messages(); \
    CHECK_MESSAGE(gfxq_messages_.empty(), ::gfxq::test::joined(gfxq_messages_)); \
  } while (0)
