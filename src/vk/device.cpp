#include "vk/device.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "core/shaders.h"
#include "gfxq/error.h"
#include "vk/check.h"

namespace gfxq::vk {

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
  Buffer upload_staging;
  Buffer readback_staging;
  std::vector<std::pair<VkCommandBuffer, VkFence>> abandoned;  // submitted, but the wait failed
  std::mutex log_mutex;
  std::vector<std::string> log;
  std::vector<std::string>* teardown_messages = nullptr;
};

namespace {

//! A zeroed Vulkan struct with its sType set.
template <class T>
T vk_struct(VkStructureType type) {
  T value{};
  value.sType = type;
  return value;
}

constexpr uint64_t kStagingChunk = 64ull << 20;
constexpr uint64_t kSubmitTimeoutNs = 60ull * 1000 * 1000 * 1000;
constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

const char* type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

//! Preference when no device is named: discrete, integrated, virtual, cpu, other.
int type_rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
  }
}

std::string version_text(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT types,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* impl = static_cast<Device::Impl*>(user);
  // Called from inside the driver or layer: nothing may escape.
  try {
    std::string text = std::string("Vulkan ") +
                       (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "ERROR" : "WARNING") +
                       (types & VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT ? " (performance)" : " (validation)") +
                       ": " + (data && data->pMessage ? data->pMessage : "");
    std::lock_guard lock(impl->log_mutex);
    impl->log.push_back(std::move(text));
  } catch (...) {
  }
  return VK_FALSE;
}

bool has_layer(const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (const auto& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

bool has_instance_extension(const char* layer, const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceExtensionProperties(layer, &n, nullptr);
  std::vector<VkExtensionProperties> exts(n);
  vkEnumerateInstanceExtensionProperties(layer, &n, exts.data());
  for (const auto& e : exts)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

bool has_device_extension(VkPhysicalDevice pd, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> exts(n);
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, exts.data());
  for (const auto& e : exts)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

//! One physical device as seen at enumeration, with why it cannot serve gfxq (empty if it can).
struct Candidate {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props{};
  std::optional<uint32_t> compute_family;
  std::string unusable;
};

Candidate inspect(VkPhysicalDevice pd) {
  Candidate c;
  c.handle = pd;
  vkGetPhysicalDeviceProperties(pd, &c.props);
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
  for (uint32_t i = 0; i < n && !c.compute_family; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) c.compute_family = i;
  if (c.props.apiVersion < VK_API_VERSION_1_2)
    c.unusable = "Vulkan " + version_text(c.props.apiVersion) + " (gfxq needs 1.2)";
  else if (!c.compute_family)
    c.unusable = "no compute queue";
  else if (!has_device_extension(pd, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME))
    c.unusable = "no " VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
  return c;
}

//! Index of the device `choice` names: all digits = index, else a case-insensitive name substring.
std::optional<size_t> match_choice(const std::vector<Candidate>& devices, const std::string& choice) {
  const bool numeric = std::all_of(choice.begin(), choice.end(), [](char ch) { return std::isdigit(ch); });
  if (numeric) {
    const size_t index = std::strtoull(choice.c_str(), nullptr, 10);
    if (index < devices.size()) return index;
    return std::nullopt;
  }
  const std::string wanted = lower(choice);
  for (size_t i = 0; i < devices.size(); ++i)
    if (lower(devices[i].props.deviceName).find(wanted) != std::string::npos) return i;
  return std::nullopt;
}

//! The memory type of `type_bits` best for `kind`: the first of its preference list, in order.
std::optional<uint32_t> choose_memory_type(const VkPhysicalDeviceMemoryProperties& mem, uint32_t type_bits,
                                           MemoryKind kind) {
  struct Preference {
    VkMemoryPropertyFlags want, avoid;
  };
  constexpr VkMemoryPropertyFlags kHostVisible =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  // Types gfxq never wants: protected memory needs a feature, lazily allocated memory is for
  // attachments, AMD device-coherent memory is slow.
  constexpr VkMemoryPropertyFlags kNever = VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT |
                                           VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD;
  std::vector<Preference> prefs;
  switch (kind) {
    case MemoryKind::Device:
      // Pure VRAM first (not the host-visible BAR window); CPU devices have one heap for all.
      prefs = {{VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT},
               {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0},
               {0, 0}};
      break;
    case MemoryKind::Upload: prefs = {{kHostVisible, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT}, {kHostVisible, 0}}; break;
    case MemoryKind::Readback:
      prefs = {{kHostVisible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0}, {kHostVisible, 0}};
      break;
  }
  for (const auto& p : prefs)
    for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
      const VkMemoryPropertyFlags f = mem.memoryTypes[i].propertyFlags;
      if ((type_bits & (1u << i)) && (f & p.want) == p.want && !(f & (p.avoid | kNever))) return i;
    }
  return std::nullopt;
}

const char* kind_name(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::Device: return "device";
    case MemoryKind::Upload: return "upload";
    case MemoryKind::Readback: return "readback";
  }
  return "?";
}

//! A global memory barrier between the given stages/accesses.
void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  auto b = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

void destroy_pipeline(VkDevice device, Pipeline& p) noexcept {
  if (p.pipeline) vkDestroyPipeline(device, p.pipeline, nullptr);
  if (p.layout) vkDestroyPipelineLayout(device, p.layout, nullptr);
  if (p.set_layout) vkDestroyDescriptorSetLayout(device, p.set_layout, nullptr);
  p = Pipeline{};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Buffer

Buffer::Buffer(Buffer&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, nullptr)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    if (device_) device_->free_buffer(*this);
    device_ = std::exchange(other.device_, nullptr);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
  }
  return *this;
}

