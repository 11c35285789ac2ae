// CPU reference engine: aggregates (COUNT, SUM, AVG, MIN, MAX, MEDIAN, QUANTILE, KTH_LARGEST)
// without GROUP BY: exact sums, empty input, extremes, NaN and -0.0, quantile ranks.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "gfxq/cpu.h"
#include "test_support.h"
#include "gfxq/error.h"

using namespace gfxq;
using namespace gfxq::test;

namespace {

constexpr uint32_t kCanonicalNaN = 0x7fc00000u;
constexpr uint64_t kCanonicalNaND = 0x7ff8000000000000ull;

// SELECT aggs... FROM t [WHERE where], t holding `columns`; the one result row.
Table run(std::vector<Column> columns, std::vector<Aggregate> aggs, Cnf where = {}) {
  Catalog c;
  c.add("t", Table{std::move(columns)});
  Query q;
  q.table = "t";
  for (auto& a : aggs) q.items.push_back(a);
  q.where = std::move(where);
  return cpu::execute(q, c).table;
}

// One aggregate over one INT or FLOAT column named v.
Value one(Column v, Aggregate a) {
  v.name = "v";
  const Table t = run({std::move(v)}, {std::move(a)});
  REQUIRE(t.rows() == 1);
  return t.columns[0].value(0);
}

Value ints_agg(std::vector<int32_t> values, AggKind kind, double q = 0.5, int64_t k = 1) {
  return one(Column::ints("v", std::move(values)), agg(kind, "v", q, k));
}

Value floats_agg(std::vector<float> values, AggKind kind, double q = 0.5, int64_t k = 1) {
  return one(Column::floats("v", std::move(values)), agg(kind, "v", q, k));
}

bool is_null(const Value& v) {
  return std::holds_alternative<std::monostate>(v);
}
uint32_t float_bits(const Value& v) {
  return std::bit_cast<uint32_t>(std::get<float>(v));
}
uint64_t double_bits(const Value& v) {
  return std::bit_cast<uint64_t>(std::get<double>(v));
}

}  // namespace

TEST_CASE("cpu: aggregates over empty input: COUNT 0, every other aggregate NULL") {
  const Table t = run({Column::ints("a", {}), Column::floats("b", {})},
                      {agg(AggKind::Count), agg(AggKind::Sum, "a"), agg(AggKind::Sum, "b"), agg(AggKind::Avg, "a"),
                       agg(AggKind::Min, "b"), agg(AggKind::Max, "a"), agg(AggKind::Median, "b"),
                       agg(AggKind::Quantile, "a", 0.25), agg(AggKind::KthLargest, "b", 0.5, 1)});
  CHECK(t.schema() ==
        "COUNT(*):bigint,SUM(a):bigint,SUM(b):double,AVG(a):double,MIN(b):float,MAX(a):int,MEDIAN(b):float,"
        "QUANTILE(a, 0.25):int,KTH_LARGEST(b, 1):float");
  REQUIRE(t.rows() == 1);
  CHECK(t.columns[0].value(0) == Value{int64_t{0}});
  for (size_t i = 1; i < t.columns.size(); ++i) {
    CAPTURE(t.columns[i].name);
    CHECK(is_null(t.columns[i].value(0)));
  }
}

TEST_CASE("cpu: aggregates over input emptied by WHERE") {
  Cnf none;
  none.clauses.push_back(Clause{{Comparison{col("a"), CmpOp::Gt, 100.0}}});
  const Table t = run({Column::ints("a", {1, 2, 3})}, {agg(AggKind::Count), agg(AggKind::Sum, "a")}, none);
  CHECK(t.columns[0].value(0) == Value{int64_t{0}});
  CHECK(is_null(t.columns[1].value(0)));
}

