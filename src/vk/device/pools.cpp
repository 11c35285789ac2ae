#include "vk/device/pools.h"

#include <algorithm>

#include "gfxq/error.h"
#include "vk/check.h"

namespace gfxq::vk {

namespace {

constexpr uint64_t kDefaultBlock = 64ull << 20;

uint64_t align_up(uint64_t x, uint64_t alignment) {
  return alignment <= 1 ? x : (x + alignment - 1) / alignment * alignment;
}

}  // namespace

MemoryPools::MemoryPools(VkDevice device, const VkPhysicalDeviceMemoryProperties& properties, uint64_t block_bytes,
                         uint64_t cache_bytes)
    : device_(device),
      properties_(properties),
      block_bytes_(block_bytes ? block_bytes : kDefaultBlock),
      cache_limit_(cache_bytes) {}

MemoryPools::~MemoryPools() {
  release_cached();
  for (const auto& b : blocks_) vkFreeMemory(device_, b->memory, nullptr);  // also unmaps
}

uint64_t MemoryPools::cached_bytes() const noexcept {
  uint64_t n = 0;
  for (const Cached& c : cached_) n += c.size;
  return n;
}

void MemoryPools::release_cached() noexcept {
  for (const Cached& c : cached_) vkFreeMemory(device_, c.memory, nullptr);
  cached_.clear();
  std::erase_if(blocks_, [&](const std::unique_ptr<Block>& b) {
    if (b->used != 0) return false;
    vkFreeMemory(device_, b->memory, nullptr);
    return true;
  });
}

bool MemoryPools::holds_spare() const noexcept {
  return !cached_.empty() || std::any_of(blocks_.begin(), blocks_.end(), [](const auto& b) { return b->used == 0; });
}

// The driver's memory, after releasing the kept allocations and trying again when it refuses.
VkDeviceMemory MemoryPools::allocate_or_release(uint64_t bytes, uint32_t type, void** mapped) {
  VkDeviceMemory memory = allocate_memory(bytes, type, mapped);
  if (!memory && holds_spare()) {
    release_cached();
    memory = allocate_memory(bytes, type, mapped);
  }
  return memory;
}

uint64_t MemoryPools::block_size(uint32_t type) const noexcept {
  const uint64_t heap = properties_.memoryHeaps[properties_.memoryTypes[type].heapIndex].size;
  return std::max<uint64_t>(1ull << 20, std::min(block_bytes_, heap / 8));
}

VkDeviceMemory MemoryPools::allocate_memory(uint64_t bytes, uint32_t type, void** mapped) {
  VkMemoryAllocateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  info.allocationSize = bytes;
  info.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  const VkResult r = vkAllocateMemory(device_, &info, nullptr, &memory);
  ++allocations_;
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) return VK_NULL_HANDLE;
  check(r, "vkAllocateMemory");
  *mapped = nullptr;
  if (properties_.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    if (VkResult m = vkMapMemory(device_, memory, 0, VK_WHOLE_SIZE, 0, mapped); m != VK_SUCCESS) {
      vkFreeMemory(device_, memory, nullptr);
      check(m, "vkMapMemory");
    }
  }
  return memory;
}

