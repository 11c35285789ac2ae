// Submission: passes recorded into one open batch (a command buffer), submitted and waited for
// with a timeout when the host needs results (submit, finish); dispatches, barriers, timestamps; timeouts, device loss
// and their injected versions.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>

#include "gfxq/error.h"
#include "vk/check.h"
#include "vk/device/internal.h"

namespace gfxq::vk {

void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  auto b = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

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

namespace {

// How long a wait polls its fence before it blocks: a blocking wait returns some 40 us after the
// fence signals on an H200, a polled one within 15 us. A query's waits are mostly shorter than this;
// the host has nothing else to do meanwhile.
constexpr auto kFenceSpin = std::chrono::milliseconds(5);

// Waits for `fence` at most `timeout_ns`: polls it for up to kFenceSpin (within the timeout), then
// blocks.
VkResult wait_fence(VkDevice device, VkFence fence, uint64_t timeout_ns) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const VkResult status = vkGetFenceStatus(device, fence);
    if (status != VK_NOT_READY) return status;
    const auto ns = uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
    if (ns >= timeout_ns) return VK_TIMEOUT;
    if (ns >= uint64_t(std::chrono::nanoseconds(kFenceSpin).count()))
      return vkWaitForFences(device, 1, &fence, VK_TRUE, timeout_ns - ns);
  }
}

}  // namespace

VkCommandBuffer Device::next_pass() {
  Impl& m = *impl_;
  check_not_lost("submit");
  // Buffers freed while work was recorded or queued are held until it completes: bound what they keep.
  if (m.deferred_bytes > m.deferred_limit) finish();
  if (!m.batch) {
    m.batch = begin_commands();
    return m.batch;
  }
  memory_barrier(m.batch, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                 VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
  return m.batch;
}

VkCommandBuffer Device::begin_commands() {
  reap();
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  if (!impl_->spare_commands.empty()) {
    cmd = impl_->spare_commands.back();
    impl_->spare_commands.pop_back();
  } else {
    auto alloc = vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    alloc.commandPool = impl_->pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VK_CHECK(vkAllocateCommandBuffers(device_, &alloc, &cmd));
  }
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
  // Not pending (never submitted, or its fence has signalled): reset, it serves the next batch.
  if (vkResetCommandBuffer(cmd, 0) == VK_SUCCESS)
    impl_->spare_commands.push_back(cmd);
  else
    vkFreeCommandBuffers(device_, impl_->pool, 1, &cmd);
}

VkFence Device::end_and_queue(VkCommandBuffer cmd) {
  Impl& m = *impl_;
  // Device writes become visible to host reads of mapped memory once the fence is waited.
  memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_HOST_READ_BIT);
  VkFence fence = VK_NULL_HANDLE;
  try {
    VK_CHECK(vkEndCommandBuffer(cmd));
    if (!m.spare_fences.empty()) {
      fence = m.spare_fences.back();
      m.spare_fences.pop_back();
    } else {
      auto fence_info = vk_struct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
      VK_CHECK(vkCreateFence(device_, &fence_info, nullptr, &fence));
      ++m.fences_made;
    }
    auto submit = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    VK_CHECK(vkQueueSubmit(m.queue, 1, &submit, fence));
  } catch (const Error& e) {
    if (fence) vkDestroyFence(device_, fence, nullptr);
    discard_commands(cmd);
    if (e.code() == ErrorCode::DeviceLost) m.lost = e.what();
    throw;
  }
  ++m.submissions;
  return fence;
}

void Device::finish() {
  Impl& m = *impl_;
  if (!m.batch) {
    reap();
    return;
  }
  VkCommandBuffer cmd = m.batch;
  m.batch = VK_NULL_HANDLE;
  const VkFence fence = end_and_queue(cmd);
  wait_queued(cmd, fence);
}

void Device::wait_queued(VkCommandBuffer cmd, VkFence fence) {
  Impl& m = *impl_;
  const uint64_t wait = ++m.waits;
  VkResult r;
  if (wait == m.faults.lose_device)
    r = VK_ERROR_DEVICE_LOST;
  else if (wait == m.faults.time_out_gpu_wait)
    r = VK_TIMEOUT;
  else  // a fence signals once every command submitted before it has completed too
    r = wait_fence(device_, fence, m.wait_timeout_ns);
  if (r != VK_SUCCESS) {
    // Still pending (or lost): the command buffer and fence may not be freed yet, nor the buffers
    // they use (free_buffer defers them); reap() releases them once the fence has signalled.
    m.abandoned.emplace_back(cmd, fence);
    const bool injected = wait == m.faults.lose_device || wait == m.faults.time_out_gpu_wait;
    const std::string how = injected ? " (injected: FaultInjection, wait " + std::to_string(wait) + ")" : "";
    if (r == VK_TIMEOUT)
      throw Error(ErrorCode::Timeout, "a Vulkan submission did not finish within " +
                                          std::to_string(m.wait_timeout_ns / 1000000) + " ms" + how +
                                          " (EngineOptions::gpu_timeout_ms)");
    if (r == VK_ERROR_DEVICE_LOST) {
      m.lost = std::string("VK_ERROR_DEVICE_LOST from vkWaitForFences") + how;
      throw Error(ErrorCode::DeviceLost, "the Vulkan device " + caps_.device_name + " was lost: " + *m.lost);
    }
    check(r, "vkWaitForFences");
  }
  if (vkResetFences(device_, 1, &fence) == VK_SUCCESS)
    m.spare_fences.push_back(fence);
  else
    vkDestroyFence(device_, fence, nullptr);
  discard_commands(cmd);
  reap();
}

void Device::reap() noexcept {
  Impl& m = *impl_;
  std::erase_if(m.abandoned, [&](const std::pair<VkCommandBuffer, VkFence>& a) {
    // Signalled, or the device is lost (nothing will run any more): both may be released.
    if (vkGetFenceStatus(device_, a.second) == VK_NOT_READY) return false;
    vkDestroyFence(device_, a.second, nullptr);
    vkFreeCommandBuffers(device_, m.pool, 1, &a.first);
    return true;
  });
  if (m.batch || !m.abandoned.empty()) return;
  for (const DeferredBuffer& d : m.deferred) {
    if (d.buffer) vkDestroyBuffer(device_, d.buffer, nullptr);
    if (m.pools) m.pools->free(d.memory);
  }
  m.deferred.clear();
  m.deferred_bytes = 0;
}

SubmitStats Device::submit_stats() const noexcept {
  return {impl_->submissions, impl_->waits, impl_->fences_made};
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