TEST_CASE("cpu: aggregates over one row") {
  const Table t = run({Column::ints("a", {-7}), Column::floats("b", {2.5f})},
                      {agg(AggKind::Count), agg(AggKind::Sum, "a"), agg(AggKind::Avg, "a"), agg(AggKind::Sum, "b"),
                       agg(AggKind::Avg, "b"), agg(AggKind::Min, "a"), agg(AggKind::Max, "b"),
                       agg(AggKind::Median, "a"), agg(AggKind::Quantile, "b", 1e-9),
                       agg(AggKind::KthLargest, "a", 0.5, 1), agg(AggKind::KthLargest, "a", 0.5, 2)});
  const std::vector<Value> expected = {
      int64_t{1}, int64_t{-7}, -7.0, 2.5, 2.5, int32_t{-7}, 2.5f, int32_t{-7}, 2.5f, int32_t{-7}, std::monostate{}};
  REQUIRE(t.columns.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(t.columns[i].name);
    CHECK(t.columns[i].value(0) == expected[i]);
  }
}

TEST_CASE("cpu: aggregates over all-equal values") {
  const std::vector<int32_t> v(5, 4);
  CHECK(ints_agg(v, AggKind::Sum) == Value{int64_t{20}});
  CHECK(ints_agg(v, AggKind::Avg) == Value{4.0});
  CHECK(ints_agg(v, AggKind::Min) == Value{int32_t{4}});
  CHECK(ints_agg(v, AggKind::Max) == Value{int32_t{4}});
  CHECK(ints_agg(v, AggKind::Median) == Value{int32_t{4}});
  CHECK(ints_agg(v, AggKind::KthLargest, 0.5, 5) == Value{int32_t{4}});
  CHECK(is_null(ints_agg(v, AggKind::KthLargest, 0.5, 6)));
}

TEST_CASE("cpu: SUM and AVG of INT are exact, at the int32 extremes too") {
  CHECK(ints_agg({kMax, kMax}, AggKind::Sum) == Value{int64_t{4294967294}});
  CHECK(ints_agg({kMin, kMin}, AggKind::Sum) == Value{int64_t{-4294967296}});
  CHECK(ints_agg({kMax, kMin}, AggKind::Sum) == Value{int64_t{-1}});
  CHECK(ints_agg({-5, 3, -2}, AggKind::Sum) == Value{int64_t{-4}});
  CHECK(ints_agg({kMax, kMax}, AggKind::Avg) == Value{2147483647.0});
  CHECK(ints_agg({kMin, kMin, kMin}, AggKind::Avg) == Value{-2147483648.0});
  CHECK(ints_agg({kMax, kMin}, AggKind::Avg) == Value{-0.5});
  CHECK(ints_agg({-5, 3, -2}, AggKind::Avg) == Value{-4.0 / 3.0});
  CHECK(ints_agg({1, 2}, AggKind::Avg) == Value{1.5});
}

TEST_CASE("cpu: SUM(FLOAT) is the exact sum rounded once, in any row order, and results canonical") {
  // In double, 1e30f + 1 rounds back to 1e30f, so a row-order double sum gives 0 for two of these
  // orders; the exact sum is 1 in all three.
  CHECK(floats_agg({1e30f, 1.0f, -1e30f}, AggKind::Sum) == Value{1.0});
  CHECK(floats_agg({1.0f, 1e30f, -1e30f}, AggKind::Sum) == Value{1.0});
  CHECK(floats_agg({1e30f, -1e30f, 1.0f}, AggKind::Sum) == Value{1.0});
  // Rounded once: in double 2^53 + 1 ties back to 2^53 twice; the exact 2^53 + 2 is a double.
  CHECK(floats_agg({0x1p53f, 1.0f, 1.0f}, AggKind::Sum) == Value{0x1p53 + 2.0});
  // Exact in double although not in float: 2^24 + 1 + 1.
  CHECK(floats_agg({16777216.0f, 1.0f, 1.0f}, AggKind::Sum) == Value{16777218.0});
  CHECK(floats_agg({0.1f, 0.2f}, AggKind::Sum) == Value{static_cast<double>(0.1f) + static_cast<double>(0.2f)});
  CHECK(floats_agg({1.5f, 2.5f, -1.0f}, AggKind::Avg) == Value{1.0});
  CHECK(floats_agg({0.1f, 0.2f, 0.4f}, AggKind::Avg) ==
        Value{(static_cast<double>(0.1f) + static_cast<double>(0.2f) + static_cast<double>(0.4f)) / 3.0});
  // NaN in, canonical NaN out; inf - inf is NaN; -0.0 sums to +0.0.
  CHECK(double_bits(floats_agg({1.0f, kNegNaN}, AggKind::Sum)) == kCanonicalNaND);
  CHECK(double_bits(floats_agg({kInf, -kInf}, AggKind::Sum)) == kCanonicalNaND);
  CHECK(double_bits(floats_agg({kNegNaN}, AggKind::Avg)) == kCanonicalNaND);
  CHECK(double_bits(floats_agg({-0.0f, -0.0f}, AggKind::Sum)) == 0u);
  CHECK(double_bits(floats_agg({-0.0f}, AggKind::Avg)) == 0u);
  CHECK(floats_agg({kInf, 1.0f}, AggKind::Sum) == Value{std::numeric_limits<double>::infinity()});
}

