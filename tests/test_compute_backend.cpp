// The compute backend against the CPU reference engine: random CNF selections, every aggregate,
// quantiles, ORDER BY with and without LIMIT, sizes around workgroup/round/chunk boundaries, forced
// chunking, exact INT vs FLOAT comparisons, the exact FLOAT sum, errors. Exact equality everywhere
// (the CPU engine sums FLOAT exactly too). Failures print their seed.

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cnf_select_config.glsl"
#include "core/order_key.h"
#include "engine_compute_support.h"
#include "gfxq/cpu.h"
#include "gfxq/gfxq.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "select_config.glsl"
#include "sort_config.glsl"
#include "vk/relational/aggregate.h"
#include "vk/relational/cnf_program.h"
#include "vk/relational/order_by.h"
#include "vk/relational/select.h"

namespace {

using namespace gfxq;

// The process-wide engine of the compute tests.
Engine& engine() {
  return test::debug_engine();
}

// The engine whose compute backend scans in chunks of `chunk_rows` rows with `max_groups`
// workgroups each (0: the defaults).
Engine& limited(uint64_t chunk_rows, uint32_t max_groups) {
  return test::engine_with({.chunk_rows = chunk_rows, .max_groups = max_groups});
}

// The engine whose sort and select primitives (ORDER BY's radix sort and top-k select, the
// quantiles' radix select) hold `keys` keys per binding window.
Engine& windowed(uint64_t keys) {
  return test::engine_with({.sort_window = keys});
}

const Distribution kDistributions[] = {Distribution::Uniform, Distribution::Skewed, Distribution::Sorted,
                                       Distribution::AllEqual};

Aggregate agg(AggKind kind, std::optional<std::string> column = std::nullopt, double q = 0.5, int64_t k = 1) {
  Aggregate a;
  a.kind = kind;
  if (column) a.column = ColumnRef{"", *column};
  a.q = q;
  a.k = k;
  return a;
}

Query query_of(std::vector<SelectItem> items, Cnf where = {}) {
  Query q;
  q.items = std::move(items);
  q.table = "t";
  q.where = std::move(where);
  return q;
}

// The compute result of `q` on `on` equals the CPU's exactly (FLOAT SUM and AVG too: both sum
// exactly and round once). No validation message.
void check_query(const Query& q, const Catalog& catalog, const std::string& what, Engine& on = engine()) {
  INFO(what << "\nquery: " << q.text());
  const Result want = cpu::execute(q, catalog);
  Result got;
  try {
    got = on.execute(q, catalog, Backend::Compute);
  } catch (const Error& e) {
    FAIL("compute backend threw " << to_string(e.code()) << ": " << e.what());
    return;
  }
  CHECK(got.report.backend == Backend::Compute);
  const auto messages = on.take_debug_messages();
  CHECK_MESSAGE(messages.empty(), test::joined(messages));
  const std::string diff = test::table_difference(want.table, got.table);
  CHECK_MESSAGE(diff.empty(), diff);
}

using test::catalog_of;

}  // namespace

TEST_CASE("compute: CNF programs fold constants and agree with the CPU filter") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    const uint64_t seed = rng();
    INFO("seed " << seed);
    const Table t = test::random_table(200, kDistributions[seed % 4], seed);
    std::mt19937_64 qrng(seed);
    const Cnf cnf = test::random_cnf(t, qrng);
    const BoundCnf bound = bind_where(cnf, t, "t");
    const vk::CnfProgram program = vk::compile_cnf(bound);
    const auto want = cpu::select_rows(t, "t", cnf);
    std::vector<uint64_t> got;
    for (uint64_t r = 0; r < t.rows(); ++r) {
      std::vector<uint32_t> raw;
      for (const BoundColumn& c : program.slots) {
        const Column& col = t.columns[c.index];
        raw.push_back(col.type == Type::Int32 ? std::bit_cast<uint32_t>(col.as<int32_t>()[r])
                                              : std::bit_cast<uint32_t>(col.as<float>()[r]));
      }
      if (vk::evaluate(program, raw)) got.push_back(r);
    }
    CHECK(got == want);
  }
  // Folding: a literal outside INT's range, `c op c`, a clause made only of false terms.
  const Table t = test::random_table(10, Distribution::Uniform, 1);
  auto program_of = [&](const std::string& sql) {
    return vk::compile_cnf(bind_where(sql::parse("SELECT * FROM t WHERE " + sql).where, t, "t"));
  };
  CHECK(program_of("a < 3000000000").outcome == vk::CnfProgram::Outcome::All);
  CHECK(program_of("a > 3000000000").outcome == vk::CnfProgram::Outcome::None);
  CHECK(program_of("x = x AND b <= b").outcome == vk::CnfProgram::Outcome::All);
  CHECK(program_of("x < x OR a = 0.5").outcome == vk::CnfProgram::Outcome::None);
  const auto p = program_of("(a < 3 OR a > 3000000000) AND (x >= y OR b <> 2) AND y = y");
  CHECK(p.outcome == vk::CnfProgram::Outcome::Rows);
  CHECK(p.clauses == 2);
  CHECK(p.terms.size() == 3);
  CHECK(p.summary() == "2 clauses, 3 terms over 4 columns");
}

TEST_CASE("compute: INT vs FLOAT comparison is exact") {
  const float f2_24 = 16777216.0f;
  const std::vector<float> floats = {0.0f,
                                     -0.0f,
                                     0.5f,
                                     -0.5f,
                                     1.0f,
                                     -1.0f,
                                     1.5f,
                                     -1.5f,
                                     f2_24,
                                     -f2_24,
                                     2147483648.0f,
                                     -2147483648.0f,
                                     2147483520.0f,
                                     4294967296.0f,
                                     -4294967296.0f,
                                     std::numeric_limits<float>::denorm_min(),
                                     -std::numeric_limits<float>::denorm_min(),
                                     std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity(),
                                     std::numeric_limits<float>::quiet_NaN(),
                                     1e30f,
                                     -1e30f,
                                     16777215.5f,
                                     3.0f};
  const std::vector<int32_t> ints = {0,           1,          -1,        2,        3,          -2,
                                     16777216,    16777217,   -16777217, 16777215, 2147483647, -2147483647 - 1,
                                     -2147483647, 2147483520, 2147483521};
  for (int32_t i : ints)
    for (float f : floats) {
      const int want = compare_total(double(i), double(f));
      CHECK_MESSAGE(vk::compare_int_float(i, std::bit_cast<uint32_t>(f)) == want, i << " vs " << f);
    }
  // The same pairs through the kernels, every operator, both operand orders.
  std::vector<int32_t> a;
  std::vector<float> x;
  for (int32_t i : ints)
    for (float f : floats) {
      a.push_back(i);
      x.push_back(f);
    }
  Table t;
  t.columns.push_back(Column::ints("a", a));
  t.columns.push_back(Column::floats("x", x));
  const Catalog catalog = catalog_of(t);
  for (int op = 0; op < 6; ++op)
    for (bool swap : {false, true}) {
      Comparison c;
      c.lhs = ColumnRef{"", swap ? "x" : "a"};
      c.op = static_cast<CmpOp>(op);
      c.rhs = ColumnRef{"", swap ? "a" : "x"};
      check_query(query_of({Star{}}, Cnf{{Clause{{c}}}}), catalog, "op " + std::to_string(op));
    }
}

