// Seeded table generators: determinism, ranges, the four distributions, spec errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gfxq/error.h"
#include "gfxq/table.h"
#include "test_support.h"

namespace {

using gfxq::ColumnSpec;
using gfxq::Distribution;
using gfxq::ErrorCode;
using gfxq::Type;


constexpr Distribution kAll[] = {Distribution::Uniform, Distribution::Skewed, Distribution::Sorted,
                                 Distribution::AllEqual};

std::vector<int32_t> gen_ints(Distribution d, double lo, double hi, uint64_t rows, uint64_t seed) {
  return gfxq::generate_table({{"v", Type::Int32, d, lo, hi}}, rows, seed).column("v").as<int32_t>();
}

std::vector<float> gen_floats(Distribution d, double lo, double hi, uint64_t rows, uint64_t seed) {
  return gfxq::generate_table({{"v", Type::Float32, d, lo, hi}}, rows, seed).column("v").as<float>();
}

std::vector<uint32_t> float_bits(const std::vector<float>& v) {
  std::vector<uint32_t> b;
  for (float f : v) b.push_back(std::bit_cast<uint32_t>(f));
  return b;
}

std::vector<ColumnSpec> mixed_specs() {
  std::vector<ColumnSpec> specs;
  for (Distribution d : kAll) {
    specs.push_back({std::string("i_") + std::to_string(specs.size()), Type::Int32, d, -50, 1000});
    specs.push_back({std::string("f_") + std::to_string(specs.size()), Type::Float32, d, -2.5, 7.25});
  }
  return specs;
}

bool same_table(const gfxq::Table& a, const gfxq::Table& b) {
  if (a.schema() != b.schema()) return false;
  for (size_t i = 0; i < a.columns.size(); ++i) {
    if (a.columns[i].type == Type::Int32) {
      if (a.columns[i].as<int32_t>() != b.columns[i].as<int32_t>()) return false;
    } else if (float_bits(a.columns[i].as<float>()) != float_bits(b.columns[i].as<float>())) {
      return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("generate: distribution names") {
  for (Distribution d : kAll) CHECK(gfxq::parse_distribution(gfxq::to_string(d)) == d);
  CHECK(gfxq::parse_distribution("uniform") == Distribution::Uniform);
  CHECK(gfxq::parse_distribution("skewed") == Distribution::Skewed);
  CHECK(gfxq::parse_distribution("sorted") == Distribution::Sorted);
  CHECK(gfxq::parse_distribution("all-equal") == Distribution::AllEqual);
  CHECK(gfxq::parse_distribution("allequal") == Distribution::AllEqual);
  CHECK(gfxq::parse_distribution("all_equal") == Distribution::AllEqual);
  CHECK(gfxq::parse_distribution("Uniform") == Distribution::Uniform);
  for (const char* bad : {"", "zipf", "uniform ", "all equal", "sort"}) {
    CAPTURE(bad);
    CHECK_ERROR(gfxq::parse_distribution(bad), ErrorCode::InvalidQuery, "unknown distribution", "uniform", "skewed",
                "sorted", "all-equal");
  }
}

TEST_CASE("generate: the table has the spec's names, types and row count") {
  const auto specs = mixed_specs();
  for (uint64_t rows : {0u, 1u, 2u, 1000u}) {
    CAPTURE(rows);
    const auto t = gfxq::generate_table(specs, rows, 5);
    t.validate();
    REQUIRE(t.columns.size() == specs.size());
    CHECK(t.rows() == rows);
    for (size_t i = 0; i < specs.size(); ++i) {
      CHECK(t.columns[i].name == specs[i].name);
      CHECK(t.columns[i].type == specs[i].type);
      CHECK(t.columns[i].size() == rows);
      CHECK(t.columns[i].nulls.empty());
    }
  }
  CHECK(gfxq::generate_table({}, 10, 1).columns.empty());
}

TEST_CASE("generate: the same seed gives the same table, another seed another table") {
  const auto specs = mixed_specs();
  const auto a = gfxq::generate_table(specs, 5000, 42);
  CHECK(same_table(a, gfxq::generate_table(specs, 5000, 42)));
  const auto b = gfxq::generate_table(specs, 5000, 43);
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].dist == Distribution::AllEqual) continue;
    CAPTURE(specs[i].name);
    if (specs[i].type == Type::Int32)
      CHECK(a.columns[i].as<int32_t>() != b.columns[i].as<int32_t>());
    else
      CHECK(float_bits(a.columns[i].as<float>()) != float_bits(b.columns[i].as<float>()));
  }
}

TEST_CASE("generate: each column has its own stream, fixed by the seed and the column's position") {
  const ColumnSpec x{"x", Type::Int32, Distribution::Uniform, 0, 1000000};
  const ColumnSpec y{"y", Type::Int32, Distribution::Uniform, 0, 1000000};
  const auto t = gfxq::generate_table({x, y}, 1000, 7);
  CHECK(t.column("x").as<int32_t>() != t.column("y").as<int32_t>());
  // Adding a column after it, or changing its name, leaves a column's values alone.
  const auto alone =
      gfxq::generate_table({ColumnSpec{"renamed", Type::Int32, Distribution::Uniform, 0, 1000000}}, 1000, 7);
  CHECK(alone.columns[0].as<int32_t>() == t.column("x").as<int32_t>());
  // More rows extend the same sequence.
  const auto longer = gfxq::generate_table({x, y}, 3000, 7);
  const auto& lx = longer.column("x").as<int32_t>();
  CHECK(std::vector<int32_t>(lx.begin(), lx.begin() + 1000) == t.column("x").as<int32_t>());
}

TEST_CASE("generate: int values stay in lo..hi inclusive and uniform ones cover it evenly") {
  struct Bounds {
    double lo, hi;
  };
  for (Bounds b : {Bounds{0, 3}, Bounds{-10, 10}, Bounds{5, 5}, Bounds{-2147483648.0, 2147483647.0},
                   Bounds{2147483640.0, 2147483647.0}, Bounds{-2147483648.0, -2147483640.0}, Bounds{0.5, 3.5}}) {
    for (Distribution d : {Distribution::Uniform, Distribution::Skewed, Distribution::Sorted}) {
      CAPTURE(b.lo);
      CAPTURE(b.hi);
      CAPTURE(gfxq::to_string(d));
      const auto v = gen_ints(d, b.lo, b.hi, 4000, 11);
      const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
      CHECK(*mn >= std::ceil(b.lo));
      CHECK(*mx <= std::floor(b.hi));
      if (std::floor(b.hi) - std::ceil(b.lo) < 20) {  // small ranges: every value shows up
        CHECK(*mn == std::ceil(b.lo));
        CHECK(*mx == std::floor(b.hi));
      }
    }
  }
  // Counts of a uniform column over 10 values: each near 10% (binomial sd ~ 95 at 100000 rows).
  const auto v = gen_ints(Distribution::Uniform, 0, 9, 100000, 3);
  std::vector<int> count(10);
  for (int32_t x : v) ++count.at(static_cast<size_t>(x));
  for (int c : count) CHECK(std::abs(c - 10000) < 600);
  // The full int32 range: both halves and both signs show up about equally.
  const auto w = gen_ints(Distribution::Uniform, -2147483648.0, 2147483647.0, 100000, 3);
  const auto negatives = std::count_if(w.begin(), w.end(), [](int32_t x) { return x < 0; });
  CHECK(std::abs(negatives - 50000) < 1000);
}

TEST_CASE("generate: int bounds are clamped to int32") {
  const auto v = gen_ints(Distribution::Uniform, -1e12, -1e11, 100, 1);
  CHECK(std::all_of(v.begin(), v.end(), [](int32_t x) { return x == std::numeric_limits<int32_t>::min(); }));
  const auto w = gen_ints(Distribution::Uniform, 3e9, 4e9, 100, 1);
  CHECK(std::all_of(w.begin(), w.end(), [](int32_t x) { return x == std::numeric_limits<int32_t>::max(); }));
  const auto u = gen_ints(Distribution::Sorted, -1e300, 1e300, 1000, 1);
  CHECK(u.front() < 0);
  CHECK(u.back() > 0);
}

TEST_CASE("generate: float values stay in lo..hi, hi excluded") {
  struct Bounds {
    double lo, hi;
  };
  const float one_up = std::nextafter(1.0f, 2.0f);
  for (Bounds b : {Bounds{0, 1}, Bounds{-2.5, 7.25}, Bounds{-1e-40, 1e-40}, Bounds{1, one_up},
                   Bounds{-3.4028234663852886e38, 3.4028234663852886e38}, Bounds{1e6, 1e6 + 1}, Bounds{-5, -4}}) {
    for (Distribution d : {Distribution::Uniform, Distribution::Skewed, Distribution::Sorted}) {
      CAPTURE(b.lo);
      CAPTURE(b.hi);
      CAPTURE(gfxq::to_string(d));
      const auto v = gen_floats(d, b.lo, b.hi, 4000, 13);
      const auto lo = static_cast<float>(b.lo), hi = static_cast<float>(b.hi);
      CHECK(std::all_of(v.begin(), v.end(), [&](float x) { return std::isfinite(x) && x >= lo && x < hi; }));
    }
  }
  // A one-ulp range holds one float.
  const auto v = gen_floats(Distribution::Uniform, 1, one_up, 100, 1);
  CHECK(std::all_of(v.begin(), v.end(), [](float x) { return x == 1.0f; }));
  // lo == hi: every row is lo.
  const auto w = gen_floats(Distribution::Uniform, 2.5, 2.5, 100, 1);
  CHECK(std::all_of(w.begin(), w.end(), [](float x) { return x == 2.5f; }));
  // Uniform over [0, 1): mean near 1/2, deciles near 10% each.
  const auto u = gen_floats(Distribution::Uniform, 0, 1, 100000, 9);
  double sum = 0;
  std::vector<int> decile(10);
  for (float x : u) {
    sum += x;
    ++decile.at(static_cast<size_t>(x * 10));
  }
  CHECK(std::abs(sum / 100000 - 0.5) < 0.01);
  for (int c : decile) CHECK(std::abs(c - 10000) < 600);
  // Values are not confined to a coarse grid.
  std::vector<float> sorted(u);
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::unique(sorted.begin(), sorted.end()) - sorted.begin() > 99000);
}

