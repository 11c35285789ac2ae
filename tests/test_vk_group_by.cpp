// GROUP BY on the compute path (src/vk/operators/group_by/) and the segmented reduction primitive
// (src/vk/primitives/segmented_reduce.h) against the CPU reference (cpu::group_rows,
// cpu::aggregate_rows), every variant forced on the same cases: group counts 1, 2, 7, around the
// shared tables' capacity, 2^16, n/2, n; Zipf-skewed keys; INT32 extremes (INT_MIN is the table's
// empty-slot key); FLOAT keys with -0.0, NaNs and infinities; two to four key columns; quantiles;
// overflow with a tiny table, resize and rerun; small strides; selections; the 32-bit atomic
// paths; the optimizer's estimates. Keys, counts, INT sums, MIN/MAX and quantiles must be equal
// exactly; FLOAT SUM/AVG must equal the exact sum rounded once bit for bit (and lie within
// docs/COMPUTE.md's bound of the CPU's row-order double sum). Random data comes from a logged seed
// (GFXQ_TEST_SEED overrides it).

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/exact_sum.h"
#include "core/hash.h"
#include "core/order_key.h"
#include "cpu/internal.h"
#include "gpu_support.h"
#include "group_by_config.glsl"
#include "test_support.h"
#include "vk/operators/group_by/common.h"
#include "vk/operators/group_by/global_table.h"
#include "vk/operators/group_by/group_by.h"
#include "vk/operators/group_by/optimizer.h"
#include "vk/primitives/segmented_reduce.h"

