#include "vk_timing.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>

#include "gfxq/error.h"

namespace gfxq::bench {

vk::Device& device_of(Env& env) {
  if (!env.vk) throw Error(ErrorCode::Unsupported, "no Vulkan device");
  return *env.vk;
}

// splitmix64: fast seeded data at 2^28 rows.
uint64_t mix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::vector<double> best_interleaved(Env& env, const std::vector<std::function<void(VkCommandBuffer)>>& records) {
  constexpr auto kWarmUp = std::chrono::milliseconds(1000);
  constexpr double kWarmBatchSeconds = 0.1;  // wall time of one warm-up command buffer
  vk::Device& device = device_of(env);
  if (!device.caps().timestamps) throw Error(ErrorCode::Unsupported, "the compute queue has no timestamps");
  const size_t n = records.size();
  // One repeat: every record, each after a barrier, optionally between two timestamps.
  auto record_repeat = [&](VkCommandBuffer cmd, std::optional<uint32_t> first_slot) {
    for (size_t i = 0; i < n; ++i) {
      device.barrier(cmd);
      if (first_slot) device.timestamp(cmd, *first_slot + uint32_t(2 * i));
      records[i](cmd);
      if (first_slot) device.timestamp(cmd, *first_slot + uint32_t(2 * i + 1));
    }
  };
  using clock = std::chrono::steady_clock;
  const auto warm_start = clock::now();
  uint64_t batch = 1;
  while (clock::now() - warm_start < kWarmUp) {
    const auto t0 = clock::now();
    device.submit([&](VkCommandBuffer cmd) {
      for (uint64_t r = 0; r < batch; ++r) record_repeat(cmd, std::nullopt);
    });
    const double took = std::chrono::duration<double>(clock::now() - t0).count();
    // Grow the batch toward kWarmBatchSeconds of work per submit (at most 2x, 4096 repeats).
    const double scale = took > 0 ? kWarmBatchSeconds / took : 2.0;
    batch = std::clamp<uint64_t>(uint64_t(double(batch) * std::min(scale, 2.0)), 1, 4096);
  }
  const uint32_t per_buffer = std::max<uint32_t>(1, vk::Device::kTimestampSlots / uint32_t(2 * n));
  std::vector<double> best(n, std::numeric_limits<double>::infinity());
  for (int done = 0, total = std::max(1, env.repeats); done < total;) {
    const uint32_t reps = uint32_t(std::min<int>(int(per_buffer), total - done));
    device.submit([&](VkCommandBuffer cmd) {
      for (uint32_t r = 0; r < reps; ++r) record_repeat(cmd, uint32_t(2 * n * r));
    });
    for (uint32_t r = 0; r < reps; ++r)
      for (size_t i = 0; i < n; ++i) {
        const uint32_t slot = uint32_t(2 * (n * r + i));
        best[i] = std::min(best[i], device.elapsed_ms(slot, slot + 1) / 1e3);
      }
    done += int(reps);
  }
  return best;
}

// Best GPU time in seconds of `record` (best_interleaved with no references).
double best_seconds(Env& env, const std::function<void(VkCommandBuffer)>& record) {
  return best_interleaved(env, {record})[0];
}

}  // namespace gfxq::bench
