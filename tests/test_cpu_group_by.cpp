// CPU reference engine: GROUP BY with every aggregate, group order, FLOAT key merging,
// ORDER BY and LIMIT over groups.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <tuple>

#include "core/bind.h"
#include "gfxq/cpu.h"
#include "gfxq/error.h"
#include "random_queries.h"
#include "test_support.h"

using namespace gfxq;
using namespace gfxq::test;

namespace {

Result run(const Table& table, std::vector<SelectItem> items, const std::string& group,
           std::optional<OrderBy> order = {}, std::optional<uint64_t> limit = {}, Cnf where = {}) {
  Catalog c;
  c.add("t", table);
  Query q;
  q.table = "t";
  q.items = std::move(items);
  q.group_by = col(group);
  q.order_by = std::move(order);
  q.limit = limit;
  q.where = std::move(where);
  return cpu::execute(q, c);
}

// g:  3  -1   3   0  -1   3  kMin
// v:  5   2  -4   7   2   9   1
// f: 1.5  NaN 0.5 -0.0 2.5 -2  8
Table grouped_table() {
  return Table{{Column::ints("g", {3, -1, 3, 0, -1, 3, kMin}), Column::ints("v", {5, 2, -4, 7, 2, 9, 1}),
                Column::floats("f", {1.5f, kNaN, 0.5f, -0.0f, 2.5f, -2.0f, 8.0f})}};
}

std::vector<Value> column_values(const Column& c) {
  std::vector<Value> out;
  for (uint64_t i = 0; i < c.size(); ++i) out.push_back(c.value(i));
  return out;
}

using Values = std::vector<Value>;
constexpr uint32_t kCanonicalNaN = 0x7fc00000u;

}  // namespace

TEST_CASE("cpu: GROUP BY INT with every aggregate, and groups ascending by key") {
  const Result r =
      run(grouped_table(),
          {col("g"), agg(AggKind::Count), agg(AggKind::Sum, "v"), agg(AggKind::Avg, "v"), agg(AggKind::Sum, "f"),
           agg(AggKind::Avg, "f"), agg(AggKind::Min, "v"), agg(AggKind::Max, "f"), agg(AggKind::Median, "v"),
           agg(AggKind::Quantile, "f", 0.25), agg(AggKind::KthLargest, "v", 0.5, 2)},
          "g");
  const Table& t = r.table;
  CHECK(t.schema() ==
        "g:int,COUNT(*):bigint,SUM(v):bigint,AVG(v):double,SUM(f):double,AVG(f):double,MIN(v):int,MAX(f):float,"
        "MEDIAN(v):int,QUANTILE(f, 0.25):float,KTH_LARGEST(v, 2):int");
  // Groups: kMin {v 1; f 8}, -1 {v 2, 2; f NaN, 2.5}, 0 {v 7; f -0.0}, 3 {v 5, -4, 9; f 1.5, 0.5, -2}.
  CHECK(column_values(t.columns[0]) == Values{kMin, int32_t{-1}, int32_t{0}, int32_t{3}});
  CHECK(column_values(t.columns[1]) == Values{int64_t{1}, int64_t{2}, int64_t{1}, int64_t{3}});
  CHECK(column_values(t.columns[2]) == Values{int64_t{1}, int64_t{4}, int64_t{7}, int64_t{10}});
  CHECK(column_values(t.columns[3]) == Values{1.0, 2.0, 7.0, 10.0 / 3.0});
  const auto sum_f = t.columns[4].as<double>();
  CHECK(sum_f[0] == 8.0);
  CHECK(std::bit_cast<uint64_t>(sum_f[1]) == 0x7ff8000000000000ull);  // NaN + 2.5, canonical
  CHECK(std::bit_cast<uint64_t>(sum_f[2]) == 0u);                     // -0.0 sums to +0.0
  CHECK(sum_f[3] == 0.0);                                             // 1.5 + 0.5 - 2
  const auto avg_f = t.columns[5].as<double>();
  CHECK(avg_f[0] == 8.0);
  CHECK(std::isnan(avg_f[1]));
  CHECK(avg_f[3] == 0.0);
  CHECK(column_values(t.columns[6]) == Values{int32_t{1}, int32_t{2}, int32_t{7}, int32_t{-4}});
  const auto max_f = t.columns[7].as<float>();
  CHECK(max_f[0] == 8.0f);
  CHECK(std::bit_cast<uint32_t>(max_f[1]) == kCanonicalNaN);
  CHECK(std::bit_cast<uint32_t>(max_f[2]) == 0u);  // -0.0 reported as +0.0
  CHECK(max_f[3] == 1.5f);
  // MEDIAN(v): ranks ceil(0.5), ceil(1), ceil(0.5), ceil(1.5) = 1, 1, 1, 2 ; group 3 ascending -4 5 9.
  CHECK(column_values(t.columns[8]) == Values{int32_t{1}, int32_t{2}, int32_t{7}, int32_t{5}});
  // QUANTILE(f, 0.25): rank 1 in each group; group -1 ascending 2.5 NaN; group 3 ascending -2 0.5 1.5.
  CHECK(column_values(t.columns[9]) == Values{8.0f, 2.5f, 0.0f, -2.0f});
  CHECK(std::bit_cast<uint32_t>(t.columns[9].as<float>()[2]) == 0u);
  // KTH_LARGEST(v, 2): NULL where a group has one row.
  CHECK(column_values(t.columns[10]) == Values{std::monostate{}, int32_t{2}, std::monostate{}, int32_t{5}});
  CHECK(r.report.algorithm == "cpu-reference: scan + filter + group-by + aggregate");
  REQUIRE(r.report.passes.size() == 5);
  CHECK(r.report.passes[3].kind == "group-by");
  CHECK(r.report.passes[3].items == 7);
  CHECK(r.report.passes[3].passed == 4u);
}