Buffer::~Buffer() {
  if (device_) device_->free_buffer(*this);
}

// ---------------------------------------------------------------------------------------------
// Device creation and teardown

Device::Device() : impl_(std::make_unique<Impl>()) {}

void Device::timestamp(VkCommandBuffer cmd, uint32_t slot) {
  if (!impl_->timestamps) return;
  if (slot >= kTimestampSlots)
    throw Error(ErrorCode::Internal, "timestamp slot " + std::to_string(slot) + " out of range");
  vkCmdResetQueryPool(cmd, impl_->timestamps, slot, 1);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, impl_->timestamps, slot);
}

double Device::elapsed_ms(uint32_t from, uint32_t to) {
  if (!impl_->timestamps || from >= kTimestampSlots || to >= kTimestampSlots)
    return std::numeric_limits<double>::quiet_NaN();
  uint64_t t[2][2] = {};  // value, availability
  for (int i = 0; i < 2; ++i)
    vkGetQueryPoolResults(device_, impl_->timestamps, i ? to : from, 1, sizeof t[i], t[i], sizeof t[i],
                          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
  if (!t[0][1] || !t[1][1]) return std::numeric_limits<double>::quiet_NaN();
  return double(t[1][0] - t[0][0]) * caps_.timestamp_period_ns * 1e-6;
}

uint32_t Device::queue_family() const noexcept {
  return impl_->queue_family;
}

std::unique_ptr<Device> Device::create(const DeviceOptions& options) {
  std::unique_ptr<Device> d(new Device());  // a throw below tears down whatever was made
  Impl& m = *d->impl_;
  m.teardown_messages = options.teardown_messages;
  const bool validation = options.validation || options.sync_validation;

  // --- instance
  uint32_t loader_version = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS || loader_version < VK_API_VERSION_1_2)
    throw Error(ErrorCode::Unsupported,
                "the Vulkan loader supports " + version_text(loader_version) + "; gfxq needs 1.2");
  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  if (validation) {
    if (!has_layer(kValidationLayer))
      throw Error(ErrorCode::Unsupported,
                  std::string("Vulkan validation was requested but ") + kValidationLayer + " is not installed");
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  const bool sync =
      options.sync_validation && has_instance_extension(kValidationLayer, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  if (options.sync_validation && !sync)
    throw Error(ErrorCode::Unsupported, "synchronization validation needs " VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  if (sync) extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);

  auto messenger_info =
      vk_struct<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType =
      VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = on_message;
  messenger_info.pUserData = &m;
  const VkValidationFeatureEnableEXT sync_feature = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  auto features = vk_struct<VkValidationFeaturesEXT>(VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT);
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = &sync_feature;
  features.pNext = &messenger_info;

  auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "gfxq";
  app.pEngineName = "gfxq";
  app.apiVersion = loader_version;
  auto instance_info = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  // The chained messenger also reports problems inside vkCreateInstance/vkDestroyInstance.
  instance_info.pNext = !validation ? nullptr : sync ? static_cast<const void*>(&features) : &messenger_info;
  instance_info.pApplicationInfo = &app;
  instance_info.enabledLayerCount = uint32_t(layers.size());
  instance_info.ppEnabledLayerNames = layers.data();
  instance_info.enabledExtensionCount = uint32_t(extensions.size());
  instance_info.ppEnabledExtensionNames = extensions.data();
  if (VkResult r = vkCreateInstance(&instance_info, nullptr, &m.instance); r != VK_SUCCESS) {
    m.instance = VK_NULL_HANDLE;
    throw Error(ErrorCode::Unsupported, std::string("vkCreateInstance failed: ") + result_name(r));
  }
  if (validation) {
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(m.instance, "vkCreateDebugUtilsMessengerEXT"));
    VK_CHECK(create_messenger(m.instance, &messenger_info, nullptr, &m.messenger));
  }

  // --- physical device
  uint32_t count = 0;
  VK_CHECK(vkEnumeratePhysicalDevices(m.instance, &count, nullptr));
  std::vector<VkPhysicalDevice> handles(count);
  VK_CHECK(vkEnumeratePhysicalDevices(m.instance, &count, handles.data()));
  handles.resize(count);
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < handles.size(); ++i) {
    candidates.push_back(inspect(handles[i]));
    d->caps_.all_devices.push_back(std::to_string(i) + ": " + candidates.back().props.deviceName + " (" +
                                   type_name(candidates.back().props.deviceType) + ")");
  }
  const std::string listing = candidates.empty() ? "no devices" : "devices: " + join(d->caps_.all_devices, ", ");

  std::string choice = options.choice;
  std::string choice_source = "device choice";
  if (choice.empty()) {
    if (const char* env = std::getenv("GFXQ_VK_DEVICE"); env && *env) {
      choice = env;
      choice_source = "GFXQ_VK_DEVICE";
    }
  }
  const Candidate* chosen = nullptr;
  if (!choice.empty()) {
    const auto index = match_choice(candidates, choice);
    if (!index)
      throw Error(ErrorCode::Unsupported,
                  choice_source + " '" + choice + "' matches no Vulkan device (index or name substring); " + listing);
    chosen = &candidates[*index];
    if (!chosen->unusable.empty())
      throw Error(ErrorCode::Unsupported, choice_source + " '" + choice + "' names " + chosen->props.deviceName +
                                              ", which gfxq cannot use: " + chosen->unusable);
  } else {
    std::vector<std::string> reasons;
    for (const auto& c : candidates) {
      if (!c.unusable.empty()) {
        reasons.push_back(std::string(c.props.deviceName) + ": " + c.unusable);
        continue;
      }
      if (!chosen || type_rank(c.props.deviceType) < type_rank(chosen->props.deviceType)) chosen = &c;
    }
    if (!chosen)
      throw Error(ErrorCode::Unsupported,
                  "no usable Vulkan device (" + (reasons.empty() ? listing : join(reasons, "; ")) + ")");
  }
  d->physical_ = chosen->handle;
  m.queue_family = *chosen->compute_family;
  const uint32_t device_api = chosen->props.apiVersion;
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
                                              chosen->props.deviceName + " lacks");
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
                std::string("vkCreateDevice on ") + chosen->props.deviceName + " failed: " + result_name(r));
  }
  vkGetDeviceQueue(d->device_, m.queue_family, 0, &m.queue);
  auto pool_info = vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
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
  c.device_type = type_name(props.properties.deviceType);
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
  return d;
}

