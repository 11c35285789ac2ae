// Wrong answers found by differential probing (issue: reliability), each reproduced on every backend:
// QUANTILE ranks from the decimal q the user wrote, AVG of INT rounded once, FLOAT SUM exact on the
// CPU engine as on the GPU paths, and long CNF programs bounded by the driver's shader loop limit.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/bind.h"
#include "core/exact_sum.h"
#include "gfxq/cpu.h"
#include "gfxq/gfxq.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "vk/relational/select.h"

namespace {

using namespace gfxq;

constexpr Backend kBackends[] = {Backend::Cpu, Backend::Raster, Backend::Compute};

// The one value of a one-row, one-column result.
Value single(const Result& r) {
  REQUIRE(r.table.columns.size() == 1);
  REQUIRE(r.table.rows() == 1);
  return r.table.columns[0].value(0);
}

// `sql` on `backend`; the engine recorded no debug message.
Result run(const std::string& sql, const Catalog& catalog, Backend backend) {
  Result r = test::debug_engine().execute_sql(sql, catalog, backend);
  const auto messages = test::debug_engine().take_debug_messages();
  CHECK_MESSAGE(messages.empty(), test::joined(messages));
  CHECK(r.report.backend == backend);
  return r;
}

// The correctly rounded quotient sum / n, independently: the quotient in binary128 (113-bit
// significand) then to double. With n < 2^40 the exact quotient lies further than 2^-94 (relative)
// from any midpoint between doubles that it is not on, so the first rounding cannot move it across.
double quad_quotient(__int128 sum, uint64_t n) {
  return static_cast<double>(static_cast<__float128>(sum) / static_cast<__float128>(n));
}

}  // namespace

TEST_CASE("exact: QUANTILE ranks from the decimal q as written, on every backend") {
  // Over 1..n, QUANTILE(a, k/10) is ceil(k * n / 10) exactly; the double nearest 0.1 is above 0.1,
  // so ranking from it gave 2 for k = 1, n = 10.
  for (const uint64_t n : {10, 20, 30, 1000}) {
    std::vector<int32_t> values;
    for (uint64_t i = n; i >= 1; --i) values.push_back(int32_t(i));  // descending: the order must not matter
    const Catalog catalog = test::catalog_of(Table{{Column::ints("a", values)}});
    for (const Backend backend : kBackends)
      for (int k = 1; k <= 10; ++k) {
        const std::string q = k == 10 ? "1" : "0." + std::to_string(k);
        INFO("backend " << to_string(backend) << ", n = " << n << ", q = " << q);
        const Value v = single(run("SELECT QUANTILE(a, " + q + ") FROM t", catalog, backend));
        CHECK(std::get<int32_t>(v) == int32_t((uint64_t(k) * n + 9) / 10));
      }
  }
}

TEST_CASE("exact: quantile_rank is ceil(q * n) for the decimal q") {
  std::mt19937_64 rng(2611);
  INFO("seed 2611");
  for (int i = 0; i < 20000; ++i) {
    // q = m / 10^d with d in 1..9 digits, as a user writes it; the rank from integers alone.
    const int digits = 1 + int(rng() % 9);
    uint64_t scale = 1;
    for (int j = 0; j < digits; ++j) scale *= 10;
    const uint64_t m = 1 + rng() % scale;
    const uint64_t n = 1 + (rng() % 2 ? rng() % 1000 : rng() >> (rng() % 64));
    const std::string text = std::to_string(double(m) / double(scale));
    const double q = std::stod(std::to_string(m) + "e-" + std::to_string(digits));
    const unsigned __int128 want = (static_cast<unsigned __int128>(m) * n + scale - 1) / scale;
    INFO("q = " << m << "e-" << digits << ", n = " << n);
    CHECK(quantile_rank(q, n) == uint64_t(want));
  }
  CHECK(quantile_rank(1.0, 7) == 7);
  CHECK(quantile_rank(0.5, 7) == 4);
  CHECK(quantile_rank(1e-300, uint64_t(1) << 63) == 1);
  CHECK(quantile_rank(0.3, 10) == 3);
  CHECK(quantile_rank(0.7, 10) == 7);
  CHECK_THROWS_AS(quantile_rank(0.0, 5), Error);
  CHECK_THROWS_AS(quantile_rank(1.5, 5), Error);
}

