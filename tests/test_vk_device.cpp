// The Vulkan device: creation and choice, capabilities, buffers, transfers, dispatch (including
// grids split over maxComputeWorkGroupCount) and a clean teardown.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "gfxq/error.h"
#include "gfxq_constants.h"
#include "gpu_support.h"

using gfxq::Error;
using gfxq::ErrorCode;
using gfxq::test::vk_device;
using gfxq::vk::Buffer;
using gfxq::vk::MemoryKind;

namespace {

//! Sets an environment variable for one scope, restoring the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_.empty())
      ::unsetenv(name_);
    else
      ::setenv(name_, old_.c_str(), 1);
  }

 private:
  const char* name_;
  std::string old_;
};

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

TEST_CASE("vk: device comes up with validation and fills capabilities") {
  const gfxq::VkCapabilities& caps = vk_device().caps();
  MESSAGE(caps.text());
  CHECK(caps.available);
  CHECK(!caps.device_name.empty());
  CHECK(!caps.driver_name.empty());
  CHECK(caps.api_version >= VK_API_VERSION_1_2);
  CHECK(caps.subgroup_size > 0);
  CHECK(caps.max_shared_memory > 0);
  CHECK(caps.max_storage_buffer_range > 0);
  CHECK(caps.max_workgroup_invocations >= GFXQ_WORKGROUP_SIZE);
  CHECK(caps.max_workgroup_size[0] >= GFXQ_WORKGROUP_SIZE);
  CHECK(caps.max_workgroup_count[0] >= 65535);
  REQUIRE(!caps.heaps.empty());
  CHECK(caps.heaps[0].size > 0);
  REQUIRE(!caps.all_devices.empty());
  CHECK(caps.all_devices[0].rfind("0: ", 0) == 0);
  CHECK(caps.text().find("subgroup size:") != std::string::npos);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk: fill_u32 gives exact results around workgroup boundaries") {
  auto& device = vk_device();
  const auto& pipeline = device.pipeline("fill_u32", 2, 12);
  CHECK(&device.pipeline("fill_u32", 2, 12) == &pipeline);  // cached
  CHECK_THROWS_AS(device.pipeline("fill_u32", 3, 12), Error);
  for (uint32_t n : {0u, 1u, 255u, 256u, 257u, 100000u}) {
    CAPTURE(n);
    std::vector<uint32_t> in(n);
    std::iota(in.begin(), in.end(), 7u);
    Buffer src = device.create_buffer(uint64_t(n) * 4, MemoryKind::Device);
    Buffer dst = device.create_buffer(uint64_t(n) * 4, MemoryKind::Device);
    device.upload(src, in.data(), uint64_t(n) * 4);
    const uint32_t push[3] = {n, 3u, 0x10000u};
    device.submit([&](VkCommandBuffer cmd) {
      device.dispatch(cmd, pipeline, {&src, &dst}, push, (n + GFXQ_WORKGROUP_SIZE - 1) / GFXQ_WORKGROUP_SIZE);
    });
    std::vector<uint32_t> out(n, 0xdeadbeefu);
    device.download(dst, out.data(), uint64_t(n) * 4);
    size_t wrong = 0;
    for (uint32_t i = 0; i < n; ++i) wrong += out[i] != in[i] * 3u + 0x10000u;
    CHECK(wrong == 0);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk: dependent dispatches in one submission with a barrier") {
  auto& device = vk_device();
  const auto& fill = device.pipeline("fill_u32", 2, 12);
  constexpr uint32_t n = 1000;
  std::vector<uint32_t> in(n);
  std::iota(in.begin(), in.end(), 0u);
  Buffer a = device.create_buffer(n * 4, MemoryKind::Upload);
  Buffer b = device.create_buffer(n * 4, MemoryKind::Device);
  Buffer c = device.create_buffer(n * 4, MemoryKind::Readback);
  REQUIRE(a.mapped() != nullptr);
  REQUIRE(c.mapped() != nullptr);
  device.upload(a, in.data(), n * 4);
  const uint32_t times2[3] = {n, 2u, 0u}, plus1[3] = {n, 1u, 1u};
  device.submit([&](VkCommandBuffer cmd) {
    device.dispatch(cmd, fill, {&a, &b}, times2, (n + GFXQ_WORKGROUP_SIZE - 1) / GFXQ_WORKGROUP_SIZE);
    device.barrier(cmd);
    device.dispatch(cmd, fill, {&b, &c}, plus1, (n + GFXQ_WORKGROUP_SIZE - 1) / GFXQ_WORKGROUP_SIZE);
  });
  const auto* out = static_cast<const uint32_t*>(c.mapped());
  size_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i) wrong += out[i] != 2 * i + 1;
  CHECK(wrong == 0);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk: submissions reuse their fences and command buffers") {
  // Creating a fence cost 0.55 ms on the H200, nine tenths of a small submission's round trip.
  auto& device = vk_device();
  device.finish();
  const auto& fill = device.pipeline("fill_u32", 2, 12);
  Buffer a = device.create_buffer(256, MemoryKind::Device), b = device.create_buffer(256, MemoryKind::Readback);
  const uint32_t push[3] = {64, 1u, 7u};
  device.submit([&](VkCommandBuffer cmd) { device.dispatch(cmd, fill, {&a, &b}, push, 1); });
  const auto before = device.submit_stats();
  for (int i = 0; i < 20; ++i)
    device.submit([&](VkCommandBuffer cmd) { device.dispatch(cmd, fill, {&a, &b}, push, 1); });
  const auto after = device.submit_stats();
  CHECK(after.submissions == before.submissions + 20);
  CHECK(after.waits == before.waits + 20);
  CHECK(after.fences_made == before.fences_made);
}

