// The device: creation (instance and choice in choice.cpp), capabilities, teardown, debug messages.
#include <algorithm>
#include <cstring>
#include <limits>

#include "core/shaders.h"
#include "gfxq/error.h"
#include "vk/check.h"
#include "vk/device/choice.h"
#include "vk/device/internal.h"

namespace gfxq::vk {

Device::Device() : impl_(std::make_unique<Impl>()) {}

std::unique_ptr<Device> Device::create(const DeviceOptions& options) {
  std::unique_ptr<Device> d(new Device());  // a throw below tears down whatever was made
  Impl& m = *d->impl_;
  m.teardown_messages = options.teardown_messages;
  m.wait_timeout_ns = options.wait_timeout_ns;
  m.cache_bytes = options.cache_bytes;
  m.faults = options.faults;
  m.block_bytes = options.block_bytes;
  create_instance(m, options);
  const Candidate chosen = choose_physical_device(m, options.choice, d->caps_.all_devices);
  d->physical_ = chosen.handle;
  m.queue_family = *chosen.compute_family;
  const uint32_t device_api = chosen.props.apiVersion;
  const bool vulkan13 = device_api >= VK_API_VERSION_1_3;

  // --- features: enable those gfxq uses that the device has
  auto has13 = vk_struct<VkPhysicalDeviceVulkan13Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
  auto has12 = vk_struct<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  auto has11 = vk_struct<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  auto has = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  has.pNext = &has11;
  has11.pNext = &has12;
  has12.pNext = vulkan13 ? &has13 : nullptr;
  vkGetPhysicalDeviceFeatures2(d->physical_, &has);

  auto on13 = vk_struct<VkPhysicalDeviceVulkan13Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
  auto on12 = vk_struct<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  auto on11 = vk_struct<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  auto on = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  on.pNext = &on11;
  on11.pNext = &on12;
  on12.pNext = vulkan13 ? &on13 : nullptr;
  on.features.shaderInt64 = has.features.shaderInt64;
  on.features.shaderFloat64 = has.features.shaderFloat64;
  on.features.shaderInt16 = has.features.shaderInt16;
  on11.storageBuffer16BitAccess = has11.storageBuffer16BitAccess;
  on12.shaderBufferInt64Atomics = has12.shaderBufferInt64Atomics;
  on12.shaderSharedInt64Atomics = has12.shaderSharedInt64Atomics;
  on12.shaderInt8 = has12.shaderInt8;
  on12.storageBuffer8BitAccess = has12.storageBuffer8BitAccess;
  on12.scalarBlockLayout = has12.scalarBlockLayout;
  on12.shaderSubgroupExtendedTypes = has12.shaderSubgroupExtendedTypes;
  on12.hostQueryReset = has12.hostQueryReset;
  on13.subgroupSizeControl = has13.subgroupSizeControl;
  on13.computeFullSubgroups = has13.computeFullSubgroups;
  on13.maintenance4 = has13.maintenance4;

  auto executable_on = vk_struct<VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR);
  std::vector<const char*> device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  if (options.pipeline_statistics) {
    if (!has_device_extension(d->physical_, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME))
      throw Error(ErrorCode::Unsupported, std::string("pipeline statistics need ") +
                                              VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME + ", which " +
                                              chosen.props.deviceName + " lacks");
    device_extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    executable_on.pipelineExecutableInfo = VK_TRUE;
    executable_on.pNext = on.pNext;
    on.pNext = &executable_on;
  }