TEST_CASE("compute: the exact FLOAT sum rounds once, and the host combination is exact") {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 200; ++round) {
    INFO("round " << round);
    // Values in [2^-20, 2^20] are multiples of 2^-43: their exact sum fits __int128 in those units.
    std::vector<vk::AggPartial> parts(1 + rng() % 3);
    __int128 exact = 0;
    const int count = 1 + int(rng() % 300);
    for (int i = 0; i < count; ++i) {
      const float v = std::ldexp(std::uniform_real_distribution<float>(1.0f, 2.0f)(rng), int(rng() % 40) - 20) *
                      (rng() % 2 ? -1.0f : 1.0f);
      const uint32_t bits = std::bit_cast<uint32_t>(v);
      const uint32_t e = (bits >> 23) & 0xff;
      const uint32_t t = std::max(e, 1u) - 1;
      int64_t m = int64_t((e ? 0x800000u : 0u) | (bits & 0x7fffffu)) << (t & 15);
      if (v < 0) m = -m;
      parts[rng() % parts.size()].bins[t >> 4] += m;
      exact += __int128(std::ldexp(double(v), 43));
    }
    const double want = std::ldexp(double(exact), -43);  // __int128 -> double rounds to nearest even
    CHECK(vk::float_sum(vk::combine_partials(parts)) == want);
  }
  vk::AggTotals t;
  CHECK(std::bit_cast<uint64_t>(vk::float_sum(t)) == 0);  // empty: +0.0
  t.special = 2;
  CHECK(vk::float_sum(t) == std::numeric_limits<double>::infinity());
  t.special = 4;
  CHECK(vk::float_sum(t) == -std::numeric_limits<double>::infinity());
  t.special = 6;
  CHECK(std::isnan(vk::float_sum(t)));
  t.special = 1;
  CHECK(std::isnan(vk::float_sum(t)));
  // Ties round to even: 2^53 + 1 (in units of 2^-149 * 2^0) rounds down, 2^53 + 3 up.
  vk::AggTotals tie;
  tie.bins[0] = (__int128(1) << 53) + 1;
  CHECK(vk::float_sum(tie) == std::ldexp(double(int64_t(1) << 53), -149));
  tie.bins[0] = (__int128(1) << 53) + 3;
  CHECK(vk::float_sum(tie) == std::ldexp(double((int64_t(1) << 53) + 4), -149));
  // INT sums: per-workgroup int64 partials whose total leaves int64 are Error(Overflow).
  std::vector<vk::AggPartial> big(2);
  big[0].bins[0] = std::numeric_limits<int64_t>::max();
  big[1].bins[0] = 1;
  const vk::AggTotals over = vk::combine_partials(big);
  CHECK(over.bins[0] == __int128(std::numeric_limits<int64_t>::max()) + 1);
  CHECK_THROWS_AS(int_sum_result(over.bins[0], "SUM(a)"), Error);
  try {
    int_sum_result(over.bins[0], "SUM(a)");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Overflow);
  }
  big[1].bins[0] = -1;
  CHECK(int_sum_result(vk::combine_partials(big).bins[0], "SUM(a)") == std::numeric_limits<int64_t>::max() - 1);
}

