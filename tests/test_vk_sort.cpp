// The sort-family primitives on the Vulkan device (radix sort, bitonic chunk sort, radix select,
// split) against their CPU references (cpu/primitives_sort.h), exactly, around tile boundaries,
// with INT/FLOAT special values, duplicates, skew, both orders; stability is checked through row ids.
#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cpu/primitives_sort.h"
#include "gfxq/error.h"
#include "gpu_support.h"
#include "select_config.glsl"
#include "sort_config.glsl"
#include "vk/primitives/bitonic_sort.h"
#include "vk/primitives/radix_select.h"
#include "vk/primitives/radix_sort.h"
#include "vk/primitives/split.h"

using gfxq::Error;
using gfxq::ErrorCode;
using gfxq::Partitioner;
using gfxq::PartitionKind;
using gfxq::SelectResult;
using gfxq::SortKeyType;
using gfxq::SortOrder;
using gfxq::test::vk_device;
using gfxq::vk::Buffer;
using gfxq::vk::BufferRange;
using gfxq::vk::MemoryKind;
using Keys = std::vector<uint32_t>;

namespace {

constexpr SortKeyType kTypes[] = {SortKeyType::U32, SortKeyType::I32, SortKeyType::F32};
constexpr SortOrder kOrders[] = {SortOrder::Ascending, SortOrder::Descending};

std::string name(SortKeyType t) {
  return t == SortKeyType::U32 ? "U32" : (t == SortKeyType::I32 ? "I32" : "F32");
}
std::string name(SortOrder o) {
  return o == SortOrder::Ascending ? "ASC" : "DESC";
}

uint32_t bits(float f) {
  return std::bit_cast<uint32_t>(f);
}

//! Kinds of test data.
enum class Data { Random, Special, FewDistinct, AllEqual, Skew };
std::string name(Data d) {
  switch (d) {
    case Data::Random: return "random";
    case Data::Special: return "special";
    case Data::FewDistinct: return "few-distinct";
    case Data::AllEqual: return "all-equal";
    case Data::Skew: return "skew";
  }
  return "?";
}

//! Values that stress a key type's order: extremes, signed zeros, NaNs, infinities, denormals.
Keys special_values(SortKeyType type) {
  if (type == SortKeyType::F32)
    return {bits(0.0f),     bits(-0.0f),     0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fffffffu,
            bits(INFINITY), bits(-INFINITY), 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,
            bits(FLT_MAX),  bits(-FLT_MAX),  bits(1.0f),  bits(-1.0f), bits(0.5f),  bits(-2.5f)};
  if (type == SortKeyType::I32) return {0x80000000u, 0x7fffffffu, 0xffffffffu, 0u, 1u, 0x80000001u, 0x7ffffffeu};
  return {0u, 1u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0xfffffffeu};
}

//! n keys of kind `data` for `type` from `rng`.
Keys make_keys(uint64_t n, SortKeyType type, Data data, std::mt19937_64& rng) {
  Keys k(n);
  const Keys special = special_values(type);
  const uint32_t common = uint32_t(rng());
  for (auto& x : k) {
    const uint32_t r = uint32_t(rng());
    switch (data) {
      case Data::Random: x = r; break;
      case Data::Special: x = (r % 3 == 0) ? special[r / 3 % special.size()] : uint32_t(rng()); break;
      case Data::FewDistinct: x = special[r % special.size()] ^ (r >> 28 & 3u); break;
      case Data::AllEqual: x = common; break;
      case Data::Skew: x = (r & 1) ? common : uint32_t(rng()); break;
    }
  }
  return k;
}

//! A device buffer holding `data` (at least 4 bytes).
Buffer upload(const Keys& data) {
  auto& device = vk_device();
  Buffer b = device.create_buffer(std::max<uint64_t>(4, data.size() * 4), MemoryKind::Device);
  device.upload(b, data.data(), data.size() * 4);
  return b;
}

//! A device buffer of `count` words (at least 4 bytes), contents undefined.
Buffer scratch_buffer(uint64_t bytes) {
  return vk_device().create_buffer(std::max<uint64_t>(4, bytes), MemoryKind::Device);
}

Keys download(const Buffer& b, uint64_t count) {
  Keys out(count);
  vk_device().download(b, out.data(), count * 4);
  return out;
}

BufferRange whole(const Buffer& b) {
  return {&b, 0, 0};
}

//! Empty when a == b, else where and how they first differ.
std::string difference(const Keys& got, const Keys& want) {
  if (got.size() != want.size()) return "sizes " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return "at " + std::to_string(i) + ": " + std::to_string(got[i]) + " vs " + std::to_string(want[i]);
  return {};
}

#define CHECK_SAME(got, want)                                          \
  do {                                                                 \
    const std::string gfxq_diff_ = difference(got, want);              \
    CHECK_MESSAGE(gfxq_diff_.empty(), #got " differs " << gfxq_diff_); \
  } while (0)

//! Radix sort of `keys` on the GPU (values: none, given, or generated row ids) vs the CPU.
enum class Values { None, Given, RowIds };

//! `lookback_limit` bounds the onesweep look-back (RadixSortArgs); 0 must make every sort of more
//! than one tile fall back from pass 0; other bounds may or may not (on lavapipe a tile may wait
//! long on one whose thread the OS does not run), and the result is checked either way.
//! `binding_elements` (RadixSortArgs; 0: the device's) forces binding windows of
//! binding_elements / SORT_BLOCK whole blocks; `own_temporaries` gives the sort temporaries in
//! buffers of their own (RadixSortArgs::tmp_keys/tmp_values). Returns how the sort ran.
gfxq::vk::RadixSortStatus check_radix_sort(const Keys& keys, SortKeyType type, SortOrder order, Values values,
                                           bool in_place, std::mt19937_64& rng,
                                           uint32_t lookback_limit = gfxq::vk::RadixSortArgs::kMaxLookbackLimit,
                                           uint64_t binding_elements = 0, bool own_temporaries = false) {
  auto& device = vk_device();
  const uint64_t n = keys.size();
  CAPTURE(n);
  CAPTURE(name(type));
  CAPTURE(name(order));
  CAPTURE(int(values));
  CAPTURE(in_place);
  CAPTURE(lookback_limit);
  CAPTURE(binding_elements);
  CAPTURE(own_temporaries);
  Keys vals(n);
  if (values == Values::Given)
    for (auto& v : vals) v = uint32_t(rng());
  else
    std::iota(vals.begin(), vals.end(), 0u);
  Keys want_keys = keys, want_vals = vals;
  gfxq::cpu::radix_sort(want_keys, &want_vals, type, order);

  Buffer kin = upload(keys), vin = upload(vals);
  Buffer kout = scratch_buffer(n * 4), vout = scratch_buffer(n * 4);
  Buffer scratch =
      scratch_buffer(gfxq::vk::radix_sort_scratch_bytes(device, n, values != Values::None, !own_temporaries));
  Buffer tmp_keys = scratch_buffer(n * 4), tmp_values = scratch_buffer(n * 4);
  gfxq::vk::RadixSortArgs args;
  args.n = n;
  args.key_type = type;
  args.order = order;
  args.keys_in = whole(kin);
  args.keys_out = in_place ? whole(kin) : whole(kout);
  if (values == Values::Given) args.values_in = whole(vin);
  if (values != Values::None) args.values_out = in_place && values == Values::Given ? whole(vin) : whole(vout);
  args.scratch = whole(scratch);
  args.lookback_limit = lookback_limit;
  args.binding_elements = binding_elements;
  if (own_temporaries) {
    args.tmp_keys = whole(tmp_keys);
    if (values != Values::None) args.tmp_values = whole(tmp_values);
  }
  device.submit([&](VkCommandBuffer cmd) { gfxq::vk::record_radix_sort(device, cmd, args); });
  const gfxq::vk::RadixSortStatus status = gfxq::vk::radix_sort_status(device, args);
  CAPTURE(status.describe());
  const uint64_t window = binding_elements ? binding_elements / SORT_BLOCK * SORT_BLOCK : device.max_binding_elements();
  const uint64_t windows = n <= window ? 1 : (n + window - 1) / window;
  CHECK(status.onesweep == (n > 0 && windows == 1));
  if (n > 0) CHECK(status.windows == windows);
  if (windows > 1)
    CHECK(status.describe().find("over " + std::to_string(windows) + " binding windows of " + std::to_string(window) +
                                 " keys") != std::string::npos);
  if (status.onesweep) {
    // Keys alone: the 512 x 16-key kernel; with values the 512 x 12 one.
    const uint32_t tile = gfxq::vk::detail::onesweep_tile_keys(values != Values::None);
    CHECK(status.tile_keys == tile);
    CHECK(tile == (values == Values::None ? ONESWEEP_TILE_K : ONESWEEP_TILE_KV));
    CHECK(status.describe().find(std::to_string(tile) + "-key tiles") != std::string::npos);
    if (lookback_limit == 0) CHECK(status.needs_fallback() == (n > tile));
  }
  if (status.needs_fallback()) CHECK(status.describe().find("rerun by reduce-then-scan") != std::string::npos);
  device.submit([&](VkCommandBuffer cmd) { gfxq::vk::record_radix_sort_fallback(device, cmd, args, status); });
  CHECK_SAME(download(*args.keys_out.buffer, n), want_keys);
  if (values != Values::None) CHECK_SAME(download(*args.values_out.buffer, n), want_vals);
  return status;
}

//! Counts the sorts of more than one tile that the onesweep path completed without its fallback.
struct OnesweepCount {
  int multi_tile = 0, completed = 0;
  void add(uint64_t n, bool with_values, const gfxq::vk::RadixSortStatus& status) {
    if (n <= gfxq::vk::detail::onesweep_tile_keys(with_values)) return;
    ++multi_tile;
    if (status.onesweep && !status.needs_fallback()) ++completed;
  }
};

//! Boundary sizes of a primitive whose tiles are `tiles` and block `block`, plus powers of two +- 1.
std::vector<uint64_t> boundary_sizes(std::initializer_list<uint64_t> tiles, uint64_t block) {
  std::vector<uint64_t> s = {0, 1, 2, 255, 256, 257, block - 1, block, block + 1, 2 * block + 1};
  for (uint64_t tile : tiles) s.insert(s.end(), {tile - 1, tile, tile + 1, 2 * tile + 1});
  for (uint64_t p : {1ull << 10, 1ull << 13, 1ull << 15, 1ull << 17}) s.insert(s.end(), {p - 1, p + 1});
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

}  // namespace

TEST_CASE("vk-sort: CPU references on the documented examples") {
  using namespace gfxq::cpu;
  Keys k = {3, 1, 2, 1}, v = {0, 1, 2, 3};
  radix_sort(k, &v, SortKeyType::U32, SortOrder::Ascending);
  CHECK(k == Keys{1, 1, 2, 3});
  CHECK(v == Keys{1, 3, 2, 0});
  Keys out, out_v;
  sort_chunks({4, 3, 2, 1, 9, 8}, nullptr, 4, 2, SortKeyType::U32, SortOrder::Ascending, out, &out_v);
  CHECK(out == Keys{1, 2, 8, 9});
  CHECK(out_v == Keys{3, 2, 5, 4});
  CHECK(chunk_sort_output_count(6, 4, 2) == 4);
  CHECK(chunk_sort_output_count(5, 4, 2) == 3);
  CHECK(radix_select({5, 1, 4, 1}, 2, SortKeyType::U32, SortOrder::Ascending) == SelectResult{1, 0, 2});
  CHECK(radix_select({5, 1, 4, 1}, 1, SortKeyType::U32, SortOrder::Descending) == SelectResult{5, 0, 1});
  CHECK(sort_key(SortKeyType::I32, SortOrder::Ascending, uint32_t(-1)) == 0x7fffffffu);
  CHECK(key_from_sort_key(SortKeyType::F32, SortOrder::Descending,
                          sort_key(SortKeyType::F32, SortOrder::Descending, bits(-0.0f))) == bits(0.0f));
  const Partitioner radix16{PartitionKind::Radix, 16, 28, 0};
  CHECK(partition_of(radix16, SortKeyType::U32, 0xa0000001u) == 10);
  CHECK(split({3, 2, 5, 4}, nullptr, {PartitionKind::Radix, 2, 0, 0}, SortKeyType::U32, out, &out_v) == Keys{0, 2, 4});
  CHECK(out == Keys{2, 4, 3, 5});
  CHECK(out_v == Keys{1, 3, 0, 2});
  // -0.0 and +0.0 tie and keep their order; NaNs tie and are largest.
  k = {bits(0.0f), 0xffc00000u, bits(-0.0f), bits(INFINITY), 0x7fc00001u};
  radix_sort(k, nullptr, SortKeyType::F32, SortOrder::Ascending);
  CHECK(k == Keys{bits(0.0f), bits(-0.0f), bits(INFINITY), 0xffc00000u, 0x7fc00001u});
}

TEST_CASE("vk-sort: radix sort keys and row ids at tile boundaries, every key type and order") {
  std::mt19937_64 rng(0x5eed0001);
  INFO("seed 0x5eed0001");
  OnesweepCount onesweep;
  // The tiles of the reduce-then-scan path and of both onesweep kernels (keys alone, with values);
  // every size runs keys alone and with row ids, three type-order pairs each.
  for (uint64_t n : boundary_sizes({SORT_TILE, ONESWEEP_TILE_K, ONESWEEP_TILE_KV}, SORT_BLOCK)) {
    int combo = 0;
    for (SortKeyType type : kTypes)
      for (SortOrder order : kOrders) {
        const Data data = n % 3 == 0 ? Data::Special : (n % 3 == 1 ? Data::Random : Data::FewDistinct);
        CAPTURE(name(data));
        const Values values = (n + combo++) % 2 ? Values::RowIds : Values::None;
        onesweep.add(n, values != Values::None,
                     check_radix_sort(make_keys(n, type, data, rng), type, order, values, false, rng));
      }
  }
  // Fallbacks are legitimate and exact (every result above was checked); how many sorts finish on
  // the onesweep path depends on how the driver schedules workgroups, so it is reported, not
  // asserted (a loaded machine or a sanitizer build takes the fallback more often).
  MESSAGE("onesweep completed " << onesweep.completed << " of " << onesweep.multi_tile << " multi-tile sorts");
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: radix sort is stable with duplicates, all-equal keys and skew") {
  std::mt19937_64 rng(0x5eed0002);
  INFO("seed 0x5eed0002");
  for (Data data : {Data::FewDistinct, Data::AllEqual, Data::Skew, Data::Special})
    for (SortKeyType type : kTypes)
      for (SortOrder order : kOrders) {
        CAPTURE(name(data));
        const uint64_t n = 3 * SORT_BLOCK + 777;
        check_radix_sort(make_keys(n, type, data, rng), type, order, Values::RowIds, false, rng);
      }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: radix sort with given values, in place, and random large sizes") {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  check_radix_sort(make_keys(100003, SortKeyType::F32, Data::Special, rng), SortKeyType::F32, SortOrder::Descending,
                   Values::Given, false, rng);
  check_radix_sort(make_keys(70001, SortKeyType::I32, Data::Random, rng), SortKeyType::I32, SortOrder::Ascending,
                   Values::Given, true, rng);
  check_radix_sort(make_keys(ONESWEEP_TILE_K + 5, SortKeyType::U32, Data::Skew, rng), SortKeyType::U32,
                   SortOrder::Ascending, Values::None, true, rng);
  for (int r = 0; r < 3; ++r) {
    const uint64_t n = rng() % 1000000 + 1;
    const SortKeyType type = kTypes[rng() % 3];
    const SortOrder order = kOrders[rng() % 2];
    check_radix_sort(make_keys(n, type, Data(rng() % 5), rng), type, order, Values::RowIds, false, rng);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: onesweep histogram workgroups that count two and three tiles each") {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  // The histogram pass runs at most ONESWEEP_HIST_GROUPS workgroups over ONESWEEP_HIST_TILE-key
  // tiles: here most count two tiles, the first few three, the last one partial, and a histogram
  // off by one key would misplace keys in the digit passes.
  const uint64_t n = 2ull * ONESWEEP_HIST_TILE * ONESWEEP_HIST_GROUPS + 3 * ONESWEEP_HIST_TILE + 4097;
  const auto status = check_radix_sort(make_keys(n, SortKeyType::I32, Data::Random, rng), SortKeyType::I32,
                                       SortOrder::Ascending, Values::None, false, rng);
  CHECK(status.onesweep);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: onesweep look-back bound forces the reduce-then-scan fallback, exactly") {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  // Bound 0: every tile after the first gives up in pass 0, the whole sort reruns by
  // reduce-then-scan from the input (also in place); one tile never looks back.
  for (uint64_t n :
       std::vector<uint64_t>{1, ONESWEEP_TILE_KV, ONESWEEP_TILE_KV + 1, ONESWEEP_TILE_K + 1, 3 * ONESWEEP_TILE_K + 777})
    for (SortKeyType type : kTypes)
      for (SortOrder order : kOrders) {
        const Data data = Data(rng() % 5);
        CAPTURE(name(data));
        check_radix_sort(make_keys(n, type, data, rng), type, order, Values(rng() % 3), rng() % 2 == 0, rng, 0);
      }
  // Small bounds: the look-back may or may not give up, in any pass; the result is exact either way.
  for (uint32_t limit : {1u, 2u, 5u})
    check_radix_sort(make_keys(9 * ONESWEEP_TILE_KV + 3, SortKeyType::I32, Data::Random, rng), SortKeyType::I32,
                     SortOrder::Descending, Values::Given, limit % 2 == 1, rng, limit);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: onesweep stage prefixes leave the input untouched and the whole prefix sorts") {
  auto& device = vk_device();
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  const uint64_t n = 3 * ONESWEEP_TILE_KV + 5;
  const Keys keys = make_keys(n, SortKeyType::I32, Data::Random, rng);
  Keys want_keys = keys, want_vals(n);
  std::iota(want_vals.begin(), want_vals.end(), 0u);
  gfxq::cpu::radix_sort(want_keys, &want_vals, SortKeyType::I32, SortOrder::Ascending);
  Buffer kin = upload(keys), kout = scratch_buffer(n * 4), vout = scratch_buffer(n * 4);
  Buffer scratch = scratch_buffer(gfxq::vk::radix_sort_scratch_bytes(device, n, true));
  gfxq::vk::RadixSortArgs args;
  args.n = n;
  args.key_type = SortKeyType::I32;
  args.keys_in = whole(kin);
  args.keys_out = whole(kout);
  args.values_out = whole(vout);
  args.scratch = whole(scratch);
  const auto record_stages = [&](uint32_t stages) {
    device.submit([&](VkCommandBuffer cmd) { gfxq::vk::detail::record_radix_sort_stages(device, cmd, args, stages); });
  };
  for (uint32_t stages = 1; stages <= 4; ++stages) {
    CAPTURE(stages);
    record_stages(stages);
    CHECK_SAME(download(kin, n), keys);
  }
  record_stages(5);
  const gfxq::vk::RadixSortStatus status = gfxq::vk::radix_sort_status(device, args);
  CAPTURE(status.describe());
  CHECK(status.onesweep);
  device.submit([&](VkCommandBuffer cmd) { gfxq::vk::record_radix_sort_fallback(device, cmd, args, status); });
  CHECK_SAME(download(kout, n), want_keys);
  CHECK_SAME(download(vout, n), want_vals);
  CHECK_SAME(download(kin, n), keys);
  CHECK_THROWS_WITH_AS(record_stages(0), doctest::Contains("is not in 1..5"), Error);
  CHECK_THROWS_WITH_AS(record_stages(6), doctest::Contains("is not in 1..5"), Error);
  args.n = 0;
  CHECK_THROWS_WITH_AS(record_stages(5), doctest::Contains("does not take the onesweep path"), Error);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: radix sort over 2, 3 and 8 binding windows at window sizes +- 1") {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  // Windows of one block (the smallest), then of two blocks from a cap that is not a whole number
  // of blocks. Stability is checked through generated and given row ids.
  constexpr uint64_t w = SORT_BLOCK;
  int combo = 0;
  for (uint64_t n : {w, w + 1, 2 * w - 1, 2 * w, 2 * w + 1, 3 * w - 1, 3 * w, 3 * w + 1, 8 * w - 1, 8 * w}) {
    for (SortKeyType type : {SortKeyType::I32, SortKeyType::F32}) {
      const SortOrder order = kOrders[combo % 2];
      const Values values = Values(combo % 3);
      const Data data = combo % 4 == 0 ? Data::FewDistinct : Data(rng() % 5);
      CAPTURE(name(data));
      check_radix_sort(make_keys(n, type, data, rng), type, order, values, combo % 5 == 0, rng,
                       gfxq::vk::RadixSortArgs::kMaxLookbackLimit, w, combo % 2 == 1);
      ++combo;
    }
  }
  for (SortOrder order : kOrders)
    check_radix_sort(make_keys(3 * 2 * w + 5, SortKeyType::U32, Data::Skew, rng), SortKeyType::U32, order,
                     Values::RowIds, false, rng, gfxq::vk::RadixSortArgs::kMaxLookbackLimit, 2 * w + 1000);
  // Keys alone around the keys-only onesweep tile: 2 tiles + 1 key in one window (onesweep), and
  // one window + that many (2 windows, reduce-then-scan).
  for (uint64_t n : {uint64_t(ONESWEEP_TILE_K) + 1, w + ONESWEEP_TILE_K + 1})
    for (SortOrder order : kOrders)
      check_radix_sort(make_keys(n, SortKeyType::I32, Data::FewDistinct, rng), SortKeyType::I32, order, Values::None,
                       false, rng, gfxq::vk::RadixSortArgs::kMaxLookbackLimit, w);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: radix sort beyond 8 binding windows is Unsupported, naming the sizes") {
  auto& device = vk_device();
  const uint64_t n = 8 * SORT_BLOCK + 1;
  Buffer keys = scratch_buffer(n * 4);
  Buffer scratch = scratch_buffer(gfxq::vk::radix_sort_scratch_bytes(device, n, false));
  gfxq::vk::RadixSortArgs args;
  args.n = n;
  args.keys_in = args.keys_out = whole(keys);
  args.scratch = whole(scratch);
  args.binding_elements = SORT_BLOCK;
  device.submit([&](VkCommandBuffer cmd) {
    try {
      gfxq::vk::record_radix_sort(device, cmd, args);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Unsupported);
      const std::string what = e.what();
      CHECK(what.find(std::to_string(n) + " keys: more than 8 binding windows of " + std::to_string(SORT_BLOCK) +
                      " keys") != std::string::npos);
    }
  });
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: bitonic chunk sort matches per-chunk stable sort, with keep") {
  auto& device = vk_device();
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  struct Case {
    uint32_t chunk, keep;
  };
  for (Case c : {Case{1, 0}, Case{2, 0}, Case{64, 5}, Case{256, 0}, Case{1024, 1000}, Case{2048, 0}, Case{2048, 16}})
    for (uint64_t n : {0ull, 1ull, 2ull, 255ull, 256ull, 257ull, 2047ull, 2048ull, 2049ull, 4097ull, 33333ull}) {
      const SortKeyType type = kTypes[rng() % 3];
      const SortOrder order = kOrders[rng() % 2];
      const Data data = Data(rng() % 5);
      const bool given = rng() % 2;
      const bool in_place = c.keep == 0 && rng() % 2;
      CAPTURE(c.chunk);
      CAPTURE(c.keep);
      CAPTURE(n);
      CAPTURE(name(type));
      CAPTURE(name(order));
      CAPTURE(name(data));
      CAPTURE(given);
      CAPTURE(in_place);
      const Keys keys = make_keys(n, type, data, rng);
      Keys vals(n);
      for (auto& v : vals) v = uint32_t(rng());
      Keys want_k, want_v;
      gfxq::cpu::sort_chunks(keys, given ? &vals : nullptr, c.chunk, c.keep, type, order, want_k, &want_v);
      const uint64_t outs = gfxq::cpu::chunk_sort_output_count(n, c.chunk, c.keep);
      REQUIRE(want_k.size() == outs);
      Buffer kin = upload(keys), vin = upload(vals), kout = scratch_buffer(outs * 4), vout = scratch_buffer(outs * 4);
      gfxq::vk::BitonicSortArgs args;
      args.n = n;
      args.key_type = type;
      args.order = order;
      args.chunk = c.chunk;
      args.keep = c.keep;
      args.keys_in = whole(kin);
      args.keys_out = in_place ? whole(kin) : whole(kout);
      if (given) args.values_in = whole(vin);
      args.values_out = in_place && given ? whole(vin) : whole(vout);
      device.submit([&](VkCommandBuffer cmd) { gfxq::vk::record_bitonic_sort(device, cmd, args); });
      CHECK_SAME(download(*args.keys_out.buffer, outs), want_k);
      CHECK_SAME(download(*args.values_out.buffer, outs), want_v);
    }
  // Keys only, and a chunk that is not a power of two.
  const Keys keys = make_keys(5000, SortKeyType::I32, Data::Random, rng);
  Keys want;
  gfxq::cpu::sort_chunks(keys, nullptr, 512, 0, SortKeyType::I32, SortOrder::Ascending, want, nullptr);
  Buffer kin = upload(keys), kout = scratch_buffer(5000 * 4);
  gfxq::vk::BitonicSortArgs args;
  args.n = keys.size();
  args.key_type = SortKeyType::I32;
  args.chunk = 512;
  args.keys_in = whole(kin);
  args.keys_out = whole(kout);
  device.submit([&](VkCommandBuffer cmd) { gfxq::vk::record_bitonic_sort(device, cmd, args); });
  CHECK_SAME(download(kout, keys.size()), want);
  args.chunk = 3;
  device.submit([&](VkCommandBuffer cmd) {
    CHECK_THROWS_WITH_AS(gfxq::vk::record_bitonic_sort(device, cmd, args), doctest::Contains("power of two"), Error);
  });
  GFXQ_CHECK_NO_VK_MESSAGES();
}

namespace {

//! Radix select of every k in `ks` on the GPU (sharing one scratch, barriers between) vs the CPU;
//! `window`: RadixSelectArgs::binding_elements.
void check_select(const Keys& keys, const std::vector<uint64_t>& ks, SortKeyType type, SortOrder order,
                  uint64_t window = 0) {
  auto& device = vk_device();
  const uint64_t n = keys.size();
  CAPTURE(n);
  CAPTURE(name(type));
  CAPTURE(name(order));
  CAPTURE(window);
  Buffer kin = upload(keys);
  Buffer scratch = scratch_buffer(gfxq::vk::radix_select_scratch_bytes(device, n, window));
  Buffer result = device.create_buffer(ks.size() * 256, MemoryKind::Readback);
  device.submit([&](VkCommandBuffer cmd) {
    for (size_t i = 0; i < ks.size(); ++i) {
      if (i > 0) device.barrier(cmd);
      gfxq::vk::RadixSelectArgs args;
      args.n = n;
      args.k = ks[i];
      args.key_type = type;
      args.order = order;
      args.keys = whole(kin);
      args.result = {&result, i * 256, 12};
      args.scratch = whole(scratch);
      args.binding_elements = window;
      gfxq::vk::record_radix_select(device, cmd, args);
    }
  });
  for (size_t i = 0; i < ks.size(); ++i) {
    CAPTURE(ks[i]);
    const auto* words = static_cast<const uint32_t*>(result.mapped()) + i * 64;
    const SelectResult got{words[0], words[1], words[2]};
    const SelectResult want = gfxq::cpu::radix_select(keys, ks[i], type, order);
    CHECK(got.key == want.key);
    CHECK(got.less == want.less);
    CHECK(got.equal == want.equal);
  }
}

std::vector<uint64_t> select_ranks(uint64_t n, std::mt19937_64& rng) {
  std::vector<uint64_t> ks = {1, n, (n + 1) / 2, rng() % n + 1};
  if (n >= 2) ks.push_back(2);
  return ks;
}

}  // namespace

TEST_CASE("vk-sort: radix select k = 1, 2, n/2, n and random k at tile boundaries") {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  for (uint64_t n : {1ull, 2ull, 255ull, 256ull, 257ull, 4095ull, 4096ull, 4097ull, 8193ull, 65537ull})
    for (SortKeyType type : kTypes)
      for (SortOrder order : kOrders) {
        const Data data = Data(rng() % 5);
        CAPTURE(name(data));
        check_select(make_keys(n, type, data, rng), select_ranks(n, rng), type, order);
      }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: radix select over 2, 3, 11 and 40 binding windows at window +- 1 sizes") {
  // Windows of 4160 keys (a tile and 64 keys) and of 64 keys (the smallest), n = c x W - 1, c x W,
  // c x W + 1: the last window full, short by one or holding one key. Random keys (candidates
  // copied into each window's regions), few distinct values and special values (-0.0, NaN, inf,
  // INT32 extremes), all keys equal, all keys in one top-12-bit bucket (three scans of the keys).
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  auto& device = vk_device();
  for (auto [window, windows] : {std::pair<uint64_t, uint64_t>{4160, 2}, {4160, 3}, {4160, 11}, {64, 40}})
    for (uint64_t n : {windows * window - 1, windows * window, windows * window + 1}) {
      const SortKeyType type = kTypes[rng() % std::size(kTypes)];
      const SortOrder order = kOrders[rng() % std::size(kOrders)];
      const uint32_t kind = uint32_t(rng() % 6);
      Keys keys;
      if (kind < 5) {
        keys = make_keys(n, type, Data(kind), rng);
      } else {
        // One top bucket: the top 12 bits shared, the rest random.
        const uint32_t top = uint32_t(rng()) & 0xfff00000u;
        keys.resize(n);
        for (auto& x : keys) x = top | (uint32_t(rng()) & 0x000fffffu);
      }
      CAPTURE(kind);  // Data 0..4, 5: one top bucket
      CHECK(gfxq::vk::radix_select_windows(device, n, window) == (n + window - 1) / window);
      check_select(keys, select_ranks(n, rng), type, order, window);
    }
  // FLOAT specials and one top bucket in both key orders, over 3 windows.
  for (SortOrder order : kOrders) {
    check_select(make_keys(3 * 4160 + 1, SortKeyType::F32, Data::Special, rng), select_ranks(3 * 4160 + 1, rng),
                 SortKeyType::F32, order, 4160);
    Keys bucket(3 * 4160 - 1);
    for (auto& x : bucket) x = 0x3f800000u | (uint32_t(rng()) & 0x000fffffu);
    check_select(bucket, select_ranks(bucket.size(), rng), SortKeyType::F32, order, 4160);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: radix select on skewed, narrow-range, float and large inputs") {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  const uint64_t n = 300001;
  // Half the rows hold one key (the median sits in it), all keys equal, keys in a narrow range
  // (top digits constant: decided from the first scan), floats in [0, 1), special values.
  for (SortKeyType type : kTypes) {
    check_select(make_keys(n, type, Data::Skew, rng), select_ranks(n, rng), type, SortOrder::Ascending);
    check_select(make_keys(n, type, Data::AllEqual, rng), select_ranks(n, rng), type, SortOrder::Descending);
    check_select(make_keys(n, type, Data::Special, rng), select_ranks(n, rng), type, SortOrder::Ascending);
  }
  Keys narrow(n), unit(n);
  for (auto& x : narrow) x = uint32_t(rng() % 1000000);
  std::uniform_real_distribution<float> u01(0.0f, 1.0f);
  for (auto& x : unit) x = bits(u01(rng));
  check_select(narrow, select_ranks(n, rng), SortKeyType::I32, SortOrder::Ascending);
  check_select(unit, select_ranks(n, rng), SortKeyType::F32, SortOrder::Ascending);
  const uint64_t big = rng() % 1000000 + 1;
  check_select(make_keys(big, SortKeyType::F32, Data::Random, rng), select_ranks(big, rng), SortKeyType::F32,
               SortOrder::Descending);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: radix select at the copy threshold, with several tiles per workgroup") {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  // 2050 tiles of 4096 keys over 1024 workgroups: 2 or 3 tiles each, the last one partial. A share
  // `inside` of the keys lies in one top-12-bit bucket (the rank sits in it), the rest above and
  // below: exactly half (scan 2 copies the candidates into the regions) and one more (it does not:
  // scan 3 rereads the keys).
  const uint64_t n = 2 * 4096 * 1024 + 4097;
  for (const uint64_t inside : {n / 2, n / 2 + 1}) {
    CAPTURE(inside);
    Keys keys(n);
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t low = uint32_t(rng()) & 0xfffffu;
      keys[i] = i < inside ? (0x800u << 20 | low) : (uint32_t(rng()) % 2 ? 0x7ffu << 20 : 0x801u << 20) | low;
    }
    std::shuffle(keys.begin(), keys.end(), rng);
    const uint64_t below = std::count_if(keys.begin(), keys.end(), [](uint32_t x) { return x >> 20 < 0x800u; });
    check_select(keys, {below + 1, below + inside / 2, below + inside, rng() % n + 1}, SortKeyType::U32,
                 SortOrder::Ascending);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

namespace {

void check_split(const Keys& keys, SortKeyType type, const Partitioner& p, Values values) {
  auto& device = vk_device();
  const uint64_t n = keys.size();
  CAPTURE(n);
  CAPTURE(name(type));
  CAPTURE(int(p.kind));
  CAPTURE(p.fanout);
  CAPTURE(p.shift);
  CAPTURE(int(values));
  Keys vals(n);
  for (uint64_t i = 0; i < n; ++i) vals[i] = uint32_t(i * 2654435761u);
  Keys want_k, want_v;
  const Keys want_off = gfxq::cpu::split(keys, values == Values::Given ? &vals : nullptr, p, type, want_k, &want_v);
  Buffer kin = upload(keys), vin = upload(vals), kout = scratch_buffer(n * 4), vout = scratch_buffer(n * 4);
  Buffer offsets = scratch_buffer((uint64_t(p.fanout) + 1) * 4);
  Buffer scratch = scratch_buffer(gfxq::vk::split_scratch_bytes(device, n, p, values != Values::None));
  gfxq::vk::SplitArgs args;
  args.n = n;
  args.key_type = type;
  args.partitioner = p;
  args.keys_in = whole(kin);
  args.keys_out = whole(kout);
  if (values == Values::Given) args.values_in = whole(vin);
  if (values != Values::None) args.values_out = whole(vout);
  args.offsets = whole(offsets);
  args.scratch = whole(scratch);
  device.submit([&](VkCommandBuffer cmd) { gfxq::vk::record_split(device, cmd, args); });
  CHECK_SAME(download(kout, n), want_k);
  if (values != Values::None) CHECK_SAME(download(vout, n), want_v);
  CHECK_SAME(download(offsets, p.fanout + 1), want_off);
}

}  // namespace

TEST_CASE("vk-sort: split by radix bits and by hash, one and two levels, with skew") {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  const std::vector<Partitioner> parts = {
      {PartitionKind::Radix, 1, 0, 0},    {PartitionKind::Radix, 2, 31, 0},   {PartitionKind::Radix, 16, 4, 0},
      {PartitionKind::Radix, 256, 24, 0}, {PartitionKind::Radix, 1024, 0, 0}, {PartitionKind::Radix, 65536, 16, 0},
      {PartitionKind::Hash, 1, 0, 7},     {PartitionKind::Hash, 100, 0, 1},   {PartitionKind::Hash, 256, 0, 2},
      {PartitionKind::Hash, 257, 0, 3},   {PartitionKind::Hash, 5000, 0, 4},  {PartitionKind::Hash, 65536, 0, 5}};
  for (const Partitioner& p : parts)
    for (uint64_t n : {0ull, 1ull, 257ull, 4097ull, 16385ull, 40000ull}) {
      const SortKeyType type = kTypes[rng() % 3];
      const Data data = n % 2 ? Data::Skew : Data(rng() % 5);
      CAPTURE(name(data));
      check_split(make_keys(n, type, data, rng), type, p, Values(rng() % 3));
    }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: bad arguments and sizes past one binding are clear errors") {
  auto& device = vk_device();
  const uint64_t too_many = device.max_binding_elements() + 1;
  const uint64_t too_many_windows =
      gfxq::vk::RadixSortArgs::kMaxWindows * (device.max_binding_elements() / SORT_BLOCK * SORT_BLOCK) + 1;
  // The message names whichever limit too_many_windows passes: 32-bit key positions (large
  // bindings, as on the H200) before kMaxWindows binding windows.
  CHECK_THROWS_WITH_AS(
      gfxq::vk::radix_sort_scratch_bytes(device, too_many_windows, true),
      doctest::Contains(too_many_windows > UINT32_MAX ? "key positions are 32-bit" : "binding windows"), Error);
  CHECK_THROWS_WITH_AS(gfxq::vk::radix_sort_scratch_bytes(device, uint64_t(UINT32_MAX) + 1, true),
                       doctest::Contains("key positions are 32-bit"), Error);
  // Radix select spans any number of binding windows, up to 2^32 - 1 keys.
  CHECK(gfxq::vk::radix_select_windows(device, too_many) == 2);
  // Its scratch is the header plus, when each window's candidate regions (whole tiles for each of
  // up to SELECT_MAX_GROUPS workgroups) fit one binding, regions for every key; else (a binding of
  // about 2^30 keys on NVIDIA) nothing is copied and the header is all.
  const uint64_t window = gfxq::vk::radix_select_window_keys(device), tiles = (window + SELECT_TILE - 1) / SELECT_TILE;
  const uint64_t groups = std::min<uint64_t>(tiles, SELECT_MAX_GROUPS);
  const bool copies = groups * ((tiles + groups - 1) / groups) * SELECT_TILE <= device.max_binding_elements();
  const uint64_t select_bytes = gfxq::vk::radix_select_scratch_bytes(device, too_many);
  CAPTURE(copies);
  if (copies)
    CHECK(select_bytes > too_many * 4);
  else
    CHECK(select_bytes == gfxq::vk::detail::align256(SELECT_HEADER_WORDS * 4));
  CHECK_THROWS_WITH_AS(gfxq::vk::radix_select_scratch_bytes(device, uint64_t(UINT32_MAX) + 1),
                       doctest::Contains("2^32 - 1"), Error);
  CHECK_THROWS_WITH_AS(gfxq::vk::split_scratch_bytes(device, too_many, {}, false), doctest::Contains("binding"), Error);
  try {
    gfxq::vk::radix_sort_scratch_bytes(device, too_many_windows, false);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Unsupported);
  }
  CHECK_THROWS_AS(gfxq::vk::split_scratch_bytes(device, 10, {PartitionKind::Radix, 3, 0, 0}, false), Error);
  CHECK_THROWS_AS(gfxq::vk::split_scratch_bytes(device, 10, {PartitionKind::Hash, 65537, 0, 0}, false), Error);
  CHECK_THROWS_AS(gfxq::vk::split_scratch_bytes(device, 10, {PartitionKind::Radix, 256, 25, 0}, false), Error);
  Buffer keys = upload({1, 2, 3});
  Buffer scratch = scratch_buffer(gfxq::vk::radix_select_scratch_bytes(device, 3));
  Buffer result = scratch_buffer(12);
  gfxq::vk::RadixSelectArgs args;
  args.n = 3;
  args.k = 4;
  args.keys = whole(keys);
  args.result = whole(result);
  args.scratch = whole(scratch);
  device.submit([&](VkCommandBuffer cmd) {
    CHECK_THROWS_WITH_AS(gfxq::vk::record_radix_select(device, cmd, args), doctest::Contains("1..3"), Error);
    args.k = 0;
    CHECK_THROWS_AS(gfxq::vk::record_radix_select(device, cmd, args), Error);
  });
  // A scratch range that is too small is refused before anything is recorded.
  gfxq::vk::RadixSortArgs sort;
  sort.n = 3;
  sort.keys_in = sort.keys_out = whole(keys);
  sort.scratch = {&result, 0, 12};
  device.submit([&](VkCommandBuffer cmd) {
    CHECK_THROWS_WITH_AS(gfxq::vk::record_radix_sort(device, cmd, sort), doctest::Contains("scratch"), Error);
  });
  // Temporaries of the caller's: tmp_values is required with values, and no temporary may overlap
  // another range of the sort.
  Buffer tmp = scratch_buffer(12), big_scratch = scratch_buffer(gfxq::vk::radix_sort_scratch_bytes(device, 3, true));
  sort.scratch = whole(big_scratch);
  sort.values_out = whole(result);
  sort.tmp_keys = whole(tmp);
  device.submit([&](VkCommandBuffer cmd) {
    CHECK_THROWS_WITH_AS(gfxq::vk::record_radix_sort(device, cmd, sort), doctest::Contains("tmp_values"), Error);
    sort.tmp_values = whole(result);
    CHECK_THROWS_WITH_AS(gfxq::vk::record_radix_sort(device, cmd, sort), doctest::Contains("overlaps"), Error);
  });
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: radix select of one key more than the device binding holds") {
  // The default window (the device's binding: 32 Mi keys on lavapipe) and one key past it: two
  // windows, the first a full binding with its candidate regions filling a whole binding. Random
  // bits as FLOAT keys (both signs, NaNs). Where a binding holds more than 2^25 keys (NVIDIA), a
  // window of 2^25 keys stands in for it, keeping the test's memory and time small.
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  auto& device = vk_device();
  const uint64_t cap = uint64_t(1) << 25;
  const uint64_t window = device.max_binding_elements() <= cap ? 0 : cap;
  const uint64_t n = (window ? window : device.max_binding_elements()) + 1;
  CHECK(gfxq::vk::radix_select_windows(device, n, window) == 2);
  Keys keys(n);
  for (auto& x : keys) x = uint32_t(rng());
  check_select(keys, {1, n, (n + 1) / 2, rng() % n + 1}, SortKeyType::F32, SortOrder::Ascending, window);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

namespace {

using gfxq::vk::RadixSelectPath;
using Sample = gfxq::vk::RadixSelectArgs::Sample;

//! One sampled radix select of rank k (its own submit) vs the CPU, exactly, and the path it took
//! (`want`; nullopt: the bracket may hold or miss, but the select must have been sampled).
void check_sampled(const Keys& keys, uint64_t k, SortKeyType type, SortOrder order, uint64_t window, uint32_t margin,
                   std::optional<RadixSelectPath> want) {
  auto& device = vk_device();
  const uint64_t n = keys.size();
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(name(type));
  CAPTURE(name(order));
  CAPTURE(window);
  CAPTURE(margin);
  Buffer kin = upload(keys);
  Buffer scratch = scratch_buffer(gfxq::vk::radix_select_scratch_bytes(device, n, window));
  Buffer result = device.create_buffer(256, MemoryKind::Readback);
  gfxq::vk::RadixSelectArgs args;
  args.n = n;
  args.k = k;
  args.key_type = type;
  args.order = order;
  args.keys = whole(kin);
  args.result = {&result, 0, 12};
  args.scratch = whole(scratch);
  args.binding_elements = window;
  args.sample = Sample::On;
  args.sample_margin = margin;
  REQUIRE(gfxq::vk::radix_select_sampled(device, args) == (n >= SELECT_SAMPLE_MIN));
  device.submit([&](VkCommandBuffer cmd) { gfxq::vk::record_radix_select(device, cmd, args); });
  const auto* words = static_cast<const uint32_t*>(result.mapped());
  const SelectResult want_r = gfxq::cpu::radix_select(keys, k, type, order);
  CHECK(words[0] == want_r.key);
  CHECK(words[1] == want_r.less);
  CHECK(words[2] == want_r.equal);
  const RadixSelectPath path = gfxq::vk::radix_select_path(device, args);
  CAPTURE(gfxq::vk::radix_select_path_name(path));
  if (want)
    CHECK(path == *want);
  else
    CHECK(path != RadixSelectPath::Unsampled);
}

//! Index of sample j of n keys (select_sample.comp).
uint64_t sample_index(uint64_t j, uint64_t n) {
  return (2 * j + 1) * n / (2 * SELECT_SAMPLE);
}

}  // namespace

TEST_CASE("vk-sort: sampled radix select: the bracket holds over one and several windows") {
  // Distinct keys in ascending position order: the evenly strided sample is their exact quantiles,
  // so for every k the k-th key lies strictly inside the bracket (rank 1 and rank n with one side
  // open): the select over the candidate regions decides it. One window, and 25 windows of 4160.
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  const uint64_t n = 100003;
  for (uint64_t window : {uint64_t(0), uint64_t(4160)})
    for (SortKeyType type : kTypes)
      for (SortOrder order : kOrders) {
        Keys keys(n);
        for (uint64_t i = 0; i < n; ++i)
          keys[i] = type == SortKeyType::U32   ? uint32_t(i * 7 + 3)
                    : type == SortKeyType::I32 ? uint32_t(int32_t(i) - int32_t(n / 2))
                                               : bits(float(i) - float(n / 3));
        for (uint64_t k : {uint64_t(1), uint64_t(2), n / 2, n - 1, n, rng() % n + 1})
          check_sampled(keys, k, type, order, window, 0, RadixSelectPath::Candidates);
      }
  // Random keys, special values (-0.0, NaN, inf, INT32 extremes), few distinct values and skew
  // (the bracket may hold, miss or bound rank k) with the default and the narrowest margins, and a
  // margin past both ends of the sample: no bound, every key a candidate.
  for (uint64_t window : {uint64_t(0), uint64_t(4160)})
    for (SortKeyType type : kTypes)
      for (Data data : {Data::Random, Data::Special, Data::FewDistinct, Data::Skew}) {
        CAPTURE(name(data));
        const Keys keys = make_keys(n, type, data, rng);
        for (uint32_t margin : {0u, 1u, 2u})
          check_sampled(keys, rng() % n + 1, type, SortOrder::Ascending, window, margin, std::nullopt);
        check_sampled(keys, n / 2, type, SortOrder::Descending, window, SELECT_SAMPLE, RadixSelectPath::Candidates);
      }
  // A narrow range: floats 1 + u / 4096 (every key in one top-12-bit bucket).
  Keys narrow(n);
  std::uniform_real_distribution<float> u01(0.0f, 1.0f);
  for (auto& x : narrow) x = bits(1.0f + u01(rng) * 0x1p-12f);
  for (uint64_t k : {uint64_t(1), n / 2, n, rng() % n + 1})
    check_sampled(narrow, k, SortKeyType::F32, SortOrder::Ascending, 4160, 0, std::nullopt);
  // Below SELECT_SAMPLE_MIN keys nothing is sampled.
  check_sampled(make_keys(SELECT_SAMPLE_MIN - 1, SortKeyType::U32, Data::Random, rng), 7, SortKeyType::U32,
                SortOrder::Ascending, 0, 0, RadixSelectPath::Unsampled);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: sampled radix select: the k-th key at a bracket bound is decided by the counts") {
  // All keys equal (lo == hi == the key: every key counts as equal to lo, or to hi when lo is
  // open), and half the keys one value that the sample brackets on both sides.
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  const uint64_t n = 70001;
  for (uint64_t window : {uint64_t(0), uint64_t(4160)})
    for (SortKeyType type : kTypes)
      for (SortOrder order : kOrders) {
        const Keys keys = make_keys(n, type, Data::AllEqual, rng);
        for (uint64_t k : {uint64_t(1), n / 2, n})
          check_sampled(keys, k, type, order, window, 0, RadixSelectPath::Bound);
      }
  Keys skew(n);
  for (uint64_t i = 0; i < n; ++i) skew[i] = i % 2 ? 5000000u : uint32_t(rng() % 10000000);
  check_sampled(skew, n / 2, SortKeyType::U32, SortOrder::Ascending, 4160, 0, RadixSelectPath::Bound);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-sort: sampled radix select: a bracket that misses falls back to the whole select") {
  // Adversarial keys: every sampled position holds the largest key of the order, the rest are
  // random and smaller, so the bracket is [max, max] and every rank up to n - SELECT_SAMPLE lies
  // below it (from rank n / 32 on: below, the lower side is open): the whole unsampled select over
  // the keys runs (over one window and 10 and 40 windows) and must be exact. Ranks among the
  // sampled maxima are bound keys.
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  for (auto [n, window] : {std::pair<uint64_t, uint64_t>{40000, 0}, {37441, 4160}, {40000 * 64 + 1, 65536}})
    for (SortKeyType type : kTypes)
      for (SortOrder order : kOrders) {
        const bool asc = order == SortOrder::Ascending;
        // The raw key whose sort key is the largest in this order, and random keys below it.
        const uint32_t top = type == SortKeyType::U32   ? (asc ? 0xffffffffu : 0u)
                             : type == SortKeyType::I32 ? (asc ? 0x7fffffffu : 0x80000000u)
                                                        : bits(asc ? INFINITY : -INFINITY);
        Keys keys(n);
        for (auto& x : keys)
          x = type == SortKeyType::F32 ? bits(float(rng() % 1000000) - 500000.0f) : uint32_t(rng() % 1000000) + 1;
        for (uint64_t j = 0; j < SELECT_SAMPLE; ++j) keys[sample_index(j, n)] = top;
        const uint64_t ranks[] = {n / 16, n / 3, n / 2, n - SELECT_SAMPLE, n / 16 + rng() % (n / 2)};
        for (uint64_t k : ranks) check_sampled(keys, k, type, order, window, 0, RadixSelectPath::Fallback);
        check_sampled(keys, n, type, order, window, 0, RadixSelectPath::Bound);
        // Rank 1 and 2: the bracket's lower side is open, every smaller key a candidate.
        for (uint64_t k : {uint64_t(1), uint64_t(2)})
          check_sampled(keys, k, type, order, window, 0, RadixSelectPath::Candidates);
      }
  GFXQ_CHECK_NO_VK_MESSAGES();
}
