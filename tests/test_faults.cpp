// Faults as typed errors (issue 26): device memory exhaustion, GPU waits past their timeout and
// device loss, injected through EngineOptions::faults and swept over every allocation and wait a
// query makes; the error names what failed, the inputs are untouched, and the next query on the
// same engine answers like the CPU (after a loss: a new engine does). Results larger than the host
// can hold are refused before anything is allocated. The device-memory sub-allocator's blocks.
#include <doctest/doctest.h>

#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "fault_support.h"
#include "gfxq/cpu.h"
#include "gfxq/gfxq.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "test_support.h"
#include "vk/device.h"

namespace {

using namespace gfxq;

//! A catalog whose tables the fault tests query: t (4,000 rows of every kind of value).
Catalog fault_catalog() {
  return test::catalog_of(test::random_table(4000, Distribution::Uniform, 26));
}

//! Queries that exercise different compute operators (selection with row ids, aggregates with a
//! radix select, ORDER BY with a radix sort).
const std::vector<std::string>& fault_queries() {
  static const std::vector<std::string> q = {
      "SELECT a, x FROM t WHERE x < 0.5 OR b > 0",
      "SELECT COUNT(*), SUM(b), MEDIAN(a), QUANTILE(y, 0.9) FROM t WHERE b < 500",
      "SELECT a, b FROM t WHERE a > 0 ORDER BY b DESC LIMIT 50",
  };
  return q;
}

//! test::fault_sweep over fault_catalog() (or `tables`) with the Vulkan validation the tests want.
template <class Inject>
void sweep(const std::string& sql, Backend backend, Inject inject, ErrorCode code, const char* words, bool after_loss,
           const Catalog* tables = nullptr, std::optional<ErrorCode> also = std::nullopt) {
  const Catalog catalog = tables ? *tables : fault_catalog();
  test::fault_sweep(
      sql, catalog, backend, inject,
      {.code = code, .words = words, .after_loss = after_loss, .also = also, .debug = test::vk_validation_wanted()});
}

}  // namespace

TEST_CASE("faults: every device allocation of a compute query can fail: OutOfDeviceMemory naming the size") {
  for (const std::string& sql : fault_queries())
    sweep(
        sql, Backend::Compute, [](FaultInjection& f, uint64_t k) { f.fail_device_allocation = k; },
        ErrorCode::OutOfDeviceMemory, "-byte", false);
}

TEST_CASE("faults: every device allocation of a compute join and GROUP BY can fail, resident columns stay right") {
  std::mt19937_64 rng(27);
  std::uniform_int_distribution<int32_t> key(0, 60), value(-50, 50);
  std::vector<int32_t> rk(1000), ra(1000), sk(300), sb(300);
  for (auto& v : rk) v = key(rng);
  for (auto& v : ra) v = value(rng);
  for (auto& v : sk) v = key(rng);
  for (auto& v : sb) v = value(rng) / 10;
  Catalog c;
  c.add("r", Table{{Column::ints("k", rk), Column::ints("a", ra)}});
  c.add("s", Table{{Column::ints("k", sk), Column::ints("b", sb)}});
  sweep(
      "SELECT s.b, SUM(r.a), COUNT(*) FROM r JOIN s ON r.k = s.k WHERE r.a > 10 GROUP BY s.b ORDER BY s.b",
      Backend::Compute, [](FaultInjection& f, uint64_t k) { f.fail_device_allocation = k; },
      ErrorCode::OutOfDeviceMemory, "-byte", false, &c, ErrorCode::ResultTooLarge);
}

// Waits: the ORDER BY query (uploads, a sort in several submissions, downloads) times out at each
// of its waits in turn, and the aggregate query (a fused scan, then radix selects) loses the device
// at each of its waits; each sweep makes one engine per wait, so one query each keeps CI short.
TEST_CASE("faults: every GPU wait of a compute query can time out: Timeout, and the engine goes on") {
  sweep(
      fault_queries()[2], Backend::Compute, [](FaultInjection& f, uint64_t k) { f.time_out_gpu_wait = k; },
      ErrorCode::Timeout, "did not finish within", false);
}

TEST_CASE("faults: a device lost at any GPU wait is DeviceLost, and a new engine works") {
  sweep(
      fault_queries()[1], Backend::Compute, [](FaultInjection& f, uint64_t k) { f.lose_device = k; },
      ErrorCode::DeviceLost, "was lost", true);
}

TEST_CASE("faults: a raster context lost at a query start is DeviceLost, and a new engine works") {
  sweep(
      "SELECT COUNT(*) FROM t WHERE a < 0 AND x > 0.5", Backend::Raster,
      [](FaultInjection& f, uint64_t k) { f.lose_device = k; }, ErrorCode::DeviceLost, "was lost", true);
}