TEST_CASE("generate: sorted columns are ascending uniform values") {
  for (uint64_t rows : {0u, 1u, 2u, 5000u}) {
    CAPTURE(rows);
    const auto i = gen_ints(Distribution::Sorted, -100, 100, rows, 21);
    CHECK(std::is_sorted(i.begin(), i.end()));
    auto ui = gen_ints(Distribution::Uniform, -100, 100, rows, 21);
    std::sort(ui.begin(), ui.end());
    CHECK(ui == i);  // the same draws as Uniform, sorted
    const auto f = gen_floats(Distribution::Sorted, -1, 1, rows, 21);
    CHECK(std::is_sorted(f.begin(), f.end()));
    auto uf = gen_floats(Distribution::Uniform, -1, 1, rows, 21);
    std::sort(uf.begin(), uf.end());
    CHECK(float_bits(uf) == float_bits(f));
  }
  const auto big = gen_ints(Distribution::Sorted, 0, 1000000, 10000, 2);
  CHECK(big.front() < 10000);  // spread over the range, not clustered
  CHECK(big.back() > 990000);
}

TEST_CASE("generate: all-equal columns repeat the range's smallest value") {
  for (uint64_t rows : {0u, 1u, 1000u}) {
    CAPTURE(rows);
    const auto i = gen_ints(Distribution::AllEqual, -7, 100, rows, 1);
    CHECK(i.size() == rows);
    CHECK(std::all_of(i.begin(), i.end(), [](int32_t x) { return x == -7; }));
    const auto j = gen_ints(Distribution::AllEqual, 2.5, 100, rows, 1);
    CHECK(std::all_of(j.begin(), j.end(), [](int32_t x) { return x == 3; }));  // smallest integer >= lo
    const auto f = gen_floats(Distribution::AllEqual, 0.1, 100, rows, 1);
    CHECK(std::all_of(f.begin(), f.end(), [](float x) { return x == 0.1f; }));
  }
}

