#pragma once
// The Vulkan device of the compute backend: instance, physical device choice, one compute queue,
// memory, buffers, compute pipelines from embedded SPIR-V, command submission and timestamps.

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gfxq/capabilities.h"

namespace gfxq::vk {

//! How the device is created.
struct DeviceOptions {
  bool validation = false;       //!< enable VK_LAYER_KHRONOS_validation; Error(Unsupported) if missing
  bool sync_validation = false;  //!< also synchronization validation (implies validation)
  std::string choice;            //!< index or name substring; empty: GFXQ_VK_DEVICE, else by type
};

class Device;

//! A device buffer (storage + transfer usage). Move-only; frees its memory on destruction.
class Buffer {
 public:
  Buffer() = default;
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  ~Buffer();
  //! The Vulkan handle.
  VkBuffer handle() const noexcept { return buffer_; }
  //! Size in bytes.
  uint64_t size() const noexcept { return size_; }
  //! Host pointer when the memory is host-visible and mapped, else nullptr.
  void* mapped() const noexcept { return mapped_; }

 private:
  friend class Device;
  Device* device_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  uint64_t size_ = 0;
  void* mapped_ = nullptr;
};

//! Where a buffer's memory lives.
enum class MemoryKind { Device, Upload, Readback };

//! A compute pipeline from an embedded SPIR-V shader: `bindings` storage buffers at bindings
//! 0..bindings-1 of set 0, and `push_bytes` of push constants.
struct Pipeline {
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  uint32_t bindings = 0;
  uint32_t push_bytes = 0;
};

//! The compute device.
class Device {
 public:
  //! Creates instance and device. Error(Unsupported) with the reason when no device works.
  static std::unique_ptr<Device> create(const DeviceOptions& options);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  //! What the driver reports, filled at creation.
  const VkCapabilities& caps() const noexcept { return caps_; }
  //! Validation messages (warnings and errors) recorded since the last call.
  std::vector<std::string> take_debug_messages();

  //! A buffer of `bytes` (at least 4). Error(OutOfDeviceMemory) naming the size and heap.
  Buffer create_buffer(uint64_t bytes, MemoryKind kind);
  //! Copies host bytes into a device buffer at `offset` (through a staging buffer).
  void upload(const Buffer& dst, const void* src, uint64_t bytes, uint64_t offset = 0);
  //! Copies device bytes at `offset` back to the host (through a staging buffer).
  void download(const Buffer& src, void* dst, uint64_t bytes, uint64_t offset = 0);

  //! The cached pipeline for embedded shader `name` (see shaders/shaders.cmake).
  const Pipeline& pipeline(std::string_view name, uint32_t bindings, uint32_t push_bytes);

  //! Records `record(cmd)` into a fresh command buffer, submits it and waits (with a timeout:
  //! Error(Timeout)); Error(DeviceLost) when the device is lost.
  template <class F>
  void submit(F&& record) {
    VkCommandBuffer cmd = begin_commands();
    record(cmd);
    end_and_wait(cmd);
  }
  //! Binds `p`, pushes descriptors for `buffers` (whole ranges) and the push constants, dispatches
  //! `groups_x` workgroups (split into several dispatches above maxComputeWorkGroupCount[0];
  //! the shader receives the group offset through the last push-constant word when it asks for it).
  void dispatch(VkCommandBuffer cmd, const Pipeline& p, const std::vector<const Buffer*>& buffers,
                const void* push, uint32_t groups_x);
  //! A compute-to-compute memory barrier (shader writes visible to later shader reads/writes).
  void barrier(VkCommandBuffer cmd);

  //! Raw handles for code that records its own commands.
  VkDevice handle() const noexcept { return device_; }
  VkPhysicalDevice physical() const noexcept { return physical_; }

  struct Impl;  //!< instance, queue, pools, caches

 private:
  friend class Buffer;
  Device();
  VkCommandBuffer begin_commands();
  void end_and_wait(VkCommandBuffer cmd);
  void free_buffer(Buffer& b) noexcept;

  VkCapabilities caps_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gfxq::vk
