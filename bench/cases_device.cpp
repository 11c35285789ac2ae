// Benchmark cases of the Vulkan device's fixed costs, which passes of a query pay on top of their
// kernels: one submission and its wait, and one large buffer. The buffer is measured with the
// device's default (freed dedicated allocations kept for reuse) and, on a second device of the
// same GPU, without it (every allocation from the driver); both figures and their ratio are in the
// note (above 1: keeping them is faster).
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "bench.h"
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

Registrar submit_registrar{{"device.submit_roundtrip", "compute", "", false, submit_case}};
Registrar buffer_registrar{{"device.buffer_roundtrip", "compute", "", false, buffer_case}};

}  // namespace
}  // namespace gfxq::bench