Device::~Device() {
  Impl& m = *impl_;
  if (device_) {
    vkDeviceWaitIdle(device_);
    for (auto& [cmd, fence] : m.abandoned) vkDestroyFence(device_, fence, nullptr);
    m.upload_staging = Buffer();
    m.readback_staging = Buffer();
    for (auto& [name, p] : m.pipelines) destroy_pipeline(device_, p);
    if (m.timestamps) vkDestroyQueryPool(device_, m.timestamps, nullptr);
    if (m.pool) vkDestroyCommandPool(device_, m.pool, nullptr);  // frees its command buffers
    vkDestroyDevice(device_, nullptr);
  }
  if (m.instance) {
    if (m.messenger) {
      auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(m.instance, "vkDestroyDebugUtilsMessengerEXT"));
      destroy_messenger(m.instance, m.messenger, nullptr);
    }
    vkDestroyInstance(m.instance, nullptr);
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

// ---------------------------------------------------------------------------------------------
// Memory

Buffer Device::create_buffer(uint64_t bytes, MemoryKind kind) {
  Impl& m = *impl_;
  const uint64_t size = std::max<uint64_t>(bytes, 4);
  auto refuse = [&](const std::string& why) {
    return Error(ErrorCode::OutOfDeviceMemory,
                 "cannot allocate a " + std::to_string(size) + "-byte " + kind_name(kind) + " buffer: " + why);
  };
  if (m.max_buffer && size > m.max_buffer)
    throw refuse("the device's largest buffer (maxBufferSize) is " + std::to_string(m.max_buffer) + " bytes");

  Buffer b;
  auto info = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = size;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (VkResult r = vkCreateBuffer(device_, &info, nullptr, &b.buffer_); r != VK_SUCCESS) {
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
      throw refuse(std::string("vkCreateBuffer returned ") + result_name(r));
    check(r, "vkCreateBuffer");
  }
  b.device_ = this;  // from here on, b's destructor releases what exists
  b.size_ = size;
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, b.buffer_, &req);
  const auto type = choose_memory_type(m.memory, req.memoryTypeBits, kind);
  if (!type) throw Error(ErrorCode::Unsupported, std::string("no memory type fits a ") + kind_name(kind) + " buffer");
  const uint32_t heap = m.memory.memoryTypes[*type].heapIndex;
  const uint64_t heap_size = m.memory.memoryHeaps[heap].size;
  const std::string where = "heap " + std::to_string(heap) + " holds " + std::to_string(heap_size) + " bytes";
  // Checked here rather than left to the driver: over-sized requests are invalid usage (validation
  // errors), and a CPU driver may try to reserve the memory before failing.
  if (req.size > heap_size) throw refuse(where);
  if (m.max_allocation && req.size > m.max_allocation)
    throw refuse("the largest allocation (maxMemoryAllocationSize) is " + std::to_string(m.max_allocation) +
                 " bytes; " + where);

  auto alloc = vk_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = *type;
  if (VkResult r = vkAllocateMemory(device_, &alloc, nullptr, &b.memory_); r != VK_SUCCESS) {
    b.memory_ = VK_NULL_HANDLE;
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
      throw refuse(std::string(result_name(r)) + "; " + where);
    check(r, "vkAllocateMemory");
  }
  VK_CHECK(vkBindBufferMemory(device_, b.buffer_, b.memory_, 0));
  if (kind != MemoryKind::Device) VK_CHECK(vkMapMemory(device_, b.memory_, 0, VK_WHOLE_SIZE, 0, &b.mapped_));
  return b;
}