TEST_CASE("faults: a real GPU wait past gpu_timeout_ms is Timeout, and the engine is torn down cleanly") {
  const Catalog catalog = test::catalog_of(test::random_table(1 << 21, Distribution::Uniform, 7));
  const auto before = test::snapshot(catalog);
  {
    // Zero: no wait may block; the query's first submission is still running when it is waited for.
    Engine engine({.debug = test::vk_validation_wanted(), .gpu_timeout_ms = 0});
    CHECK_ERROR(engine.execute_sql("SELECT a, b FROM t WHERE x < 0.5 ORDER BY a", catalog, Backend::Compute),
                ErrorCode::Timeout, "did not finish within 0 ms", "gpu_timeout_ms");
    const auto messages = engine.take_debug_messages();
    CHECK_MESSAGE(messages.empty(), test::joined(messages));
  }  // ~Engine waits for the abandoned work before it frees the buffers it uses
  CHECK(test::snapshot(catalog) == before);
}

TEST_CASE("faults: results larger than the host can hold are refused before allocating: ResultTooLarge") {
  // 100,000 x 100,000 equal keys: 10^10 pairs (160 GB of row ids) from 800 KB of input.
  Catalog catalog;
  catalog.add("r", Table{{Column::ints("k", std::vector<int32_t>(100000, 7))}});
  catalog.add("s", Table{{Column::ints("k", std::vector<int32_t>(100000, 7))}});
  CHECK_ERROR(cpu::execute(sql::parse("SELECT COUNT(*) FROM r JOIN s ON r.k = s.k"), catalog),
              ErrorCode::ResultTooLarge, "the join's 10000000000 row pairs", "host limit");
  CHECK_ERROR(cpu::product(catalog.get("r"), "r", catalog.get("s"), "s"), ErrorCode::ResultTooLarge,
              "PRODUCT of 100000 and 100000 rows", "host limit");
  // The engine's CPU operators refuse them the same way.
  Engine engine;
  CHECK_ERROR(engine.execute_sql("SELECT COUNT(*) FROM r JOIN s ON r.k = s.k", catalog, Backend::Cpu),
              ErrorCode::ResultTooLarge, "the join's 10000000000 row pairs", "host limit");
  CHECK_ERROR(engine.execute_sql("SELECT COUNT(*) FROM r CROSS JOIN s", catalog, Backend::Cpu),
              ErrorCode::ResultTooLarge, "PRODUCT of 100000 and 100000 rows", "host limit");
  // A join within the limit still answers.
  Catalog small;
  small.add("r", Table{{Column::ints("k", {1, 2, 2})}});
  small.add("s", Table{{Column::ints("k", {2, 2, 3})}});
  const Result r = cpu::execute(sql::parse("SELECT COUNT(*) FROM r JOIN s ON r.k = s.k"), small);
  CHECK(std::get<int64_t>(r.table.columns[0].value(0)) == 4);
}