TEST_CASE("compute: agg_combine adds partials exactly on the device, carries past 64 bits included") {
  // The host's __int128 combination is the oracle. Bins at the int64 extremes carry into the high
  // word both ways; empty partials (neutral keys), special flags; partial counts around the
  // combine's strides (16 per bin slice, 256 per header slice).
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  vk::Device& device = test::vk_device();
  for (const uint32_t n : {1u, 2u, 15u, 16u, 17u, 63u, 64u, 65u, 255u, 256u, 257u, 2048u, 5000u}) {
    for (const uint32_t bins : {1u, 16u}) {
      for (int shape = 0; shape < 3; ++shape) {
        CAPTURE(n);
        CAPTURE(bins);
        CAPTURE(shape);
        std::vector<vk::AggPartial> parts(n);
        for (vk::AggPartial& p : parts) {
          const bool empty = rng() % 5 == 0;
          p.count = empty ? 0 : uint32_t(rng() >> 32);
          p.min_key = empty ? UINT32_MAX : uint32_t(rng());
          p.max_key = empty ? 0 : uint32_t(rng());
          p.special = rng() % 7 == 0 ? uint32_t(1u << (rng() % 3)) : 0;
          for (uint32_t b = 0; b < bins; ++b) {
            const int64_t extreme =
                rng() % 2 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
            // 0: all at one extreme (the total leaves int64), 1: random words, 2: extremes mixed.
            p.bins[b] = shape == 0 ? (b % 2 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max())
                        : shape == 1 ? int64_t(rng())
                                     : (rng() % 2 ? extreme : int64_t(rng()) >> (rng() % 64));
          }
        }
        vk::Buffer partials = device.create_buffer(n * sizeof(vk::AggPartial), vk::MemoryKind::Device);
        device.upload(partials, parts.data(), n * sizeof(vk::AggPartial));
        vk::Buffer total = device.create_buffer(sizeof(vk::AggDeviceTotal), vk::MemoryKind::Readback);
        REQUIRE(vk::agg_combine_fits(device, n));
        device.submit([&](VkCommandBuffer cmd) { vk::record_agg_combine(device, cmd, partials, n, bins, total); });
        vk::AggDeviceTotal got;
        device.download(total, &got, sizeof got);
        const vk::AggTotals want = vk::combine_partials(parts, bins);
        const vk::AggTotals have = vk::totals_of(got);
        CHECK(have.count == want.count);
        CHECK(have.min_key == want.min_key);
        CHECK(have.max_key == want.max_key);
        CHECK(have.special == want.special);
        for (size_t b = 0; b < 16; ++b) {
          CAPTURE(b);
          CHECK(uint64_t(have.bins[b]) == uint64_t(want.bins[b]));
          CHECK(int64_t(have.bins[b] >> 64) == int64_t(want.bins[b] >> 64));
        }
      }
    }
  }
  vk::Buffer b = device.create_buffer(sizeof(vk::AggDeviceTotal), vk::MemoryKind::Device);
  CHECK_THROWS_AS(device.submit([&](VkCommandBuffer cmd) { vk::record_agg_combine(device, cmd, b, 1, 2, b); }), Error);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("compute: SUM AVG MIN MAX over many workgroups read one total and match the CPU") {
  // 150 workgroups of 4096 rows (the limits force one round each) and 3 chunks; values at the FLOAT
  // bins' extremes (FLT_MAX, the smallest denormal, powers of two across all 16 bins), NaN and
  // infinities in some queries, INT32 extremes; empty selections.
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const uint64_t rows = 150 * 4096 - 7;
  std::vector<int32_t> a(rows), k(rows);
  std::vector<float> x(rows), z(rows);
  const float inf = std::numeric_limits<float>::infinity();
  for (uint64_t i = 0; i < rows; ++i) {
    const int pick = int(rng() % 8);
    a[i] = pick == 0   ? std::numeric_limits<int32_t>::max()
           : pick == 1 ? std::numeric_limits<int32_t>::min()
                       : int32_t(uint32_t(rng()));
    k[i] = int32_t(rng() % 1000);
    const float sign = rng() % 2 ? -1.0f : 1.0f;
    x[i] = pick == 0   ? sign * std::numeric_limits<float>::max()
           : pick == 1 ? sign * std::numeric_limits<float>::denorm_min()
           : pick == 2 ? sign * std::ldexp(1.0f, int(rng() % 254) - 126)
           : pick == 3
               ? -0.0f
               : sign * std::ldexp(std::uniform_real_distribution<float>(1.0f, 2.0f)(rng), int(rng() % 60) - 30);
    z[i] = x[i];
  }
  // z: the same with a few specials (NaN, +inf, -inf) in rows that only some conditions keep.
  z[rows / 3] = std::numeric_limits<float>::quiet_NaN();
  z[rows / 2] = inf;
  z[rows - 2] = -inf;
  k[rows / 3] = 1000;
  k[rows / 2] = 1001;
  k[rows - 2] = 1002;
  Table t;
  t.columns.push_back(Column::ints("a", a));
  t.columns.push_back(Column::ints("k", k));
  t.columns.push_back(Column::floats("x", x));
  t.columns.push_back(Column::floats("z", z));
  const Catalog catalog = catalog_of(t);
  const std::string items =
      "COUNT(*), SUM(a), AVG(a), MIN(a), MAX(a), SUM(x), AVG(x), MIN(x), MAX(x), SUM(z), MIN(z), "
      "MAX(z)";
  for (const char* where : {"k < 500 AND (a > 0 OR x < 0) AND k <> 7", "k >= 0", "k < 1000", "k = 1000", "k >= 1001",
                            "k = 1001 OR k = 1002", "k > 5000", "k < 0 AND a > 0"}) {
    INFO("WHERE " << where);
    const std::string sql = "SELECT " + items + " FROM t WHERE " + where;
    const Result want = engine().execute_sql(sql, catalog, Backend::Cpu);
    for (const auto& [chunk, groups] : {std::pair<uint64_t, uint32_t>{0, 2048}, {rows / 3, 2048}}) {
      Engine& forced = limited(chunk, groups);
      const Result got = forced.execute_sql(sql, catalog, Backend::Compute);
      const auto messages = forced.take_debug_messages();
      CHECK_MESSAGE(messages.empty(), test::joined(messages));
      const std::string diff = test::table_difference(want.table, got.table);
      CHECK_MESSAGE(diff.empty(), diff);
      // Each column's partials are added on the device: one 280-byte total comes back per column.
      int totals = 0;
      for (const PassRecord& p : got.report.passes) {
        CHECK(p.kind != "combine");
        if (p.kind == "download") {
          CHECK(p.items == 1);
          totals += p.detail.find("aggregate total (280 bytes)") != std::string::npos;
        }
        if (p.kind == "cnf-aggregate") CHECK(p.detail.find("agg_combine") != std::string::npos);
      }
      CHECK(totals == 3);  // a, x, z
    }
  }
  const auto messages = engine().take_debug_messages();
  CHECK_MESSAGE(messages.empty(), test::joined(messages));
}

TEST_CASE("compute: random CNF counts and selections match the CPU") {
  std::mt19937_64 rng(20240611);
  int queries = 0;
  for (uint64_t rows : {0, 1, 300, 2500, 6000}) {
    for (Distribution dist : kDistributions) {
      const uint64_t seed = rng();
      const Catalog catalog = catalog_of(test::random_table(rows, dist, seed));
      const Table& t = catalog.get("t");
      std::mt19937_64 qrng(seed);
      for (int i = 0; i < 10; ++i) {
        const Cnf cnf = test::random_cnf(t, qrng);
        const std::string what = "rows " + std::to_string(rows) + " " + to_string(dist) + " seed " +
                                 std::to_string(seed) + " query " + std::to_string(i);
        check_query(query_of({agg(AggKind::Count)}, cnf), catalog, what);
        check_query(query_of({Star{}}, cnf), catalog, what);
        check_query(query_of({ColumnRef{"", "y"}, ColumnRef{"", "a"}}, cnf), catalog, what);
        queries += 3;
      }
    }
  }
  MESSAGE(queries << " random queries");
}

TEST_CASE("compute: every aggregate with and without WHERE matches the CPU") {
  std::mt19937_64 rng(99);
  for (uint64_t rows : {1, 700, 5000}) {
    for (Distribution dist : kDistributions) {
      const uint64_t seed = rng();
      const Catalog catalog = catalog_of(test::random_table(rows, dist, seed));
      std::mt19937_64 qrng(seed);
      for (int i = 0; i < 3; ++i) {
        const Cnf cnf = i == 0 ? Cnf{} : test::random_cnf(catalog.get("t"), qrng, 3, 3);
        const std::string what =
            "rows " + std::to_string(rows) + " " + to_string(dist) + " seed " + std::to_string(seed);
        for (const char* c : {"a", "b", "x", "y"}) {
          check_query(query_of({agg(AggKind::Count), agg(AggKind::Sum, c), agg(AggKind::Avg, c), agg(AggKind::Min, c),
                                agg(AggKind::Max, c), agg(AggKind::Count, c)},
                               cnf),
                      catalog, what);
        }
        check_query(query_of({agg(AggKind::Min, "a"), agg(AggKind::Max, "y"), agg(AggKind::Sum, "x")}, cnf), catalog,
                    what);
      }
    }
  }
}

TEST_CASE("compute: INT32 extremes sum exactly past 32 bits") {
  for (uint64_t rows : {1, 3000, 9000}) {
    Table t;
    t.columns.push_back(Column::ints("a", std::vector<int32_t>(rows, std::numeric_limits<int32_t>::max())));
    t.columns.push_back(Column::ints("b", std::vector<int32_t>(rows, std::numeric_limits<int32_t>::min())));
    t.columns.push_back(Column::floats("x", std::vector<float>(rows, std::numeric_limits<float>::max())));
    const Catalog catalog = catalog_of(t);
    check_query(
        query_of({agg(AggKind::Sum, "a"), agg(AggKind::Sum, "b"), agg(AggKind::Avg, "a"), agg(AggKind::Avg, "b"),
                  agg(AggKind::Min, "b"), agg(AggKind::Max, "a"), agg(AggKind::Sum, "x"), agg(AggKind::Avg, "x")}),
        catalog, "rows " + std::to_string(rows));
    const Result r = engine().execute(query_of({agg(AggKind::Sum, "b")}), catalog, Backend::Compute);
    CHECK(r.table.columns[0].as<int64_t>()[0] == int64_t(rows) * std::numeric_limits<int32_t>::min());
  }
}

TEST_CASE("compute: quantiles and k-th largest match the CPU") {
  std::mt19937_64 rng(5);
  for (uint64_t rows : {1, 2, 257, 4000}) {
    for (Distribution dist : kDistributions) {
      const uint64_t seed = rng();
      const Catalog catalog = catalog_of(test::random_table(rows, dist, seed));
      std::mt19937_64 qrng(seed);
      for (int i = 0; i < 2; ++i) {
        const Cnf cnf = i == 0 ? Cnf{} : test::random_cnf(catalog.get("t"), qrng, 2, 3);
        const std::string what =
            "rows " + std::to_string(rows) + " " + to_string(dist) + " seed " + std::to_string(seed);
        for (const char* c : {"a", "y", "x"}) {
          const int64_t n = int64_t(rows);
          check_query(
              query_of({agg(AggKind::Median, c), agg(AggKind::Quantile, c, 1e-9), agg(AggKind::Quantile, c, 0.25),
                        agg(AggKind::Quantile, c, 0.75), agg(AggKind::Quantile, c, 1.0),
                        agg(AggKind::KthLargest, c, 0.5, 1), agg(AggKind::KthLargest, c, 0.5, 2),
                        agg(AggKind::KthLargest, c, 0.5, n), agg(AggKind::KthLargest, c, 0.5, n + 1)},
                       cnf),
              catalog, what);
        }
      }
    }
  }
}

// The engine whose radix selects are sampled (ComputeOptions::select_sample; by default from 2^25
// keys, beyond these tests' sizes).
Engine& sampling() {
  return test::engine_with({.select_sample = true});
}

TEST_CASE("compute: quantiles by the sampled select match the CPU and name its path") {
  std::mt19937_64 rng(47);
  for (uint64_t rows : {uint64_t(SELECT_SAMPLE_MIN), uint64_t(SELECT_SAMPLE_MIN) * 3 + 1}) {
    for (Distribution dist : kDistributions) {
      const uint64_t seed = rng();
      const Catalog catalog = catalog_of(test::random_table(rows, dist, seed));
      const std::string what = "rows " + std::to_string(rows) + " " + to_string(dist) + " seed " + std::to_string(seed);
      const int64_t n = int64_t(rows);
      for (const char* c : {"a", "y"}) {
        const Query q = query_of({agg(AggKind::Median, c), agg(AggKind::Quantile, c, 1e-9),
                                  agg(AggKind::Quantile, c, 0.9), agg(AggKind::KthLargest, c, 0.5, n)});
        check_query(q, catalog, what, sampling());
        const Result r = sampling().execute(q, catalog, Backend::Compute);
        bool sampled = false;
        for (const PassRecord& p : r.report.passes)
          sampled = sampled || (p.kind == "radix-select" && p.detail.find(", sampled: ") != std::string::npos);
        INFO(what << "\nquery: " << q.text());
        CHECK(sampled);
      }
    }
  }
}

TEST_CASE("compute: the sampled select is exact among NaNs, zeros, infinities and denormals") {
  // Quantiles among normal values with NaNs of both signs, zeros of both signs, infinities and
  // denormals all around, and among denormals and zeros; ascending and descending.
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> odd = {
      nan, -nan, std::bit_cast<float>(0xffc00001u), 0.0f, -0.0f, inf, -inf, 1e-45f, -1e-45f, 1.1754942e-38f};
  for (bool tiny : {false, true}) {
    const uint64_t rows = SELECT_SAMPLE_MIN * 2 + 7;
    std::vector<float> a(rows);
    for (float& v : a) {
      const uint32_t r = uint32_t(rng());
      if (rng() % 3 == 0)
        v = odd[rng() % odd.size()];
      else
        v = tiny ? std::bit_cast<float>(r & 0x807fffffu) : float(int32_t(r % 1000003) - 300000) / 1024.0f;
    }
    Table t;
    t.columns.push_back(Column::floats("a", a));
    const Catalog catalog = catalog_of(std::move(t));
    const Query q = query_of({agg(AggKind::Median, "a"), agg(AggKind::Quantile, "a", 0.8),
                              agg(AggKind::KthLargest, "a", 0.5, int64_t(rows / 3))});
    check_query(q, catalog, tiny ? "denormals" : "normal values", sampling());
    const Result r = sampling().execute(q, catalog, Backend::Compute);
    int sampled = 0;
    for (const PassRecord& p : r.report.passes)
      sampled += p.kind == "radix-select" && p.detail.find(", sampled: ") != std::string::npos;
    INFO(r.report.text());
    CHECK(sampled == 3);
  }
}

TEST_CASE("compute: a bad GFXQ_SELECT_SAMPLE is an error where the engine is made, and the next engine works") {
  const Catalog catalog = catalog_of(test::random_table(SELECT_SAMPLE_MIN, Distribution::Uniform, 3));
  const Query q = query_of({agg(AggKind::Median, "a")});
  {
    const test::ScopedEnv bad{"GFXQ_SELECT_SAMPLE", "yes"};
    CHECK_THROWS_WITH_AS(
        Engine(), "GFXQ_SELECT_SAMPLE='yes': expected 0 or 1 (it overrides ComputeOptions::select_sample)", Error);
  }
  Engine after({.debug = test::vk_validation_wanted()});
  check_query(q, catalog, "after the error", after);
}

TEST_CASE("compute: ORDER BY is stable in both directions, with and without LIMIT") {
  std::mt19937_64 rng(31);
  for (uint64_t rows : {1, 300, 3000}) {
    for (Distribution dist : kDistributions) {
      const uint64_t seed = rng();
      const Catalog catalog = catalog_of(test::random_table(rows, dist, seed));
      std::mt19937_64 qrng(seed);
      for (const char* c : {"b", "y", "a", "x"}) {
        for (bool desc : {false, true}) {
          for (std::optional<uint64_t> limit :
               {std::optional<uint64_t>{}, std::optional<uint64_t>{1}, std::optional<uint64_t>{7},
                std::optional<uint64_t>{1024}, std::optional<uint64_t>{rows / 2 + 1}}) {
            Query q = query_of({Star{}}, qrng() % 2 ? Cnf{} : test::random_cnf(catalog.get("t"), qrng, 2, 3));
            q.order_by = OrderBy{ColumnRef{"", c}, desc};
            q.limit = limit;
            check_query(q, catalog,
                        "rows " + std::to_string(rows) + " " + to_string(dist) + " seed " + std::to_string(seed));
          }
        }
      }
    }
  }
}

TEST_CASE("compute: ORDER BY over several sort tiles runs the onesweep sort and says so") {
  // 3 onesweep tiles of the key + value kernel with and without WHERE; a look-back fallback is
  // exact too and named in the algorithm.
  std::mt19937_64 rng(37);
  for (Distribution dist : {Distribution::Uniform, Distribution::Skewed}) {
    const uint64_t seed = rng();
    const Catalog catalog = catalog_of(test::random_table(3 * ONESWEEP_TILE_KV + 5, dist, seed));
    for (const char* c : {"a", "x"}) {
      Query q = query_of({Star{}}, rng() % 2 ? Cnf{} : test::random_cnf(catalog.get("t"), rng, 1, 2));
      q.order_by = OrderBy{ColumnRef{"", c}, rng() % 2 == 0};
      const std::string what = std::string(to_string(dist)) + " seed " + std::to_string(seed);
      check_query(q, catalog, what);
      const Result r = engine().execute(q, catalog, Backend::Compute);
      INFO(what << "\nquery: " << q.text() << "\nalgorithm: " << r.report.algorithm);
      if (r.table.rows() > ONESWEEP_TILE_KV)
        CHECK(r.report.algorithm.find("(onesweep LSD radix sort") != std::string::npos);
    }
  }
}

TEST_CASE("compute: ORDER BY over several sort binding windows matches the CPU and says so") {
  // Windows of 16384 keys (one sort block): the sorted pairs span 2, 3 and 8 windows, with and
  // without WHERE and LIMIT, INT with many duplicates and FLOAT with special values, both directions.
  // LIMIT 5 takes the top-k path, its radix select over the same windows.
  constexpr uint64_t kWindow = 16384;
  Engine& w = windowed(kWindow);
  std::mt19937_64 rng(41);
  int combo = 0;
  for (uint64_t rows : {kWindow + 1, 3 * kWindow - 1, 8 * kWindow}) {
    const uint64_t seed = rng();
    const Catalog catalog = catalog_of(test::random_table(rows, Distribution::Uniform, seed));
    for (const char* c : {"b", "y"}) {
      Query q = query_of({Star{}}, rng() % 2 ? Cnf{} : test::random_cnf(catalog.get("t"), rng, 1, 2));
      q.order_by = OrderBy{ColumnRef{"", c}, rng() % 2 == 0};
      const uint64_t pick = combo++ % 3;
      if (pick > 0) q.limit = pick == 1 ? rows / 2 : 5;
      const std::string what = "rows " + std::to_string(rows) + " seed " + std::to_string(seed);
      check_query(q, catalog, what, w);
      const Result r = w.execute(q, catalog, Backend::Compute);
      const uint64_t selected = cpu::select_rows(catalog.get("t"), "t", q.where).size();
      INFO(what << "\nquery: " << q.text() << "\nalgorithm: " << r.report.algorithm);
      if (selected > kWindow) {
        const uint64_t windows = (selected + kWindow - 1) / kWindow;
        const std::string spans = "over " + std::to_string(windows) + " binding windows of 16384 keys";
        CHECK(r.report.algorithm.find(pick == 2 ? "radix select of the threshold key " + spans : spans) !=
              std::string::npos);
        CHECK((r.report.algorithm.find("top-5") != std::string::npos) == (pick == 2));
      }
    }
  }
  {
    const Catalog catalog = catalog_of(test::random_table(2 * kWindow + 1, Distribution::Skewed, 6));
    const char* sql = "SELECT * FROM t ORDER BY y DESC LIMIT 5";
    check_query(sql::parse(sql), catalog, sql, w);
    const Result r = w.execute_sql(sql, catalog, Backend::Compute);
    INFO(r.report.algorithm);
    CHECK(r.report.algorithm.find("top-5 by y DESC: radix select of the threshold key over 3 binding windows of "
                                  "16384 keys") != std::string::npos);
  }
  // One more row than 8 windows hold: the top-k path's select spans 9 windows (8 or 9 under the
  // WHERE), the full sort is Unsupported, naming the sizes.
  const Catalog catalog = catalog_of(test::random_table(8 * kWindow + 1, Distribution::Uniform, 5));
  for (const char* sql :
       {"SELECT * FROM t ORDER BY a LIMIT 1024", "SELECT b, x FROM t WHERE b <> 0 ORDER BY x DESC LIMIT 3"}) {
    check_query(sql::parse(sql), catalog, sql, w);
    const Result r = w.execute_sql(sql, catalog, Backend::Compute);
    const uint64_t selected = cpu::select_rows(catalog.get("t"), "t", sql::parse(sql).where).size();
    INFO(r.report.algorithm);
    CHECK(r.report.algorithm.find("radix select of the threshold key over " +
                                  std::to_string((selected + kWindow - 1) / kWindow) +
                                  " binding windows of 16384 keys") != std::string::npos);
  }
  try {
    w.execute_sql("SELECT * FROM t ORDER BY a", catalog, Backend::Compute);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Unsupported);
    CHECK(std::string(e.what()).find("131073 keys: more than 8 binding windows of 16384 keys") != std::string::npos);
  }
  CHECK(w.take_debug_messages().empty());
}