void Device::free_buffer(Buffer& b) noexcept {
  if (b.buffer_) vkDestroyBuffer(device_, b.buffer_, nullptr);
  if (b.memory_) vkFreeMemory(device_, b.memory_, nullptr);  // also unmaps
  b.device_ = nullptr;
  b.buffer_ = VK_NULL_HANDLE;
  b.memory_ = VK_NULL_HANDLE;
  b.size_ = 0;
  b.mapped_ = nullptr;
}

void Device::check_range(const Buffer& b, uint64_t bytes, uint64_t offset, const char* what) const {
  if (b.device_ != this || offset > b.size_ || bytes > b.size_ - offset)
    throw Error(ErrorCode::Internal, std::string(what) + " of " + std::to_string(bytes) + " bytes at offset " +
                                         std::to_string(offset) + " is outside the " + std::to_string(b.size_) +
                                         "-byte buffer (or the buffer belongs to no/another device)");
}

namespace {

//! `staging` grown (if needed) to hold min(bytes, kStagingChunk), at least 1 MiB.
Buffer& staging_for(Device& device, Buffer& staging, uint64_t bytes, MemoryKind kind) {
  const uint64_t wanted = std::min(kStagingChunk, std::max<uint64_t>(bytes, 1ull << 20));
  if (staging.size() < std::min(bytes, kStagingChunk)) staging = device.create_buffer(wanted, kind);
  return staging;
}

}  // namespace