TEST_CASE("cpu: MIN and MAX in the total order: NaN is the largest, results canonical") {
  CHECK(ints_agg({-3, kMin, kMax, 0}, AggKind::Min) == Value{kMin});
  CHECK(ints_agg({-3, kMin, kMax, 0}, AggKind::Max) == Value{kMax});
  CHECK(ints_agg({-3, -1, -2}, AggKind::Max) == Value{int32_t{-1}});
  CHECK(float_bits(floats_agg({1.0f, kNegNaN, -kInf}, AggKind::Max)) == kCanonicalNaN);
  CHECK(floats_agg({1.0f, kNegNaN, -kInf}, AggKind::Min) == Value{-kInf});
  CHECK(floats_agg({1.0f, kNaN, kInf}, AggKind::Min) == Value{1.0f});
  CHECK(float_bits(floats_agg({kNaN, kNegNaN}, AggKind::Min)) == kCanonicalNaN);
  CHECK(float_bits(floats_agg({0.0f, -0.0f}, AggKind::Min)) == 0u);   // +0.0, not -0.0
  CHECK(float_bits(floats_agg({-0.0f, -1.0f}, AggKind::Max)) == 0u);  // -0.0 reported as +0.0
  CHECK(floats_agg({-0.0f, 1e-45f}, AggKind::Max) == Value{1e-45f});  // a denormal is above zero
}

