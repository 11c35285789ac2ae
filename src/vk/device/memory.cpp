// Buffers: memory type choice, the pools (pools.cpp), uploads and downloads through staging buffers.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "core/parallel.h"
#include "gfxq/error.h"
#include "vk/check.h"
#include "vk/device/internal.h"

namespace gfxq::vk {

namespace {

constexpr uint64_t kStagingChunk = 64ull << 20;
constexpr uint64_t kUploadChunk = 32ull << 20;   // upload(): each of its two staging buffers
constexpr uint64_t kQueuedUpload = 64ull << 10;  // upload(): at most this much is enqueued, not waited for

const char* kind_name(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::Device: return "device";
    case MemoryKind::Upload: return "upload";
    case MemoryKind::Readback: return "readback";
  }
  return "?";
}

}  // namespace

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

Buffer::Buffer(Buffer&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(other.memory_, Allocation{})),
      size_(std::exchange(other.size_, 0)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    if (device_) device_->free_buffer(*this);
    device_ = std::exchange(other.device_, nullptr);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, Allocation{});
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Buffer::~Buffer() {
  if (device_) device_->free_buffer(*this);
}

Buffer Device::create_buffer(uint64_t bytes, MemoryKind kind) {
  Impl& m = *impl_;
  check_not_lost("create_buffer");
  const uint64_t size = std::max<uint64_t>(bytes, 4);
  const std::string what = std::string(kind_name(kind)) + " buffer";
  auto refuse = [&](const std::string& why) {
    return Error(ErrorCode::OutOfDeviceMemory,
                 "cannot allocate a " + std::to_string(size) + "-byte " + what + ": " + why);
  };
  const uint64_t request = ++m.buffer_requests;
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
  ++m.buffers;
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, b.buffer_, &req);
  const auto type = choose_memory_type(m.memory, req.memoryTypeBits, kind);
  if (!type) throw Error(ErrorCode::Unsupported, std::string("no memory type fits a ") + what);
  const uint32_t heap = m.memory.memoryTypes[*type].heapIndex;
  const uint64_t heap_size = m.memory.memoryHeaps[heap].size;
  const std::string where = "heap " + std::to_string(heap) + " holds " + std::to_string(heap_size) + " bytes";
  // Checked here rather than left to the driver: over-sized requests are invalid usage (validation
  // errors), and a CPU driver may try to reserve the memory before failing.
  if (req.size > heap_size) throw refuse(where);
  if (m.max_allocation && req.size > m.max_allocation)
    throw refuse("the largest allocation (maxMemoryAllocationSize) is " + std::to_string(m.max_allocation) +
                 " bytes; " + where);
  if (request == m.faults.fail_device_allocation)
    throw refuse("injected failure of buffer allocation " + std::to_string(request) + " (FaultInjection)");
  try {
    b.memory_ = m.pools->allocate(req, *type, size, what);
  } catch (const Error& e) {
    // Buffers freed while work was queued still hold memory: wait for it, release them, try again.
    if (e.code() != ErrorCode::OutOfDeviceMemory || !m.batch) throw;
    finish();
    b.memory_ = m.pools->allocate(req, *type, size, what);
  }
  // Device buffers are written through copies even where their block is host-visible (CPU devices).
  if (kind == MemoryKind::Device) b.memory_.mapped = nullptr;
  VK_CHECK(vkBindBufferMemory(device_, b.buffer_, b.memory_.memory, b.memory_.offset));
  return b;
}