void Device::upload(const Buffer& dst, const void* src, uint64_t bytes, uint64_t offset) {
  check_range(dst, bytes, offset, "upload");
  if (bytes == 0) return;
  const auto* from = static_cast<const uint8_t*>(src);
  if (dst.mapped()) {
    std::memcpy(static_cast<uint8_t*>(dst.mapped()) + offset, from, bytes);
    return;
  }
  Buffer& staging = staging_for(*this, impl_->upload_staging, bytes, MemoryKind::Upload);
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min(bytes - done, staging.size());
    std::memcpy(staging.mapped(), from + done, n);
    submit([&](VkCommandBuffer cmd) {
      const VkBufferCopy region{0, offset + done, n};
      vkCmdCopyBuffer(cmd, staging.handle(), dst.handle(), 1, &region);
    });
    done += n;
  }
}

void Device::download(const Buffer& src, void* dst, uint64_t bytes, uint64_t offset) {
  check_range(src, bytes, offset, "download");
  if (bytes == 0) return;
  auto* to = static_cast<uint8_t*>(dst);
  if (src.mapped()) {
    std::memcpy(to, static_cast<const uint8_t*>(src.mapped()) + offset, bytes);
    return;
  }
  Buffer& staging = staging_for(*this, impl_->readback_staging, bytes, MemoryKind::Readback);
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min(bytes - done, staging.size());
    submit([&](VkCommandBuffer cmd) {
      const VkBufferCopy region{offset + done, 0, n};
      vkCmdCopyBuffer(cmd, src.handle(), staging.handle(), 1, &region);
    });
    std::memcpy(to + done, staging.mapped(), n);
    done += n;
  }
}

// ---------------------------------------------------------------------------------------------
// Pipelines and commands

const Pipeline& Device::pipeline(std::string_view name, uint32_t bindings, uint32_t push_bytes, bool group_offset,
                                 uint32_t specialization, uint32_t specialization1) {
  Impl& m = *impl_;
  std::string key(name);
  if (specialization || specialization1) key += "#" + std::to_string(specialization);
  if (specialization1) key += "/" + std::to_string(specialization1);
  if (auto it = m.pipelines.find(key); it != m.pipelines.end()) {
    const Pipeline& p = it->second;
    if (p.bindings != bindings || p.push_bytes != push_bytes || p.group_offset != group_offset)
      throw Error(ErrorCode::Internal, "pipeline " + key + " was created with another layout");
    return p;
  }
  const std::string label = "pipeline " + key;
  if (push_bytes % 4 != 0 || (group_offset && push_bytes < 4))
    throw Error(ErrorCode::Internal, label + ": push constants must be whole words (and hold the group offset)");
  if (push_bytes > m.max_push_bytes)
    throw Error(ErrorCode::Unsupported, label + " needs " + std::to_string(push_bytes) +
                                            " bytes of push constants; the device has " +
                                            std::to_string(m.max_push_bytes));
  if (bindings > m.max_push_descriptors)
    throw Error(ErrorCode::Unsupported, label + " needs " + std::to_string(bindings) +
                                            " buffers; the device pushes at most " +
                                            std::to_string(m.max_push_descriptors));
  const shaders::Spirv spirv = shaders::spirv(name);

  Pipeline p;
  p.bindings = bindings;
  p.push_bytes = push_bytes;
  p.group_offset = group_offset;
  VkShaderModule module = VK_NULL_HANDLE;
  try {
    std::vector<VkDescriptorSetLayoutBinding> slots(bindings);
    for (uint32_t i = 0; i < bindings; ++i)
      slots[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    auto set_info = vk_struct<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
    set_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    set_info.bindingCount = bindings;
    set_info.pBindings = slots.data();
    VK_CHECK(vkCreateDescriptorSetLayout(device_, &set_info, nullptr, &p.set_layout));

    const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    auto layout_info = vk_struct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &p.set_layout;
    layout_info.pushConstantRangeCount = push_bytes ? 1 : 0;
    layout_info.pPushConstantRanges = &range;
    VK_CHECK(vkCreatePipelineLayout(device_, &layout_info, nullptr, &p.layout));

    auto module_info = vk_struct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
    module_info.codeSize = spirv.count * sizeof(uint32_t);
    module_info.pCode = spirv.words;
    VK_CHECK(vkCreateShaderModule(device_, &module_info, nullptr, &module));
    auto pipeline_info = vk_struct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
    pipeline_info.stage =
        vk_struct<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
    pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline_info.stage.module = module;
    pipeline_info.stage.pName = "main";
    // The nonzero ones of constants 0 and 1 (a constant the shader does not declare is ignored).
    const uint32_t values[2] = {specialization, specialization1};
    const VkSpecializationMapEntry entries[2] = {{0, 0, 4}, {1, 4, 4}};
    const VkSpecializationInfo spec{(specialization ? 1u : 0u) + (specialization1 ? 1u : 0u),
                                    specialization ? entries : entries + 1, sizeof values, values};
    if (spec.mapEntryCount) pipeline_info.stage.pSpecializationInfo = &spec;
    pipeline_info.layout = p.layout;
    if (m.executable_statistics) pipeline_info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    VK_CHECK(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &pipeline_info, nullptr, &p.pipeline));
  } catch (...) {
    if (module) vkDestroyShaderModule(device_, module, nullptr);
    destroy_pipeline(device_, p);
    throw;
  }
  vkDestroyShaderModule(device_, module, nullptr);
  return m.pipelines.emplace(key, p).first->second;
}

