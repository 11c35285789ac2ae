#pragma once
// Compute pipelines from embedded SPIR-V shaders, as Device::pipeline() caches them.

#include <vulkan/vulkan.h>

#include <cstdint>

namespace gfxq::vk {

//! A compute pipeline from an embedded SPIR-V shader: `bindings` storage buffers at bindings
//! 0..bindings-1 of set 0, and `push_bytes` of push constants (the last word is the group offset
//! when `group_offset`; see vk/device/device.h).
struct Pipeline {
  VkPipeline pipeline = VK_NULL_HANDLE;               //!< the compute pipeline
  VkPipelineLayout layout = VK_NULL_HANDLE;           //!< its layout (one push-descriptor set, push range)
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;  //!< set 0: `bindings` storage buffers, push descriptors
  uint32_t bindings = 0;                              //!< number of storage buffers
  uint32_t push_bytes = 0;                            //!< push-constant bytes, a multiple of 4
  bool group_offset = false;                          //!< last push word receives the first workgroup index
};

}  // namespace gfxq::vk
