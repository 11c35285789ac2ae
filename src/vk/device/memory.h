#pragma once
// Device buffers and where their memory lives. Buffers are pieces of large memory blocks handed out
// by the device's sub-allocator (pools.h), or dedicated allocations when too large for a block; a
// Buffer looks the same either way.

#include <vulkan/vulkan.h>

#include <cstdint>

namespace gfxq::vk {

class Device;
struct Block;

//! Where a buffer's memory lives.
enum class MemoryKind {
  Device,    //!< device-local (any type on single-heap CPU devices); not mapped
  Upload,    //!< host-visible, coherent, mapped: the host writes, the device reads
  Readback,  //!< host-visible, coherent, cached where possible, mapped: the device writes, the host reads
};

//! A piece of device memory: a range of a pool block, or a whole dedicated allocation.
struct Allocation {
  VkDeviceMemory memory = VK_NULL_HANDLE;  //!< the memory object
  uint64_t offset = 0;                     //!< first byte in `memory`
  uint64_t size = 0;                       //!< bytes reserved
  void* mapped = nullptr;                  //!< host address of `offset`, for host-visible memory
  Block* block = nullptr;                  //!< the pool block it belongs to; null when dedicated
  uint32_t type = 0;                       //!< its memory type index
};

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
  //! Host pointer when the memory is host-visible and mapped (Upload, Readback), else nullptr.
  void* mapped() const noexcept { return memory_.mapped; }

 private:
  friend class Device;
  Device* device_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  Allocation memory_;
  uint64_t size_ = 0;
};

//! A byte range of a buffer bound to one shader binding (offset a multiple of
//! minStorageBufferOffsetAlignment; bytes at most maxStorageBufferRange). Columns larger than one
//! binding are processed in ranges ("chunk, don't fail").
struct BufferRange {
  const Buffer* buffer = nullptr;  //!< the buffer
  uint64_t offset = 0;             //!< first byte
  uint64_t bytes = 0;              //!< length in bytes (0: to the end of the buffer)
};

}  // namespace gfxq::vk