TEST_CASE("compute: quantiles over several select binding windows match the CPU and say so") {
  // Windows of 4096 keys: the keys span 2, 3, 8 and 11 windows (c x W +- 1 rows), without WHERE
  // (the raw INT/FLOAT column: duplicates, INT32 extremes, -0.0/NaN/inf in y, all-equal and sorted
  // tables) and with WHERE (compacted order keys), also from several scan chunks (the compaction's
  // output windows).
  constexpr uint64_t kWindow = 4096;
  Engine& w = windowed(kWindow);
  std::mt19937_64 rng(43);
  const Distribution dists[] = {Distribution::Uniform, Distribution::Skewed, Distribution::AllEqual,
                                Distribution::Sorted};
  int combo = 0;
  for (uint64_t rows : {2 * kWindow + 1, 3 * kWindow - 1, 8 * kWindow, 11 * kWindow + 1}) {
    const uint64_t seed = rng();
    const Distribution dist = dists[combo++ % 4];
    const Catalog catalog = catalog_of(test::random_table(rows, dist, seed));
    const std::string what = "rows " + std::to_string(rows) + " " + to_string(dist) + " seed " + std::to_string(seed);
    const int64_t n = int64_t(rows);
    for (int i = 0; i < 3; ++i) {
      // No WHERE, a broad WHERE (most rows, several windows of compacted keys), a random one.
      const Cnf where = i == 0   ? Cnf{}
                        : i == 1 ? sql::parse("SELECT COUNT(*) FROM t WHERE b <> 7 OR y > 0.5").where
                                 : test::random_cnf(catalog.get("t"), rng, 2, 2);
      for (const char* c : {"a", "b", "y", "x"}) {
        const Query q = query_of(
            {agg(AggKind::Median, c), agg(AggKind::Quantile, c, 1e-9), agg(AggKind::Quantile, c, 0.37),
             agg(AggKind::Quantile, c, 1.0), agg(AggKind::KthLargest, c, 0.5, 1), agg(AggKind::KthLargest, c, 0.5, 5),
             agg(AggKind::KthLargest, c, 0.5, n / 2), agg(AggKind::KthLargest, c, 0.5, n)},
            where);
        check_query(q, catalog, what, w);
        const Result r = w.execute(q, catalog, Backend::Compute);
        const uint64_t selected = cpu::select_rows(catalog.get("t"), "t", where).size();
        INFO(what << "\nquery: " << q.text() << "\nalgorithm: " << r.report.algorithm);
        if (selected > kWindow) {
          const std::string over =
              "over " + std::to_string((selected + kWindow - 1) / kWindow) + " binding windows of 4096 keys";
          CHECK(r.report.algorithm.find(std::string(i == 0 ? "radix select of the column " : "radix select ") + over) !=
                std::string::npos);
          bool pass_named = false;
          for (const PassRecord& p : r.report.passes)
            pass_named = pass_named || (p.kind == "radix-select" && p.detail.find(over) != std::string::npos);
          CHECK(pass_named);
        }
      }
    }
  }
  {
    // The compacted keys from 2048-row scan chunks (one output window each) into 3 select windows.
    Engine& chunked = test::engine_with({.chunk_rows = 2048, .max_groups = 2048, .sort_window = kWindow});
    const Catalog catalog = catalog_of(test::random_table(3 * kWindow + 1, Distribution::Uniform, 44));
    const char* sql = "SELECT MEDIAN(x), QUANTILE(a, 0.9), KTH_LARGEST(y, 3) FROM t WHERE b > -900";
    check_query(sql::parse(sql), catalog, sql, chunked);
  }
  CHECK(w.take_debug_messages().empty());
}

