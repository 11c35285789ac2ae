#pragma once
// Checked Vulkan calls: VK_CHECK(vkFoo(...)) throws a gfxq::Error naming the VkResult and the call.

#include <vulkan/vulkan.h>

#include <string>

#include "gfxq/error.h"

namespace gfxq::vk {

//! The enum name of a VkResult, e.g. "VK_ERROR_DEVICE_LOST".
inline const char* result_name(VkResult r) noexcept {
  switch (r) {
#define GFXQ_VK_RESULT_CASE(x) \
  case x: return #x;
    GFXQ_VK_RESULT_CASE(VK_SUCCESS)
    GFXQ_VK_RESULT_CASE(VK_NOT_READY)
    GFXQ_VK_RESULT_CASE(VK_TIMEOUT)
    GFXQ_VK_RESULT_CASE(VK_EVENT_SET)
    GFXQ_VK_RESULT_CASE(VK_EVENT_RESET)
    GFXQ_VK_RESULT_CASE(VK_INCOMPLETE)
    GFXQ_VK_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    GFXQ_VK_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    GFXQ_VK_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED)
    GFXQ_VK_RESULT_CASE(VK_ERROR_DEVICE_LOST)
    GFXQ_VK_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    GFXQ_VK_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    GFXQ_VK_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    GFXQ_VK_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    GFXQ_VK_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    GFXQ_VK_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    GFXQ_VK_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    GFXQ_VK_RESULT_CASE(VK_ERROR_FRAGMENTED_POOL)
    GFXQ_VK_RESULT_CASE(VK_ERROR_UNKNOWN)
    GFXQ_VK_RESULT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    GFXQ_VK_RESULT_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    GFXQ_VK_RESULT_CASE(VK_ERROR_FRAGMENTATION)
    GFXQ_VK_RESULT_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    GFXQ_VK_RESULT_CASE(VK_PIPELINE_COMPILE_REQUIRED)
    GFXQ_VK_RESULT_CASE(VK_ERROR_VALIDATION_FAILED_EXT)
#undef GFXQ_VK_RESULT_CASE
    default: return "VkResult(unknown)";
  }
}

//! Throws for a failed VkResult (negative codes): VK_ERROR_OUT_OF_DEVICE_MEMORY -> OutOfDeviceMemory,
//! VK_ERROR_DEVICE_LOST -> DeviceLost, anything else -> Internal. Success codes (VK_SUCCESS,
//! VK_TIMEOUT, VK_INCOMPLETE, ...) are returned for the caller to inspect.
inline VkResult check(VkResult r, const char* what) {
  if (r >= 0) return r;
  const std::string message = std::string(result_name(r)) + " from " + what;
  switch (r) {
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: throw Error(ErrorCode::OutOfDeviceMemory, message);
    case VK_ERROR_DEVICE_LOST: throw Error(ErrorCode::DeviceLost, message);
    default: throw Error(ErrorCode::Internal, message);
  }
}

}  // namespace gfxq::vk

//! Evaluates a Vulkan call and throws gfxq::Error naming the VkResult and the call if it failed;
//! yields the (non-negative) VkResult otherwise.
#define VK_CHECK(call) ::gfxq::vk::check((call), #call)