TEST_CASE("exact: AVG of INT is the exact quotient rounded once") {
  // 4,194,305 rows of 2^31 - 1: the sum is not a double, and rounding it before dividing gave an
  // average above MAX.
  const uint64_t n = (uint64_t(1) << 22) + 1;
  const Catalog catalog =
      test::catalog_of(Table{{Column::ints("a", std::vector<int32_t>(n, std::numeric_limits<int32_t>::max()))}});
  for (const Backend backend : kBackends) {
    INFO("backend " << to_string(backend));
    const Result r = run("SELECT AVG(a), MAX(a) FROM t", catalog, backend);
    CHECK(r.table.columns[0].as<double>()[0] == 2147483647.0);
    CHECK(r.table.columns[1].as<int32_t>()[0] == std::numeric_limits<int32_t>::max());
  }
}

TEST_CASE("exact: int_average rounds the exact quotient once, random sums") {
  std::mt19937_64 rng(4242);
  INFO("seed 4242");
  for (int i = 0; i < 200000; ++i) {
    const uint64_t n = 1 + (rng() >> (24 + rng() % 40));             // 1 .. 2^40
    const __int128 mean = __int128(int64_t(rng()) >> (rng() % 64));  // any int64 magnitude
    const __int128 sum = mean * __int128(n) + __int128(int64_t(rng() % (2 * n + 1)) - int64_t(n));
    INFO("sum = " << double(sum) << ", n = " << n);
    CHECK(int_average(sum, n) == quad_quotient(sum, n));
  }
  // Halfway cases round to even; exact quotients stay exact.
  CHECK(int_average((__int128(1) << 53) + 1, 1) == 9007199254740992.0);
  CHECK(int_average((__int128(1) << 53) + 3, 1) == 9007199254740996.0);
  CHECK(int_average(-7, 2) == -3.5);
  CHECK(int_average(0, 9) == 0.0);
  CHECK(int_average(-(__int128(1) << 95), 1) == -std::ldexp(1.0, 95));
}

TEST_CASE("exact: FLOAT SUM and AVG agree bit for bit on every backend") {
  // 1e20 + 1 - 1e20: a row-order double sum gives 0, the exact sum 1.
  const Catalog catalog = test::catalog_of(Table{{Column::floats("x", {1e20f, 1.0f, -1e20f})}});
  for (const Backend backend : kBackends) {
    INFO("backend " << to_string(backend));
    const Result r = run("SELECT SUM(x), AVG(x) FROM t", catalog, backend);
    CHECK(r.table.columns[0].as<double>()[0] == 1.0);
    CHECK(r.table.columns[1].as<double>()[0] == 1.0 / 3.0);
  }
  // Random columns over the whole exponent range with cancellations: all three agree exactly.
  std::mt19937_64 rng(77);
  INFO("seed 77");
  for (int round = 0; round < 4; ++round) {
    std::vector<float> x(3000);
    for (auto& v : x) {
      const int e = int(rng() % 254);
      v = std::bit_cast<float>(uint32_t(rng() % 2) << 31 | uint32_t(e) << 23 | uint32_t(rng() & 0x7fffff));
    }
    for (size_t i = 0; i + 1 < x.size(); i += 7) x[i + 1] = -x[i];  // exact cancellations
    const Catalog c = test::catalog_of(Table{{Column::floats("x", x)}});
    const Result want = run("SELECT SUM(x), AVG(x) FROM t WHERE x <> 0.5", c, Backend::Cpu);
    for (const Backend backend : {Backend::Raster, Backend::Compute}) {
      INFO("backend " << to_string(backend) << ", round " << round);
      const std::string diff =
          test::table_difference(want.table, run("SELECT SUM(x), AVG(x) FROM t WHERE x <> 0.5", c, backend).table);
      CHECK_MESSAGE(diff.empty(), diff);
    }
  }
}