TEST_CASE("cpu: MEDIAN, QUANTILE and KTH_LARGEST pick ranks in the total order") {
  const std::vector<int32_t> v = {40, 10, 30, 20};  // ascending: 10 20 30 40
  CHECK(ints_agg(v, AggKind::Quantile, std::numeric_limits<double>::denorm_min()) == Value{int32_t{10}});
  CHECK(ints_agg(v, AggKind::Quantile, 1e-300) == Value{int32_t{10}});
  CHECK(ints_agg(v, AggKind::Quantile, 0.25) == Value{int32_t{10}});  // ceil(1.0) = 1
  CHECK(ints_agg(v, AggKind::Quantile, 0.26) == Value{int32_t{20}});  // ceil(1.04) = 2
  CHECK(ints_agg(v, AggKind::Quantile, 0.5) == Value{int32_t{20}});   // rank 2
  CHECK(ints_agg(v, AggKind::Median) == Value{int32_t{20}});
  CHECK(ints_agg(v, AggKind::Quantile, 0.75) == Value{int32_t{30}});  // rank 3
  CHECK(ints_agg(v, AggKind::Quantile, 0.7500001) == Value{int32_t{40}});
  CHECK(ints_agg(v, AggKind::Quantile, 1.0) == Value{int32_t{40}});        // rank 4
  CHECK(ints_agg({5, 1, 4, 2, 3}, AggKind::Median) == Value{int32_t{3}});  // ceil(2.5) = 3
  CHECK(ints_agg({5, -1, kMin, 2, kMax}, AggKind::Median) == Value{int32_t{2}});

  CHECK(ints_agg(v, AggKind::KthLargest, 0.5, 1) == Value{int32_t{40}});
  CHECK(ints_agg(v, AggKind::KthLargest, 0.5, 2) == Value{int32_t{30}});
  CHECK(ints_agg(v, AggKind::KthLargest, 0.5, 4) == Value{int32_t{10}});
  CHECK(is_null(ints_agg(v, AggKind::KthLargest, 0.5, 5)));
  CHECK(is_null(ints_agg(v, AggKind::KthLargest, 0.5, std::numeric_limits<int64_t>::max())));
  CHECK(ints_agg({5, 5, 3}, AggKind::KthLargest, 0.5, 2) == Value{int32_t{5}});  // duplicates count

  // FLOAT: ascending -inf, -1, -0.0 ~ 0.0, 2, NaN, NaN.
  const std::vector<float> f = {kNaN, 0.0f, -1.0f, kNegNaN, -0.0f, 2.0f, -kInf};
  CHECK(floats_agg(f, AggKind::Median) == Value{0.0f});  // rank ceil(3.5) = 4: a zero, reported +0.0
  CHECK(float_bits(floats_agg(f, AggKind::Median)) == 0u);
  CHECK(float_bits(floats_agg(f, AggKind::Quantile, 0.5)) == 0u);
  CHECK(floats_agg(f, AggKind::Quantile, 0.1) == Value{-kInf});
  CHECK(floats_agg(f, AggKind::Quantile, 0.2) == Value{-1.0f});                // ceil(1.4) = 2
  CHECK(float_bits(floats_agg(f, AggKind::Quantile, 0.3)) == 0u);              // ceil(2.1) = 3: -0.0 ~ 0.0, +0.0 out
  CHECK(floats_agg(f, AggKind::Quantile, 0.7) == Value{2.0f});                 // ceil(4.9) = 5
  CHECK(float_bits(floats_agg(f, AggKind::Quantile, 0.75)) == kCanonicalNaN);  // ceil(5.25) = 6
  CHECK(float_bits(floats_agg(f, AggKind::KthLargest, 0.5, 1)) == kCanonicalNaN);
  CHECK(float_bits(floats_agg(f, AggKind::KthLargest, 0.5, 2)) == kCanonicalNaN);
  CHECK(floats_agg(f, AggKind::KthLargest, 0.5, 3) == Value{2.0f});
  CHECK(float_bits(floats_agg(f, AggKind::KthLargest, 0.5, 4)) == 0u);
  CHECK(floats_agg(f, AggKind::KthLargest, 0.5, 7) == Value{-kInf});
  CHECK(is_null(floats_agg(f, AggKind::KthLargest, 0.5, 8)));
  CHECK(float_bits(floats_agg({-0.0f}, AggKind::Median)) == 0u);
}

TEST_CASE("cpu: COUNT(column) counts rows, and aggregates see only rows passing WHERE") {
  Cnf positive;
  positive.clauses.push_back(Clause{{Comparison{col("a"), CmpOp::Gt, 0.0}}});
  const Table t =
      run({Column::ints("a", {3, -1, 8, 0, 5}), Column::floats("b", {1, 2, 4, 8, 16})},
          {agg(AggKind::Count, "b"), agg(AggKind::Sum, "b"), agg(AggKind::Min, "a"), agg(AggKind::Avg, "a")}, positive);
  CHECK(t.columns[0].value(0) == Value{int64_t{3}});
  CHECK(t.columns[1].value(0) == Value{21.0});  // 1 + 4 + 16
  CHECK(t.columns[2].value(0) == Value{int32_t{3}});
  CHECK(t.columns[3].value(0) == Value{16.0 / 3.0});
}

TEST_CASE("cpu: LIMIT applies to the one row of an aggregate query") {
  Catalog c;
  c.add("t", Table{{Column::ints("a", {1, 2, 3})}});
  Query q;
  q.table = "t";
  q.items = {agg(AggKind::Count)};
  q.limit = 0;
  const Result none = cpu::execute(q, c);
  CHECK(none.table.schema() == "COUNT(*):bigint");
  CHECK(none.table.rows() == 0);
  CHECK(none.report.algorithm == "cpu-reference: scan + filter + limit + aggregate");
  q.limit = 1;
  CHECK(cpu::execute(q, c).table.columns[0].value(0) == Value{int64_t{3}});
  q.limit = 5;
  CHECK(cpu::execute(q, c).table.rows() == 1);
}

