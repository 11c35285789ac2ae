// Benchmark cases of the Vulkan device's fixed costs, which passes of a query pay on top of their
// kernels: one submission and its wait, and one large buffer. The buffer is measured with the
// device's default (freed dedicated allocations kept for reuse) and, on a second device of the
// same GPU, without it (every allocation from the driver); both figures and their ratio are in the
// note (above 1: keeping them is faster). The upload case times what a query's "upload" pass does
// (Device::upload from pageable host memory) against two ceilings timed in turn: the bus itself (a
// device copy from a mapped host-visible buffer) and a host memcpy of the same bytes.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench.h"
#include "core/parallel.h"
#include "gfxq/error.h"

namespace gfxq::bench {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A second device on the same GPU without the allocation cache.
std::unique_ptr<vk::Device> uncached_device(const vk::Device& like) {
  return vk::Device::create({.choice = like.caps().device_name, .cache_bytes = 0});
}

// Median wall seconds of `repeats` empty submissions, each waited for.
double submit_seconds(vk::Device& d, int repeats) {
  std::vector<double> s;
  d.submit([](VkCommandBuffer) {});  // first submission outside the timing
  for (int i = 0; i < repeats; ++i) {
    const auto t = Clock::now();
    d.submit([](VkCommandBuffer) {});
    s.push_back(std::chrono::duration<double>(Clock::now() - t).count());
  }
  return median(std::move(s));
}

// Median wall seconds of creating and freeing a buffer of `bytes` device-local bytes.
double buffer_seconds(vk::Device& d, uint64_t bytes, int repeats) {
  std::vector<double> s;
  { vk::Buffer warm = d.create_buffer(bytes, vk::MemoryKind::Device); }
  for (int i = 0; i < repeats; ++i) {
    const auto t = Clock::now();
    { vk::Buffer b = d.create_buffer(bytes, vk::MemoryKind::Device); }
    s.push_back(std::chrono::duration<double>(Clock::now() - t).count());
  }
  return median(std::move(s));
}

Measurement submit_case(Env& env, uint64_t) {
  if (!env.vk) throw Error(ErrorCode::Unsupported, "no Vulkan device");
  const int repeats = std::max(50, env.repeats * 20);
  Measurement m;
  m.seconds = submit_seconds(*env.vk, repeats);
  m.items = 1;
  m.checked = false;
  m.note = "an empty command buffer submitted and its fence waited for, median of " + std::to_string(repeats);
  return m;
}

Measurement buffer_case(Env& env, uint64_t rows) {
  if (!env.vk) throw Error(ErrorCode::Unsupported, "no Vulkan device");
  const uint64_t bytes = rows * 4;
  const int repeats = std::max(5, env.repeats * 2);
  const double kept = buffer_seconds(*env.vk, bytes, repeats);
  const double fresh = buffer_seconds(*uncached_device(*env.vk), bytes, repeats);
  Measurement m;
  m.seconds = kept;
  m.bytes = bytes;
  m.checked = false;
  m.note = std::to_string(bytes) + "-byte device buffer created and freed, median of " + std::to_string(repeats) +
           ": reusing a kept allocation " + std::to_string(kept * 1e3) + " ms; from the driver each time " +
           std::to_string(fresh * 1e3) + " ms; driver / kept = " + std::to_string(fresh / kept);
  return m;
}

// The parts of one round trip, each the median of `repeats` raw submissions on a reused command
// buffer and fence: where the 0.6 ms of an H200 round trip goes (the submission call, the fence
// wait, a host-visible word the commands write, an empty submission without commands).
Measurement submit_parts_case(Env& env, uint64_t) {
  if (!env.vk) throw Error(ErrorCode::Unsupported, "no Vulkan device");
  vk::Device& d = *env.vk;
  const int repeats = std::max(50, env.repeats * 20);
  VkDevice dev = d.handle();
  VkQueue queue = VK_NULL_HANDLE;
  vkGetDeviceQueue(dev, d.queue_family(), 0, &queue);
  d.finish();
  vk::Buffer flag = d.create_buffer(256, vk::MemoryKind::Readback);
  auto* word = static_cast<volatile uint32_t*>(flag.mapped());
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.queueFamilyIndex = d.queue_family();
  VkCommandPool pool = VK_NULL_HANDLE;
  vkCreateCommandPool(dev, &pool_info, nullptr, &pool);
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  vkAllocateCommandBuffers(dev, &alloc, &cmd);
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  vkCreateFence(dev, &fence_info, nullptr, &fence);
  // Records a fill of the flag word with `value`, made visible to the host.
  auto record = [&](uint32_t value) {
    vkResetCommandBuffer(cmd, 0);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cmd, &begin);
    vkCmdFillBuffer(cmd, flag.handle(), 0, 4, value);
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0, nullptr, 0,
                         nullptr);
    vkEndCommandBuffer(cmd);
  };
  std::vector<double> submit_call, fence_wait, fence_poll, flag_seen, empty, whole, fence_make, cmd_make;
  for (int i = 0; i < repeats; ++i) {
    const auto value = uint32_t(i + 1);
    record(value);
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    // (1) blocking fence wait.
    const auto t0 = Clock::now();
    vkQueueSubmit(queue, 1, &submit, fence);
    const auto t1 = Clock::now();
    vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);
    const auto t2 = Clock::now();
    submit_call.push_back(std::chrono::duration<double>(t1 - t0).count());
    fence_wait.push_back(std::chrono::duration<double>(t2 - t1).count());
    whole.push_back(std::chrono::duration<double>(t2 - t0).count());
    vkResetFences(dev, 1, &fence);
    // (2) polling the fence and the flag word.
    record(value + 1000000);
    const auto p0 = Clock::now();
    vkQueueSubmit(queue, 1, &submit, fence);
    double seen = -1;
    while (vkGetFenceStatus(dev, fence) != VK_SUCCESS)
      if (seen < 0 && *word == value + 1000000) seen = std::chrono::duration<double>(Clock::now() - p0).count();
    fence_poll.push_back(std::chrono::duration<double>(Clock::now() - p0).count());
    if (seen < 0) seen = fence_poll.back();
    flag_seen.push_back(seen);
    vkResetFences(dev, 1, &fence);
    // (3) a submission without commands.
    VkSubmitInfo none{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    const auto e0 = Clock::now();
    vkQueueSubmit(queue, 1, &none, fence);
    vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);
    empty.push_back(std::chrono::duration<double>(Clock::now() - e0).count());
    vkResetFences(dev, 1, &fence);
    // (4) what creating a fence and a command buffer costs.
    const auto f0 = Clock::now();
    VkFence made = VK_NULL_HANDLE;
    vkCreateFence(dev, &fence_info, nullptr, &made);
    vkDestroyFence(dev, made, nullptr);
    const auto f1 = Clock::now();
    VkCommandBuffer extra = VK_NULL_HANDLE;
    vkAllocateCommandBuffers(dev, &alloc, &extra);
    vkFreeCommandBuffers(dev, pool, 1, &extra);
    const auto f2 = Clock::now();
    fence_make.push_back(std::chrono::duration<double>(f1 - f0).count());
    cmd_make.push_back(std::chrono::duration<double>(f2 - f1).count());
  }
  vkDestroyFence(dev, fence, nullptr);
  vkDestroyCommandPool(dev, pool, nullptr);
  const double gfxq = submit_seconds(d, repeats);
  auto ms = [](const std::vector<double>& v) { return std::to_string(median(v) * 1e3); };
  Measurement m;
  m.seconds = median(whole);
  m.items = 1;
  m.checked = false;
  m.note = "medians of " + std::to_string(repeats) + ", ms: raw submit+wait " + ms(whole) + " (vkQueueSubmit " +
           ms(submit_call) + ", vkWaitForFences " + ms(fence_wait) + "); fence polled " + ms(fence_poll) +
           ", host-visible word seen " + ms(flag_seen) + "; no commands " + ms(empty) + "; fence create+destroy " +
           ms(fence_make) + ", command buffer allocate+free " + ms(cmd_make) + "; gfxq submit " +
           std::to_string(gfxq * 1e3);
  return m;
}