TEST_CASE("vk: enqueued passes run in order in one submission, buffers freed meanwhile outlive them") {
  auto& device = vk_device();
  const bool timing = device.pass_timing();
  device.set_pass_timing(false);
  device.finish();  // whatever earlier tests left recorded
  const auto& fill = device.pipeline("fill_u32", 2, 12);
  constexpr uint32_t n = 5000;
  const uint32_t groups = (n + GFXQ_WORKGROUP_SIZE - 1) / GFXQ_WORKGROUP_SIZE;
  std::vector<uint32_t> in(n);
  std::iota(in.begin(), in.end(), 0u);
  Buffer a = device.create_buffer(n * 4, MemoryKind::Upload);
  Buffer c = device.create_buffer(n * 4, MemoryKind::Readback);
  device.upload(a, in.data(), n * 4);
  const auto before = device.submit_stats();
  {
    Buffer t = device.create_buffer(n * 4, MemoryKind::Device);
    const uint32_t times3[3] = {n, 3u, 0u}, plus2[3] = {n, 1u, 2u};
    CHECK(!device.run_pass([&](VkCommandBuffer cmd) { device.dispatch(cmd, fill, {&a, &t}, times3, groups); }));
    device.enqueue([&](VkCommandBuffer cmd) { device.dispatch(cmd, fill, {&t, &c}, plus2, groups); });
    CHECK(device.memory_stats().deferred == 0);
  }  // t is freed while both passes are recorded, not yet submitted: its release waits for them
  CHECK(device.memory_stats().deferred == 1);
  const auto queued = device.submit_stats();
  CHECK(queued.submissions == before.submissions);
  CHECK(queued.waits == before.waits);
  device.finish();  // both passes in one submission, one wait at most (none if a fast GPU is done)
  const auto finished = device.submit_stats();
  CHECK(finished.submissions == queued.submissions + 1);
  CHECK(finished.waits <= queued.waits + 1);
  device.finish();  // nothing recorded or queued: no submission, no wait
  CHECK(device.submit_stats().submissions == finished.submissions);
  CHECK(device.submit_stats().waits == finished.waits);
  CHECK(device.memory_stats().deferred == 0);
  const auto* out = static_cast<const uint32_t*>(c.mapped());
  size_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i) wrong += out[i] != 3 * i + 2;
  CHECK(wrong == 0);
  // A small upload into a device buffer is enqueued behind the passes (no submission, no wait);
  // download_many reads two buffers after one wait.
  Buffer d = device.create_buffer(n * 4, MemoryKind::Device), e = device.create_buffer(n * 4, MemoryKind::Device);
  const auto before_upload = device.submit_stats();
  device.upload(d, in.data(), n * 4);
  const uint32_t times5[3] = {n, 5u, 1u};
  device.enqueue([&](VkCommandBuffer cmd) { device.dispatch(cmd, fill, {&d, &e}, times5, groups); });
  CHECK(device.submit_stats().submissions == before_upload.submissions);
  std::vector<uint32_t> got_d(n), got_e(n);
  device.download_many({{&d, got_d.data(), n * 4, 0}, {&e, got_e.data(), n * 4, 0}});
  CHECK(device.submit_stats().submissions == before_upload.submissions + 1);
  CHECK(device.submit_stats().waits <= before_upload.waits + 1);
  size_t wrong_d = 0, wrong_e = 0;
  for (uint32_t i = 0; i < n; ++i) wrong_d += got_d[i] != i, wrong_e += got_e[i] != 5 * i + 1;
  CHECK(wrong_d == 0);
  CHECK(wrong_e == 0);
  // Timed: the pass waits for its timestamps and reports its time.
  device.set_pass_timing(true);
  const uint32_t copy[3] = {n, 1u, 0u};
  const auto ms = device.run_pass([&](VkCommandBuffer cmd) { device.dispatch(cmd, fill, {&a, &c}, copy, groups); });
  CHECK(ms.has_value() == device.caps().timestamps);
  CHECK(out[n - 1] == n - 1);
  device.set_pass_timing(timing);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk: a grid beyond maxComputeWorkGroupCount is split with group offsets") {
  auto& device = vk_device();
  const uint32_t max_groups = device.caps().max_workgroup_count[0];
  if (max_groups > (1u << 20)) {
    MESSAGE("skipped: maxComputeWorkGroupCount[0] = " << max_groups << " is too large to exceed cheaply");
    return;
  }
  const uint32_t groups = max_groups + 2;
  const uint32_t n = (groups - 1) * GFXQ_WORKGROUP_SIZE + 5;  // the last group is partial
  const auto& iota = device.pipeline("iota_u32", 1, 12, true);
  Buffer dst = device.create_buffer(uint64_t(n) * 4, MemoryKind::Device);
  const uint32_t push[3] = {n, 11u, 0u};  // the last word is filled by dispatch()
  device.submit([&](VkCommandBuffer cmd) { device.dispatch(cmd, iota, {&dst}, push, groups); });
  std::vector<uint32_t> out(n);
  device.download(dst, out.data(), uint64_t(n) * 4);
  size_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i) wrong += out[i] != 11u + i;
  CHECK(wrong == 0);

  // A pipeline that takes no group offset refuses such a grid instead of computing it wrongly.
  const auto& fill = device.pipeline("fill_u32", 2, 12);
  device.submit([&](VkCommandBuffer cmd) {
    CHECK_THROWS_WITH_AS(device.dispatch(cmd, fill, {&dst, &dst}, push, groups),
                         doctest::Contains("maxComputeWorkGroupCount"), Error);
  });
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk: upload and download round trips of odd sizes and offsets") {
  auto& device = vk_device();
  for (uint64_t bytes : {1ull, 3ull, 7ull, 4097ull, (64ull << 20) + 3}) {
    CAPTURE(bytes);
    std::vector<uint8_t> in(bytes);
    for (uint64_t i = 0; i < bytes; ++i) in[i] = uint8_t(i * 131 + (i >> 8) * 7 + 1);
    for (MemoryKind kind : {MemoryKind::Device, MemoryKind::Readback}) {
      if (bytes > (1ull << 20) && kind != MemoryKind::Device) continue;  // mapped copies are plain memcpy
      Buffer buffer = device.create_buffer(bytes + 9, kind);
      CHECK(buffer.size() == std::max<uint64_t>(bytes + 9, 4));
      device.upload(buffer, in.data(), bytes, 5);
      std::vector<uint8_t> out(bytes, 0);
      device.download(buffer, out.data(), bytes, 5);
      CHECK(out == in);
    }
  }
  Buffer small = device.create_buffer(8, MemoryKind::Device);
  uint8_t bytes[16] = {};
  CHECK_THROWS_AS(device.upload(small, bytes, 8, 1), Error);
  CHECK_THROWS_AS(device.download(small, bytes, 9), Error);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk: a chunked upload whose wait fails throws, and the device's next upload is whole") {
  // 70 MiB + 5 bytes: three chunks through the two staging buffers, three waits (the third chunk
  // waits for the first one's copy, then the last two are waited for).
  const uint64_t bytes = (70ull << 20) + 5;
  std::vector<uint8_t> in(bytes);
  for (uint64_t i = 0; i < bytes; ++i) in[i] = uint8_t(i * 37 + (i >> 12));
  for (uint64_t wait = 1; wait <= 3; ++wait) {
    CAPTURE(wait);
    auto made = gfxq::vk::Device::create(
        {.validation = gfxq::test::vk_validation_wanted(), .faults = {.time_out_gpu_wait = wait}});
    Buffer buffer = made->create_buffer(bytes + 3, MemoryKind::Device);
    CHECK_THROWS_WITH_AS(made->upload(buffer, in.data(), bytes, 3), doctest::Contains("did not finish"), Error);
    made->upload(buffer, in.data(), bytes, 3);
    std::vector<uint8_t> out(bytes, 0);
    made->download(buffer, out.data(), bytes, 3);
    CHECK(out == in);
  }
}