namespace {

using namespace gfxq;
using vk::GroupByAggregate;
using vk::GroupByInput;
using vk::GroupByOptions;
using vk::GroupByResult;
using vk::GroupByVariant;

constexpr GroupByVariant kVariants[] = {GroupByVariant::Auto,        GroupByVariant::Private,
                                        GroupByVariant::SharedTable, GroupByVariant::GlobalTable,
                                        GroupByVariant::Partitioned, GroupByVariant::Sort};
constexpr GroupByVariant kHashVariants[] = {GroupByVariant::Private, GroupByVariant::SharedTable,
                                            GroupByVariant::GlobalTable, GroupByVariant::Partitioned};

uint64_t test_seed() {
  if (const char* s = std::getenv("GFXQ_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  return std::random_device{}();
}

vk::Device& device() {
  return test::vk_device();
}

//! A GROUP BY on host data: key and value columns, aggregates, an optional selection.
struct Data {
  std::vector<Column> keys;
  std::vector<Column> values;
  std::vector<GroupByAggregate> aggs;
  std::optional<std::vector<uint32_t>> selection;
  uint64_t rows() const { return keys[0].size(); }
};

//! The data on the device and the operator's input over it.
struct OnDevice {
  std::vector<vk::DeviceColumn> keys, values;
  vk::Buffer selection;
  GroupByInput input;
  explicit OnDevice(const Data& d) {
    for (const Column& c : d.keys) keys.push_back(vk::upload_column(device(), c));
    for (const Column& c : d.values) values.push_back(vk::upload_column(device(), c));
    for (const auto& k : keys) input.keys.push_back(&k);
    for (const auto& v : values) input.values.push_back(&v);
    input.aggregates = d.aggs;
    input.rows = d.rows();
    if (d.selection) {
      selection = device().create_buffer(std::max<uint64_t>(16, d.selection->size() * 4), vk::MemoryKind::Device);
      if (!d.selection->empty()) device().upload(selection, d.selection->data(), d.selection->size() * 4);
      input.selection = &selection;
      input.selected = d.selection->size();
    }
  }
};

//! Every value as bits, so that NaN payloads and signed zeros compare exactly.
std::string text(const Value& v) {
  if (std::holds_alternative<std::monostate>(v)) return "NULL";
  if (const auto* f = std::get_if<float>(&v)) return "f" + std::to_string(std::bit_cast<uint32_t>(*f));
  if (const auto* d = std::get_if<double>(&v)) return "d" + std::to_string(std::bit_cast<uint64_t>(*d));
  if (const auto* i = std::get_if<int32_t>(&v)) return "i" + std::to_string(*i);
  return "l" + std::to_string(std::get<int64_t>(v));
}

//! The exact sum of the FLOAT values of `rows` rounded once (special values as IEEE addition).
double exact_float_sum(const Column& c, const std::vector<uint64_t>& rows, double* abs_sum) {
  bool nan = false, pinf = false, ninf = false;
  std::vector<ExactTerm> terms;
  *abs_sum = 0;
  for (uint64_t r : rows) {
    const float f = c.as<float>()[r];
    *abs_sum += std::fabs(double(f));
    if (std::isnan(f)) {
      nan = true;
    } else if (std::isinf(f)) {
      (f > 0 ? pinf : ninf) = true;
    } else if (f != 0) {
      const uint32_t b = std::bit_cast<uint32_t>(f);
      const uint32_t e = b >> 23 & 255, m = e ? (b & 0x7fffff) | 0x800000 : b & 0x7fffff;
      terms.push_back({(b >> 31) ? -__int128(m) : __int128(m), int(e ? e - 1 : 0)});
    }
  }
  if (const auto s = special_sum(nan, pinf, ninf)) return *s;
  return exact_sum(terms);
}

//! Checks `got` against the CPU reference over `d`.
void check(const Data& d, const GroupByResult& got, const std::string& what) {
  INFO(what);
  INFO("algorithm: " << got.algorithm);
  std::vector<uint64_t> rows;
  if (d.selection)
    rows.assign(d.selection->begin(), d.selection->end());
  else
    for (uint64_t r = 0; r < d.rows(); ++r) rows.push_back(r);
  std::vector<const Column*> key_columns;
  for (const Column& c : d.keys) key_columns.push_back(&c);
  const std::vector<cpu::MultiGroup> groups = cpu::group_rows(key_columns, rows);
  REQUIRE(got.groups == groups.size());
  REQUIRE(got.keys.size() == d.keys.size());
  REQUIRE(got.aggregates.size() == d.aggs.size());
  for (size_t c = 0; c < d.keys.size(); ++c) REQUIRE(got.keys[c].size() == groups.size());
  for (size_t a = 0; a < d.aggs.size(); ++a) REQUIRE(got.aggregates[a].size() == groups.size());
  int failures = 0;
  for (size_t g = 0; g < groups.size() && failures < 5; ++g) {
    for (size_t c = 0; c < d.keys.size(); ++c) {
      const std::string want = text(cpu::value_from_key(d.keys[c].type, groups[g].keys[c]));
      const std::string have = text(got.keys[c].value(g));
      if (want != have) {
        ++failures;
        FAIL_CHECK("group " << g << " key " << c << ": want " << want << ", got " << have);
      }
    }
    for (size_t a = 0; a < d.aggs.size(); ++a) {
      const GroupByAggregate& agg = d.aggs[a];
      const Column* column = agg.value >= 0 ? &d.values[size_t(agg.value)] : nullptr;
      BoundAggregate bound;
      bound.kind = agg.kind;
      bound.q = agg.q;
      bound.k = agg.k;
      bound.name = agg.name;
      const Value want = cpu::aggregate_rows(bound, column, groups[g].rows);
      const Value have = got.aggregates[a].value(g);
      const bool float_sum =
          column && column->type == Type::Float32 && (agg.kind == AggKind::Sum || agg.kind == AggKind::Avg);
      if (float_sum) {
        // Bit for bit the exact sum rounded once; within the documented bound of the CPU's sum.
        double abs_sum = 0;
        const double exact = exact_float_sum(*column, groups[g].rows, &abs_sum);
        const double n = double(groups[g].rows.size());
        const double want_exact = canonical_double(agg.kind == AggKind::Sum ? exact : exact / n);
        const double h = std::get<double>(have), w = std::get<double>(want);
        const bool bits = std::bit_cast<uint64_t>(h) == std::bit_cast<uint64_t>(want_exact);
        const double bound =
            agg.kind == AggKind::Sum ? n * 0x1p-53 * abs_sum : 0x1p-53 * abs_sum + 2 * 0x1p-53 * std::fabs(w);
        const bool near = std::isfinite(w) ? std::fabs(h - w) <= bound : text(want) == text(have);
        if (!bits || !near) {
          ++failures;
          FAIL_CHECK("group " << g << " " << agg.name << ": got " << h << ", exact " << want_exact << ", cpu " << w);
        }
        continue;
      }
      if (text(want) != text(have)) {
        ++failures;
        FAIL_CHECK("group " << g << " " << agg.name << ": want " << text(want) << ", got " << text(have));
      }
    }
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

//! Runs `d` with `options` on every variant that can run it and checks each.
void check_variants(const Data& d, GroupByOptions options, const std::string& what,
                    const std::vector<GroupByVariant>& variants = {std::begin(kVariants), std::end(kVariants)}) {
  OnDevice on(d);
  for (GroupByVariant v : variants) {
    options.variant = v;
    const GroupByResult r = vk::group_by(device(), on.input, options);
    if (v != GroupByVariant::Auto) CHECK(r.variant == v);
    check(d, r, what + ", variant " + vk::to_string(v));
  }
}

//! n distinct random int32 values (INT_MIN, INT_MAX, -1, 0 among them when `extremes`).
std::vector<int32_t> int_pool(uint64_t n, std::mt19937_64& rng, bool extremes) {
  std::set<int32_t> seen;
  std::vector<int32_t> pool;
  if (extremes)
    for (int32_t v : {test::kMin, test::kMax, -1, 0, test::kMin + 1, test::kMax - 1})
      if (pool.size() < n && seen.insert(v).second) pool.push_back(v);
  while (pool.size() < n) {
    const int32_t v = int32_t(uint32_t(rng()));
    if (seen.insert(v).second) pool.push_back(v);
  }
  std::shuffle(pool.begin(), pool.end(), rng);
  return pool;
}

//! Indices into a pool of `groups` for `n` rows: every index at least once when n >= groups,
//! then uniform (or Zipf 1.0 when `zipf`), shuffled.
std::vector<uint64_t> indices(uint64_t n, uint64_t groups, std::mt19937_64& rng, bool zipf) {
  std::vector<uint64_t> idx;
  for (uint64_t i = 0; i < std::min(n, groups); ++i) idx.push_back(i);
  std::vector<double> cdf;
  if (zipf) {
    double s = 0;
    for (uint64_t i = 0; i < groups; ++i) cdf.push_back(s += 1.0 / double(i + 1));
  }
  std::uniform_real_distribution<double> u(0, 1);
  while (idx.size() < n) {
    if (zipf)
      idx.push_back(uint64_t(std::lower_bound(cdf.begin(), cdf.end(), u(rng) * cdf.back()) - cdf.begin()));
    else
      idx.push_back(rng() % groups);
  }
  std::shuffle(idx.begin(), idx.end(), rng);
  return idx;
}

//! Random int32 values in [-2^k, 2^k).
Column int_values(std::string name, uint64_t n, std::mt19937_64& rng, int bits = 31) {
  std::vector<int32_t> v(n);
  for (auto& x : v) x = int32_t(int64_t(rng() % (uint64_t(1) << (bits + 1))) - (int64_t(1) << bits));
  return Column::ints(std::move(name), std::move(v));
}

//! Random floats of many exponents and signs, with some specials (`specials`).
Column float_values(std::string name, uint64_t n, std::mt19937_64& rng, bool specials) {
  std::vector<float> v(n);
  const float special[] = {0.0f, -0.0f, test::kInf, -test::kInf, test::kNaN, test::kNegNaN, 1e-45f, -1e-40f, 3.4e38f};
  for (auto& x : v) {
    const uint64_t r = rng();
    if (specials && r % 53 == 0)
      x = special[(r >> 8) % 9];
    else
      x = std::ldexp(float((r >> 8) % 10000) - 5000.0f, int((r >> 40) % 40) - 20);
  }
  return Column::floats(std::move(name), std::move(v));
}

GroupByAggregate agg(AggKind kind, int value, std::string name, double q = 0.5, int64_t k = 1) {
  return {kind, value, q, k, std::move(name)};
}

//! COUNT(*), SUM, AVG, MIN, MAX of an INT value column 0.
std::vector<GroupByAggregate> int_aggs() {
  return {agg(AggKind::Count, -1, "COUNT(*)"), agg(AggKind::Sum, 0, "SUM(v)"), agg(AggKind::Avg, 0, "AVG(v)"),
          agg(AggKind::Min, 0, "MIN(v)"), agg(AggKind::Max, 0, "MAX(v)")};
}

//! One INT key over `groups` distinct values and one INT value column.
Data int_data(uint64_t n, uint64_t groups, std::mt19937_64& rng, bool zipf = false, bool extremes = true) {
  const std::vector<int32_t> pool = int_pool(groups, rng, extremes);
  std::vector<int32_t> k;
  for (uint64_t i : indices(n, groups, rng, zipf)) k.push_back(pool[i]);
  Data d;
  d.keys.push_back(Column::ints("k", std::move(k)));
  d.values.push_back(int_values("v", n, rng));
  d.aggs = int_aggs();
  return d;
}

}  // namespace

TEST_CASE("vk-group-by: 1, 2, 7 groups, around the shared tables' capacity, n/2 and n, every variant") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // The shared tables of this layout (key, count, int64 sum, min, max: 6 words).
  const vk::gb::Layout layout = [] {
    vk::DeviceColumn c;
    c.rows = 0;
    GroupByInput in;
    in.keys = {&c};
    in.values = {&c};
    in.aggregates = int_aggs();
    return vk::gb::make_layout(in);
  }();
  const uint32_t cap_m = vk::gb::shared_capacity(vk::gb::TableKernel::SharedM, layout);
  const uint32_t cap_s = vk::gb::shared_capacity(vk::gb::TableKernel::SharedS, layout);
  const uint64_t n = 6000;
  for (uint64_t groups :
       {uint64_t(1), uint64_t(2), uint64_t(7), uint64_t(cap_s / 2), uint64_t(cap_s / 2 + 1), uint64_t(cap_m / 2),
        uint64_t(cap_m / 2 + 1), uint64_t(cap_m), uint64_t(cap_m + 1), n / 2, n}) {
    const Data d = int_data(n, groups, rng);
    check_variants(d, {}, std::to_string(groups) + " groups of " + std::to_string(n) + " rows");
  }
  // The 44 KiB shared table, where the device has the shared memory for it (not lavapipe).
  if (device().caps().max_shared_memory >= vk::gb::shared_bytes(vk::gb::TableKernel::SharedL)) {
    const uint32_t cap_l = vk::gb::shared_capacity(vk::gb::TableKernel::SharedL, layout);
    for (uint64_t groups : {uint64_t(cap_l / 2), uint64_t(cap_l), uint64_t(cap_l + 1)}) {
      GroupByOptions o;
      o.shared_size = 3;
      check_variants(int_data(2 * n, groups, rng), o, std::to_string(groups) + " groups, 44 KiB shared tables",
                     {std::begin(kHashVariants), std::end(kHashVariants)});
    }
  } else {
    MESSAGE("the 44 KiB shared table needs more shared memory than " << device().caps().device_name << " has");
  }
}

// The home slot of a key in a shared table of `cap` slots, as group_by_table.comp computes it: the
// high word of (its hash rotated by 16 bits) * cap; the hash is fmix32 of the order key, or the low
// word of fmix64 of (order key 1, order key 0) with two key columns.
uint32_t shared_home(int32_t k0, std::optional<int32_t> k1, uint32_t cap) {
  const uint32_t o0 = uint32_t(k0) ^ 0x80000000u;
  const uint32_t h = k1 ? uint32_t(hash_fmix64(uint64_t(uint32_t(*k1) ^ 0x80000000u) << 32 | o0)) : hash_fmix32(o0);
  const uint32_t rotated = (h << 16) | (h >> 16);
  return uint32_t((uint64_t(rotated) * cap) >> 32);
}

TEST_CASE("vk-group-by: keys sharing home slots of the shared table: probe chains past the fast path") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (bool two : {false, true}) {
    Data d;
    d.keys.push_back(Column::ints("k", {}));
    if (two) d.keys.push_back(Column::ints("k2", {}));
    d.values.push_back(Column::ints("v", {}));
    d.aggs = int_aggs();
    vk::DeviceColumn c;
    GroupByInput in;
    in.keys = two ? std::vector<const vk::DeviceColumn*>{&c, &c} : std::vector<const vk::DeviceColumn*>{&c};
    in.values = {&c};
    in.aggregates = d.aggs;
    const uint32_t cap = vk::gb::shared_capacity(vk::gb::TableKernel::SharedS, vk::gb::make_layout(in));
    // 3 x 12 keys on three neighbouring home slots (two key columns: one key-0 value, key-1 values
    // found for it), so that a chain of 36 slots holds them: most rows probe past the fast path's 8
    // slots, and every row meets slots of other keys first.
    const uint32_t target = uint32_t(rng() % (cap - 3));
    std::vector<std::pair<int32_t, int32_t>> keys;
    const int32_t k0_two = int32_t(rng());
    for (uint32_t slot = target; slot < target + 3; ++slot) {
      size_t found = 0;
      for (uint32_t x = uint32_t(rng()); found < 12; ++x) {
        const int32_t k = int32_t(x);
        const bool hit = two ? shared_home(k0_two, k, cap) == slot : shared_home(k, std::nullopt, cap) == slot;
        if (hit && k != INT32_MIN) {
          keys.emplace_back(two ? k0_two : k, k);
          ++found;
        }
      }
    }
    std::vector<int32_t> k0, k1, v;
    for (uint64_t r = 0; r < 20000; ++r) {
      const auto& key = keys[rng() % keys.size()];
      k0.push_back(key.first);
      k1.push_back(key.second);
      v.push_back(int32_t(rng()));
    }
    d.keys[0] = Column::ints("k", k0);
    if (two) d.keys[1] = Column::ints("k2", k1);
    d.values[0] = Column::ints("v", v);
    GroupByOptions o;
    o.shared_size = 1;
    check_variants(d, o, std::string(two ? "two key columns" : "one key column") + ", 36 keys on 3 home slots",
                   {GroupByVariant::SharedTable, GroupByVariant::Auto});
  }
}

TEST_CASE("vk-group-by: the private variant around its ids and copies, skew, extremes, FLOAT keys and empty input") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::vector<GroupByVariant> vs = {GroupByVariant::Auto, GroupByVariant::Private};
  // Its kernels where the device has the shared memory (the 44 KiB one: not lavapipe).
  std::vector<uint32_t> sizes;
  for (uint32_t size : {1u, 2u, 3u}) {
    const vk::gb::TableKernel k = size == 1   ? vk::gb::TableKernel::PrivateS
                                  : size == 2 ? vk::gb::TableKernel::PrivateM
                                              : vk::gb::TableKernel::PrivateL;
    if (device().caps().max_shared_memory >= vk::gb::shared_bytes(k))
      sizes.push_back(size);
    else
      MESSAGE("the " << vk::gb::shared_size_text(k) << " private kernel needs more shared memory than "
                     << device().caps().device_name << " has");
  }
  bool per_invocation = false, atomics = false;
  for (uint32_t size : sizes) {
    GroupByOptions o;
    o.shared_size = size;
    const vk::gb::TableKernel kernel = size == 1   ? vk::gb::TableKernel::PrivateS
                                       : size == 2 ? vk::gb::TableKernel::PrivateM
                                                   : vk::gb::TableKernel::PrivateL;
    // Ids of COUNT(*), SUM, AVG, MIN, MAX (count, int64 sum, min, max: 5 words per copy).
    Data probe = int_data(8, 1, rng);
    OnDevice probe_on(probe);
    const vk::gb::Layout layout = vk::gb::make_layout(probe_on.input);
    const uint32_t cap = vk::gb::shared_capacity(kernel, layout);
    const std::string tag = ", " + vk::gb::shared_size_text(kernel) + " kernel (" + std::to_string(cap) + " ids)";
    // Around 16, 32, 64 and 1024 groups and the kernel's ids (one copy each); past the ids, the keys
    // without one go to the global table. Row counts not a multiple of 4.
    for (uint64_t groups : {uint64_t(1), uint64_t(2), uint64_t(15), uint64_t(16), uint64_t(17), uint64_t(31),
                            uint64_t(32), uint64_t(33), uint64_t(63), uint64_t(64), uint64_t(65), uint64_t(1023),
                            uint64_t(1024), uint64_t(1025), uint64_t(cap), uint64_t(cap + 1)}) {
      const uint64_t n = std::max<uint64_t>(7001, 4 * groups + 3);
      const vk::gb::FewShape shape = vk::gb::few_shape(kernel, layout, groups);
      (shape.copies == GB_WG ? per_invocation : atomics) = true;
      const std::string what = std::to_string(groups) + " groups" + tag + ", " + std::to_string(shape.ids) + " ids x " +
                               std::to_string(shape.copies) + " copies";
      check_variants(int_data(n, groups, rng), o, what, vs);
      check_variants(int_data(n, groups, rng, true), o, "Zipf, " + what, vs);
    }
    // No estimate (the table's size forced): the shape for one group (a few ids), so most of 100 and
    // 700 groups' keys get none and go to the global table.
    for (uint64_t groups : {uint64_t(100), uint64_t(700)}) {
      GroupByOptions t = o;
      t.table_slots = 4096;
      const Data d = int_data(6007, groups, rng);
      OnDevice on(d);
      t.variant = GroupByVariant::Private;
      const GroupByResult got = vk::group_by(device(), on.input, t);
      const uint32_t ids = vk::gb::few_shape(kernel, layout, 0).ids;
      CHECK(ids < 100);
      CHECK_MESSAGE(got.algorithm.find("keys to " + std::to_string(ids) + " group ids") != std::string::npos,
                    got.algorithm);
      check(d, got, std::to_string(groups) + " groups, " + std::to_string(ids) + " ids" + tag);
    }
    // SUM alone: 2 words per copy, so more groups keep a copy per invocation.
    for (uint64_t groups : {uint64_t(1), uint64_t(7), uint64_t(16), uint64_t(33)}) {
      Data d = int_data(5003, groups, rng);
      d.aggs = {agg(AggKind::Sum, 0, "SUM(v)")};
      check_variants(d, o, "SUM of " + std::to_string(groups) + " groups" + tag, vs);
    }
    // Small runs per workgroup (many workgroups, each merging its groups), a run of every row, and
    // row counts not a multiple of the workgroup's rows.
    for (uint32_t rows : {1024u, 1u << 24}) {
      for (uint64_t n : {uint64_t(1023), uint64_t(4097), uint64_t(9001)}) {
        GroupByOptions r = o;
        r.rows_per_group = rows;
        const Data d = int_data(n, 9, rng);
        OnDevice on(d);
        r.variant = GroupByVariant::Private;
        const GroupByResult got = vk::group_by(device(), on.input, r);
        check(d, got, std::to_string(rows) + " rows per workgroup, " + std::to_string(n) + " rows" + tag);
        CHECK(got.algorithm.find(" x " + std::to_string(rows) + " rows") != std::string::npos);
      }
    }
    // Long runs of INT_MIN / INT_MAX values under negative keys: per group sums far past 2^31 and
    // 2^32 in each copy (the int64's carry into its high word, both signs), 512 rows per invocation
    // (lavapipe's budget of loop iterations per invocation ends the table kernels' loops early at
    // about 2048 rows per invocation).
    {
      Data d;
      std::vector<int32_t> k, v;
      for (int i = 0; i < 1 << 19; ++i) {
        k.push_back(-1 - int32_t(rng() % 3));
        v.push_back(rng() % 8 ? (k.back() == -2 ? test::kMin : test::kMax) : int32_t(uint32_t(rng())));
      }
      d.keys.push_back(Column::ints("k", k));
      d.values.push_back(Column::ints("v", v));
      d.aggs = int_aggs();
      GroupByOptions r = o;
      r.rows_per_group = 1 << 17;
      check_variants(d, r, "runs of extreme values" + tag, vs);
    }
    // FLOAT keys (-0.0 = 0.0, every NaN one group) with FLOAT and INT values; COUNT(x), AVG.
    {
      const float pool[] = {0.0f, -0.0f, test::kNaN, test::kNegNaN, test::kInf, -test::kInf, -1.5f, 2.0f, 1e-45f};
      Data d;
      std::vector<float> k;
      for (int i = 0; i < 6000; ++i) k.push_back(pool[rng() % 9]);
      d.keys.push_back(Column::floats("k", k));
      d.values.push_back(float_values("x", 6000, rng, true));
      d.values.push_back(int_values("v", 6000, rng));
      d.aggs = {agg(AggKind::Count, -1, "COUNT(*)"), agg(AggKind::Sum, 0, "SUM(x)"),    agg(AggKind::Avg, 0, "AVG(x)"),
                agg(AggKind::Min, 0, "MIN(x)"),      agg(AggKind::Max, 1, "MAX(v)"),    agg(AggKind::Sum, 1, "SUM(v)"),
                agg(AggKind::Avg, 1, "AVG(v)"),      agg(AggKind::Count, 0, "COUNT(x)")};
      check_variants(d, o, "FLOAT keys" + tag, vs);
      // Without counts (the INT_MIN key, which gets no id, counted in the global table's last slot).
      Data e = int_data(5000, 6, rng);
      e.aggs = {agg(AggKind::Sum, 0, "SUM(v)"), agg(AggKind::Max, 0, "MAX(v)")};
      check_variants(e, o, "SUM and MAX only" + tag, vs);
    }
    // Two key columns, strides, a selection, no rows, every row filtered out.
    {
      Data d = int_data(6000, 10, rng);
      d.keys.push_back(int_values("k2", 6000, rng, 1));
      check_variants(d, o, "two key columns" + tag, vs);
      GroupByOptions st = o;
      st.stride_rows = 2048;
      check_variants(d, st, "strides of 2048 rows" + tag, vs);
      Data sel = int_data(6000, 12, rng);
      std::vector<uint32_t> ids;
      for (uint32_t r = 0; r < 6000; ++r)
        if (rng() % 3 == 0) ids.push_back(r);
      sel.selection = ids;
      check_variants(sel, o, "a third of the rows selected" + tag, vs);
      // Runs of 8192 rows: whole double steps (the kernel's unguarded loads) through the selection
      // and with two key columns, then a partial one.
      GroupByOptions runs = o;
      runs.rows_per_group = 8192;
      Data most = sel;
      most.selection->clear();
      for (uint32_t r = 0; r < 6000; ++r)
        if (rng() % 3 != 0) most.selection->push_back(r);
      check_variants(most, runs, "two thirds of the rows selected, runs of 8192 rows" + tag, vs);
      check_variants(d, runs, "two key columns, runs of 8192 rows" + tag, vs);
      sel.selection = std::vector<uint32_t>{};
      check_variants(sel, o, "every row filtered out" + tag, vs);
      check_variants(int_data(0, 1, rng), o, "no rows" + tag, vs);
    }
  }
  // Both ways of keeping the accumulators ran: a copy per invocation, and fewer by shared atomics.
  CHECK(per_invocation);
  CHECK(atomics);
}

TEST_CASE("vk-group-by: 2^16 groups and sizes around steps and workgroup runs") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  check_variants(int_data(81920, uint64_t(1) << 16, rng), {}, "2^16 groups of 81920 rows");
  for (uint64_t n : {1, 3, 4, 5, 1023, 1024, 1025, 4095, 4096, 4097}) {
    const Data d = int_data(n, std::max<uint64_t>(1, n / 3), rng);
    GroupByOptions o;
    o.rows_per_group = 1024;
    check_variants(d, o, std::to_string(n) + " rows, 1024 rows per workgroup");
  }
}