TEST_CASE("generate: skewed columns have a few very frequent values") {
  const auto check_skew = [](const std::map<double, int>& freq, double lo, size_t max_distinct) {
    std::vector<int> counts;
    for (const auto& [v, c] : freq) counts.push_back(c);
    std::sort(counts.begin(), counts.end());
    const int top = counts.back();
    const int median = counts[counts.size() / 2];
    CAPTURE(top);
    CAPTURE(median);
    CHECK(counts.size() <= max_distinct);
    CHECK(counts.size() > 100);
    CHECK(top >= 20 * median);
    CHECK(freq.begin()->first == lo);    // the smallest value ...
    CHECK(freq.begin()->second == top);  // ... is the most frequent
    CHECK(top > 100000 / 20);            // a Zipf head: more than 5% of rows
  };
  const auto v = gen_ints(Distribution::Skewed, 100, 1000000, 100000, 4);
  std::map<double, int> fi;
  for (int32_t x : v) ++fi[x];
  CHECK(fi.rbegin()->first < 100 + 1000);  // at most 1000 distinct values from lo
  check_skew(fi, 100, 1000);

  const auto f = gen_floats(Distribution::Skewed, -1, 1, 100000, 4);
  std::map<double, int> ff;
  for (float x : f) ++ff[x];
  check_skew(ff, -1, 1000);

  // A small range: every value appears, frequencies fall with rank.
  const auto s = gen_ints(Distribution::Skewed, 0, 4, 100000, 8);
  std::vector<int> count(5);
  for (int32_t x : s) ++count.at(static_cast<size_t>(x));
  CHECK(std::is_sorted(count.rbegin(), count.rend()));
  CHECK(count[4] > 0);
  CHECK(count[0] > 2 * count[3]);
}