  const float priority = 1.0f;
  auto queue_info = vk_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  queue_info.queueFamilyIndex = m.queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  auto device_info = vk_struct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  device_info.pNext = &on;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = uint32_t(device_extensions.size());
  device_info.ppEnabledExtensionNames = device_extensions.data();
  if (VkResult r = vkCreateDevice(d->physical_, &device_info, nullptr, &d->device_); r != VK_SUCCESS) {
    d->device_ = VK_NULL_HANDLE;
    throw Error(ErrorCode::Unsupported,
                std::string("vkCreateDevice on ") + chosen.props.deviceName + " failed: " + result_name(r));
  }
  vkGetDeviceQueue(d->device_, m.queue_family, 0, &m.queue);
  auto pool_info = vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT | VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = m.queue_family;
  VK_CHECK(vkCreateCommandPool(d->device_, &pool_info, nullptr, &m.pool));
  if (options.pipeline_statistics) {
    m.executable_properties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
        vkGetDeviceProcAddr(d->device_, "vkGetPipelineExecutablePropertiesKHR"));
    m.executable_statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
        vkGetDeviceProcAddr(d->device_, "vkGetPipelineExecutableStatisticsKHR"));
    if (!m.executable_properties || !m.executable_statistics)
      throw Error(ErrorCode::Unsupported, "vkGetPipelineExecutable*KHR are missing");
  }
  m.push_descriptor_set =
      reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(d->device_, "vkCmdPushDescriptorSetKHR"));
  if (!m.push_descriptor_set) throw Error(ErrorCode::Unsupported, "vkCmdPushDescriptorSetKHR is missing");

  // --- capabilities
  auto push_props = vk_struct<VkPhysicalDevicePushDescriptorPropertiesKHR>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR);
  auto props13 = vk_struct<VkPhysicalDeviceVulkan13Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES);
  auto props12 = vk_struct<VkPhysicalDeviceVulkan12Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES);
  auto props11 = vk_struct<VkPhysicalDeviceVulkan11Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES);
  auto props = vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  props.pNext = &props11;
  props11.pNext = &props12;
  props12.pNext = &push_props;
  push_props.pNext = vulkan13 ? &props13 : nullptr;
  vkGetPhysicalDeviceProperties2(d->physical_, &props);
  vkGetPhysicalDeviceMemoryProperties(d->physical_, &m.memory);
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(d->physical_, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(d->physical_, &family_count, families.data());

  const VkPhysicalDeviceLimits& limits = props.properties.limits;
  m.max_allocation = props11.maxMemoryAllocationSize;
  m.max_buffer = vulkan13 ? props13.maxBufferSize : 0;
  m.max_push_bytes = limits.maxPushConstantsSize;
  m.max_push_descriptors = push_props.maxPushDescriptors;

  VkCapabilities& c = d->caps_;
  c.available = true;
  c.device_name = props.properties.deviceName;
  c.device_type = device_type_name(props.properties.deviceType);
  c.driver_name = props12.driverName;
  c.driver_info = props12.driverInfo;
  // llvmpipe's gallivm ends every loop of an invocation after LP_MAX_TGSI_LOOP_ITERATIONS in all.
  if (props12.driverID == VK_DRIVER_ID_MESA_LLVMPIPE) c.shader_loop_limit = 65535;
  c.vendor_id = props.properties.vendorID;
  c.device_id = props.properties.deviceID;
  c.api_version = device_api;
  c.subgroup_size = props11.subgroupSize;
  const bool subgroup_compute = props11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT;
  c.subgroup_arithmetic =
      subgroup_compute && (props11.subgroupSupportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  c.subgroup_ballot = subgroup_compute && (props11.subgroupSupportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT);
  c.subgroup_shuffle = subgroup_compute && (props11.subgroupSupportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);
  c.max_shared_memory = limits.maxComputeSharedMemorySize;
  c.max_storage_buffer_range = limits.maxStorageBufferRange;
  c.max_workgroup_invocations = limits.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) {
    c.max_workgroup_size[i] = limits.maxComputeWorkGroupSize[i];
    c.max_workgroup_count[i] = limits.maxComputeWorkGroupCount[i];
  }
  c.shader_int64 = on.features.shaderInt64;
  c.shader_float64 = on.features.shaderFloat64;
  c.rounding_rte_float32 = props12.shaderRoundingModeRTEFloat32;
  c.buffer_int64_atomics = on12.shaderBufferInt64Atomics;
  c.shared_int64_atomics = on12.shaderSharedInt64Atomics;
  c.max_push_descriptors = push_props.maxPushDescriptors;
  c.max_storage_buffers_per_stage = limits.maxPerStageDescriptorStorageBuffers;
  c.timestamps = families[m.queue_family].timestampValidBits > 0;
  c.timestamp_period_ns = limits.timestampPeriod;
  m.storage_alignment = std::max<uint64_t>(4, limits.minStorageBufferOffsetAlignment);
  if (c.timestamps) {
    auto info = vk_struct<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = kTimestampSlots;
    VK_CHECK(vkCreateQueryPool(d->device_, &info, nullptr, &m.timestamps));
  }
  for (uint32_t i = 0; i < m.memory.memoryHeapCount; ++i)
    c.heaps.push_back(
        {m.memory.memoryHeaps[i].size, (m.memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0});
  uint64_t largest_local = 0;
  for (const auto& h : c.heaps)
    if (h.device_local) largest_local = std::max(largest_local, h.size);
  m.deferred_limit = largest_local / 8;
  m.pools = std::make_unique<MemoryPools>(d->device_, m.memory, m.block_bytes,
                                          m.cache_bytes ? *m.cache_bytes : largest_local / 4);
  return d;
}

Device::~Device() {
  Impl& m = *impl_;
  if (device_) {
    vkDeviceWaitIdle(device_);
    m.batch = VK_NULL_HANDLE;  // never submitted; the command pool frees it
    for (auto& [cmd, fence] : m.abandoned) vkDestroyFence(device_, fence, nullptr);
    m.abandoned.clear();
    for (VkFence fence : m.spare_fences) vkDestroyFence(device_, fence, nullptr);
    m.spare_fences.clear();
    for (Buffer& b : m.upload_staging) b = Buffer();
    m.readback_staging = Buffer();
    reap();  // the deferred buffers: nothing is pending any more
    m.pools.reset();
    for (auto& [name, p] : m.pipelines) destroy_pipeline(device_, p);
    if (m.timestamps) vkDestroyQueryPool(device_, m.timestamps, nullptr);
    if (m.pool) vkDestroyCommandPool(device_, m.pool, nullptr);  // frees its command buffers
    vkDestroyDevice(device_, nullptr);
  }
  // The instance is shared and lives as long as the process (create_instance); this device's
  // messenger goes.
  if (m.instance && m.messenger) {
    auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(m.instance, "vkDestroyDebugUtilsMessengerEXT"));
    destroy_messenger(m.instance, m.messenger, nullptr);
  }
  if (m.teardown_messages) {
    std::lock_guard lock(m.log_mutex);
    m.teardown_messages->insert(m.teardown_messages->end(), m.log.begin(), m.log.end());
  }
}