TEST_CASE("vk-group-by: Zipf-skewed keys") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (uint64_t groups : {16, 1000, 20000}) {
    const Data d = int_data(30000, groups, rng, true);
    check_variants(d, {}, "Zipf over " + std::to_string(groups) + " keys");
  }
}

TEST_CASE("vk-group-by: INT32 extremes as keys and values") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int32_t ext[] = {test::kMin, test::kMax, -1, 0, 1, test::kMin + 1, test::kMax - 1};
  Data d;
  std::vector<int32_t> k, v;
  for (int i = 0; i < 5000; ++i) {
    k.push_back(ext[rng() % 7]);
    v.push_back(rng() % 2 ? ext[rng() % 7] : int32_t(uint32_t(rng())));
  }
  d.keys.push_back(Column::ints("k", k));
  d.values.push_back(Column::ints("v", v));
  d.aggs = int_aggs();
  check_variants(d, {}, "extreme keys and values");
  // Without COUNT or AVG the tables keep no counts but for the INT_MIN key's slot.
  d.aggs = {agg(AggKind::Sum, 0, "SUM(v)"), agg(AggKind::Min, 0, "MIN(v)")};
  check_variants(d, {}, "extreme keys, SUM and MIN only");
  Data two = d;
  two.keys.push_back(Column::ints("k2", std::vector<int32_t>(k.rbegin(), k.rend())));
  check_variants(two, {}, "two extreme keys, SUM and MIN only");
  d.aggs = int_aggs();
  // Every row the INT_MIN key (the empty-slot word: the table's last slot) or INT_MAX.
  d.keys[0] = Column::ints("k", std::vector<int32_t>(5000, test::kMin));
  check_variants(d, {}, "every key INT_MIN");
  for (int i = 0; i < 5000; i += 2) d.keys[0].as<int32_t>()[size_t(i)] = test::kMax;
  check_variants(d, {}, "keys INT_MIN and INT_MAX");
}

