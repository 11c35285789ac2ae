#pragma once
// The Vulkan device: choice, memory pools and buffers, pipelines, submission (src/vk/device/).
// Code that uses the device includes this header.

#include "vk/device/device.h"  // IWYU pragma: export
