#pragma once
// What the files of src/vk/device/ share: the device's state (Device::Impl) and small helpers.

#include <vulkan/vulkan.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vk/device/device.h"
#include "vk/device/pools.h"

namespace gfxq::vk {

//! A buffer whose release waits for a timed-out or lost submission's fence.
struct DeferredBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  Allocation memory;
};

struct Device::Impl {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  PFN_vkCmdPushDescriptorSetKHR push_descriptor_set = nullptr;
  VkPhysicalDeviceMemoryProperties memory{};
  uint64_t max_allocation = 0;  // maxMemoryAllocationSize
  uint64_t max_buffer = 0;      // maxBufferSize (Vulkan 1.3), 0 when unknown
  uint32_t max_push_bytes = 0;  // maxPushConstantsSize
  uint32_t max_push_descriptors = 0;
  std::map<std::string, Pipeline, std::less<>> pipelines;
  PFN_vkGetPipelineExecutablePropertiesKHR executable_properties = nullptr;  // with pipeline_statistics
  PFN_vkGetPipelineExecutableStatisticsKHR executable_statistics = nullptr;
  VkQueryPool timestamps = VK_NULL_HANDLE;  // kTimestampSlots slots, when the queue has timestamps
  uint64_t storage_alignment = 4;           // minStorageBufferOffsetAlignment
  std::unique_ptr<MemoryPools> pools;       // the sub-allocator (made with the device)
  uint64_t block_bytes = 0;                 // DeviceOptions::block_bytes
  uint64_t buffers = 0;                     // live buffers
  uint64_t buffer_requests = 0;             // create_buffer calls (fault injection counts them)
  uint64_t waits = 0;                       // submissions waited for (fault injection counts them)
  uint64_t wait_timeout_ns = 0;             // DeviceOptions::wait_timeout_ns
  std::optional<uint64_t> cache_bytes;      // DeviceOptions::cache_bytes
  FaultInjection faults;                    // DeviceOptions::faults
  std::optional<std::string> lost;          // why the device is lost, once it is
  Buffer upload_staging[2];  // filled in turn by upload(): the host fills one while the GPU copies out of the other
  Buffer readback_staging;
  uint64_t submissions = 0;                                    // command buffers submitted
  VkCommandBuffer batch = VK_NULL_HANDLE;                      // the open batch: passes recorded, not submitted
  std::vector<std::pair<VkCommandBuffer, VkFence>> abandoned;  // submitted, but the wait failed
  // Completed command buffers (reset) and fences (unsignalled), kept for the next batch: creating
  // them costs more than the whole round trip of a small submission (0.55 of 0.59 ms on an H200).
  std::vector<VkCommandBuffer> spare_commands;
  std::vector<VkFence> spare_fences;
  uint64_t fences_made = 0;              // vkCreateFence calls
  std::vector<DeferredBuffer> deferred;  // released once there is no batch and `abandoned` is empty
  uint64_t deferred_bytes = 0;           // their bytes
  uint64_t deferred_limit = 0;           // next_pass() waits first when deferred_bytes exceeds it
  std::mutex log_mutex;
  std::vector<std::string> log;
  std::vector<std::string>* teardown_messages = nullptr;
};

//! A zeroed Vulkan struct with its sType set.
template <class T>
T vk_struct(VkStructureType type) {
  T value{};
  value.sType = type;
  return value;
}

//! A global memory barrier between the given stages/accesses.
void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

//! Destroys a pipeline's objects and clears it.
void destroy_pipeline(VkDevice device, Pipeline& p) noexcept;

//! The memory type of `type_bits` best for `kind`: the first of its preference list, in order.
std::optional<uint32_t> choose_memory_type(const VkPhysicalDeviceMemoryProperties& mem, uint32_t type_bits,
                                           MemoryKind kind);

}  // namespace gfxq::vk