TEST_CASE("vk-group-by: FLOAT keys with -0.0, NaNs and infinities, and FLOAT sums") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const float specials[] = {0.0f,       -0.0f,         test::kNaN, test::kNegNaN, std::bit_cast<float>(0x7f800001u),
                            test::kInf, -test::kInf,   1.0f,       -1.0f,         1e-45f,
                            -1e-45f,    3.4028235e38f, 0.5f,       -2.5f};
  for (int round = 0; round < 2; ++round) {
    Data d;
    std::vector<float> k;
    const uint64_t n = round ? 20000 : 3000;
    for (uint64_t i = 0; i < n; ++i)
      k.push_back(rng() % 3 ? specials[rng() % 14] : std::ldexp(float(rng() % 200) - 100.0f, int(rng() % 8)));
    d.keys.push_back(Column::floats("k", k));
    d.values.push_back(float_values("x", n, rng, true));
    d.values.push_back(int_values("v", n, rng));
    d.aggs = {agg(AggKind::Count, -1, "COUNT(*)"), agg(AggKind::Sum, 0, "SUM(x)"), agg(AggKind::Avg, 0, "AVG(x)"),
              agg(AggKind::Min, 0, "MIN(x)"),      agg(AggKind::Max, 0, "MAX(x)"), agg(AggKind::Sum, 1, "SUM(v)"),
              agg(AggKind::Count, 0, "COUNT(x)"),  agg(AggKind::Max, 1, "MAX(v)")};
    check_variants(d, {}, "FLOAT keys with special values, round " + std::to_string(round));
  }
}

TEST_CASE("vk-group-by: exact FLOAT sums over every exponent, cancellation and subnormals") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  Data d;
  const uint64_t n = 4000;
  std::vector<int32_t> k;
  std::vector<float> x;
  for (uint64_t i = 0; i < n; ++i) {
    k.push_back(int32_t(rng() % 5));
    const uint64_t r = rng();
    switch (r % 4) {
      case 0: x.push_back(std::bit_cast<float>(uint32_t(rng()) & 0xff7fffffu)); break;  // any finite exponent
      case 1:
        x.push_back(std::bit_cast<float>(uint32_t(rng() % 0x800000) | uint32_t(r & 0x80000000u)));
        break;                                                             // subnormal
      case 2: x.push_back(i % 2 ? 3.4028235e38f : -3.4028235e38f); break;  // cancels pairwise in the exact sum
      default: x.push_back(i % 3 ? 1.0f : -1e-30f); break;
    }
  }
  d.keys.push_back(Column::ints("k", k));
  d.values.push_back(Column::floats("x", x));
  d.aggs = {agg(AggKind::Sum, 0, "SUM(x)"), agg(AggKind::Avg, 0, "AVG(x)"), agg(AggKind::Count, -1, "COUNT(*)")};
  check_variants(d, {}, "FLOAT sums of every exponent");
  GroupByOptions o;
  o.no_int64_atomics = true;
  check_variants(d, o, "FLOAT sums, 32-bit atomics");
}