std::vector<std::string> Device::pipeline_names() const {
  std::vector<std::string> names;
  for (const auto& [name, p] : impl_->pipelines) names.push_back(name);
  return names;
}

std::string Device::pipeline_statistics(std::string_view name) const {
  const Impl& m = *impl_;
  const auto it = m.pipelines.find(name);
  if (!m.executable_statistics || it == m.pipelines.end())
    throw Error(ErrorCode::InvalidInput,
                "no statistics of pipeline " + std::string(name) +
                    (m.executable_statistics ? ": it was not created" : ": the device was created without them"));
  auto info = vk_struct<VkPipelineInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR);
  info.pipeline = it->second.pipeline;
  uint32_t count = 0;
  VK_CHECK(m.executable_properties(device_, &info, &count, nullptr));
  std::vector<VkPipelineExecutablePropertiesKHR> executables(
      count, vk_struct<VkPipelineExecutablePropertiesKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR));
  VK_CHECK(m.executable_properties(device_, &info, &count, executables.data()));
  std::string out;
  for (uint32_t e = 0; e < count; ++e) {
    auto exec = vk_struct<VkPipelineExecutableInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR);
    exec.pipeline = it->second.pipeline;
    exec.executableIndex = e;
    uint32_t n = 0;
    VK_CHECK(m.executable_statistics(device_, &exec, &n, nullptr));
    std::vector<VkPipelineExecutableStatisticKHR> stats(
        n, vk_struct<VkPipelineExecutableStatisticKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR));
    VK_CHECK(m.executable_statistics(device_, &exec, &n, stats.data()));
    out += std::string(out.empty() ? "" : "; ") + executables[e].name + ":";
    for (const auto& st : stats) {
      out += std::string(" ") + st.name + " = ";
      switch (st.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: out += st.value.b32 ? "true" : "false"; break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: out += std::to_string(st.value.i64); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: out += std::to_string(st.value.u64); break;
        default: out += std::to_string(st.value.f64); break;
      }
      out += ",";
    }
  }
  return out;
}

VkCommandBuffer Device::begin_commands() {
  auto alloc = vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  alloc.commandPool = impl_->pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateCommandBuffers(device_, &alloc, &cmd));
  auto begin = vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (VkResult r = vkBeginCommandBuffer(cmd, &begin); r != VK_SUCCESS) {
    vkFreeCommandBuffers(device_, impl_->pool, 1, &cmd);
    check(r, "vkBeginCommandBuffer");
  }
  // A waited fence alone does not order memory between submissions; this barrier's first scope
  // covers every command submitted earlier to the queue.
  memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                 VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
  return cmd;
}

void Device::discard_commands(VkCommandBuffer cmd) noexcept {
  vkFreeCommandBuffers(device_, impl_->pool, 1, &cmd);
}