TEST_CASE("compute: LIMIT without ORDER BY, LIMIT 0 and plain projections") {
  const Catalog catalog = catalog_of(test::random_table(3000, Distribution::Skewed, 3));
  std::mt19937_64 qrng(3);
  for (uint64_t limit : {0, 1, 5, 1500, 5000}) {
    Query q = query_of({ColumnRef{"", "x"}, ColumnRef{"", "b"}}, test::random_cnf(catalog.get("t"), qrng, 2, 2));
    q.limit = limit;
    check_query(q, catalog, "limit " + std::to_string(limit));
    q.where = {};
    check_query(q, catalog, "no WHERE, limit " + std::to_string(limit));
    Query a = query_of({agg(AggKind::Count), agg(AggKind::Median, "a")}, q.where);
    a.limit = limit;
    check_query(a, catalog, "aggregate, limit " + std::to_string(limit));
  }
  check_query(query_of({Star{}}), catalog, "SELECT *");
}

TEST_CASE("compute: sizes around workgroup, round and group boundaries") {
  // 256 invocations x 4 rows = 1024 rows per vector of the count kernels, 4096 per round; 2048
  // rows per mask block (chunks align to it), 16384 per tile of cnf_flags (8 blocks).
  for (uint64_t rows : {0,    1,    3,    4,    5,    255,  256,  257,   1023,  1024, 1025,
                        2047, 2048, 2049, 4095, 4096, 4097, 8193, 16383, 16384, 16385}) {
    const uint64_t seed = rows * 7 + 1;
    const Catalog catalog = catalog_of(test::random_table(rows, Distribution::Uniform, seed));
    std::mt19937_64 qrng(seed);
    const Cnf cnf = test::random_cnf(catalog.get("t"), qrng, 2, 2);
    const std::string what = "rows " + std::to_string(rows) + " seed " + std::to_string(seed);
    check_query(query_of({agg(AggKind::Count)}, cnf), catalog, what);
    check_query(query_of({Star{}}, cnf), catalog, what);
    check_query(
        query_of({agg(AggKind::Sum, "a"), agg(AggKind::Sum, "y"), agg(AggKind::Max, "x"), agg(AggKind::Median, "b")},
                 cnf),
        catalog, what);
    Query q = query_of({Star{}}, cnf);
    q.order_by = OrderBy{ColumnRef{"", "b"}, rows % 2 == 1};
    check_query(q, catalog, what);
  }
}

TEST_CASE("compute: several chunks and several rounds per workgroup under forced limits") {
  std::mt19937_64 rng(77);
  // 2048-row chunks with one workgroup of 4096 rows each; 40000-row chunks with 2 workgroups of
  // 5 rounds each.
  for (auto [chunk, groups, rows] : {std::tuple{2048, 2048, 2048},
                                     {2048, 2048, 2049},
                                     {2048, 2048, 6144},
                                     {2048, 2048, 10000},
                                     {40960, 2, 40961},
                                     {0, 1, 30000}}) {
    Engine& forced = limited(uint64_t(chunk), uint32_t(groups));
    for (Distribution dist : {Distribution::Uniform, Distribution::Sorted}) {
      const uint64_t seed = rng();
      const Catalog catalog = catalog_of(test::random_table(rows, dist, seed));
      std::mt19937_64 qrng(seed);
      const std::string what = "rows " + std::to_string(rows) + " chunk " + std::to_string(chunk) + " groups " +
                               std::to_string(groups) + " seed " + std::to_string(seed);
      for (int i = 0; i < 3; ++i) {
        const Cnf cnf = test::random_cnf(catalog.get("t"), qrng, 3, 3);
        check_query(query_of({agg(AggKind::Count)}, cnf), catalog, what, forced);
        check_query(query_of({Star{}}, cnf), catalog, what, forced);
        check_query(query_of({agg(AggKind::Sum, "a"), agg(AggKind::Avg, "x"), agg(AggKind::Min, "y"),
                              agg(AggKind::Quantile, "b", 0.3), agg(AggKind::KthLargest, "x", 0.5, 3)},
                             cnf),
                    catalog, what, forced);
        Query q = query_of({ColumnRef{"", "a"}, ColumnRef{"", "y"}}, cnf);
        q.order_by = OrderBy{ColumnRef{"", i == 0 ? "b" : "y"}, i == 1};
        check_query(q, catalog, what, forced);
        q.limit = 5;
        check_query(q, catalog, what, forced);
      }
    }
  }
  // The plans those limits give, as the report shows them.
  {
    Engine& forced = limited(2048, 2048);
    const Catalog catalog = catalog_of(test::random_table(10000, Distribution::Uniform, 1));
    const Result r = forced.execute_sql("SELECT COUNT(*) FROM t WHERE a < 0", catalog, Backend::Compute);
    CHECK(r.report.passes.at(1).detail.find("5 chunks, 5 workgroups x 4096 rows") != std::string::npos);
  }
  vk::Device& device = test::vk_device();
  const vk::ScanPlan chunks = vk::plan_scan(device, 10000, {2048, 2048});
  CHECK(chunks.chunks.size() == 5);
  CHECK(chunks.groups == 5);
  CHECK(chunks.chunks.back().rows == 10000 - 4 * 2048);
  const vk::ScanPlan rounds = vk::plan_scan(device, 40961, {40960, 2});
  CHECK(rounds.chunks.size() == 2);
  CHECK(rounds.chunks[0].rows_per_group == 5 * vk::kCnfRound);
  CHECK(rounds.groups == 3);
}

TEST_CASE("compute: selections keep row order when each workgroup takes tiles far apart") {
  // cnf_flags counts per 2048-row block and takes 16384-row tiles (8 blocks) in turn, and
  // cnf_compact's subgroups take the blocks in turn and write each at its offset; with one, two or
  // three workgroups per chunk each takes every 1st, 2nd or 3rd tile. Sizes at tile and chunk
  // boundaries, one column (key intervals) and several.
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  constexpr uint64_t tile = 8 * vk::kCnfBlock;
  for (const auto& [chunk, groups, rows] :
       std::initializer_list<std::tuple<uint64_t, uint32_t, uint64_t>>{{0, 1, tile + 1},
                                                                       {0, 2, 3 * tile - 1},
                                                                       {0, 3, 3 * tile + 1},
                                                                       {5 * vk::kCnfBlock, 1, 11 * vk::kCnfBlock + 3},
                                                                       {3 * tile, 2, 5 * tile + 7}}) {
    Engine& forced = limited(chunk, groups);
    const uint64_t table_seed = rng();
    const Catalog catalog = catalog_of(test::random_table(rows, Distribution::Uniform, table_seed));
    std::mt19937_64 qrng(table_seed);
    const std::string what = "rows " + std::to_string(rows) + " chunk " + std::to_string(chunk) + " groups " +
                             std::to_string(groups) + " seed " + std::to_string(table_seed);
    Cnf one;
    one.clauses.push_back({{Comparison{ColumnRef{"", "x"}, CmpOp::Lt, 0.25}}});
    for (const Cnf& cnf : {one, test::random_cnf(catalog.get("t"), qrng, 3, 2)}) {
      check_query(query_of({Star{}}, cnf), catalog, what, forced);
      check_query(query_of({agg(AggKind::Count), agg(AggKind::Median, "a"), agg(AggKind::Quantile, "y", 0.9)}, cnf),
                  catalog, what, forced);
      Query q = query_of({ColumnRef{"", "b"}}, cnf);
      q.limit = 4097;
      check_query(q, catalog, what, forced);
    }
  }
  const vk::ScanPlan plan = vk::plan_scan(test::vk_device(), 5 * tile + 7, {3 * tile, 2});
  CHECK(plan.blocks() == 41);
  CHECK(plan.mask_words() == 41 * 64);
  CHECK(plan.chunks.size() == 2);
  CHECK(plan.chunks[1].first_block == 24);
  CHECK(plan.chunks[1].blocks == 17);
}

