#pragma once
// Timing helpers of the compute benchmark cases (bench/cases_compute.cpp, bench/cases_join.cpp):
// the device of a run, seeded data, the GPU kept busy while timing, and the per-case copy reference.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

#include "bench.h"
#include "vk/device.h"
#include "vk/relational/select.h"

namespace gfxq::bench {

//! The run's Vulkan device; Error(Unsupported) when there is none (the case is skipped).
vk::Device& device_of(Env& env);

//! splitmix64: fast seeded data at 2^28 rows.
uint64_t mix(uint64_t& s);

//! Best GPU times in seconds of each of `records`, run in turn (one of each per repeat, a barrier
//! between any two), so that any change of the device's state hits all of them alike; the first
//! is the operator, the others its references. The device is kept busy throughout: first at least
//! 1 s of back-to-back untimed runs, then the env.repeats timed runs recorded back to back into as
//! few command buffers as the timestamp slots allow. The H200 lowers its SM clock from 1980 MHz to
//! as little as 345 MHz within about 2 s of low load (nvidia-smi: clock event "GPU idle"), and a
//! kernel then takes up to 2.5x longer; one submit and host wait per run let it drop between runs
//! (BENCHMARKS.md, "Timing: the GPU kept busy").
std::vector<double> best_interleaved(Env& env, const std::vector<std::function<void(VkCommandBuffer)>>& records);

//! Best GPU time in seconds of `record` (best_interleaved with no references).
double best_seconds(Env& env, const std::function<void(VkCommandBuffer)>& record);

// A uvec4 copy of `rows` 4-byte values (copy_u32x4, the usual best of the ceiling) and a read-only
// pass over them (read_u32x4_x8, ceiling_read's best), timed beside an operator over the same
// column: the per-case references of the notes' "copy ratio" and "read ratio". The source holds
// distinct values (no constant data a memory system might compress).
struct CopyReference {
  vk::Buffer src, dst;
  explicit CopyReference(vk::Device& device, uint64_t rows)
      : src(device.create_buffer(vk::padded_bytes(rows), vk::MemoryKind::Device)),
        dst(device.create_buffer(vk::padded_bytes(rows), vk::MemoryKind::Device)) {
    std::vector<uint32_t> host(src.size() / 4);
    std::iota(host.begin(), host.end(), 7u);
    device.upload(src, host.data(), src.size());
  }
  void record(vk::Device& device, VkCommandBuffer cmd) const { run(device, cmd, "copy_u32x4", 256); }
  void record_read(vk::Device& device, VkCommandBuffer cmd) const { run(device, cmd, "read_u32x4_x8", 2048); }
  //! The operator's bytes/s (it moves `bytes` in `seconds`) over the copy's (read + write).
  double ratio(uint64_t bytes, double seconds, double copy_seconds) const {
    return (double(bytes) / seconds) / (2.0 * double(src.size()) / copy_seconds);
  }

 private:
  void run(vk::Device& device, VkCommandBuffer cmd, const char* kernel, uint32_t per_group) const {
    const vk::Pipeline& p = device.pipeline(kernel, 2, 8, true);
    const uint64_t per = device.max_binding_elements() / 64 * 64 * 4;
    for (uint64_t off = 0; off < src.size(); off += per) {
      const uint64_t n = std::min(per, src.size() - off);
      const uint32_t push[2] = {uint32_t(n / 16), 0};
      device.dispatch_ranges(cmd, p, {{&src, off, n}, {&dst, off, n}}, push,
                             uint32_t((n / 16 + per_group - 1) / per_group));
    }
  }
};

}  // namespace gfxq::bench