void Device::end_and_wait(VkCommandBuffer cmd) {
  Impl& m = *impl_;
  // Device writes become visible to host reads of mapped memory once the fence is waited.
  memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_HOST_READ_BIT);
  VkFence fence = VK_NULL_HANDLE;
  try {
    VK_CHECK(vkEndCommandBuffer(cmd));
    auto fence_info = vk_struct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    VK_CHECK(vkCreateFence(device_, &fence_info, nullptr, &fence));
    auto submit = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    VK_CHECK(vkQueueSubmit(m.queue, 1, &submit, fence));
  } catch (...) {
    if (fence) vkDestroyFence(device_, fence, nullptr);
    discard_commands(cmd);
    throw;
  }
  const VkResult r = vkWaitForFences(device_, 1, &fence, VK_TRUE, kSubmitTimeoutNs);
  if (r != VK_SUCCESS) {
    // Still pending (or lost): the command buffer and fence may not be freed yet; ~Device does it.
    m.abandoned.emplace_back(cmd, fence);
    if (r == VK_TIMEOUT) throw Error(ErrorCode::Timeout, "a Vulkan submission did not finish within 60 s");
    check(r, "vkWaitForFences");
  }
  vkDestroyFence(device_, fence, nullptr);
  discard_commands(cmd);
}

void Device::dispatch(VkCommandBuffer cmd, const Pipeline& p, const std::vector<const Buffer*>& buffers,
                      const void* push, uint32_t groups_x) {
  std::vector<BufferRange> ranges;
  ranges.reserve(buffers.size());
  for (const Buffer* b : buffers) ranges.push_back({b, 0, b->size()});
  dispatch_ranges(cmd, p, ranges, push, groups_x);
}

uint64_t Device::max_binding_elements() const noexcept {
  const uint64_t align = impl_->storage_alignment;
  return (caps_.max_storage_buffer_range / align * align) / 4;
}

void Device::dispatch_ranges(VkCommandBuffer cmd, const Pipeline& p, const std::vector<BufferRange>& ranges,
                             const void* push, uint32_t groups_x) {
  const Impl& m = *impl_;
  if (ranges.size() != p.bindings)
    throw Error(ErrorCode::Internal, "dispatch with " + std::to_string(ranges.size()) + " buffers for a pipeline of " +
                                         std::to_string(p.bindings) + " bindings");
  std::vector<VkDescriptorBufferInfo> infos(ranges.size());
  std::vector<VkWriteDescriptorSet> writes(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const Buffer& b = *ranges[i].buffer;
    const uint64_t bytes = ranges[i].bytes ? ranges[i].bytes : b.size() - ranges[i].offset;
    if (ranges[i].offset % m.storage_alignment != 0 || ranges[i].offset + bytes > b.size())
      throw Error(ErrorCode::Internal, "binding " + std::to_string(i) + ": range at " +
                                           std::to_string(ranges[i].offset) + " of " + std::to_string(bytes) +
                                           " bytes is misaligned or outside its " + std::to_string(b.size()) +
                                           "-byte buffer");
    if (bytes > caps_.max_storage_buffer_range)
      throw Error(ErrorCode::Unsupported, "a " + std::to_string(bytes) + "-byte range at binding " + std::to_string(i) +
                                              " exceeds the device's maxStorageBufferRange of " +
                                              std::to_string(caps_.max_storage_buffer_range) + " bytes");
    infos[i] = {b.handle(), ranges[i].offset, bytes};
    writes[i] = vk_struct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    writes[i].dstBinding = uint32_t(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  const uint32_t max_groups = caps_.max_workgroup_count[0];
  if (groups_x > max_groups && !p.group_offset)
    throw Error(ErrorCode::Unsupported, "a dispatch of " + std::to_string(groups_x) +
                                            " workgroups exceeds maxComputeWorkGroupCount[0] = " +
                                            std::to_string(max_groups) + " and its shader takes no group offset");
  if (groups_x == 0) return;

  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
  if (!writes.empty())
    m.push_descriptor_set(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, uint32_t(writes.size()), writes.data());
  std::vector<uint8_t> words(p.push_bytes, 0);
  if (push && p.push_bytes) std::memcpy(words.data(), push, p.push_bytes);
  for (uint32_t first = 0; first < groups_x;) {
    const uint32_t count = std::min(groups_x - first, max_groups);
    if (p.group_offset) std::memcpy(words.data() + p.push_bytes - 4, &first, 4);
    if (p.push_bytes) vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p.push_bytes, words.data());
    vkCmdDispatch(cmd, count, 1, 1);
    first += count;
  }
}

void Device::barrier(VkCommandBuffer cmd) {
  constexpr VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  memory_barrier(cmd, stages, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, stages,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT);
}

}  // namespace gfxq::vk