TEST_CASE("vk: buffers larger than a heap or the storage range are clear errors") {
  auto& device = vk_device();
  uint64_t largest_heap = 0;
  for (const auto& h : device.caps().heaps) largest_heap = std::max(largest_heap, h.size);
  const uint64_t absurd = largest_heap + 1;
  try {
    device.create_buffer(absurd, MemoryKind::Device);
    FAIL("an allocation larger than every heap succeeded");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::OutOfDeviceMemory);
    CHECK(std::string(e.what()).find(std::to_string(absurd)) != std::string::npos);
  }

  // A buffer bound whole must fit maxStorageBufferRange (no silent clamping of the range). On
  // NVIDIA the largest allocation is below that range, so no such buffer exists there.
  const uint64_t range = device.caps().max_storage_buffer_range;
  Buffer big;
  try {
    big = device.create_buffer(range + 4, MemoryKind::Device);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::OutOfDeviceMemory);
    MESSAGE("no buffer above maxStorageBufferRange can be made here: " << std::string(e.what()));
  }
  if (big.handle()) {
    Buffer small = device.create_buffer(4, MemoryKind::Device);
    const auto& fill = device.pipeline("fill_u32", 2, 12);
    const uint32_t push[3] = {1, 1, 0};
    device.submit([&](VkCommandBuffer cmd) {
      CHECK_THROWS_WITH_AS(device.dispatch(cmd, fill, {&big, &small}, push, 1),
                           doctest::Contains("maxStorageBufferRange"), Error);
    });
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk: device choice by index, name substring and GFXQ_VK_DEVICE") {
  const auto& caps = vk_device().caps();
  const bool validation = gfxq::test::vk_validation_wanted();
  // The first word of the device name, in another case: the match ignores case.
  std::string name = caps.device_name.substr(0, caps.device_name.find(' '));
  std::string shouted = name;
  for (char& c : shouted) c = char(std::toupper(static_cast<unsigned char>(c)));

  std::vector<std::string> teardown;
  {
    ScopedEnv env("GFXQ_VK_DEVICE", shouted.c_str());
    auto device = gfxq::vk::Device::create({.validation = validation, .teardown_messages = &teardown});
    CHECK(lower(device->caps().device_name).find(lower(name)) != std::string::npos);
    // A little work, so the teardown below has something to release.
    Buffer b = device->create_buffer(64, MemoryKind::Device);
    const uint32_t words[16] = {1, 2, 3};
    device->upload(b, words, sizeof words);
    device->pipeline("fill_u32", 2, 12);
    CHECK(device->take_debug_messages().empty());
  }
  CHECK_MESSAGE(teardown.empty(), gfxq::test::joined(teardown));

  {
    ScopedEnv env("GFXQ_VK_DEVICE", "0");
    auto device = gfxq::vk::Device::create({.validation = validation});
    CHECK(caps.all_devices[0].find(device->caps().device_name) != std::string::npos);
  }
  {
    // An explicit choice wins over the environment.
    ScopedEnv env("GFXQ_VK_DEVICE", "no-such-gpu");
    auto device = gfxq::vk::Device::create({.validation = validation, .choice = name});
    CHECK(device->caps().device_name == caps.device_name);
  }
  for (const char* bad : {"no-such-gpu", "999"}) {
    CAPTURE(bad);
    ScopedEnv env("GFXQ_VK_DEVICE", bad);
    try {
      gfxq::vk::Device::create({.validation = validation});
      FAIL("a device choice that matches nothing was accepted");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Unsupported);
      const std::string what = e.what();
      CHECK(what.find(std::string("GFXQ_VK_DEVICE '") + bad + "'") != std::string::npos);
      CHECK(what.find(caps.all_devices[0]) != std::string::npos);  // the message lists the devices
    }
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk: validation reports misuse, and buffers move") {
  if (!gfxq::test::vk_validation_wanted()) {
    MESSAGE("skipped: GFXQ_TEST_VALIDATION=0");
    return;
  }
  // A separate device, so the deliberately wrong pipeline stays out of the shared cache.
  std::vector<std::string> teardown;
  {
    auto device = gfxq::vk::Device::create({.validation = true, .teardown_messages = &teardown});
    // fill_u32 reads 12 bytes of push constants; a 4-byte layout is invalid usage.
    device->pipeline("fill_u32", 2, 4);
    const auto messages = device->take_debug_messages();
    CHECK(!messages.empty());
    for (const auto& m : messages) CHECK(m.rfind("Vulkan ERROR (validation): ", 0) == 0);
    CHECK(device->take_debug_messages().empty());

    Buffer a = device->create_buffer(16, MemoryKind::Upload);
    const VkBuffer handle = a.handle();
    Buffer b = std::move(a);
    CHECK(a.handle() == VK_NULL_HANDLE);
    CHECK(a.size() == 0);
    CHECK(b.handle() == handle);
    CHECK(b.mapped() != nullptr);
    b = device->create_buffer(8, MemoryKind::Device);  // frees the first
    CHECK(b.size() == 8);
    CHECK(b.mapped() == nullptr);
  }
  CHECK_MESSAGE(teardown.empty(), gfxq::test::joined(teardown));
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk: ranged bindings and GPU timestamps") {
  auto& dev = gfxq::test::vk_device();
  const uint32_t n = 1000;
  const auto& fill = dev.pipeline("fill_u32", 2, 12);
  auto src = dev.create_buffer(4 * 4096, gfxq::vk::MemoryKind::Device);
  auto dst = dev.create_buffer(4 * 4096, gfxq::vk::MemoryKind::Device);
  std::vector<uint32_t> host(4096);
  for (uint32_t i = 0; i < host.size(); ++i) host[i] = i;
  dev.upload(src, host.data(), 4 * host.size());
  dev.upload(dst, std::vector<uint32_t>(4096, 7).data(), 4 * 4096);
  // Bind src from element 1024 and dst from element 2048 (offsets aligned to any device's 256 bytes).
  const uint32_t push[3] = {n, 2, 1};
  dev.submit([&](VkCommandBuffer cmd) {
    dev.timestamp(cmd, 0);
    dev.dispatch_ranges(cmd, fill, std::vector<gfxq::vk::BufferRange>{{&src, 4096, 4 * n}, {&dst, 8192, 4 * n}}, push,
                        (n + 255) / 256);
    dev.timestamp(cmd, 1);
  });
  dev.download(dst, host.data(), 4 * host.size());
  for (uint32_t i = 0; i < 4096; ++i) {
    const uint32_t want = (i >= 2048 && i < 2048 + n) ? (i - 2048 + 1024) * 2 + 1 : 7;
    if (host[i] != want) FAIL("element " << i << ": " << host[i] << " != " << want);
  }
  if (dev.caps().timestamps) CHECK(dev.elapsed_ms(0, 1) >= 0.0);
  CHECK(dev.max_binding_elements() * 4 <= dev.caps().max_storage_buffer_range);
  CHECK_THROWS_AS(dev.dispatch_ranges(VK_NULL_HANDLE, fill,
                                      std::vector<gfxq::vk::BufferRange>{{&src, 2, 4}, {&dst, 0, 4}}, push, 1),
                  gfxq::Error);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk: pipeline statistics are captured on request, or refused with the reason") {
  auto& device = vk_device();
  device.pipeline("fill_u32", 2, 12);
  const auto names = device.pipeline_names();
  CHECK(std::find(names.begin(), names.end(), "fill_u32") != names.end());
  // The test device was created without statistics: asking for them is InvalidInput.
  CHECK_THROWS_WITH_AS(device.pipeline_statistics("fill_u32"), doctest::Contains("without them"), Error);
  try {
    auto with = gfxq::vk::Device::create({.pipeline_statistics = true});
    with->pipeline("fill_u32", 2, 12);
    const std::string stats = with->pipeline_statistics("fill_u32");
    CHECK(stats.find(" = ") != std::string::npos);
    CHECK_THROWS_WITH_AS(with->pipeline_statistics("copy_u32x4"), doctest::Contains("not created"), Error);
  } catch (const Error& e) {
    // Only a device without the extension may refuse, and it must name it.
    CHECK(e.code() == ErrorCode::Unsupported);
    CHECK(std::string(e.what()).find("VK_KHR_pipeline_executable_properties") != std::string::npos);
  }
}