// The rows of "t" (INT column v, FLOAT column f) for a selection test of the three stages: v is
// 0 where a row should pass WHERE v = 0, else 1 (`pattern`: 0 random, 1 every row, 2 none, 3
// alternating, 4 runs of 700 rows, 5 one row in 2047).
Table three_stage_table(uint64_t rows, int pattern, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int32_t> v(rows);
  std::vector<float> f(rows);
  const std::vector<double>& specials = test::float_boundaries();
  for (uint64_t i = 0; i < rows; ++i) {
    const bool pass = pattern == 0   ? rng() % 2 == 0
                      : pattern == 1 ? true
                      : pattern == 2 ? false
                      : pattern == 3 ? i % 2 == 1
                      : pattern == 4 ? i / 700 % 2 == 0
                                     : i % 2047 == 5;
    v[i] = pass ? 0 : 1;
    f[i] =
        rng() % 8 == 0 ? float(specials[rng() % specials.size()]) : std::uniform_real_distribution<float>(-10, 10)(rng);
  }
  Table t;
  t.columns.push_back(Column::ints("v", std::move(v)));
  t.columns.push_back(Column::floats("f", std::move(f)));
  return t;
}

TEST_CASE("compute: the three-stage selection writes row ids, keys and pairs around block boundaries") {
  // cnf_flags marks 2048-row blocks (16384-row tiles of 8 per workgroup), scan() offsets them and
  // cnf_compact writes each block's rows, ids and/or order keys, at its offset: sizes around
  // blocks and tiles, one chunk and several (chunk_rows), one workgroup per chunk and several,
  // every row / no row / alternating rows / runs passing, and LIMIT cutting inside a block. The
  // outputs are filled with a sentinel first: nothing is written past LIMIT.
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  vk::Device& device = test::vk_device();
  constexpr uint64_t block = vk::kCnfBlock, tile = 8 * vk::kCnfBlock;
  constexpr uint32_t kSentinel = 0xdeadbeefu;
  struct Case {
    uint64_t rows;
    vk::ScanLimits limits;
  };
  const Case cases[] = {{0, {}},
                        {1, {}},
                        {block - 1, {}},
                        {block, {}},
                        {block + 1, {}},
                        {tile - 1, {}},
                        {tile, {0, 1}},
                        {tile + 1, {}},
                        {2 * tile + block + 1, {0, 2}},
                        {3 * block + 5, {block, 0}},
                        {2 * tile + 3, {tile + block, 1}},
                        {5 * tile - 1, {3 * block, 3}}};
  for (const Case& c : cases) {
    for (int pattern = 0; pattern < 6; ++pattern) {
      // A few patterns per size keep the case short on software Vulkan.
      if (c.rows > tile && pattern != 0 && pattern != 3 && pattern != 4) continue;
      const uint64_t table_seed = rng();
      const Catalog catalog = catalog_of(three_stage_table(c.rows, pattern, table_seed));
      const BoundQuery bound = bind(sql::parse("SELECT f FROM t WHERE v = 0"), catalog);
      vk::QueryContext ctx(device, bound, c.limits);
      const std::string what = "rows " + std::to_string(c.rows) + " chunk " + std::to_string(c.limits.chunk_rows) +
                               " groups " + std::to_string(c.limits.max_groups) + " pattern " +
                               std::to_string(pattern) + " seed " + std::to_string(table_seed) + ", " +
                               ctx.plan().summary();
      INFO(what);
      const auto& v = catalog.get("t").column("v").as<int32_t>();
      const auto& f = catalog.get("t").column("f").as<float>();
      std::vector<uint32_t> want;
      for (uint64_t r = 0; r < c.rows; ++r)
        if (v[r] == 0) want.push_back(uint32_t(r));
      const vk::CnfProgram program = vk::compile_cnf(bound.where);
      REQUIRE(program.outcome == vk::CnfProgram::Outcome::Rows);
      const vk::DeviceSelection selection = vk::mark_rows(ctx, program);
      CHECK(selection.count == want.size());
      // The public path: row ids, all of them and the first half.
      CHECK(vk::selected_row_ids(ctx, selection) == want);
      const uint64_t half = want.size() / 2 + 1;
      CHECK(vk::selected_row_ids(ctx, selection, half) ==
            std::vector<uint32_t>(want.begin(), want.begin() + std::min<uint64_t>(half, want.size())));
      if (c.rows == 0) continue;
      const BoundColumn& column = std::get<BoundColumn>(bound.items.at(0));
      const vk::DeviceColumn& values = ctx.column(column);
      // Limits: all, one, inside the first block and inside a later one, one short of all.
      for (const uint64_t limit : {want.size() + 1, uint64_t(1), block / 2 + 3, want.size() * 2 / 3 + 1,
                                   want.size() > 0 ? want.size() - 1 : 0}) {
        const uint64_t kept = std::min<uint64_t>(limit, want.size());
        for (const int what_out : {1, 2, 3}) {  // ids, keys, pairs
          const bool ids = what_out & 1, keys = what_out & 2;
          INFO("limit " << limit << ", outputs " << what_out << " (1: ids, 2: keys, 3: pairs)");
          const uint64_t room = want.size() + 64;
          const std::vector<uint32_t> sentinel(room, kSentinel);
          vk::Buffer id_buffer = device.create_buffer(vk::padded_bytes(room), vk::MemoryKind::Device);
          vk::Buffer key_buffer = device.create_buffer(vk::padded_bytes(room), vk::MemoryKind::Device);
          device.upload(id_buffer, sentinel.data(), room * 4);
          device.upload(key_buffer, sentinel.data(), room * 4);
          vk::CompactTarget target;
          target.ids = ids ? &id_buffer : nullptr;
          target.keys = keys ? &key_buffer : nullptr;
          target.values = &values;
          target.limit = uint32_t(std::min<uint64_t>(limit, UINT32_MAX));
          target.chunk_starts = vk::output_windows(ctx, selection);
          // Also with no row marked: the kernel must write nothing.
          ctx.run("compact", "test", c.rows, [&](VkCommandBuffer cmd) {
            vk::record_cnf_compact(device, cmd, ctx.plan(), selection.mask, selection.offsets, target);
          });
          std::vector<uint32_t> got_ids(room), got_keys(room);
          device.download(id_buffer, got_ids.data(), room * 4);
          device.download(key_buffer, got_keys.data(), room * 4);
          std::vector<uint32_t> want_ids(room, kSentinel), want_keys(room, kSentinel);
          for (uint64_t k = 0; k < kept; ++k) {
            if (ids) want_ids[k] = want[k];
            if (keys) want_keys[k] = float_key(f[want[k]]);
          }
          CHECK(got_ids == want_ids);
          CHECK(got_keys == want_keys);
        }
      }
      GFXQ_CHECK_NO_VK_MESSAGES();
    }
  }
}

// The ways the one-pass kernel's workgroups find their tiles (ComputeOptions::select_tiles), as
// GFXQ_COMPUTE_SELECT_TILES names them, and the words its report gives each.
const std::tuple<SelectTiles, const char*, const char*> kSelectTiles[] = {
    {SelectTiles::Counter, "counter", "-row tiles taken from a counter"},
    {SelectTiles::Launch, "launch", "-row tiles in launch order"}};

// The algorithm the compute backend of `on` reports for `sql` over `catalog`.
std::string reported_algorithm(const std::string& sql, const Catalog& catalog, Engine& on = engine()) {
  return on.execute_sql(sql, catalog, Backend::Compute).report.algorithm;
}

// Rows per tile of the one-pass selection: a one-column interval program, several columns.
constexpr uint64_t kOneColumnTile = CNF_SELECT_TILE_S1_IV;
constexpr uint64_t kColumnsTile = CNF_SELECT_TILE_S8;