Allocation MemoryPools::allocate(const VkMemoryRequirements& req, uint32_t type, uint64_t size,
                                 const std::string& what) {
  const uint64_t block = block_size(type);
  const auto refuse = [&](const std::string& why) {
    return Error(ErrorCode::OutOfDeviceMemory, "cannot allocate a " + std::to_string(size) + "-byte " + what + ": " +
                                                   why + " (the pools hold " + std::to_string(block_bytes()) +
                                                   " bytes in " + std::to_string(blocks()) + " blocks and " +
                                                   std::to_string(dedicated_bytes_) + " bytes dedicated)");
  };
  Allocation a;
  a.type = type;
  if (req.size > block / 2) {
    // Too large to share a block: memory of its own, a kept one when one fits (the smallest).
    auto best = cached_.end();
    for (auto it = cached_.begin(); it != cached_.end(); ++it)
      if (it->type == type && it->size >= req.size && it->size - req.size <= req.size / 4 &&
          (best == cached_.end() || it->size < best->size))
        best = it;
    if (best != cached_.end()) {
      a.memory = best->memory;
      a.mapped = best->mapped;
      a.size = best->size;
      cached_.erase(best);
      ++reuses_;
    } else {
      a.memory = allocate_or_release(req.size, type, &a.mapped);
      if (!a.memory) throw refuse("the driver refused " + std::to_string(req.size) + " bytes");
      a.size = req.size;
    }
    ++dedicated_;
    dedicated_bytes_ += req.size;
    return a;
  }
  // First fit in the blocks of this type, at the buffer's alignment.
  for (const auto& b : blocks_) {
    if (b->type != type) continue;
    for (auto it = b->free.begin(); it != b->free.end(); ++it) {
      const uint64_t start = it->first, end = it->first + it->second;
      const uint64_t at = align_up(start, req.alignment);
      if (at + req.size > end) continue;
      b->free.erase(it);
      if (at > start) b->free.emplace(start, at - start);
      if (at + req.size < end) b->free.emplace(at + req.size, end - at - req.size);
      b->used += req.size;
      a.memory = b->memory;
      a.offset = at;
      a.size = req.size;
      a.mapped = b->mapped ? static_cast<uint8_t*>(b->mapped) + at : nullptr;
      a.block = b.get();
      return a;
    }
  }
  auto b = std::make_unique<Block>();
  b->memory = allocate_or_release(block, type, &b->mapped);
  if (!b->memory) throw refuse("the driver refused a new " + std::to_string(block) + "-byte block");
  b->size = block;
  b->type = type;
  b->used = req.size;
  if (req.size < block) b->free.emplace(req.size, block - req.size);
  a.memory = b->memory;
  a.size = req.size;
  a.mapped = b->mapped;
  a.block = b.get();
  blocks_.push_back(std::move(b));
  return a;
}

void MemoryPools::free(const Allocation& a) noexcept {
  if (!a.memory) return;
  if (!a.block) {
    --dedicated_;
    dedicated_bytes_ -= a.size;
    // Kept for a later request unless it alone passes the limit; the oldest kept go first.
    if (a.size > cache_limit_) {
      vkFreeMemory(device_, a.memory, nullptr);
      return;
    }
    cached_.push_back({a.memory, a.size, a.type, a.mapped});
    uint64_t kept = 0;
    for (const Cached& c : cached_)
      if (c.type == a.type) kept += c.size;
    for (auto it = cached_.begin(); kept > cache_limit_;) {
      if (it->type != a.type) {
        ++it;
        continue;
      }
      kept -= it->size;
      vkFreeMemory(device_, it->memory, nullptr);
      it = cached_.erase(it);
    }
    return;
  }
  Block& b = *a.block;
  b.used -= a.size;
  // Insert the range and merge it with the free ranges it touches.
  uint64_t start = a.offset, size = a.size;
  auto next = b.free.lower_bound(start);
  if (next != b.free.end() && start + size == next->first) {
    size += next->second;
    next = b.free.erase(next);
  }
  if (next != b.free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      b.free.erase(prev);
    }
  }
  b.free.emplace(start, size);
  if (b.used != 0) return;
  // Empty blocks are kept for the next query (a 64 MiB block from the driver costs about 2 ms on the
  // H200) up to the cache limit per memory type, and one at least; the others are released.
  uint64_t empty = 0;
  for (const auto& o : blocks_)
    if (o->type == b.type && o->used == 0) empty += o->size;
  if (empty <= std::max(cache_limit_, b.size)) return;
  vkFreeMemory(device_, b.memory, nullptr);
  blocks_.erase(std::find_if(blocks_.begin(), blocks_.end(), [&](const auto& o) { return o.get() == &b; }));
}

uint64_t MemoryPools::blocks() const noexcept {
  return blocks_.size();
}

uint64_t MemoryPools::block_bytes() const noexcept {
  uint64_t n = 0;
  for (const auto& b : blocks_) n += b->size;
  return n;
}

uint64_t MemoryPools::pooled_bytes() const noexcept {
  uint64_t n = 0;
  for (const auto& b : blocks_) n += b->used;
  return n;
}

}  // namespace gfxq::vk