TEST_CASE("vk-group-by: two key columns, INT and FLOAT, with empty-word keys") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (uint64_t groups : {3, 300, 5000}) {
    const uint64_t n = 12000;
    Data d;
    const std::vector<int32_t> pool = int_pool(std::max<uint64_t>(2, groups / 10 + 1), rng, true);
    std::vector<int32_t> a;
    std::vector<float> b;
    for (uint64_t i : indices(n, groups, rng, false)) {
      a.push_back(pool[i % pool.size()]);
      b.push_back(i % 7 == 0 ? -0.0f : i % 11 == 0 ? test::kNaN : float(i / pool.size()));
    }
    d.keys.push_back(Column::ints("a", a));
    d.keys.push_back(Column::floats("b", b));
    d.values.push_back(int_values("v", n, rng));
    d.aggs = int_aggs();
    check_variants(d, {}, "INT, FLOAT keys, " + std::to_string(groups) + " groups");
    std::swap(d.keys[0], d.keys[1]);
    check_variants(d, {}, "FLOAT, INT keys, " + std::to_string(groups) + " groups");
  }
}

TEST_CASE("vk-group-by: the partitioned variant moves two keys and four value columns in the same passes") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Two key columns and four value columns: five payloads with key 0 through each digit pass, over
  // several sort blocks (16384 keys) and a partial last tile.
  for (uint64_t n : {uint64_t(1), uint64_t(4097), uint64_t(3 * 16384 + 17)}) {
    for (uint64_t groups : {uint64_t(2), uint64_t(3000), n}) {
      Data d;
      const std::vector<int32_t> pool = int_pool(std::max<uint64_t>(2, groups / 8 + 1), rng, true);
      std::vector<int32_t> a;
      std::vector<float> b;
      for (uint64_t i : indices(n, groups, rng, groups == 3000)) {
        a.push_back(pool[i % pool.size()]);
        b.push_back(i % 5 == 0 ? -0.0f : i % 13 == 0 ? test::kNaN : float(i / pool.size()));
      }
      d.keys.push_back(Column::ints("a", a));
      d.keys.push_back(Column::floats("b", b));
      d.values.push_back(int_values("v", n, rng));
      d.values.push_back(float_values("x", n, rng, true));
      d.values.push_back(int_values("w", n, rng, 3));
      d.values.push_back(float_values("y", n, rng, false));
      d.aggs = {agg(AggKind::Count, -1, "COUNT(*)"), agg(AggKind::Sum, 0, "SUM(v)"), agg(AggKind::Sum, 1, "SUM(x)"),
                agg(AggKind::Min, 2, "MIN(w)"),      agg(AggKind::Max, 3, "MAX(y)"), agg(AggKind::Avg, 3, "AVG(y)")};
      const std::string what = std::to_string(n) + " rows, " + std::to_string(groups) + " groups";
      GroupByOptions o;
      o.variant = GroupByVariant::Partitioned;
      for (uint32_t passes : {1u, 2u}) {
        o.partition_passes = passes;
        OnDevice on(d);
        const GroupByResult r = vk::group_by(device(), on.input, o);
        check(d, r, "partitioned, " + std::to_string(passes) + " digit passes, " + what);
        CHECK(r.algorithm.find(std::to_string(passes) + " stable 8-bit digit pass") != std::string::npos);
        CHECK(r.algorithm.find("with 5 payload column(s) in the same passes") != std::string::npos);
      }
      o.partition_passes = 0;
      o.stride_rows = 2048;
      std::vector<uint32_t> sel;
      for (uint32_t r = 0; r < n; ++r)
        if (rng() % 4) sel.push_back(r);
      d.selection = sel;
      OnDevice on(d);
      check(d, vk::group_by(device(), on.input, o), "partitioned, strides of 2048 selected rows, " + what);
    }
  }
}

TEST_CASE("vk-group-by: three and four key columns by the sort variant") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (size_t keys : {3, 4}) {
    Data d;
    const uint64_t n = 5000;
    for (size_t c = 0; c < keys; ++c) {
      if (c % 2) {
        std::vector<float> f;
        for (uint64_t i = 0; i < n; ++i) f.push_back(rng() % 9 == 0 ? -0.0f : float(rng() % 3));
        d.keys.push_back(Column::floats("k" + std::to_string(c), f));
      } else {
        std::vector<int32_t> v;
        for (uint64_t i = 0; i < n; ++i) v.push_back(rng() % 5 == 0 ? test::kMin : int32_t(rng() % 4));
        d.keys.push_back(Column::ints("k" + std::to_string(c), v));
      }
    }
    d.values.push_back(int_values("v", n, rng));
    d.aggs = int_aggs();
    check_variants(d, {}, std::to_string(keys) + " key columns", {GroupByVariant::Auto, GroupByVariant::Sort});
    OnDevice on(d);
    for (GroupByVariant v : kHashVariants) {
      GroupByOptions o;
      o.variant = v;
      CHECK_ERROR(vk::group_by(device(), on.input, o), ErrorCode::Unsupported, "at most two key columns");
    }
  }
}

TEST_CASE("vk-group-by: MEDIAN, QUANTILE and KTH_LARGEST per group") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (uint64_t groups : {1, 9, 700}) {
    Data d = int_data(7000, groups, rng, true);
    d.values.push_back(float_values("x", 7000, rng, true));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    d.aggs = {agg(AggKind::Median, 0, "MEDIAN(v)"),
              agg(AggKind::Quantile, 1, "QUANTILE(x)", std::max(1e-9, u(rng))),
              agg(AggKind::Quantile, 0, "QUANTILE(v, 1)", 1.0),
              agg(AggKind::KthLargest, 1, "KTH_LARGEST(x, 3)", 0.5, 3),
              agg(AggKind::KthLargest, 0, "KTH_LARGEST(v, 40)", 0.5, 40),
              agg(AggKind::Sum, 0, "SUM(v)"),
              agg(AggKind::Count, -1, "COUNT(*)")};
    check_variants(d, {}, std::to_string(groups) + " groups with quantiles",
                   {GroupByVariant::Auto, GroupByVariant::Sort});
    OnDevice on(d);
    for (GroupByVariant v : kHashVariants) {
      GroupByOptions o;
      o.variant = v;
      CHECK_ERROR(vk::group_by(device(), on.input, o), ErrorCode::Unsupported, "sort-based variant");
    }
    // Two key columns with a quantile.
    d.keys.push_back(int_values("k2", 7000, rng, 1));
    check_variants(d, {}, "two keys with quantiles", {GroupByVariant::Sort});
  }
}

TEST_CASE("vk-group-by: overflow of a tiny table, resize and rerun") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (uint64_t groups : {9, 3000}) {
    const Data d = int_data(9000, groups, rng);
    OnDevice on(d);
    for (GroupByVariant v : kHashVariants) {
      GroupByOptions o;
      o.variant = v;
      o.table_slots = 4;
      const GroupByResult r = vk::group_by(device(), on.input, o);
      check(d, r,
            "table of 4 slots, variant " + std::string(vk::to_string(v)) + ", " + std::to_string(groups) + " groups");
      const bool resized = std::any_of(r.passes.begin(), r.passes.end(),
                                       [](const PassRecord& p) { return p.kind == "group-by-resize"; });
      CHECK(resized);
      CHECK(r.algorithm.find("overflowed") != std::string::npos);
    }
  }
}

TEST_CASE("vk-group-by: small strides merged into one table") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (uint64_t groups : {3, 500, 4000}) {
    Data d = int_data(10000, groups, rng);
    GroupByOptions o;
    o.stride_rows = 1024;
    check_variants(d, o, "strides of 1024 rows, " + std::to_string(groups) + " groups");
    o.stride_rows = 3000;  // rounded down to 2048
    std::vector<uint32_t> sel;
    for (uint32_t r = 0; r < 10000; ++r)
      if (rng() % 3) sel.push_back(r);
    d.selection = sel;
    check_variants(d, o, "strides of 2048 selected rows, " + std::to_string(groups) + " groups");
    OnDevice on(d);
    o.variant = GroupByVariant::GlobalTable;
    const GroupByResult r = vk::group_by(device(), on.input, o);
    CHECK(r.algorithm.find("strides") != std::string::npos);
  }
}