std::vector<std::string> Device::take_debug_messages() {
  std::lock_guard lock(impl_->log_mutex);
  return std::exchange(impl_->log, {});
}

uint32_t Device::queue_family() const noexcept {
  return impl_->queue_family;
}

bool Device::lost() const noexcept {
  return impl_->lost.has_value();
}

void Device::check_not_lost(const char* what) const {
  if (impl_->lost)
    throw Error(ErrorCode::DeviceLost, std::string(what) + ": the Vulkan device " + caps_.device_name +
                                           " was lost earlier (" + *impl_->lost + "); create a new engine");
}

MemoryStats Device::memory_stats() const {
  const Impl& m = *impl_;
  MemoryStats s;
  if (m.pools) {
    s.blocks = m.pools->blocks();
    s.block_bytes = m.pools->block_bytes();
    s.pooled_bytes = m.pools->pooled_bytes();
    s.dedicated = m.pools->dedicated();
    s.dedicated_bytes = m.pools->dedicated_bytes();
    s.allocations = m.pools->allocations();
    s.cached_bytes = m.pools->cached_bytes();
    s.reuses = m.pools->reuses();
  }
  s.buffers = m.buffers;
  s.buffer_requests = m.buffer_requests;
  s.deferred = m.deferred.size();
  return s;
}

}  // namespace gfxq::vk
