// The data-parallel primitives of src/vk/primitives (map, reduce, scan, compact, gather, scatter)
// against their CPU references (src/cpu/primitives.h), exactly: sizes around workgroup and tile
// boundaries, random sizes, forced small chunks (many bindings, many output windows) and runs of
// many tiles per workgroup, inputs at buffer offsets, duplicates, extremes, NaN and -0.0.
// Random data comes from a logged seed (GFXQ_TEST_SEED overrides it).
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/order_key.h"
#include "cpu/primitives.h"
#include "gfxq/error.h"
#include "gpu_support.h"
#include "vk/primitives/compact.h"
#include "vk/primitives/gather_scatter.h"
#include "vk/primitives/map.h"
#include "vk/primitives/reduce.h"
#include "vk/primitives/scan.h"
#include "vk/primitives/scratch.h"
#include "wg_constants.glsl"

using namespace gfxq;
using namespace gfxq::vk;
using gfxq::test::vk_device;

namespace {

constexpr uint64_t kTile = GFXQ_PRIM_TILE;
constexpr uint32_t kSentinel = 0xDEADBEEFu;

//! Sizes around workgroup and tile boundaries.
const std::vector<uint64_t> kSizes = {0, 1, 3, 255, 256, 257, kTile - 1, kTile, kTile + 1, 2 * kTile + 1};
//! One-tile chunks and at most 2 workgroups per pass: many bindings, many output windows and
//! long runs of tiles per workgroup on small inputs.
const PrimTuning kTiny{.binding_elements = kTile, .max_groups = 2};
//! Chunks of 3 tiles (the limit is rounded down) and at most 5 workgroups per pass.
const PrimTuning kSmall{.binding_elements = 3 * kTile + 100, .max_groups = 5};

//! One test input: a size, the tuning to run it with and the byte offset of its buffers' data.
struct Case {
  uint64_t n;
  PrimTuning tuning;
  uint64_t offset;
};

//! Every size of kSizes with the default tuning at offset 0 and with kTiny/kSmall at offset 256,
//! then `random` sizes below `max_random` with the default tuning.
std::vector<Case> cases(std::mt19937_64& rng, int random, uint64_t max_random) {
  std::vector<Case> out;
  for (size_t i = 0; i < kSizes.size(); ++i) {
    out.push_back({kSizes[i], {}, 0});
    out.push_back({kSizes[i], i % 2 ? kTiny : kSmall, 256});
  }
  for (int i = 0; i < random; ++i) out.push_back({rng() % max_random, {}, 0});
  return out;
}

uint64_t test_seed() {
  if (const char* s = std::getenv("GFXQ_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  return std::random_device{}();
}

//! A device buffer holding `v` from byte `offset` on, with room for at least `min_elems` elements;
//! bytes not covered by `v` hold kSentinel.
template <class T>
Buffer upload(const std::vector<T>& v, uint64_t offset = 0, uint64_t min_elems = 0) {
  Device& d = vk_device();
  const uint64_t elems = std::max<uint64_t>(v.size(), min_elems);
  std::vector<uint32_t> words((offset + elems * sizeof(T) + 3) / 4 + 4, kSentinel);
  if (!v.empty()) std::memcpy(reinterpret_cast<char*>(words.data()) + offset, v.data(), v.size() * sizeof(T));
  Buffer b = d.create_buffer(words.size() * 4, MemoryKind::Device);
  d.upload(b, words.data(), words.size() * 4);
  return b;
}

//! A device buffer of `elems` kSentinel words after `offset` bytes.
Buffer sentinels(uint64_t elems, uint64_t offset = 0) {
  return upload(std::vector<uint32_t>(elems, kSentinel), offset);
}

template <class T>
std::vector<T> download(const Buffer& b, uint64_t n, uint64_t offset = 0) {
  std::vector<T> v(n);
  if (n) vk_device().download(b, v.data(), n * sizeof(T), offset);
  return v;
}

Buffer scratch_buffer(uint64_t bytes) {
  return vk_device().create_buffer(bytes, MemoryKind::Device);
}

//! Ints with many duplicates, negatives and the extremes.
std::vector<int32_t> random_ints(std::mt19937_64& rng, uint64_t n) {
  std::vector<int32_t> v(n);
  for (auto& x : v) {
    const uint64_t r = rng();
    x = r % 10 == 0   ? static_cast<int32_t>(static_cast<uint32_t>(r >> 32))
        : r % 10 == 1 ? (r & 256 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::min())
                      : static_cast<int32_t>((r >> 8) % 201) - 100;
  }
  return v;
}

//! Floats with duplicates, NaNs of both signs, -0.0, infinities and denormals.
std::vector<float> random_floats(std::mt19937_64& rng, uint64_t n) {
  const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::bit_cast<float>(0xffc00001u),
                           std::bit_cast<float>(0x7f800001u),
                           -0.0f,
                           0.0f,
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           1e-45f,
                           -1e-45f,
                           std::numeric_limits<float>::max(),
                           -std::numeric_limits<float>::max()};
  std::vector<float> v(n);
  for (auto& x : v) {
    const uint64_t r = rng();
    x = r % 8 == 0   ? special[(r >> 8) % std::size(special)]
        : r % 8 == 1 ? std::bit_cast<float>(static_cast<uint32_t>(r >> 32))
                     : static_cast<float>(static_cast<int>((r >> 8) % 101) - 50) * 0.25f;
  }
  return v;
}

//! Uints below `bound` (0: any).
std::vector<uint32_t> random_u32(std::mt19937_64& rng, uint64_t n, uint64_t bound = 0) {
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = static_cast<uint32_t>(bound ? rng() % bound : rng());
  return v;
}

template <class T>
ElemType elem_type() {
  if constexpr (std::is_same_v<T, int32_t>)
    return ElemType::I32;
  else if constexpr (std::is_same_v<T, float>)
    return ElemType::F32;
  else
    return ElemType::U32;
}

template <class T>
Predicate predicate(CmpOp op, T c) {
  if constexpr (std::is_same_v<T, int32_t>)
    return Predicate::i32(op, c);
  else if constexpr (std::is_same_v<T, float>)
    return Predicate::f32(op, c);
  else
    return Predicate::u32(op, c);
}

constexpr CmpOp kOps[] = {CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge, CmpOp::Eq, CmpOp::Ne};

//! A constant to compare with: mostly a value of `v` (so equality hits), sometimes a special one.
template <class T>
T pick_constant(std::mt19937_64& rng, const std::vector<T>& v) {
  const uint64_t r = rng();
  if constexpr (std::is_same_v<T, float>) {
    if (r % 4 == 1) return std::numeric_limits<float>::quiet_NaN();
    if (r % 4 == 2) return -0.0f;
  }
  if (v.empty() || r % 4 == 3) return static_cast<T>(r % 7);
  return v[(r >> 8) % v.size()];
}

//! The bits of a canonical float (as min/max return it) zero-extended.
uint64_t float_bits(float f) {
  return std::bit_cast<uint32_t>(canonical_float(f));
}

// --- map

template <class T>
void check_map_compare(std::mt19937_64& rng, const Case& c) {
  Device& d = vk_device();
  const std::vector<T> in = [&] {
    if constexpr (std::is_same_v<T, int32_t>)
      return random_ints(rng, c.n);
    else if constexpr (std::is_same_v<T, float>)
      return random_floats(rng, c.n);
    else
      return random_u32(rng, c.n, 50);
  }();
  const T constant = pick_constant(rng, in);
  const Buffer src = upload(in, c.offset);
  std::vector<Buffer> flags;
  for (size_t k = 0; k < std::size(kOps); ++k) flags.push_back(sentinels(c.n, c.offset));
  d.submit([&](VkCommandBuffer cmd) {
    for (size_t k = 0; k < std::size(kOps); ++k)
      map_compare(d, cmd, elem_type<T>(), {&src, c.offset}, c.n, predicate(kOps[k], constant), {&flags[k], c.offset},
                  c.tuning);
  });
  for (size_t k = 0; k < std::size(kOps); ++k) {
    INFO("operator " << to_string(kOps[k]) << ", constant bits " << std::bit_cast<uint32_t>(constant));
    CHECK(download<uint32_t>(flags[k], c.n + 1, c.offset) == [&] {
      auto expect = cpu::cpu_map_compare(in, kOps[k], constant);
      expect.push_back(kSentinel);  // nothing written past n
      return expect;
    }());
  }
}

// --- reduce

template <class T>
void check_reduce(std::mt19937_64& rng, const Case& c, bool with_predicate, bool with_mask) {
  Device& d = vk_device();
  const std::vector<T> in = [&] {
    if constexpr (std::is_same_v<T, int32_t>)
      return random_ints(rng, c.n);
    else if constexpr (std::is_same_v<T, float>)
      return random_floats(rng, c.n);
    else
      return random_u32(rng, c.n);
  }();
  const CmpOp op = kOps[rng() % std::size(kOps)];
  const T constant = pick_constant(rng, in);
  // Mask values other than 1 count as set too.
  const std::vector<uint32_t> mask = random_u32(rng, c.n, rng() % 3 ? 2 : 5);
  std::vector<uint32_t> pass(c.n, 1);
  if (with_predicate) pass = cpu::cpu_map_compare(in, op, constant);
  if (with_mask)
    for (uint64_t i = 0; i < c.n; ++i) pass[i] &= mask[i] != 0 ? 1 : 0;
  INFO("predicate " << with_predicate << " " << to_string(op) << " " << std::bit_cast<uint32_t>(constant) << ", mask "
                    << with_mask);

  const Buffer src = upload(in, c.offset);
  const Buffer mask_buffer = upload(mask, c.offset);
  const Buffer scratch = scratch_buffer(reduce_scratch_bytes(d, c.n, c.tuning));
  const Buffer results = sentinels(4 * 64);
  ReduceFilter filter;
  if (with_predicate) filter.pred = predicate(op, constant);
  if (with_mask) filter.mask = {&mask_buffer, c.offset};
  const ReduceOp ops[] = {ReduceOp::Count, ReduceOp::Min, ReduceOp::Max, ReduceOp::Sum};
  const size_t op_count = std::is_same_v<T, float> ? 3 : 4;
  d.submit([&](VkCommandBuffer cmd) {
    for (size_t k = 0; k < op_count; ++k) {
      if (k > 0) d.barrier(cmd);  // the scratch is reused
      reduce(d, cmd, ops[k], elem_type<T>(), {&src, c.offset}, c.n, {&results, k * 256}, {&scratch}, filter, c.tuning);
    }
  });
  std::vector<ReduceResult> r(op_count);
  for (size_t k = 0; k < op_count; ++k) d.download(results, &r[k], sizeof(ReduceResult), k * 256);

  const uint64_t count = cpu::cpu_reduce_count(c.n, pass);
  CHECK(r[0].count == count);
  CHECK(r[0].value == count);
  const auto lo = cpu::cpu_reduce_min(in, pass), hi = cpu::cpu_reduce_max(in, pass);
  CHECK(r[1].count == count);
  CHECK(r[2].count == count);
  if (count == 0) {
    CHECK(r[1].value == 0);
    CHECK(r[2].value == 0);
  } else if constexpr (std::is_same_v<T, float>) {
    CHECK(r[1].value == float_bits(*lo));
    CHECK(r[2].value == float_bits(*hi));
  } else if constexpr (std::is_same_v<T, int32_t>) {
    CHECK(r[1].as_i64() == *lo);
    CHECK(r[2].as_i64() == *hi);
  } else {
    CHECK(r[1].value == *lo);
    CHECK(r[2].value == *hi);
  }
  if constexpr (std::is_same_v<T, int32_t>) {
    CHECK(r[3].as_i64() == cpu::cpu_reduce_sum(in, pass));
    CHECK(r[3].count == count);
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    CHECK(r[3].value == cpu::cpu_reduce_sum(in, pass));
    CHECK(r[3].count == count);
  }
}

// --- scan

void check_scan(std::mt19937_64& rng, const Case& c, bool flags) {
  Device& d = vk_device();
  const std::vector<uint32_t> in = random_u32(rng, c.n, flags ? 2 : 0);
  INFO("flags " << flags);
  const Buffer src = upload(in, c.offset);
  const Buffer scratch = scratch_buffer(scan_scratch_bytes(d, c.n, c.tuning));
  Buffer out[4] = {sentinels(c.n, c.offset), sentinels(c.n, c.offset), sentinels(2 * c.n, c.offset),
                   sentinels(2 * c.n, c.offset)};
  const Buffer totals = sentinels(4 * 64);
  const ScanKind kinds[] = {ScanKind::Exclusive, ScanKind::Inclusive, ScanKind::Exclusive, ScanKind::Inclusive};
  const ScanWidth widths[] = {ScanWidth::U32, ScanWidth::U32, ScanWidth::U64, ScanWidth::U64};
  d.submit([&](VkCommandBuffer cmd) {
    for (size_t k = 0; k < 4; ++k) {
      if (k > 0) d.barrier(cmd);  // the scratch is reused
      scan(d, cmd, kinds[k], widths[k], {&src, c.offset}, c.n, {&out[k], c.offset}, {&totals, k * 256}, {&scratch},
           c.tuning);
    }
  });
  const auto exclusive = cpu::cpu_scan_exclusive(in), inclusive = cpu::cpu_scan_inclusive(in);
  const uint64_t total = c.n ? inclusive.back() : 0;
  for (size_t k = 0; k < 4; ++k) {
    INFO("scan " << k << (k % 2 ? " inclusive" : " exclusive") << (k < 2 ? " u32" : " u64"));
    const auto& expect = k % 2 ? inclusive : exclusive;
    if (k < 2) {
      std::vector<uint32_t> expect32(expect.begin(), expect.end());  // modulo 2^32
      expect32.push_back(kSentinel);
      CHECK(download<uint32_t>(out[k], c.n + 1, c.offset) == expect32);
    } else {
      CHECK(download<uint64_t>(out[k], c.n, c.offset) == expect);
    }
    uint64_t t = 0;
    d.download(totals, &t, 8, k * 256);
    CHECK(t == total);
  }
}

// --- compact

//! Compacts `in` by `pred` (`pass` is the CPU's verdict) three ways: ids and values, ids only,
//! values only, with room for `capacity` rows.
template <class T>
void check_compact(const Case& c, const std::vector<T>& in, const Predicate& pred, const std::vector<uint32_t>& pass,
                   const std::vector<uint32_t>& values, uint64_t capacity, uint32_t id_base) {
  Device& d = vk_device();
  INFO("capacity " << capacity << ", id_base " << id_base);
  const Buffer src = upload(in, c.offset);
  const Buffer values_in = upload(values, c.offset);
  const Buffer scratch = scratch_buffer(compact_scratch_bytes(d, c.n, c.tuning));
  const Buffer ids[2] = {sentinels(capacity, c.offset), sentinels(capacity, c.offset)};
  const Buffer vals[2] = {sentinels(capacity, c.offset), sentinels(capacity, c.offset)};
  const Buffer counts = sentinels(3 * 64);
  const CompactOutputs outs[3] = {{{&ids[0], c.offset}, {&vals[0], c.offset}, {&counts, 0}, capacity},
                                  {{&ids[1], c.offset}, {}, {&counts, 256}, capacity},
                                  {{}, {&vals[1], c.offset}, {&counts, 512}, capacity}};
  d.submit([&](VkCommandBuffer cmd) {
    for (size_t k = 0; k < 3; ++k) {
      if (k > 0) d.barrier(cmd);  // the scratch is reused
      compact(d, cmd, elem_type<T>(), {&src, c.offset}, c.n, pred, {&values_in, c.offset}, outs[k], {&scratch}, id_base,
              c.tuning);
    }
  });
  const auto expect_ids = cpu::cpu_compact_ids(pass, id_base);
  const auto expect_values = cpu::cpu_compact_values(values, pass);
  // Rows past the capacity are not written: the slots keep their sentinels.
  const auto fitted = [&](std::vector<uint32_t> v) {
    v.resize(capacity, kSentinel);
    return v;
  };
  for (size_t k = 0; k < 3; ++k) {
    uint64_t count = 0;
    d.download(counts, &count, 8, k * 256);
    CHECK(count == expect_ids.size());
  }
  CHECK(download<uint32_t>(ids[0], capacity, c.offset) == fitted(expect_ids));
  CHECK(download<uint32_t>(vals[0], capacity, c.offset) == fitted(expect_values));
  CHECK(download<uint32_t>(ids[1], capacity, c.offset) == fitted(expect_ids));
  CHECK(download<uint32_t>(vals[1], capacity, c.offset) == fitted(expect_values));
}

}  // namespace

TEST_CASE("vk-prim: map_compare on INT, FLOAT and UINT columns, all six operators") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const Case& c : cases(rng, 2, 1000000)) {
    INFO("n " << c.n << ", chunk " << c.tuning.binding_elements << ", offset " << c.offset);
    check_map_compare<int32_t>(rng, c);
    check_map_compare<float>(rng, c);
    check_map_compare<uint32_t>(rng, c);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-prim: map_compare in place and map_keys round trips of order keys") {
  Device& d = vk_device();
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const Case& c : cases(rng, 1, 300000)) {
    INFO("n " << c.n << ", chunk " << c.tuning.binding_elements << ", offset " << c.offset);
    const auto ints = random_ints(rng, c.n);
    const auto floats = random_floats(rng, c.n);
    const Buffer int_buffer = upload(ints, c.offset), float_buffer = upload(floats, c.offset);
    const Buffer int_keys = sentinels(c.n, c.offset), float_keys = sentinels(c.n, c.offset);
    const Buffer in_place = upload(ints, c.offset);
    d.submit([&](VkCommandBuffer cmd) {
      map_keys(d, cmd, KeyMap::I32ToKey, {&int_buffer, c.offset}, c.n, {&int_keys, c.offset}, c.tuning);
      map_keys(d, cmd, KeyMap::F32ToKey, {&float_buffer, c.offset}, c.n, {&float_keys, c.offset}, c.tuning);
      map_compare(d, cmd, ElemType::I32, {&in_place, c.offset}, c.n, Predicate::i32(CmpOp::Ge, -3),
                  {&in_place, c.offset}, c.tuning);
    });
    CHECK(download<uint32_t>(int_keys, c.n, c.offset) == cpu::cpu_map_keys(ints));
    CHECK(download<uint32_t>(float_keys, c.n, c.offset) == cpu::cpu_map_keys(floats));
    CHECK(download<uint32_t>(in_place, c.n, c.offset) == cpu::cpu_map_compare(ints, CmpOp::Ge, -3));
    // Back from keys, in place: INT exactly, FLOAT as the canonical value.
    d.submit([&](VkCommandBuffer cmd) {
      map_keys(d, cmd, KeyMap::KeyToI32, {&int_keys, c.offset}, c.n, {&int_keys, c.offset}, c.tuning);
      map_keys(d, cmd, KeyMap::KeyToF32, {&float_keys, c.offset}, c.n, {&float_keys, c.offset}, c.tuning);
    });
    CHECK(download<int32_t>(int_keys, c.n, c.offset) == ints);
    std::vector<uint32_t> canonical(c.n);
    for (uint64_t i = 0; i < c.n; ++i) canonical[i] = std::bit_cast<uint32_t>(canonical_float(floats[i]));
    CHECK(download<uint32_t>(float_keys, c.n, c.offset) == canonical);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-prim: reduce COUNT, SUM, MIN, MAX on INT and UINT, exact in 64 bits, filtered") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  int variant = 0;
  for (const Case& c : cases(rng, 3, 1000000)) {
    INFO("n " << c.n << ", chunk " << c.tuning.binding_elements << ", offset " << c.offset);
    const bool pred = variant % 2, mask = variant / 2 % 2;
    ++variant;
    check_reduce<int32_t>(rng, c, pred, mask);
    check_reduce<uint32_t>(rng, c, !pred, mask);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-prim: reduce COUNT, MIN, MAX on FLOAT in the total order with NaN and -0.0") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  int variant = 0;
  for (const Case& c : cases(rng, 2, 1000000)) {
    INFO("n " << c.n << ", chunk " << c.tuning.binding_elements << ", offset " << c.offset);
    check_reduce<float>(rng, c, variant % 2, variant / 2 % 2);
    ++variant;
  }
  // All equal in the total order: -0.0 with one +0.0 is +0.0; NaNs of any sign and payload are
  // the canonical NaN.
  Device& d = vk_device();
  std::vector<float> zeros(kTile + 7, -0.0f), nans(kTile + 7, std::bit_cast<float>(0xffc00001u));
  zeros[5] = 0.0f;
  nans[9] = std::numeric_limits<float>::quiet_NaN();
  for (const auto& [in, expect] : {std::pair{zeros, uint64_t(0)}, std::pair{nans, uint64_t(0x7fc00000u)}}) {
    const Buffer src = upload(in);
    const Buffer scratch = scratch_buffer(reduce_scratch_bytes(d, in.size()));
    const Buffer result = sentinels(4 * 64);
    d.submit([&](VkCommandBuffer cmd) {
      reduce(d, cmd, ReduceOp::Min, ElemType::F32, {&src}, in.size(), {&result, 0}, {&scratch});
      d.barrier(cmd);
      reduce(d, cmd, ReduceOp::Max, ElemType::F32, {&src}, in.size(), {&result, 256}, {&scratch});
    });
    ReduceResult lo, hi;
    d.download(result, &lo, 16, 0);
    d.download(result, &hi, 16, 256);
    CHECK(lo.value == expect);
    CHECK(hi.value == expect);
    CHECK(lo.count == in.size());
    CHECK(hi.count == in.size());
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-prim: scan exclusive and inclusive, 32- and 64-bit outputs, totals past 2^32") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  int variant = 0;
  for (const Case& c : cases(rng, 2, 1000000)) {
    INFO("n " << c.n << ", chunk " << c.tuning.binding_elements << ", offset " << c.offset);
    check_scan(rng, c, variant++ % 2);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

// The spine on its own: partial counts that leave invocations holding different numbers of
// partials (16 each per round), and more than one round (4096 partials each), which scans of test
// columns never reach. Its subgroup scan once dropped sums on NVIDIA after those uneven loads.
TEST_CASE("vk-prim: scan spine over uneven partial counts, one and several rounds, exact in 64 bits") {
  Device& d = vk_device();
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const uint64_t count : {1, 3, 16, 17, 20, 100, 4095, 4096, 4097, 9000}) {
    INFO("partials " << count);
    std::vector<uint64_t> partials(2 * count);  // {value, count} pairs; the spine reads the values
    std::vector<uint64_t> expect(count + 1, 0);
    for (uint64_t i = 0; i < count; ++i) {
      partials[2 * i] = rng();
      partials[2 * i + 1] = rng();
      expect[i + 1] = expect[i] + partials[2 * i];  // modulo 2^64
    }
    const Buffer partial_buffer = upload(partials);
    const Buffer carries = sentinels(2 * (count + 1) + 1);
    const Buffer total = sentinels(4);
    d.submit([&](VkCommandBuffer cmd) {
      prim::record_spine(d, cmd, {&partial_buffer}, count, {&carries}, {&total, 0, 8});
    });
    CHECK(download<uint64_t>(carries, count + 1) == expect);
    CHECK(download<uint32_t>(carries, 2 * (count + 1) + 1)[2 * (count + 1)] == kSentinel);
    CHECK(download<uint64_t>(total, 1)[0] == expect[count]);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-prim: compact by predicate on INT and FLOAT and by flags, ids and values in order") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  int variant = 0;
  for (const Case& c : cases(rng, 2, 300000)) {
    INFO("n " << c.n << ", chunk " << c.tuning.binding_elements << ", offset " << c.offset);
    const auto values = random_u32(rng, c.n);
    const uint32_t id_base = variant++ % 3 == 1 ? 1000 : 0;
    const auto ints = random_ints(rng, c.n);
    const CmpOp op = kOps[rng() % std::size(kOps)];
    const int32_t ci = pick_constant(rng, ints);
    INFO("INT " << to_string(op) << " " << ci);
    check_compact(c, ints, Predicate::i32(op, ci), cpu::cpu_map_compare(ints, op, ci), values, c.n, id_base);
    const auto floats = random_floats(rng, c.n);
    const float cf = pick_constant(rng, floats);
    INFO("FLOAT " << to_string(op) << " " << cf);
    check_compact(c, floats, Predicate::f32(op, cf), cpu::cpu_map_compare(floats, op, cf), values, c.n, id_base);
    // Flags of any nonzero value select; sparse, dense, none and all.
    const uint64_t density = rng() % 4;
    std::vector<uint32_t> flags = random_u32(rng, c.n, density == 0 ? 0 : 2);
    if (density == 3) std::fill(flags.begin(), flags.end(), rng() % 2);
    std::vector<uint32_t> pass(c.n);
    for (uint64_t i = 0; i < c.n; ++i) pass[i] = flags[i] != 0;
    check_compact(c, flags, Predicate::nonzero(), pass, values, c.n, id_base);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-prim: compact writes only what fits its capacity and still counts every row") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const PrimTuning& tuning : {PrimTuning{}, kTiny}) {
    const uint64_t n = 5 * kTile + 17;
    const Case c{n, tuning, 0};
    const auto flags = random_u32(rng, n, 2);
    const auto values = random_u32(rng, n);
    const uint64_t selected = std::count(flags.begin(), flags.end(), 1u);
    for (const uint64_t capacity : {uint64_t(0), uint64_t(1), selected / 2, selected - 1, selected, n - 1}) {
      check_compact(c, flags, Predicate::nonzero(), flags, values, capacity, 0);
    }
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-prim: compact_bits gives the set bits' ids in order and their count, chunked, within capacity") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  Device& d = vk_device();
  for (const Case& c : cases(rng, 2, 300000)) {
    INFO("n " << c.n << ", chunk " << c.tuning.binding_elements << ", offset " << c.offset);
    // Sparse, dense, none and all; bits past n stay 0 (whole tiles).
    const uint64_t density = rng() % 4;
    std::vector<uint32_t> words(compact_bitmap_words(c.n), 0), expect;
    for (uint64_t i = 0; i < c.n; ++i) {
      const bool set = density == 0 ? rng() % 97 == 0 : density == 1 ? rng() % 2 == 0 : density == 3;
      if (!set) continue;
      words[i / 32] |= 1u << (i % 32);
      expect.push_back(uint32_t(i + 7));
    }
    for (const uint64_t capacity : {c.n, expect.size() / 2}) {
      INFO("density " << density << ", capacity " << capacity);
      const Buffer bits = upload(words, c.offset);
      const Buffer ids = sentinels(capacity, c.offset);
      const Buffer count = sentinels(64);
      const Buffer scratch = scratch_buffer(compact_scratch_bytes(d, c.n, c.tuning));
      d.submit([&](VkCommandBuffer cmd) {
        compact_bits(d, cmd, {&bits, c.offset}, c.n, {{&ids, c.offset}, {}, {&count, 0}, capacity}, {&scratch}, 7,
                     c.tuning);
      });
      CHECK(download<uint64_t>(count, 1)[0] == expect.size());
      std::vector<uint32_t> fitted = expect;
      fitted.resize(capacity, kSentinel);
      CHECK(download<uint32_t>(ids, capacity, c.offset) == fitted);
    }
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-prim: gather, single and multi-pass, with out-of-range indices") {
  Device& d = vk_device();
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const Case& c : cases(rng, 2, 1000000)) {
    const uint64_t src_n = c.n ? 1 + rng() % (2 * c.n) : 5;
    const uint32_t passes = static_cast<uint32_t>(1 + rng() % 5);
    INFO("n " << c.n << ", src_n " << src_n << ", passes " << passes << ", chunk " << c.tuning.binding_elements
              << ", offset " << c.offset);
    const auto src = random_u32(rng, src_n);
    const auto idx = random_u32(rng, c.n, src_n + src_n / 8 + 1);  // some past src_n
    const Buffer src_buffer = upload(src, c.offset), idx_buffer = upload(idx, c.offset);
    const Buffer out = sentinels(c.n, c.offset);
    d.submit([&](VkCommandBuffer cmd) {
      gather(d, cmd, {&src_buffer, c.offset}, src_n, {&idx_buffer, c.offset}, c.n, {&out, c.offset}, passes, c.tuning);
    });
    std::vector<uint32_t> expect(c.n, kSentinel);
    cpu::cpu_gather(src, idx, expect);
    CHECK(download<uint32_t>(out, c.n, c.offset) == expect);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-prim: scatter of a permutation, single and multi-pass, with out-of-range indices") {
  Device& d = vk_device();
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const Case& c : cases(rng, 2, 1000000)) {
    const uint64_t out_n = c.n + rng() % 100;
    const uint32_t passes = static_cast<uint32_t>(1 + rng() % 5);
    INFO("n " << c.n << ", out_n " << out_n << ", passes " << passes << ", chunk " << c.tuning.binding_elements
              << ", offset " << c.offset);
    std::vector<uint32_t> idx(out_n);
    std::iota(idx.begin(), idx.end(), 0u);
    std::shuffle(idx.begin(), idx.end(), rng);
    idx.resize(c.n);
    for (auto& i : idx)
      if (rng() % 50 == 0) i = static_cast<uint32_t>(out_n + rng() % 1000);  // skipped
    const auto in = random_u32(rng, c.n);
    const Buffer in_buffer = upload(in, c.offset), idx_buffer = upload(idx, c.offset);
    const Buffer out = sentinels(out_n, c.offset);
    d.submit([&](VkCommandBuffer cmd) {
      scatter(d, cmd, {&in_buffer, c.offset}, {&idx_buffer, c.offset}, c.n, {&out, c.offset}, out_n, passes, c.tuning);
    });
    std::vector<uint32_t> expect(out_n, kSentinel);
    cpu::cpu_scatter(in, idx, expect);
    CHECK(download<uint32_t>(out, out_n, c.offset) == expect);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-prim: misuse is reported as gfxq::Error with the right code") {
  Device& d = vk_device();
  const Buffer small = sentinels(64);
  const Buffer scratch = scratch_buffer(compact_scratch_bytes(d, 64) + scan_scratch_bytes(d, 64));
  d.submit([&](VkCommandBuffer cmd) {
    const auto code = [](auto&& f) {
      try {
        f();
      } catch (const Error& e) {
        return e.code();
      }
      return ErrorCode::InvalidQuery;  // "nothing thrown": no test expects this code
    };
    CHECK(code([&] { map_compare(d, cmd, ElemType::I32, {&small}, 64, Predicate::f32(CmpOp::Lt, 1), {&small}); }) ==
          ErrorCode::Internal);
    CHECK(code([&] { map_compare(d, cmd, ElemType::I32, {&small}, 100, Predicate::always(), {&small}); }) ==
          ErrorCode::Internal);  // 100 elements do not fit
    CHECK(code([&] {
            map_keys(d, cmd, KeyMap::I32ToKey, {&small, 8}, 4, {&small});
          }) == ErrorCode::Internal);  // offset not a multiple of 16
    CHECK(code([&] { reduce(d, cmd, ReduceOp::Sum, ElemType::F32, {&small}, 64, {&small}, {&scratch}); }) ==
          ErrorCode::Unsupported);
    CHECK(code([&] {
            compact(d, cmd, ElemType::U32, {&small}, 64, Predicate::nonzero(), {}, {{}, {}, {&small}, 0}, {&scratch},
                    (uint64_t(1) << 32) - 63);
          }) == ErrorCode::ResultTooLarge);
    CHECK(code([&] { gather(d, cmd, {&small}, (uint64_t(1) << 32) + 1, {&small}, 4, {&small}); }) ==
          ErrorCode::InvalidInput);
    CHECK(code([&] { scan(d, cmd, ScanKind::Exclusive, ScanWidth::U64, {&small}, 64, {&small}, {}, {&scratch}); }) ==
          ErrorCode::Internal);  // 64 uint64 do not fit
  });
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-prim: a column larger than one storage-buffer binding, reduce and compact") {
  Device& d = vk_device();
  const uint64_t n = d.max_binding_elements() + kTile + 3;
  if (n > (uint64_t(1) << 26)) {
    MESSAGE("skipped: one binding holds " << d.max_binding_elements() << " elements, too many to exceed cheaply");
    return;
  }
  const uint64_t seed = test_seed();
  INFO("seed " << seed << ", n " << n);
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> flags(n);
  for (uint64_t i = 0; i < n; i += 64) {
    const uint64_t bits = rng();
    for (uint64_t b = 0; b < 64 && i + b < n; ++b) flags[i + b] = (bits >> b) & 1;
  }
  const Buffer src = d.create_buffer(n * 4, MemoryKind::Device);
  d.upload(src, flags.data(), n * 4);
  const Buffer scratch = scratch_buffer(std::max(reduce_scratch_bytes(d, n), compact_scratch_bytes(d, n)));
  const Buffer results = sentinels(2 * 64);
  const Buffer ids = d.create_buffer(n * 4, MemoryKind::Device);
  d.submit([&](VkCommandBuffer cmd) {
    reduce(d, cmd, ReduceOp::Sum, ElemType::U32, {&src}, n, {&results, 0}, {&scratch});
    d.barrier(cmd);
    compact(d, cmd, ElemType::U32, {&src}, n, Predicate::nonzero(), {}, {{&ids}, {}, {&results, 256}, n}, {&scratch});
  });
  const auto expect = cpu::cpu_compact_ids(flags);
  ReduceResult sum;
  uint64_t count = 0;
  d.download(results, &sum, 16, 0);
  d.download(results, &count, 8, 256);
  CHECK(sum.value == expect.size());
  CHECK(count == expect.size());
  CHECK(download<uint32_t>(ids, expect.size()) == expect);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE(
    "vk-prim: a device without 512-invocation workgroups, 64-bit ints or fitting subgroups is told what it lacks") {
  // The test device has everything; each feature taken away from a copy of its capabilities is named.
  const VkCapabilities full = vk_device().caps();
  CHECK(prim::missing_features(full, true).empty());
  CHECK_NOTHROW(prim::require_features(vk_device(), "test", true));
  VkCapabilities c = full;
  c.max_workgroup_invocations = prim::kMaxWorkgroupInvocations - 1;
  CHECK(prim::missing_features(c, false) == " workgroups of 512 invocations");
  c = full;
  c.max_workgroup_size[0] = 256;
  CHECK(prim::missing_features(c, false) == " workgroups of 512 invocations");
  c = full;
  c.shader_int64 = false;
  c.subgroup_arithmetic = false;
  CHECK(prim::missing_features(c, false) == " subgroup arithmetic shaderInt64");
  for (uint32_t size : {4u, 256u}) {
    c = full;
    c.subgroup_size = size;
    CAPTURE(size);
    CHECK(prim::missing_features(c, false).empty());
    CHECK(prim::missing_features(c, true) == " subgroup ballot with 8 to 128 invocations per subgroup");
  }
  c = full;
  c.subgroup_ballot = false;
  CHECK(prim::missing_features(c, true) == " subgroup ballot with 8 to 128 invocations per subgroup");
}