TEST_CASE("vk-group-by: host columns streamed through the device in strides") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (uint64_t groups : {3, 2000}) {
    Data d = int_data(9000, groups, rng);
    d.values.push_back(float_values("x", 9000, rng, true));
    d.aggs.push_back(agg(AggKind::Sum, 1, "SUM(x)"));
    vk::GroupByHostInput host;
    for (const Column& c : d.keys) host.keys.push_back(&c);
    for (const Column& c : d.values) host.values.push_back(&c);
    host.aggregates = d.aggs;
    std::vector<uint32_t> sel;
    for (uint32_t r = 0; r < 9000; ++r)
      if (rng() % 4) sel.push_back(r);
    for (int with_selection = 0; with_selection < 2; ++with_selection) {
      Data dd = d;
      if (with_selection) {
        dd.selection = sel;
        host.selection = &sel;
      }
      for (GroupByVariant v : {GroupByVariant::Auto, GroupByVariant::Private, GroupByVariant::SharedTable,
                               GroupByVariant::GlobalTable, GroupByVariant::Partitioned}) {
        GroupByOptions o;
        o.variant = v;
        o.stride_rows = 2048;
        const GroupByResult r = vk::group_by_streamed(device(), host, o);
        CHECK(r.algorithm.find("streamed") != std::string::npos);
        check(dd, r,
              "streamed in strides of 2048 rows, " + std::to_string(groups) + " groups, variant " + vk::to_string(v) +
                  (with_selection ? ", selection" : ""));
      }
      GroupByOptions tiny;
      tiny.variant = GroupByVariant::GlobalTable;
      tiny.stride_rows = 3072;
      tiny.table_slots = 4;
      const GroupByResult r = vk::group_by_streamed(device(), host, tiny);
      if (groups > 4) CHECK(r.algorithm.find("streamed again") != std::string::npos);
      check(dd, r, "streamed with a tiny table, " + std::to_string(groups) + " groups");
    }
  }
  Data q = int_data(1000, 10, rng);
  q.aggs.push_back(agg(AggKind::Median, 0, "MEDIAN(v)"));
  vk::GroupByHostInput host;
  host.keys = {&q.keys[0]};
  host.values = {&q.values[0]};
  host.aggregates = q.aggs;
  CHECK_ERROR(vk::group_by_streamed(device(), host), ErrorCode::Unsupported, "every row on the device");
  host.aggregates = int_aggs();
  GroupByOptions sort;
  sort.variant = GroupByVariant::Sort;
  CHECK_ERROR(vk::group_by_streamed(device(), host, sort), ErrorCode::Unsupported, "hash variants only");
  const std::vector<uint32_t> bad = {5, 3};
  host.selection = &bad;
  CHECK_ERROR(vk::group_by_streamed(device(), host), ErrorCode::InvalidInput, "ascend");
}

TEST_CASE("vk-group-by: selections") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  Data d = int_data(12000, 900, rng, true);
  d.values.push_back(float_values("x", 12000, rng, true));
  d.aggs.push_back(agg(AggKind::Sum, 1, "SUM(x)"));
  for (int p : {0, 1, 50, 99, 100}) {
    std::vector<uint32_t> sel;
    for (uint32_t r = 0; r < 12000; ++r)
      if (int(rng() % 100) < p) sel.push_back(r);
    d.selection = sel;
    check_variants(d, {}, "selection of " + std::to_string(p) + "% of the rows");
  }
  d.selection = std::vector<uint32_t>{11999};
  check_variants(d, {}, "selection of the last row");
}

TEST_CASE("vk-group-by: the 32-bit atomic paths") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  GroupByOptions o;
  o.no_int64_atomics = true;
  for (uint64_t groups : {4, 400, 6000}) {
    Data d = int_data(12000, groups, rng);
    check_variants(d, o, "32-bit atomics, " + std::to_string(groups) + " groups");
  }
  // Two key columns need the 8-byte compare-and-swap: the sort variant runs them.
  Data d = int_data(3000, 50, rng);
  d.keys.push_back(int_values("k2", 3000, rng, 1));
  OnDevice on(d);
  o.variant = GroupByVariant::Auto;
  const GroupByResult r = vk::group_by(device(), on.input, o);
  CHECK(r.variant == GroupByVariant::Sort);
  check(d, r, "two keys, 32-bit atomics");
  o.variant = GroupByVariant::GlobalTable;
  CHECK_ERROR(vk::group_by(device(), on.input, o), ErrorCode::Unsupported, "64-bit buffer atomics");
}

TEST_CASE("vk-group-by: many aggregates, one value column in several") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  Data d = int_data(8000, 70, rng);
  d.values.push_back(float_values("x", 8000, rng, false));
  d.values.push_back(int_values("w", 8000, rng, 3));
  d.values.push_back(float_values("y", 8000, rng, true));
  d.aggs = {agg(AggKind::Sum, 0, "SUM(v)"),     agg(AggKind::Min, 0, "MIN(v)"), agg(AggKind::Max, 0, "MAX(v)"),
            agg(AggKind::Sum, 1, "SUM(x)"),     agg(AggKind::Min, 1, "MIN(x)"), agg(AggKind::Avg, 2, "AVG(w)"),
            agg(AggKind::Max, 3, "MAX(y)"),     agg(AggKind::Avg, 3, "AVG(y)"), agg(AggKind::Sum, 3, "SUM(y)"),
            agg(AggKind::Count, 2, "COUNT(w)"), agg(AggKind::Avg, 0, "AVG(v)")};
  check_variants(d, {}, "8 states over 4 value columns");
  // SUM of the key column itself.
  Data e = int_data(5000, 40, rng);
  e.values[0] = e.keys[0];
  check_variants(e, {}, "aggregates of the key column");
  d.aggs.push_back(agg(AggKind::Min, 2, "MIN(w)"));
  OnDevice on(d);
  CHECK_ERROR(vk::group_by(device(), on.input), ErrorCode::Unsupported, "at most 8 aggregate states");
}

TEST_CASE("vk-group-by: no rows, one row, errors, and the next call works") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  Data empty = int_data(0, 1, rng);
  check_variants(empty, {}, "no rows");
  Data one = int_data(1, 1, rng);
  check_variants(one, {}, "one row");
  one.selection = std::vector<uint32_t>{};
  check_variants(one, {}, "empty selection");

  Data d = int_data(100, 10, rng);
  OnDevice on(d);
  GroupByInput bad = on.input;
  bad.keys.clear();
  CHECK_ERROR(vk::group_by(device(), bad), ErrorCode::InvalidInput, "1 to 4 key columns");
  bad = on.input;
  bad.aggregates.push_back(agg(AggKind::Sum, 5, "SUM(z)"));
  CHECK_ERROR(vk::group_by(device(), bad), ErrorCode::InvalidInput, "SUM(z)");
  bad = on.input;
  bad.aggregates.push_back(agg(AggKind::Max, -1, "MAX()"));
  CHECK_ERROR(vk::group_by(device(), bad), ErrorCode::InvalidInput, "no value column");
  bad = on.input;
  bad.rows = 1000;
  CHECK_ERROR(vk::group_by(device(), bad), ErrorCode::InvalidInput, "fewer than the input's");
  bad = on.input;
  bad.aggregates.push_back(agg(AggKind::Quantile, 0, "QUANTILE(v, 2)", 2.0));
  CHECK_ERROR(vk::group_by(device(), bad), ErrorCode::InvalidInput, "(0, 1]");
  GroupByOptions o;
  o.shared_size = 9;
  CHECK_ERROR(vk::group_by(device(), on.input, o), ErrorCode::InvalidInput, "shared_size");
  if (device().caps().max_shared_memory < vk::gb::shared_bytes(vk::gb::TableKernel::SharedL)) {
    o.shared_size = 3;
    o.variant = GroupByVariant::SharedTable;
    CHECK_ERROR(vk::group_by(device(), on.input, o), ErrorCode::Unsupported, "shared memory");
  }
  check(d, vk::group_by(device(), on.input), "after the errors");
}