void Device::free_buffer(Buffer& b) noexcept {
  Impl& m = *impl_;
  // Recorded or queued work, or a submission that timed out or found the device lost, may still use
  // the buffer: its memory goes back to the pools only once every such submission has finished.
  reap();
  if ((m.batch || !m.abandoned.empty()) && (b.buffer_ || b.memory_.memory)) {
    m.deferred.push_back({b.buffer_, b.memory_});
    m.deferred_bytes += b.memory_.size;
  } else {
    if (b.buffer_) vkDestroyBuffer(device_, b.buffer_, nullptr);
    if (m.pools) m.pools->free(b.memory_);
  }
  if (b.buffer_) --m.buffers;
  b.device_ = nullptr;
  b.buffer_ = VK_NULL_HANDLE;
  b.memory_ = Allocation{};
  b.size_ = 0;
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
  if (!dst.mapped() && bytes <= kQueuedUpload) {
    // Its own staging buffer, freed now and released once the queued copy has run.
    Buffer staging = create_buffer(bytes, MemoryKind::Upload);
    std::memcpy(staging.mapped(), from, bytes);
    enqueue([&](VkCommandBuffer cmd) {
      const VkBufferCopy region{0, offset, bytes};
      vkCmdCopyBuffer(cmd, staging.handle(), dst.handle(), 1, &region);
    });
    return;
  }
  finish();  // queued work may still read `dst`, or the shared staging buffers
  if (dst.mapped()) {
    detail::parallel_copy(static_cast<uint8_t*>(dst.mapped()) + offset, from, bytes, 0);
    return;
  }
  // Chunks through two staging buffers in turn: the host fills one (on several threads) while the
  // GPU copies out of the other, so the upload runs at the slower of the host copy and the bus.
  const uint64_t chunk = std::min(bytes, kUploadChunk);
  Impl& m = *impl_;
  for (int s = 0; s < (bytes > chunk ? 2 : 1); ++s)
    if (m.upload_staging[s].size() < chunk)
      m.upload_staging[s] = create_buffer(std::max<uint64_t>(chunk, 1ull << 20), MemoryKind::Upload);
  std::pair<VkCommandBuffer, VkFence> in_flight[2] = {};
  auto wait_slot = [&](int s) {
    const auto [cmd, fence] = std::exchange(in_flight[s], {});
    if (fence) wait_queued(cmd, fence);
  };
  try {
    for (uint64_t done = 0, i = 0; done < bytes; ++i) {
      const int s = int(i % 2);
      wait_slot(s);
      const uint64_t n = std::min(bytes - done, chunk);
      const Buffer& staging = m.upload_staging[s];
      detail::parallel_copy(staging.mapped(), from + done, n, 0);
      check_not_lost("upload");
      VkCommandBuffer cmd = begin_commands();
      const VkBufferCopy region{0, offset + done, n};
      vkCmdCopyBuffer(cmd, staging.handle(), dst.handle(), 1, &region);
      in_flight[s] = {cmd, end_and_queue(cmd)};
      done += n;
    }
    wait_slot(0);
    wait_slot(1);
  } catch (...) {
    // Still pending: released by reap() once its fence has signalled.
    for (const auto& p : in_flight)
      if (p.second) m.abandoned.push_back(p);
    throw;
  }
}

void Device::download(const Buffer& src, void* dst, uint64_t bytes, uint64_t offset) {
  check_range(src, bytes, offset, "download");
  if (bytes == 0) return;
  auto* to = static_cast<uint8_t*>(dst);
  if (src.mapped()) {
    finish();  // queued work may still write `src`
    detail::parallel_copy(to, static_cast<const uint8_t*>(src.mapped()) + offset, bytes, 0);
    return;
  }
  Buffer& staging = staging_for(*this, impl_->readback_staging, bytes, MemoryKind::Readback);
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min(bytes - done, staging.size());
    submit([&](VkCommandBuffer cmd) {
      const VkBufferCopy region{offset + done, 0, n};
      vkCmdCopyBuffer(cmd, src.handle(), staging.handle(), 1, &region);
    });
    detail::parallel_copy(to + done, staging.mapped(), n, 0);
    done += n;
  }
}

void Device::download_many(const std::vector<Readback>& reads) {
  auto padded = [](uint64_t bytes) { return (bytes + 15) / 16 * 16; };
  uint64_t total = 0;
  bool mapped = false;
  for (const Readback& r : reads) {
    check_range(*r.src, r.bytes, r.offset, "download");
    total += padded(r.bytes);
    mapped = mapped || r.src->mapped();
  }
  if (reads.size() < 2 || mapped || total > kStagingChunk) {
    for (const Readback& r : reads) download(*r.src, r.dst, r.bytes, r.offset);
    return;
  }
  if (total == 0) return;
  Buffer& staging = staging_for(*this, impl_->readback_staging, total, MemoryKind::Readback);
  submit([&](VkCommandBuffer cmd) {
    uint64_t at = 0;
    for (const Readback& r : reads) {
      if (r.bytes == 0) continue;
      const VkBufferCopy region{r.offset, at, r.bytes};
      vkCmdCopyBuffer(cmd, r.src->handle(), staging.handle(), 1, &region);
      at += padded(r.bytes);
    }
  });
  uint64_t at = 0;
  for (const Readback& r : reads) {
    if (r.bytes == 0) continue;
    std::memcpy(r.dst, static_cast<const uint8_t*>(staging.mapped()) + at, r.bytes);
    at += padded(r.bytes);
  }
}

}  // namespace gfxq::vk
