#pragma once
// The device-memory sub-allocator: buffers are placed in large blocks (one vkAllocateMemory per
// block, per memory type), first fit at the buffer's alignment, and freed ranges coalesce with
// their neighbours. A request larger than half a block gets a dedicated allocation; freed dedicated
// allocations are kept (up to a byte limit, oldest released first) and handed to a later request
// of the same type that fits with at most a quarter to spare, since allocating large memory costs
// milliseconds on real drivers (BENCHMARKS.md "Host overhead"). Host-visible blocks are mapped
// once, when allocated. At most one empty block per memory type is kept.

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vk/device/memory.h"

namespace gfxq::vk {

//! One vkAllocateMemory of a pool, and its free ranges (offset -> size).
struct Block {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t size = 0;
  uint32_t type = 0;
  void* mapped = nullptr;
  uint64_t used = 0;
  std::map<uint64_t, uint64_t> free;
};

//! The pools of one device.
class MemoryPools {
 public:
  //! Pools over `device`'s memory; blocks of `block_bytes` (0: 64 MiB, at most heap / 8); freed
  //! dedicated allocations kept up to `cache_bytes` per memory type (0: none kept), and empty blocks
  //! up to `cache_bytes` per memory type (one at least).
  MemoryPools(VkDevice device, const VkPhysicalDeviceMemoryProperties& properties, uint64_t block_bytes,
              uint64_t cache_bytes);
  //! Frees every block (every Allocation must have been freed).
  ~MemoryPools();
  MemoryPools(const MemoryPools&) = delete;
  MemoryPools& operator=(const MemoryPools&) = delete;

  //! Memory for `requirements` of memory type `type`, mapped when the type is host-visible.
  //! Error(OutOfDeviceMemory) naming `size` (the buffer's bytes) and `what` when the driver refuses.
  Allocation allocate(const VkMemoryRequirements& requirements, uint32_t type, uint64_t size, const std::string& what);
  //! Returns `a` to its block (or frees its dedicated memory).
  void free(const Allocation& a) noexcept;

  uint64_t blocks() const noexcept;                                       //!< pool blocks held
  uint64_t block_bytes() const noexcept;                                  //!< bytes in those blocks
  uint64_t pooled_bytes() const noexcept;                                 //!< bytes handed out from blocks
  uint64_t dedicated() const noexcept { return dedicated_; }              //!< dedicated allocations alive
  uint64_t dedicated_bytes() const noexcept { return dedicated_bytes_; }  //!< their bytes
  uint64_t allocations() const noexcept { return allocations_; }          //!< vkAllocateMemory calls so far
  uint64_t cached_bytes() const noexcept;                                 //!< freed dedicated bytes kept
  uint64_t reuses() const noexcept { return reuses_; }                    //!< requests served from them
  //! Releases the kept dedicated allocations and the empty blocks (before a retry when the driver
  //! refuses memory).
  void release_cached() noexcept;

 private:
  VkDeviceMemory allocate_memory(uint64_t bytes, uint32_t type, void** mapped);
  VkDeviceMemory allocate_or_release(uint64_t bytes, uint32_t type, void** mapped);
  uint64_t block_size(uint32_t type) const noexcept;
  bool holds_spare() const noexcept;  // kept dedicated allocations or empty blocks
  //! A freed dedicated allocation kept for reuse.
  struct Cached {
    VkDeviceMemory memory;
    uint64_t size;
    uint32_t type;
    void* mapped;
  };
  VkDevice device_;
  VkPhysicalDeviceMemoryProperties properties_;
  uint64_t block_bytes_;
  uint64_t cache_limit_;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<Cached> cached_;  // oldest first
  uint64_t dedicated_ = 0, dedicated_bytes_ = 0, allocations_ = 0, reuses_ = 0;
};

}  // namespace gfxq::vk