TEST_CASE("generate: a generated table round trips through CSV") {
  const auto t = gfxq::generate_table(mixed_specs(), 2000, 99);
  std::stringstream io;
  gfxq::write_csv(io, t);
  CHECK(same_table(gfxq::read_csv(io), t));
}

TEST_CASE("generate: spec errors are InvalidQuery and name the column") {
  const auto gen = [](ColumnSpec spec) { return gfxq::generate_table({spec}, 10, 1); };
  CHECK_ERROR(gen({"a", Type::Int32, Distribution::Uniform, 5, 4}), ErrorCode::InvalidQuery, "column 'a'", "lo > hi");
  CHECK_ERROR(gen({"a", Type::Float32, Distribution::Sorted, 1, -1}), ErrorCode::InvalidQuery, "lo > hi");
  CHECK_ERROR(gen({"a", Type::Int32, Distribution::AllEqual, 5, 4}), ErrorCode::InvalidQuery, "lo > hi");
  CHECK_ERROR(gen({"a", Type::Int32, Distribution::Uniform, 0.2, 0.8}), ErrorCode::InvalidQuery, "column 'a'",
              "no integer");
  CHECK_ERROR(gen({"a", Type::Int32, Distribution::Uniform, std::nan(""), 1}), ErrorCode::InvalidQuery, "NaN");
  CHECK_ERROR(gen({"a", Type::Float32, Distribution::Uniform, 0, std::nan("")}), ErrorCode::InvalidQuery, "NaN");
  CHECK_ERROR(gen({"a", Type::Float32, Distribution::Uniform, 0, 1e39}), ErrorCode::InvalidQuery, "column 'a'",
              "float range");
  CHECK_ERROR(gen({"a", Type::Float32, Distribution::Uniform, -INFINITY, 0}), ErrorCode::InvalidQuery, "float range");
  CHECK_ERROR(gen({"a", Type::Int64, Distribution::Uniform, 0, 1}), ErrorCode::InvalidQuery, "column 'a'", "bigint",
              "int, float");
  CHECK_ERROR(gen({"a", Type::Float64, Distribution::Uniform, 0, 1}), ErrorCode::InvalidQuery, "double");
  CHECK_ERROR(gen({"", Type::Int32, Distribution::Uniform, 0, 1}), ErrorCode::InvalidQuery, "invalid name");
  CHECK_ERROR(gen({"a b", Type::Int32, Distribution::Uniform, 0, 1}), ErrorCode::InvalidQuery, "'a b'", "invalid name");
  CHECK_ERROR(gfxq::generate_table({{"a", Type::Int32}, {"b", Type::Int32}, {"a", Type::Float32}}, 1, 1),
              ErrorCode::InvalidQuery, "column 'a'", "duplicate");
}