TEST_CASE("compute: one-pass row ids match the CPU at tile boundaries") {
  // Sizes around one, two and three tiles of one column (kOneColumnTile) and of several
  // (kColumnsTile). One column (key intervals), two columns and random multi-column CNFs.
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  Cnf one;
  one.clauses.push_back({{Comparison{ColumnRef{"", "x"}, CmpOp::Lt, 0.25}}});
  Cnf two;
  two.clauses.push_back(
      {{Comparison{ColumnRef{"", "x"}, CmpOp::Lt, 0.25}, Comparison{ColumnRef{"", "b"}, CmpOp::Gt, 0.0}}});
  constexpr uint64_t t1 = kOneColumnTile, t2 = kColumnsTile;
  const Catalog catalog = catalog_of(test::random_table(20000, Distribution::Uniform, seed));
  for (const auto& [tiles, tiles_name, tile_words] : kSelectTiles) {
    Engine& forced = test::engine_with({.select_tiles = tiles});
    for (uint64_t rows : {uint64_t(1), uint64_t(5), t2 - 1, t2, t2 + 1, 2 * t2 + 1, 3 * t2 - 1, t1 - 1, t1, t1 + 1,
                          2 * t1 + 1, 3 * t1 - 3}) {
      const uint64_t table_seed = rng();
      const Catalog table = catalog_of(test::random_table(rows, kDistributions[table_seed % 4], table_seed));
      std::mt19937_64 qrng(table_seed);
      const std::string what =
          std::string("tiles ") + tiles_name + " rows " + std::to_string(rows) + " seed " + std::to_string(table_seed);
      for (const Cnf& cnf : {one, two, test::random_cnf(table.get("t"), qrng, 3, 3)}) {
        check_query(query_of({Star{}}, cnf), table, what, forced);
        Query q = query_of({ColumnRef{"", "a"}}, cnf);
        q.limit = rows / 2 + 1;
        check_query(q, table, what, forced);
      }
    }
    // The report names the path that ran, its tiles and how workgroups found them.
    CHECK(reported_algorithm("SELECT a FROM t WHERE x < 0.5", catalog, forced)
              .find("one-pass CNF selection (1 clause, 1 term over 1 column): row ids by "
                    "decoupled look-back over " +
                    std::to_string(kOneColumnTile) + tile_words) != std::string::npos);
    CHECK(reported_algorithm("SELECT a FROM t WHERE x < 0.5 OR b > 0", catalog, forced)
              .find("over 2 columns): row ids by decoupled look-back over " + std::to_string(kColumnsTile) +
                    tile_words) != std::string::npos);
  }
  // Unforced: launch order on NVIDIA's devices only.
  const bool nvidia = engine().vk_capabilities().vendor_id == 0x10de;
  CHECK(reported_algorithm("SELECT a FROM t WHERE x < 0.5", catalog).find(std::get<2>(kSelectTiles[nvidia ? 1 : 0])) !=
        std::string::npos);
  // The override names a way, or the engine is not made.
  const test::ScopedEnv wrong{"GFXQ_COMPUTE_SELECT_TILES", "first"};
  CHECK_THROWS_WITH_AS(Engine(),
                       "GFXQ_COMPUTE_SELECT_TILES='first': expected counter, launch or auto (it overrides "
                       "ComputeOptions::select_tiles)",
                       Error);
}

TEST_CASE("compute: one-pass row ids fall back to three kernels when the look-back hits its bound") {
  // Bound 0: every tile but the first of a chunk fails, so any chunk of several tiles reruns by
  // the three-kernel path; bound 1: either path, the same rows. Single- and multi-chunk plans,
  // tiles from the counter and in launch order.
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const auto& [chunk, rows] :
       std::initializer_list<std::pair<uint64_t, uint64_t>>{{0, 2049},
                                                            {0, kOneColumnTile},
                                                            {0, kOneColumnTile + 1},
                                                            {0, 3 * kOneColumnTile + 17},
                                                            {kOneColumnTile + 2048, 2 * kOneColumnTile + 5000},
                                                            {2048, 2049}}) {
    for (const auto& [lookback, tiles] : {std::pair{0u, SelectTiles::Counter}, std::pair{0u, SelectTiles::Launch},
                                          std::pair{1u, SelectTiles::Counter}, std::pair{1u, SelectTiles::Launch}}) {
      Engine& forced = test::engine_with({.chunk_rows = chunk, .select_lookback = lookback, .select_tiles = tiles});
      const uint64_t table_seed = rng();
      const Catalog catalog = catalog_of(test::random_table(rows, Distribution::Uniform, table_seed));
      std::mt19937_64 qrng(table_seed);
      const std::string what =
          "rows " + std::to_string(rows) + " chunk " + std::to_string(chunk) + " lookback " + std::to_string(lookback) +
          " tiles " + (tiles == SelectTiles::Launch ? "launch" : "counter") + " seed " + std::to_string(table_seed);
      const Cnf cnf = test::random_cnf(catalog.get("t"), qrng, 2, 2);
      check_query(query_of({Star{}}, cnf), catalog, what, forced);
      Query q = query_of({ColumnRef{"", "y"}}, cnf);
      q.limit = 3000;
      check_query(q, catalog, what, forced);
      // Tiles per chunk: kOneColumnTile rows each with one column, kColumnsTile with several;
      // chunks of `chunk` rows (0: one chunk).
      const uint64_t chunk_rows = chunk == 0 ? rows : std::min(chunk, rows);
      for (const auto& [sql, tile] : std::initializer_list<std::pair<const char*, uint64_t>>{
               {"SELECT a FROM t WHERE x < 0.5", kOneColumnTile},
               {"SELECT a FROM t WHERE x < 0.5 OR b > 0", kColumnsTile}}) {
        const std::string algorithm = reported_algorithm(sql, catalog, forced);
        INFO(what << ": " << algorithm);
        if (lookback == 0)
          CHECK((algorithm.find("hit its look-back bound; fallback: fused CNF selection") != std::string::npos) ==
                (chunk_rows > tile));
      }
    }
  }
}

TEST_CASE("compute: one-pass row ids over several chunks keep row order and LIMIT across chunks") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Chunks of one tile and of several, for one column (kOneColumnTile rows) and several
  // (kColumnsTile rows).
  const std::pair<uint64_t, uint64_t> cases[] = {
      {kColumnsTile, kColumnsTile},   {kColumnsTile, kColumnsTile + 1},
      {kColumnsTile, 10000},          {8192, 8193},
      {10240, 3 * 10240 + 1},         {kOneColumnTile, 2 * kOneColumnTile + 1},
      {kOneColumnTile + 2048, 40000}, {2 * kOneColumnTile, 2 * kOneColumnTile + 7}};
  for (const auto& [chunk, rows] : cases) {
    for (const auto& [tiles, tiles_name, tile_words] : kSelectTiles) {
      Engine& forced = test::engine_with({.chunk_rows = chunk, .select_tiles = tiles});
      const uint64_t table_seed = rng();
      const Catalog catalog = catalog_of(test::random_table(rows, kDistributions[table_seed % 4], table_seed));
      std::mt19937_64 qrng(table_seed);
      const std::string what = "rows " + std::to_string(rows) + " chunk " + std::to_string(chunk) + " tiles " +
                               tiles_name + " seed " + std::to_string(table_seed);
      // One tile per chunk never looks back, so the one-pass kernel must have run; with more, a
      // look-back may hit its bound on lavapipe when the host is busy (workgroups are CPU threads).
      for (const char* sql : {"SELECT a FROM t WHERE x < 0.5", "SELECT a FROM t WHERE x < 0.5 OR b > 0"}) {
        const std::string algorithm = reported_algorithm(sql, catalog, forced);
        const bool one_tile = std::min(chunk, rows) <=
                              (algorithm.find("over 1 column)") != std::string::npos ? kOneColumnTile : kColumnsTile);
        CHECK_MESSAGE(algorithm.find("compute: one-pass CNF selection") == 0, algorithm);
        CHECK_MESSAGE(algorithm.find(tile_words) != std::string::npos, algorithm);
        CHECK_MESSAGE((algorithm.find("fallback") == std::string::npos || !one_tile), algorithm);
      }
      for (int i = 0; i < 2; ++i) {
        const Cnf cnf = test::random_cnf(catalog.get("t"), qrng, 3, 3);
        check_query(query_of({Star{}}, cnf), catalog, what, forced);
        for (uint64_t limit : {uint64_t(1), chunk - 1, chunk + 1, rows}) {
          Query q = query_of({ColumnRef{"", "b"}, ColumnRef{"", "x"}}, cnf);
          q.limit = limit;
          check_query(q, catalog, what + " limit " + std::to_string(limit), forced);
        }
        Query o = query_of({ColumnRef{"", "a"}}, cnf);
        o.order_by = OrderBy{ColumnRef{"", "y"}, i == 1};
        check_query(o, catalog, what, forced);
      }
    }
  }
}