TEST_CASE("exact: ExactFloatSum does not depend on the order of the additions") {
  std::mt19937_64 rng(99);
  INFO("seed 99");
  std::vector<float> x(5000);
  for (auto& v : x) v = std::bit_cast<float>(uint32_t(rng()) & 0xff7fffffu);  // finite (exponent < 255)
  ExactFloatSum forward, backward, halves[2];
  for (size_t i = 0; i < x.size(); ++i) {
    forward.add(x[i]);
    backward.add(x[x.size() - 1 - i]);
    halves[i % 2].add(x[i]);
  }
  halves[0].merge(halves[1]);
  CHECK(std::bit_cast<uint64_t>(forward.result()) == std::bit_cast<uint64_t>(backward.result()));
  CHECK(std::bit_cast<uint64_t>(forward.result()) == std::bit_cast<uint64_t>(halves[0].result()));
  ExactFloatSum special;
  special.add(std::numeric_limits<float>::infinity());
  special.add(-std::numeric_limits<float>::infinity());
  CHECK(std::isnan(special.result()));
  CHECK(ExactFloatSum().result() == 0.0);
}

TEST_CASE("exact: a long CNF stays under the driver's shader loop limit or is refused") {
  // Clause j: (a = 10^6 + 16j OR ... 15 values no row holds ... OR a < 10^6), true for every row, so
  // every row walks every term. The driver's limit allows `most` terms: that many give the CPU's
  // count; one more is refused (Unsupported) where the driver has a limit, and counted elsewhere.
  const VkCapabilities& caps = test::debug_engine().vk_capabilities();
  REQUIRE(caps.available);
  uint64_t most = 4096;
  if (caps.shader_loop_limit) {
    most = 0;
    while (vk::cnf_loop_iterations(most + 2, 4096) <= caps.shader_loop_limit) ++most;  // + the top-k term
  }
  std::vector<int32_t> values(5000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = int32_t(i % 977) - 400;
  const Catalog catalog = test::catalog_of(Table{{Column::ints("a", values)}});
  // COUNT runs cnf_count, MEDIAN cnf_flags (16 evaluations per invocation), a projection cnf_select.
  Aggregate count, median;
  median.kind = AggKind::Median;
  median.column = ColumnRef{"", "a"};
  const std::vector<std::vector<SelectItem>> item_lists = {{count}, {median}, {ColumnRef{"", "a"}}};
  for (const uint64_t terms : {most, most + 1})
    for (const auto& items : item_lists) {
      Query q;
      q.table = "t";
      q.items = items;
      for (uint64_t t = 0; t < terms; ++t) {
        if (t % 16 == 0) q.where.clauses.emplace_back();
        const bool last = t % 16 == 15 || t + 1 == terms;
        q.where.clauses.back().terms.push_back(last ? Comparison{{"", "a"}, CmpOp::Lt, 1e6}
                                                    : Comparison{{"", "a"}, CmpOp::Eq, double(1000000 + t)});
      }
      INFO(terms << " terms, loop limit " << caps.shader_loop_limit << ", query " << q.text().substr(0, 40));
      const Result want = cpu::execute(q, catalog);
      if (caps.shader_loop_limit && terms > most) {
        try {
          test::debug_engine().execute(q, catalog, Backend::Compute);
          FAIL("a condition past the loop limit ran");
        } catch (const Error& e) {
          CHECK(e.code() == ErrorCode::Unsupported);
          CHECK(std::string(e.what()).find("ends a shader's loops after") != std::string::npos);
        }
      } else {
        const Result got = test::debug_engine().execute(q, catalog, Backend::Compute);
        const std::string diff = test::table_difference(want.table, got.table);
        CHECK_MESSAGE(diff.empty(), diff);
        CHECK(want.table.rows() >= 1);
      }
      const auto messages = test::debug_engine().take_debug_messages();
      CHECK_MESSAGE(messages.empty(), test::joined(messages));
    }
}
