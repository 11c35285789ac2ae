#include "vk/device/choice.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "gfxq/error.h"
#include "vk/check.h"

namespace gfxq::vk {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

const char* type_name_of(VkPhysicalDeviceType t) {
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

}  // namespace

const char* device_type_name(VkPhysicalDeviceType t) {
  return type_name_of(t);
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

std::string version_text(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

void create_instance(Device::Impl& m, const DeviceOptions& options) {
  const bool validation = options.validation || options.sync_validation;
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
  // One instance per configuration for the life of the process, shared by every device made
  // with it: NVIDIA's driver refused vkCreateInstance (VK_ERROR_INCOMPATIBLE_DRIVER) after about
  // 30 create/destroy cycles in one process on the H200 machine, and such cycles are known to
  // corrupt its state (docs/ARCHITECTURE.md "Driver notes"). Instances are never destroyed; the
  // chained messenger above reports only during vkCreateInstance.
  static std::mutex mutex;
  static std::map<std::pair<bool, bool>, VkInstance> instances;
  std::lock_guard lock(mutex);
  VkInstance& shared = instances[{validation, sync}];
  if (!shared) {
    if (VkResult r = vkCreateInstance(&instance_info, nullptr, &shared); r != VK_SUCCESS) {
      shared = VK_NULL_HANDLE;
      throw Error(ErrorCode::Unsupported, std::string("vkCreateInstance failed: ") + result_name(r));
    }
  }
  m.instance = shared;
  if (validation) {
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(m.instance, "vkCreateDebugUtilsMessengerEXT"));
    VK_CHECK(create_messenger(m.instance, &messenger_info, nullptr, &m.messenger));
  }
}

Candidate choose_physical_device(const Device::Impl& m, const std::string& requested,
                                 std::vector<std::string>& all_devices) {
  uint32_t count = 0;
  VK_CHECK(vkEnumeratePhysicalDevices(m.instance, &count, nullptr));
  std::vector<VkPhysicalDevice> handles(count);
  VK_CHECK(vkEnumeratePhysicalDevices(m.instance, &count, handles.data()));
  handles.resize(count);
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < handles.size(); ++i) {
    candidates.push_back(inspect(handles[i]));
    all_devices.push_back(std::to_string(i) + ": " + candidates.back().props.deviceName + " (" +
                          type_name_of(candidates.back().props.deviceType) + ")");
  }
  const std::string listing = candidates.empty() ? "no devices" : "devices: " + join(all_devices, ", ");

  std::string choice = requested;
  std::string choice_source = "device choice";
  if (choice.empty()) {
    if (const char* env = std::getenv("GFXQ_VK_DEVICE"); env && *env) {
      choice = env;
      choice_source = "GFXQ_VK_DEVICE";
      // A device set ("0,1", docs/MULTI_GPU.md): one device alone is the set's first.
      if (const size_t comma = choice.find(','); comma != std::string::npos) {
        choice = choice.substr(0, comma);
        while (!choice.empty() && choice.back() == ' ') choice.pop_back();
        choice_source = "GFXQ_VK_DEVICE's first entry";
      }
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
  return *chosen;
}

}  // namespace gfxq::vk