TEST_CASE("cpu: GROUP BY FLOAT merges -0.0 with 0.0 and every NaN, and keys reported canonical") {
  const Table t{{Column::floats("k", {0.0f, kNaN, -0.0f, kNegNaN, -kInf, 1.0f, kInf, -0.0f}),
                 Column::ints("v", {1, 2, 4, 8, 16, 32, 64, 128})}};
  const Result r = run(t, {col("k"), agg(AggKind::Count), agg(AggKind::Sum, "v")}, "k");
  const auto& keys = r.table.columns[0].as<float>();
  REQUIRE(keys.size() == 5);
  CHECK(keys[0] == -kInf);
  CHECK(std::bit_cast<uint32_t>(keys[1]) == 0u);  // +0.0
  CHECK(keys[2] == 1.0f);
  CHECK(keys[3] == kInf);
  CHECK(std::bit_cast<uint32_t>(keys[4]) == kCanonicalNaN);
  CHECK(column_values(r.table.columns[1]) == Values{int64_t{1}, int64_t{3}, int64_t{1}, int64_t{1}, int64_t{2}});
  CHECK(column_values(r.table.columns[2]) == Values{int64_t{16}, int64_t{133}, int64_t{32}, int64_t{64}, int64_t{10}});
}

TEST_CASE("cpu: GROUP BY without the group column selected, without aggregates, and qualified") {
  const Table t = grouped_table();
  CHECK(column_values(run(t, {agg(AggKind::Sum, "v")}, "g").table.columns[0]) ==
        Values{int64_t{1}, int64_t{4}, int64_t{7}, int64_t{10}});
  const Result distinct = run(t, {col("g")}, "g");
  CHECK(distinct.table.schema() == "g:int");
  CHECK(column_values(distinct.table.columns[0]) == Values{kMin, int32_t{-1}, int32_t{0}, int32_t{3}});
  const Result twice = run(t, {ColumnRef{"t", "g"}, agg(AggKind::Count), col("g")}, "g");
  CHECK(twice.table.schema() == "t.g:int,COUNT(*):bigint,g:int");
  CHECK(column_values(twice.table.columns[2]) == Values{kMin, int32_t{-1}, int32_t{0}, int32_t{3}});
}