TEST_CASE("cpu: an aggregate query reports scan + filter + aggregate") {
  Catalog c;
  c.add("t", Table{{Column::ints("a", {1, 2, 3})}});
  Query q;
  q.table = "t";
  q.items = {agg(AggKind::Count), agg(AggKind::Sum, "a")};
  const Result r = cpu::execute(q, c);
  CHECK(r.report.algorithm == "cpu-reference: scan + filter + aggregate");
  REQUIRE(r.report.passes.size() == 4);
  CHECK(r.report.passes[3].kind == "aggregate");
  CHECK(r.report.passes[3].items == 3);
  CHECK(r.report.passes[3].passed == 1u);
  CHECK(r.report.passes[3].detail == "COUNT(*), SUM(a)");
}

TEST_CASE("cpu: random aggregates agree with a sort-based brute force") {
  const uint64_t seed = 20240611;
  INFO("seed = " << seed);
  std::mt19937_64 rng(seed);
  const float specials[] = {kNaN, kNegNaN, 0.0f, -0.0f, kInf, -kInf, 1e-45f, -1.5f};
  // The total order, written independently of order_key.h: NaNs last and equal, zeros equal.
  const auto less = [](float a, float b) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
    return a < b;
  };
  for (int round = 0; round < 60; ++round) {
    const size_t n = 1 + rng() % 200;
    std::vector<int32_t> ints(n);
    std::vector<float> floats(n);
    for (size_t i = 0; i < n; ++i) {
      ints[i] = (round % 2) ? static_cast<int32_t>(rng()) : static_cast<int32_t>(rng() % 21) - 10;
      floats[i] = (rng() % 4 == 0) ? specials[rng() % 8] : static_cast<float>(static_cast<int>(rng() % 41) - 20) / 4;
    }
    // q = m / 1024 and k both random; ceil(q * n) is exact in double at these sizes.
    const double q = static_cast<double>(1 + rng() % 1024) / 1024.0;
    const int64_t k = 1 + static_cast<int64_t>(rng() % (n + 2));
    CAPTURE(n);
    CAPTURE(q);
    CAPTURE(k);
    const uint64_t rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(n)));

    std::vector<int32_t> si = ints;
    std::sort(si.begin(), si.end());
    std::vector<float> sf = floats;
    std::stable_sort(sf.begin(), sf.end(), less);
    int64_t sum = 0;
    for (int32_t v : ints) sum += v;

    const Table t =
        run({Column::ints("i", ints), Column::floats("f", floats)},
            {agg(AggKind::Sum, "i"), agg(AggKind::Min, "i"), agg(AggKind::Max, "i"), agg(AggKind::Quantile, "i", q),
             agg(AggKind::KthLargest, "i", q, k), agg(AggKind::Quantile, "f", q), agg(AggKind::KthLargest, "f", q, k),
             agg(AggKind::Min, "f"), agg(AggKind::Max, "f")});
    CHECK(t.columns[0].value(0) == Value{sum});
    CHECK(t.columns[1].value(0) == Value{si.front()});
    CHECK(t.columns[2].value(0) == Value{si.back()});
    CHECK(t.columns[3].value(0) == Value{si[rank - 1]});
    const auto kth = [&](const auto& sorted) { return sorted[n - static_cast<size_t>(k)]; };
    if (static_cast<size_t>(k) <= n) {
      CHECK(t.columns[4].value(0) == Value{kth(si)});
    } else {
      CHECK(is_null(t.columns[4].value(0)));
    }
    // Compare floats by total-order equivalence, and check the result is canonical.
    const auto same = [&](const Value& got, float want) {
      const float g = std::get<float>(got);
      const bool canonical = std::isnan(g) ? std::bit_cast<uint32_t>(g) == kCanonicalNaN : !(g == 0 && std::signbit(g));
      return canonical && !less(g, want) && !less(want, g);
    };
    CHECK(same(t.columns[5].value(0), sf[rank - 1]));
    if (static_cast<size_t>(k) <= n) {
      CHECK(same(t.columns[6].value(0), kth(sf)));
    } else {
      CHECK(is_null(t.columns[6].value(0)));
    }
    CHECK(same(t.columns[7].value(0), sf.front()));
    CHECK(same(t.columns[8].value(0), sf.back()));
  }
}