TEST_CASE("faults: the sub-allocator shares blocks, reuses freed ranges and keeps buffers apart") {
  vk::Device& dev = test::vk_device();
  {
    // The staging buffers of uploads and downloads live as long as the device: make them first.
    vk::Buffer warm = dev.create_buffer(64, vk::MemoryKind::Device);
    uint32_t word = 1;
    dev.upload(warm, &word, 4);
    dev.download(warm, &word, 4);
  }
  const vk::MemoryStats start = dev.memory_stats();
  std::mt19937_64 rng(0x5ab);
  {
    // 300 small buffers of odd sizes, each filled with its own pattern through the staging path.
    std::vector<vk::Buffer> buffers;
    std::vector<std::vector<uint32_t>> patterns;
    for (int i = 0; i < 300; ++i) {
      const uint64_t words = 1 + rng() % 5000;
      buffers.push_back(dev.create_buffer(words * 4, vk::MemoryKind::Device));
      std::vector<uint32_t> p(words);
      for (auto& w : p) w = uint32_t(rng());
      dev.upload(buffers.back(), p.data(), words * 4);
      patterns.push_back(std::move(p));
    }
    const vk::MemoryStats full = dev.memory_stats();
    CHECK(full.buffers >= start.buffers + 300);
    CHECK(full.allocations - start.allocations < 20);  // blocks, not one allocation per buffer
    // Free every other buffer, allocate as many again: the freed ranges are reused.
    for (size_t i = 0; i < buffers.size(); i += 2) buffers[i] = vk::Buffer();
    const uint64_t allocations = dev.memory_stats().allocations;
    for (size_t i = 0; i < buffers.size(); i += 2) {
      buffers[i] = dev.create_buffer(patterns[i].size() * 4, vk::MemoryKind::Device);
      dev.upload(buffers[i], patterns[i].data(), patterns[i].size() * 4);
    }
    CHECK(dev.memory_stats().allocations == allocations);
    // Every buffer still holds exactly its own pattern (no two ranges overlap).
    for (size_t i = 0; i < buffers.size(); ++i) {
      std::vector<uint32_t> back(patterns[i].size());
      dev.download(buffers[i], back.data(), back.size() * 4);
      CHECK(back == patterns[i]);
    }
    // A buffer larger than half a block has memory of its own.
    const uint64_t dedicated = dev.memory_stats().dedicated;
    vk::Buffer big = dev.create_buffer(48ull << 20, vk::MemoryKind::Device);
    CHECK(dev.memory_stats().dedicated == dedicated + 1);
  }
  const vk::MemoryStats end = dev.memory_stats();
  CHECK(end.buffers == start.buffers);
  CHECK(end.pooled_bytes == start.pooled_bytes);
  CHECK(end.dedicated == start.dedicated);
  CHECK(end.blocks <= start.blocks + 2);  // at most one empty block per memory type is kept
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("faults: freed dedicated allocations and empty blocks are kept up to their limit and reused") {
  // Blocks of 1 MiB: every buffer above 512 KiB is dedicated; at most 4 MiB of them are kept.
  std::vector<std::string> teardown;
  auto made = vk::Device::create({.validation = test::vk_validation_wanted(),
                                  .teardown_messages = &teardown,
                                  .block_bytes = 1ull << 20,
                                  .cache_bytes = 4ull << 20});
  vk::Device& dev = *made;
  const auto fill = [&](uint64_t bytes, uint32_t seed) {
    vk::Buffer b = dev.create_buffer(bytes, vk::MemoryKind::Device);
    std::vector<uint32_t> p(bytes / 4);
    std::iota(p.begin(), p.end(), seed);
    dev.upload(b, p.data(), bytes);
    std::vector<uint32_t> back(p.size());
    dev.download(b, back.data(), bytes);
    CHECK(back == p);
  };
  fill(2ull << 20, 1);  // also makes the staging buffers
  const vk::MemoryStats start = dev.memory_stats();
  CHECK(start.cached_bytes == 2ull << 20);
  fill(2ull << 20, 2);  // the same size: the kept allocation
  CHECK(dev.memory_stats().allocations == start.allocations);
  CHECK(dev.memory_stats().reuses == start.reuses + 1);
  fill((2ull << 20) - (256 << 10), 3);  // a quarter smaller at most: still the kept one
  CHECK(dev.memory_stats().allocations == start.allocations);
  fill(1ull << 20, 4);  // half the size: an allocation of its own, and now both are kept
  CHECK(dev.memory_stats().allocations == start.allocations + 1);
  CHECK(dev.memory_stats().cached_bytes == 3ull << 20);
  {
    // Three 3 MiB buffers alive at once, then freed: only what fits the 4 MiB limit stays.
    std::vector<vk::Buffer> live;
    for (int i = 0; i < 3; ++i) live.push_back(dev.create_buffer(3ull << 20, vk::MemoryKind::Device));
    CHECK(dev.memory_stats().dedicated == start.dedicated + 3);  // beside the staging buffers
  }
  CHECK(dev.memory_stats().cached_bytes <= 4ull << 20);
  CHECK(dev.memory_stats().dedicated == start.dedicated);
  made.reset();
  CHECK(teardown.empty());

  // Empty pool blocks are kept up to the limit too: 400 KiB buffers, two to a 1 MiB block.
  auto pooled = vk::Device::create(
      {.validation = test::vk_validation_wanted(), .block_bytes = 1ull << 20, .cache_bytes = 4ull << 20});
  const auto six_buffers = [](vk::Device& d) {
    std::vector<vk::Buffer> live;
    for (int i = 0; i < 6; ++i) live.push_back(d.create_buffer(400 << 10, vk::MemoryKind::Device));
  };
  six_buffers(*pooled);
  const vk::MemoryStats after_first = pooled->memory_stats();
  CHECK(after_first.blocks >= 3);
  CHECK(after_first.pooled_bytes == 0);
  six_buffers(*pooled);  // the kept blocks: no memory from the driver
  CHECK(pooled->memory_stats().allocations == after_first.allocations);
  pooled.reset();

  // With no cache, every dedicated buffer is memory from the driver.
  auto plain =
      vk::Device::create({.validation = test::vk_validation_wanted(), .block_bytes = 1ull << 20, .cache_bytes = 0});
  { vk::Buffer b = plain->create_buffer(2ull << 20, vk::MemoryKind::Device); }
  const uint64_t before = plain->memory_stats().allocations;
  { vk::Buffer b = plain->create_buffer(2ull << 20, vk::MemoryKind::Device); }
  CHECK(plain->memory_stats().allocations == before + 1);
  CHECK(plain->memory_stats().cached_bytes == 0);
  // ... and one empty block is kept.
  const auto blocks_before = plain->memory_stats().blocks;
  {
    std::vector<vk::Buffer> live;
    for (int i = 0; i < 6; ++i) live.push_back(plain->create_buffer(400 << 10, vk::MemoryKind::Device));
  }
  CHECK(plain->memory_stats().blocks <= blocks_before + 1);
}