TEST_CASE("vk-group-by: the optimizer's estimates and choices") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // The sample is every row: an exact count.
  {
    const Data d = int_data(20000, 277, rng);
    OnDevice on(d);
    const GroupByResult r = vk::group_by(device(), on.input);
    CHECK(r.estimate.value == 277);
    CHECK(r.estimate.method.find("exact") != std::string::npos);
    CHECK(r.variant == (277 <= vk::gb::kFewGroups ? GroupByVariant::Private : GroupByVariant::SharedTable));
    CHECK(r.algorithm.find("277 groups") != std::string::npos);
    check(d, r, "exact estimate");
    // The HyperLogLog pass forced: within 5% (its standard error is about 1.6%).
    GroupByOptions o;
    o.full_estimate = true;
    const GroupByResult h = vk::group_by(device(), on.input, o);
    CHECK(h.estimate.method.find("HyperLogLog") != std::string::npos);
    CHECK(std::fabs(double(h.estimate.value) - 277.0) <= 0.05 * 277.0);
    check(d, h, "HyperLogLog estimate");
  }
  // More rows than the sample: Chao1 of the sample, or HyperLogLog when the sample repeats little.
  {
    GroupByOptions o;
    o.sample_rows = 4096;
    const Data d = int_data(30000, 500, rng);
    OnDevice on(d);
    const GroupByResult r = vk::group_by(device(), on.input, o);
    CHECK(r.estimate.method.find("Chao1") != std::string::npos);
    CHECK(r.estimate.sample == 4096);
    CHECK(std::fabs(double(r.estimate.value) - 500.0) <= 0.05 * 500.0);
    check(d, r, "Chao1 estimate");
    // The sample's hottest key: in a column where one key holds every third row, about a third of
    // the sample (evenly spaced positions), where the uniform 500 keys give each about 8.
    CHECK(r.estimate.top >= 1);
    CHECK(r.estimate.top < 4096 / 100);
    Data hot = d;
    std::vector<int32_t> keys = hot.keys[0].as<int32_t>();
    for (size_t i = 0; i < keys.size(); i += 3) keys[i] = 7;
    hot.keys[0] = Column::ints(hot.keys[0].name, keys);
    OnDevice on_hot(hot);
    const GroupByResult t = vk::group_by(device(), on_hot.input, o);
    CHECK(std::fabs(double(t.estimate.top) - 4096.0 / 3) <= 4096.0 / 30);
    check(hot, t, "one key in every third row");
    const Data all = int_data(30000, 30000, rng);
    OnDevice on_all(all);
    const GroupByResult h = vk::group_by(device(), on_all.input, o);
    CHECK(h.estimate.method.find("HyperLogLog") != std::string::npos);
    CHECK(std::fabs(double(h.estimate.value) - 30000.0) <= 0.05 * 30000.0);
    check(all, h, "all keys distinct");
    // Keys in two ascending runs (the merged partials of a partitioned GROUP BY): evenly spaced
    // rows would meet every sampled key twice and estimate 2,048 of the 16,384 groups.
    Data twice = int_data(32768, 16, rng);
    std::vector<int32_t> runs(32768);
    for (size_t i = 0; i < runs.size(); ++i) runs[i] = int32_t(i % 16384) * 3 - 20000;
    twice.keys[0] = Column::ints(twice.keys[0].name, runs);
    OnDevice on_twice(twice);
    const GroupByResult w = vk::group_by(device(), on_twice.input, o);
    CHECK(w.estimate.value >= 16384 / 2);
    check(twice, w, "keys in two ascending runs");
  }
  // Few groups: the few-groups (private) variant up to kFewGroups (0: off), else the shared table;
  // many: a global table or a sort.
  {
    const Data d = int_data(5000, 3, rng);
    OnDevice on(d);
    const GroupByResult r = vk::group_by(device(), on.input);
    CHECK(r.variant == (3 <= vk::gb::kFewGroups ? GroupByVariant::Private : GroupByVariant::SharedTable));
    CHECK(!r.reason.empty());
    check(d, r, "3 groups, the optimizer's choice");
  }
  // The rules on estimates alone (2^28 rows of one INT key and an INT SUM: 16-byte global slots,
  // 12-byte shared ones).
  {
    vk::DeviceColumn c;
    GroupByInput in;
    in.keys = {&c};
    in.values = {&c};
    in.aggregates = {agg(AggKind::Sum, 0, "SUM(v)")};
    const vk::gb::Layout layout = vk::gb::make_layout(in);
    in.rows = uint64_t(1) << 28;
    auto pick = [&](uint64_t estimate) { return vk::gb::choose(device(), in, layout, {}, estimate); };
    // The private variant forced: a copy of the accumulators per invocation for the fewest groups
    // (the smallest kernel that holds them), fewer copies by shared atomics for more; 1024 groups
    // fit the 28 KiB kernel with one copy (7 words per id).
    auto forced = [&](uint64_t estimate) {
      return vk::gb::choose(device(), in, layout, {.variant = GroupByVariant::Private}, estimate);
    };
    const vk::gb::Choice few = forced(3);
    CHECK(few.variant == GroupByVariant::Private);
    CHECK(few.shared == vk::gb::TableKernel::PrivateS);
    CHECK(few.few.copies == GB_WG);
    CHECK(few.few.ids >= 3);
    CHECK(few.rows_per_group % GB_STEP == 0);
    CHECK(forced(300).few.copies < GB_WG);
    CHECK(forced(300).few.ids >= 300);
    CHECK(forced(1024).few.ids >= 1024);
    // Auto: up to kFewGroups (0: the rule is off, the kernel measured slower than the shared table
    // on the H200) the private variant, then the shared table up to half its slots.
    for (uint64_t groups : {uint64_t(3), uint64_t(300)})
      CHECK(pick(groups).variant ==
            (groups <= vk::gb::kFewGroups ? GroupByVariant::Private : GroupByVariant::SharedTable));
    CHECK((pick(1024).variant == GroupByVariant::Private) == (1024 <= vk::gb::kFewGroups));
    // The shared table: the smallest that the groups fill to at most kSharedFill.
    const uint64_t fill_s =
        uint64_t(double(vk::gb::shared_capacity(vk::gb::TableKernel::SharedS, layout)) * vk::gb::kSharedFill);
    if (fill_s > vk::gb::kFewGroups) {
      CHECK(pick(fill_s).shared == vk::gb::TableKernel::SharedS);
      CHECK(pick(fill_s + 1).shared == vk::gb::TableKernel::SharedM);
    }
    // Past half the largest shared table: the partitioned variant with one digit pass while the
    // 2^8 partitions' groups fill at most 1 / (2 kPartitionedFill) of it each, then the global table.
    const uint64_t cap = vk::gb::shared_capacity(vk::gb::largest_shared_kernel(device()), layout);
    const uint64_t partitioned = cap / 2 * 256 / vk::gb::kPartitionedFill;
    for (uint64_t groups : {cap / 2 + 1, partitioned}) {
      CHECK(pick(groups).variant == GroupByVariant::Partitioned);
      CHECK(pick(groups).partition_passes == 1);
    }
    CHECK(pick(partitioned + 1).variant == GroupByVariant::GlobalTable);
    const vk::gb::Choice global = pick(2 * partitioned);
    CHECK(global.variant == GroupByVariant::GlobalTable);
    // A key holding kSkewedShare of the rows or more: sorted instead of a contended global table.
    CHECK(vk::gb::choose(device(), in, layout, {}, 2 * partitioned, vk::gb::kSkewedShare / 2).variant ==
          GroupByVariant::GlobalTable);
    CHECK(vk::gb::choose(device(), in, layout, {}, 2 * partitioned, vk::gb::kSkewedShare).variant ==
          GroupByVariant::Sort);
    CHECK(vk::gb::choose(device(), in, layout, {}, 300, 0.5).variant == GroupByVariant::SharedTable);
    // The shared-table kernel's workgroups: where a device allows fewer invocations, auto avoids
    // the SharedTable and Partitioned variants.
    VkCapabilities narrow = device().caps();
    CHECK(vk::gb::shared_table_workgroups(narrow) ==
          (narrow.max_workgroup_invocations >= GB_SHARED_WG && narrow.max_workgroup_size[0] >= GB_SHARED_WG));
    narrow.max_workgroup_invocations = GB_SHARED_WG / 2;
    CHECK_FALSE(vk::gb::shared_table_workgroups(narrow));
    narrow.max_workgroup_invocations = GB_SHARED_WG;
    narrow.max_workgroup_size[0] = GB_SHARED_WG / 2;
    CHECK_FALSE(vk::gb::shared_table_workgroups(narrow));
    CHECK(global.table_slots >= 4 * partitioned);
    CHECK(global.table_slots < 4 * partitioned + 1024);
    CHECK(global.table_slots % 1024 == 0);
    const uint64_t slots = vk::gb::max_table_cap(device(), layout);
    // A table beyond the cache: the sort variant (partitioning is forced only).
    if (vk::gb::table_bytes(layout, vk::gb::table_slots_for(slots / 3)) > vk::gb::kCachedTableBytes)
      CHECK(pick(slots / 3).variant == GroupByVariant::Sort);
    CHECK(pick(slots).variant == GroupByVariant::Sort);
    in.aggregates.push_back(agg(AggKind::Median, 0, "MEDIAN(v)"));
    const vk::gb::Layout with_median = vk::gb::make_layout([&] {
      GroupByInput i = in;
      i.rows = 0;
      return i;
    }());
    CHECK(vk::gb::choose(device(), in, with_median, {}, 3).variant == GroupByVariant::Sort);
  }
  CHECK(vk::gb::table_slots_for(0) == 1024);
  CHECK(vk::gb::table_slots_for(513) == 2048);
  CHECK(vk::gb::sample_estimate(100, 100, 37, 5, 2) == 37);
  CHECK(vk::gb::sample_estimate(1000, 100, 50, 20, 10) == 70);
  CHECK(vk::gb::sample_estimate(1000, 100, 90, 80, 0) == 1000);
  std::vector<uint32_t> empty_registers(GB_HLL_REGISTERS, 0);
  CHECK(vk::gb::hll_estimate(empty_registers) == 0);
}