// Best wall seconds of `repeats` runs of `f`.
template <class F>
double best_seconds(int repeats, F&& f) {
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    const auto t = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t).count());
  }
  return best;
}

Measurement upload_case(Env& env, uint64_t rows) {
  if (!env.vk) throw Error(ErrorCode::Unsupported, "no Vulkan device");
  vk::Device& d = *env.vk;
  const uint64_t bytes = rows * 4;
  std::vector<uint32_t> host(rows), copy(rows);
  for (uint64_t i = 0; i < rows; ++i) host[i] = uint32_t(i * 2654435761u);
  vk::Buffer dst = d.create_buffer(bytes, vk::MemoryKind::Device);
  vk::Buffer mapped = d.create_buffer(bytes, vk::MemoryKind::Upload);
  std::memcpy(mapped.mapped(), host.data(), bytes);
  const int repeats = std::max(3, env.repeats);
  d.upload(dst, host.data(), bytes);  // first use outside the timing
  const double upload = best_seconds(repeats, [&] { d.upload(dst, host.data(), bytes); });
  const double bus = best_seconds(repeats, [&] {
    d.submit([&](VkCommandBuffer cmd) {
      const VkBufferCopy region{0, 0, bytes};
      vkCmdCopyBuffer(cmd, mapped.handle(), dst.handle(), 1, &region);
    });
  });
  const double memcpy_s = best_seconds(repeats, [&] { std::memcpy(copy.data(), host.data(), bytes); });
  const double parallel_s =
      best_seconds(repeats, [&] { detail::parallel_copy(mapped.mapped(), host.data(), bytes, 0); });
  d.upload(dst, host.data(), bytes);
  std::vector<uint32_t> back(rows);
  d.download(dst, back.data(), bytes);
  Measurement m;
  m.seconds = upload;
  m.bytes = bytes;
  m.checked = back == host;
  auto gbps = [&](double s) { return std::to_string(double(bytes) / s / 1e9); };
  m.note = std::to_string(bytes) + " bytes, best of " + std::to_string(repeats) +
           ": Device::upload from pageable memory " + gbps(upload) +
           " GB/s; device copy from a mapped host-visible buffer (the bus) " + gbps(bus) + " GB/s; host memcpy " +
           gbps(memcpy_s) + " GB/s (one thread); parallel_copy into the mapped buffer " + gbps(parallel_s) + " GB/s (" +
           std::to_string(detail::worker_count(0)) + " threads); upload / bus = " + std::to_string(bus / upload) +
           "; upload / min(bus, parallel_copy) = " + std::to_string(std::max(bus, parallel_s) / upload);
  return m;
}

Registrar submit_registrar{{"device.submit_roundtrip", "compute", "", false, submit_case}};
Registrar submit_parts_registrar{{"device.submit_parts", "compute", "", false, submit_parts_case}};
Registrar buffer_registrar{{"device.buffer_roundtrip", "compute", "", false, buffer_case}};
Registrar upload_registrar{{"device.upload", "compute", "", false, upload_case}};

}  // namespace
}  // namespace gfxq::bench
