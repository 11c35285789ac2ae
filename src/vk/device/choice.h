#pragma once
// Choosing the Vulkan instance and physical device: the validation layer and messenger when asked,
// then the device named by DeviceOptions::choice or GFXQ_VK_DEVICE, else the best by type
// (discrete, integrated, virtual, cpu).

#include <vulkan/vulkan.h>

#include <optional>
#include <string>
#include <vector>

#include "vk/device/internal.h"

namespace gfxq::vk {

//! One physical device as seen at enumeration, with why it cannot serve gfxq (empty if it can).
struct Candidate {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props{};
  std::optional<uint32_t> compute_family;
  std::string unusable;
};

//! Creates `m.instance` (and `m.messenger` with validation); Error(Unsupported) with the reason.
void create_instance(Device::Impl& m, const DeviceOptions& options);

//! The device to use among `m.instance`'s; `all_devices` receives one line per device.
//! Error(Unsupported) when the choice matches nothing usable (the message lists the devices).
Candidate choose_physical_device(const Device::Impl& m, const std::string& choice,
                                 std::vector<std::string>& all_devices);

//! "discrete", "integrated", "virtual", "cpu" or "other".
const char* device_type_name(VkPhysicalDeviceType t);
//! Whether `pd` offers device extension `name`.
bool has_device_extension(VkPhysicalDevice pd, const char* name);
//! "major.minor.patch" of a Vulkan version.
std::string version_text(uint32_t v);

}  // namespace gfxq::vk