TEST_CASE("vk-group-by: segmented reduction primitive") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  vk::Device& dev = device();
  for (uint64_t n :
       {uint64_t(1), uint64_t(2), uint64_t(1023), uint64_t(1024), uint64_t(1025), uint64_t(5000), uint64_t(70000)}) {
    for (int kind = 0; kind < 3; ++kind) {
      INFO("n " << n << ", kind " << kind);
      // Sorted keys: long runs, short runs, or all distinct; FLOAT keys -0.0/+0.0 and NaNs equal.
      std::vector<float> keys(n);
      std::vector<int32_t> ints(n);
      std::vector<float> floats(n);
      float key = -1e6f;
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t r = rng();
        const bool next = kind == 2 || (kind == 0 ? r % 3000 == 0 : r % 3 == 0);
        if (next) key = std::nextafter(key, 1e30f) + float(r % 7);
        keys[i] = key;
        ints[i] = int32_t(uint32_t(rng()));
        floats[i] = std::ldexp(float(int(rng() % 2001) - 1000), int(rng() % 60) - 30);
      }
      if (n > 10) {  // a run of zeros of both signs, then a run of NaNs, at the end
        for (uint64_t i = n - 6; i < n - 3; ++i) keys[i] = i % 2 ? -0.0f : 0.0f;
        for (uint64_t i = n - 3; i < n; ++i) keys[i] = i % 2 ? test::kNaN : test::kNegNaN;
      }
      // The CPU's segments.
      std::vector<uint64_t> firsts;
      for (uint64_t i = 0; i < n; ++i)
        if (i == 0 || float_key(keys[i]) != float_key(keys[i - 1])) firsts.push_back(i);
      const uint64_t segments = firsts.size();
      auto up = [&](const void* p, uint64_t bytes) {
        vk::Buffer b = dev.create_buffer(std::max<uint64_t>(16, bytes), vk::MemoryKind::Device);
        if (bytes) dev.upload(b, p, bytes);
        return b;
      };
      const vk::Buffer kb = up(keys.data(), n * 4), ib = up(ints.data(), n * 4), fb = up(floats.data(), n * 4);
      vk::SegmentedReduceArgs a;
      a.n = n;
      a.keys = {{&kb, 0, n * 4}};
      a.key_types = {SortKeyType::F32};
      const vk::Buffer seg = dev.create_buffer(16, vk::MemoryKind::Device);
      const vk::Buffer scratch = dev.create_buffer(vk::segmented_reduce_scratch_bytes(dev, n), vk::MemoryKind::Device);
      a.segments = {&seg, 0, 8};
      a.scratch = {&scratch, 0, 0};
      dev.submit([&](VkCommandBuffer cmd) { vk::record_segment_count(dev, cmd, a); });
      uint64_t got_segments = 0;
      dev.download(seg, &got_segments, 8);
      REQUIRE(got_segments == segments);
      const uint64_t s = segments;
      const vk::Buffer counts = dev.create_buffer(s * 4, vk::MemoryKind::Device);
      const vk::Buffer first = dev.create_buffer(s * 4, vk::MemoryKind::Device);
      const vk::Buffer skeys = dev.create_buffer(s * 4, vk::MemoryKind::Device);
      const vk::Buffer isum = dev.create_buffer(s * 8, vk::MemoryKind::Device);
      const vk::Buffer imin = dev.create_buffer(s * 4, vk::MemoryKind::Device);
      const vk::Buffer fmax = dev.create_buffer(s * 4, vk::MemoryKind::Device);
      const vk::Buffer fsum = dev.create_buffer(s * 44, vk::MemoryKind::Device);
      const vk::Buffer imax = dev.create_buffer(s * 4, vk::MemoryKind::Device);
      a.counts = {&counts, 0, s * 4};
      a.firsts = {&first, 0, s * 4};
      a.segment_keys = {{&skeys, 0, s * 4}};
      a.reductions = {{vk::SegmentOp::Sum, SortKeyType::I32, {&ib, 0, n * 4}, {&isum, 0, s * 8}},
                      {vk::SegmentOp::Min, SortKeyType::I32, {&ib, 0, n * 4}, {&imin, 0, s * 4}},
                      {vk::SegmentOp::Max, SortKeyType::F32, {&fb, 0, n * 4}, {&fmax, 0, s * 4}},
                      {vk::SegmentOp::Sum, SortKeyType::F32, {&fb, 0, n * 4}, {&fsum, 0, s * 44}},
                      {vk::SegmentOp::Max, SortKeyType::I32, {&ib, 0, n * 4}, {&imax, 0, s * 4}}};
      a.int64_atomics = kind != 1;
      dev.submit([&](VkCommandBuffer cmd) { vk::record_segmented_reduce(dev, cmd, a); });
      std::vector<uint32_t> c(s), f(s), k(s), mn(s), mx(s), imx(s), fs(s * 11);
      std::vector<int64_t> sm(s);
      dev.download(counts, c.data(), s * 4);
      dev.download(first, f.data(), s * 4);
      dev.download(skeys, k.data(), s * 4);
      dev.download(isum, sm.data(), s * 8);
      dev.download(imin, mn.data(), s * 4);
      dev.download(fmax, mx.data(), s * 4);
      dev.download(fsum, fs.data(), s * 44);
      dev.download(imax, imx.data(), s * 4);
      int failures = 0;
      for (uint64_t g = 0; g < s && failures < 5; ++g) {
        const uint64_t lo = firsts[g], hi = g + 1 < s ? firsts[g + 1] : n;
        int64_t sum = 0;
        uint32_t want_min = UINT32_MAX, want_max = 0, want_imax = 0;
        std::vector<ExactTerm> terms;
        for (uint64_t i = lo; i < hi; ++i) {
          sum += ints[i];
          want_min = std::min(want_min, int_key(ints[i]));
          want_imax = std::max(want_imax, int_key(ints[i]));
          want_max = std::max(want_max, float_key(floats[i]));
          const uint32_t b = std::bit_cast<uint32_t>(floats[i]);
          const uint32_t e = b >> 23 & 255, m = e ? (b & 0x7fffff) | 0x800000 : b & 0x7fffff;
          terms.push_back({(b >> 31) ? -__int128(m) : __int128(m), int(e ? e - 1 : 0)});
        }
        std::vector<ExactTerm> got_terms;
        for (int w = 0; w < 10; ++w)
          got_terms.push_back({w < 9 ? __int128(fs[g * 11 + w]) : __int128(int32_t(fs[g * 11 + w])), 32 * w});
        const bool ok = c[g] == hi - lo && f[g] == lo && k[g] == float_key(keys[lo]) && sm[g] == sum &&
                        mn[g] == want_min && mx[g] == want_max && imx[g] == want_imax && fs[g * 11 + 10] == 0 &&
                        exact_sum(got_terms) == exact_sum(terms);
        if (!ok) {
          ++failures;
          FAIL_CHECK("segment " << g << " of rows " << lo << ".." << hi << ": count " << c[g] << ", first " << f[g]
                                << ", sum " << sm[g] << " (want " << sum << ")");
        }
      }
      GFXQ_CHECK_NO_VK_MESSAGES();
    }
  }
}