TEST_CASE("compute: the report names the algorithm and times every stage (EngineOptions::gpu_timing)") {
  const Catalog catalog = catalog_of(test::random_table(5000, Distribution::Uniform, 2));
  Engine timed({.debug = test::vk_validation_wanted(), .gpu_timing = true});
  const std::string count_sql = "SELECT COUNT(*) FROM t WHERE (a < 0 OR y > 0.5) AND b <> 3 AND x >= y";
  Result r = timed.execute_sql(count_sql, catalog, Backend::Compute);
  CHECK(r.report.algorithm == "compute: fused CNF count (3 clauses, 4 terms over 4 columns) in 1 dispatch");
  int dispatches = 0;
  for (const PassRecord& p : r.report.passes) {
    if (p.kind == "cnf-count") {
      ++dispatches;
      CHECK(p.items == 5000);
      CHECK(p.passed.has_value());
      CHECK(p.gpu_ms.has_value() == timed.vk_capabilities().timestamps);
    }
  }
  CHECK(timed.take_debug_messages().empty());
  // Untimed (the default): the same answer, and no pass claims a GPU time.
  const Result untimed = engine().execute_sql(count_sql, catalog, Backend::Compute);
  CHECK(test::table_difference(untimed.table, r.table).empty());
  for (const PassRecord& p : untimed.report.passes) CHECK_MESSAGE(!p.gpu_ms, p.kind);
  CHECK(dispatches == 1);
  CHECK(r.report.passes.front().kind == "upload");
  CHECK(r.report.passes.back().kind == "download");
  r = engine().execute_sql("SELECT * FROM t WHERE a < 0 ORDER BY y DESC LIMIT 3", catalog, Backend::Compute);
  CHECK(r.report.algorithm.find("top-3") != std::string::npos);
  r = engine().execute_sql("SELECT MEDIAN(x) FROM t WHERE a < 0", catalog, Backend::Compute);
  bool select = false;
  for (const PassRecord& p : r.report.passes) select = select || p.kind == "radix-select";
  CHECK(select);
}

TEST_CASE("compute: untimed passes are batched; the report counts submissions and host waits") {
  Catalog catalog = catalog_of(test::random_table(4000, Distribution::Uniform, 7));
  catalog.add("s", test::random_table(300, Distribution::Uniform, 8));
  const std::string sql = "SELECT t.b, COUNT(*), SUM(s.a) FROM t JOIN s ON t.b = s.b WHERE t.a > 0 GROUP BY t.b";
  Engine timed({.debug = test::vk_validation_wanted(), .gpu_timing = true});
  Engine queued({.debug = test::vk_validation_wanted()});
  for (int round = 0; round < 2; ++round) {  // the second round runs on cached columns
    const Result t = timed.execute_sql(sql, catalog, Backend::Compute);
    const Result q = queued.execute_sql(sql, catalog, Backend::Compute);
    CHECK(test::table_difference(t.table, q.table).empty());
    CHECK(test::table_difference(q.table, engine().execute_sql(sql, catalog, Backend::Cpu).table).empty());
    INFO("round " << round << ": timed " << t.report.gpu_submissions << "/" << t.report.gpu_waits << ", queued "
                  << q.report.gpu_submissions << "/" << q.report.gpu_waits);
    CHECK(q.report.gpu_submissions > 0);
    CHECK(q.report.gpu_waits <= q.report.gpu_submissions);
    CHECK(q.report.gpu_submissions < t.report.gpu_submissions);  // passes batched between host reads
    CHECK(q.report.gpu_waits < t.report.gpu_waits);
    CHECK(t.report.text().find("host waits") != std::string::npos);
  }
  CHECK(timed.take_debug_messages().empty());
  CHECK(queued.take_debug_messages().empty());
}

TEST_CASE("compute: unsupported operators are named, errors leave the engine usable and inputs untouched") {
  Table s = test::random_table(100, Distribution::Uniform, 4);
  Catalog catalog = catalog_of(test::random_table(100, Distribution::Uniform, 4));
  catalog.add("s", s);
  const Table before = catalog.get("t");
  auto expect = [&](const std::string& sql, ErrorCode code, const std::string& part) {
    try {
      engine().execute_sql(sql, catalog, Backend::Compute);
      FAIL("expected an error for " << sql);
    } catch (const Error& e) {
      CHECK(e.code() == code);
      CHECK_MESSAGE(std::string(e.what()).find(part) != std::string::npos, e.what());
    }
  };
  expect("SELECT b + 1, COUNT(*) FROM t GROUP BY b + 1", ErrorCode::Unsupported,
         "its key b + 1 is a bigint expression (the compute GROUP BY groups by 32-bit INT, FLOAT and DATE values)");
  expect("SELECT MEDIAN(t.a) FROM t JOIN s ON t.a = s.a", ErrorCode::Unsupported, "aggregate MEDIAN(t.a) is a rank");
  // Nine distinct columns in one WHERE exceed the kernel's slots.
  Table wide;
  for (int i = 0; i < 9; ++i) wide.columns.push_back(Column::ints("c" + std::to_string(i), {1, 2, 3}));
  catalog.add("w", wide);
  expect(
      "SELECT COUNT(*) FROM w WHERE c0 < 2 OR c1 < 2 OR c2 < 2 OR c3 < 2 OR c4 < 2 OR c5 < 2 OR c6 < 2 OR "
      "c7 < 2 OR c8 < 2",
      ErrorCode::Unsupported, "more than 8 distinct columns");
  expect("SELECT nope FROM t", ErrorCode::InvalidQuery, "nope");
  CHECK(test::table_difference(before, catalog.get("t")).empty());
  std::mt19937_64 qrng(4);
  check_query(query_of({agg(AggKind::Count), agg(AggKind::Sum, "b")}, test::random_cnf(before, qrng)), catalog,
              "after errors");
}

TEST_CASE("compute: operators record race-free under synchronization validation") {
  // The relational operators on the test device (validation + synchronization validation).
  vk::Device& device = test::vk_device();
  const Catalog catalog = catalog_of(test::random_table(5000, Distribution::Skewed, 8));
  for (const char* sql :
       {"SELECT * FROM t WHERE (a < 0 OR x > y) AND b <> 7", "SELECT SUM(b), MEDIAN(x), MAX(a) FROM t WHERE y < 0.7",
        "SELECT a, y FROM t WHERE b > 0 ORDER BY y DESC", "SELECT a FROM t WHERE b > 0 ORDER BY x LIMIT 9"}) {
    INFO(sql);
    const Query q = sql::parse(sql);
    const BoundQuery bound = bind(q, catalog);
    vk::QueryContext ctx(device, bound, {2048, 1});
    std::string algorithm;
    const Table got = bound.aggregate
                          ? vk::run_aggregates(ctx, algorithm)
                          : (bound.order_by ? vk::run_order_by(ctx, algorithm) : vk::run_selection(ctx, algorithm));
    const Result want = cpu::execute(q, catalog);
    const std::string diff = test::table_difference(want.table, got);
    CHECK_MESSAGE(diff.empty(), diff);
    GFXQ_CHECK_NO_VK_MESSAGES();
  }
}

TEST_CASE("compute: EngineOptions::pipeline_statistics gives each pipeline's compiler statistics, or says why not") {
  const Catalog catalog = test::catalog_of(test::random_table(3000, Distribution::Uniform, 11));
  const std::string sql = "SELECT COUNT(*), SUM(b) FROM t WHERE b > 10";
  // Off (the default): nothing, also after a compute query.
  Engine plain;
  if (plain.vk_capabilities().available) plain.execute_sql(sql, catalog, Backend::Compute);
  CHECK(plain.pipeline_statistics().empty());
  EngineOptions options;
  options.pipeline_statistics = true;
  Engine engine(options);
  const VkCapabilities& caps = engine.vk_capabilities();
  if (!caps.available) {
    // lavapipe lacks VK_KHR_pipeline_executable_properties: the backend says so.
    CHECK_MESSAGE(caps.unavailable_reason.find("VK_KHR_pipeline_executable_properties") != std::string::npos,
                  caps.unavailable_reason);
    CHECK_THROWS_AS(engine.execute_sql(sql, catalog, Backend::Compute), Error);
    CHECK(engine.pipeline_statistics().empty());
    return;
  }
  const Result r = engine.execute_sql(sql, catalog, Backend::Compute);
  CHECK(test::table_difference(engine.execute_sql(sql, catalog, Backend::Cpu).table, r.table).empty());
  const auto stats = engine.pipeline_statistics();
  REQUIRE(!stats.empty());
  for (const auto& [name, text] : stats) {
    CHECK(!name.empty());
    CHECK_MESSAGE(text.find('=') != std::string::npos, name << ": " << text);
  }
}