TEST_CASE("cpu: GROUP BY with ORDER BY the group column and LIMIT over groups") {
  const Table t = grouped_table();
  const std::vector<SelectItem> items = {col("g"), agg(AggKind::Count)};
  const Result desc = run(t, items, "g", OrderBy{col("g"), true});
  CHECK(column_values(desc.table.columns[0]) == Values{int32_t{3}, int32_t{0}, int32_t{-1}, kMin});
  CHECK(column_values(desc.table.columns[1]) == Values{int64_t{3}, int64_t{1}, int64_t{2}, int64_t{1}});
  CHECK(desc.report.algorithm == "cpu-reference: scan + filter + group-by + sort + aggregate");
  const Result asc = run(t, items, "g", OrderBy{col("g"), false}, 2);
  CHECK(column_values(asc.table.columns[0]) == Values{kMin, int32_t{-1}});
  const Result top = run(t, items, "g", OrderBy{ColumnRef{"t", "g"}, true}, 1);
  CHECK(column_values(top.table.columns[0]) == Values{int32_t{3}});
  CHECK(top.report.algorithm == "cpu-reference: scan + filter + group-by + sort + limit + aggregate");
  CHECK(run(t, items, "g", std::nullopt, 0).table.rows() == 0);
  CHECK(run(t, items, "g", std::nullopt, 99).table.rows() == 4);
}

TEST_CASE("cpu: GROUP BY with WHERE, over empty input and one row") {
  Cnf positive;
  positive.clauses.push_back(Clause{{Comparison{col("v"), CmpOp::Gt, 2.0}}});
  const Result r = run(grouped_table(), {col("g"), agg(AggKind::Count)}, "g", std::nullopt, std::nullopt, positive);
  CHECK(column_values(r.table.columns[0]) == Values{int32_t{0}, int32_t{3}});
  CHECK(column_values(r.table.columns[1]) == Values{int64_t{1}, int64_t{2}});

  const Result empty = run(Table{{Column::ints("g", {}), Column::ints("v", {})}},
                           {col("g"), agg(AggKind::Count), agg(AggKind::Sum, "v")}, "g");
  CHECK(empty.table.schema() == "g:int,COUNT(*):bigint,SUM(v):bigint");
  CHECK(empty.table.rows() == 0);

  const Result one = run(Table{{Column::ints("g", {kMax}), Column::ints("v", {kMax})}},
                         {col("g"), agg(AggKind::Sum, "v"), agg(AggKind::Median, "v")}, "g");
  CHECK(column_values(one.table.columns[0]) == Values{kMax});
  CHECK(column_values(one.table.columns[1]) == Values{int64_t{kMax}});
  CHECK(column_values(one.table.columns[2]) == Values{kMax});
}

TEST_CASE("cpu: GROUP BY all-equal keys gives one group") {
  const Table t{{Column::ints("g", {4, 4, 4}), Column::ints("v", {kMax, kMax, kMax})}};
  const Result r = run(t, {col("g"), agg(AggKind::Sum, "v"), agg(AggKind::KthLargest, "v", 0.5, 3)}, "g");
  CHECK(column_values(r.table.columns[0]) == Values{int32_t{4}});
  CHECK(column_values(r.table.columns[1]) == Values{int64_t{3} * kMax});
  CHECK(column_values(r.table.columns[2]) == Values{kMax});
}

TEST_CASE("cpu: random GROUP BY agrees with a brute force over distinct keys") {
  const uint64_t seed = 20240613;
  INFO("seed = " << seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 30; ++round) {
    const size_t n = rng() % 250;
    std::vector<int32_t> g(n), v(n);
    for (size_t i = 0; i < n; ++i) {
      g[i] = static_cast<int32_t>(rng() % 13) - 6;
      v[i] = static_cast<int32_t>(rng());
    }
    // Brute force: for every key value in [-6, 6], its rows by a full scan.
    Values keys, counts, sums, maxes;
    for (int32_t key = -6; key <= 6; ++key) {
      int64_t count = 0, sum = 0;
      int32_t max = kMin;
      for (size_t i = 0; i < n; ++i)
        if (g[i] == key) {
          ++count;
          sum += v[i];
          max = std::max(max, v[i]);
        }
      if (count == 0) continue;
      keys.push_back(key);
      counts.push_back(count);
      sums.push_back(sum);
      maxes.push_back(max);
    }
    const Result r = run(Table{{Column::ints("g", g), Column::ints("v", v)}},
                         {col("g"), agg(AggKind::Count), agg(AggKind::Sum, "v"), agg(AggKind::Max, "v")}, "g");
    CAPTURE(n);
    CHECK(column_values(r.table.columns[0]) == keys);
    CHECK(column_values(r.table.columns[1]) == counts);
    CHECK(column_values(r.table.columns[2]) == sums);
    CHECK(column_values(r.table.columns[3]) == maxes);
  }
}
