// CPU reference engine: ORDER BY (stable, ASC and DESC, total order) and LIMIT.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "gfxq/cpu.h"
#include "test_support.h"

using namespace gfxq;
using namespace gfxq::test;

namespace {


// SELECT id FROM t [ORDER BY key] [LIMIT n] over t(id, key...): the ids in result order.
std::vector<int32_t> ids(const Table& table, std::optional<OrderBy> order, std::optional<uint64_t> limit = {}) {
  Catalog c;
  c.add("t", table);
  Query q;
  q.table = "t";
  q.items = {col("id")};
  q.order_by = std::move(order);
  q.limit = limit;
  return cpu::execute(q, c).table.column("id").as<int32_t>();
}

std::vector<int32_t> iota_ids(int32_t n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

using Ids = std::vector<int32_t>;

}  // namespace

TEST_CASE("cpu: ORDER BY INT is stable for ASC and DESC") {
  const Table t{{Column::ints("id", iota_ids(7)), Column::ints("k", {2, 1, 2, kMin, 1, kMax, 2})}};
  CHECK(ids(t, OrderBy{col("k"), false}) == Ids{3, 1, 4, 0, 2, 6, 5});
  CHECK(ids(t, OrderBy{col("k"), true}) == Ids{5, 0, 2, 6, 1, 4, 3});  // ties keep input order, not reversed
  CHECK(ids(t, std::nullopt) == Ids{0, 1, 2, 3, 4, 5, 6});
}

TEST_CASE("cpu: ORDER BY FLOAT follows the total order, and -0.0 ties 0.0, NaNs tie and come last") {
  //                                     0     1      2     3       4      5     6      7
  const Table t{
      {Column::ints("id", iota_ids(8)), Column::floats("f", {0.0f, kNaN, -0.0f, -kInf, kNegNaN, 1e-45f, kInf, -1.5f})}};
  CHECK(ids(t, OrderBy{col("f"), false}) == Ids{3, 7, 0, 2, 5, 6, 1, 4});
  CHECK(ids(t, OrderBy{col("f"), true}) == Ids{1, 4, 6, 5, 0, 2, 7, 3});
}

TEST_CASE("cpu: ORDER BY a column that is not selected, with WHERE") {
  Catalog c;
  c.add("t", Table{{Column::ints("id", {10, 11, 12, 13}), Column::floats("f", {3, 1, 2, 0})}});
  Query q;
  q.table = "t";
  q.items = {col("id")};
  q.where.clauses.push_back(Clause{{Comparison{col("f"), CmpOp::Gt, 0.5}}});
  q.order_by = OrderBy{col("f"), false};
  const Result r = cpu::execute(q, c);
  CHECK(r.table.schema() == "id:int");
  CHECK(r.table.column("id").as<int32_t>() == Ids{11, 12, 10});
  CHECK(r.report.algorithm == "cpu-reference: scan + filter + sort + project");
  REQUIRE(r.report.passes.size() == 5);
  CHECK(r.report.passes[3].kind == "sort");
  CHECK(r.report.passes[3].items == 3);
  CHECK(r.report.passes[3].detail == "stable, by f ASC");
}

TEST_CASE("cpu: LIMIT applies last: 0, below n, n and above n") {
  const Table t{{Column::ints("id", iota_ids(5)), Column::ints("k", {5, 3, 4, 1, 2})}};
  const OrderBy by_k{col("k"), false};
  CHECK(ids(t, by_k, 0).empty());
  CHECK(ids(t, by_k, 2) == Ids{3, 4});
  CHECK(ids(t, by_k, 5) == Ids{3, 4, 1, 2, 0});
  CHECK(ids(t, by_k, 1000) == Ids{3, 4, 1, 2, 0});
  CHECK(ids(t, OrderBy{col("k"), true}, 2) == Ids{0, 2});
  CHECK(ids(t, std::nullopt, 3) == Ids{0, 1, 2});
  CHECK(ids(t, std::nullopt, std::numeric_limits<uint64_t>::max()) == Ids{0, 1, 2, 3, 4});

  Catalog c;
  c.add("t", t);
  Query q;
  q.table = "t";
  q.items = {Star{}};
  q.limit = 0;
  const Result r = cpu::execute(q, c);
  CHECK(r.table.schema() == "id:int,k:int");
  CHECK(r.table.rows() == 0);
  CHECK(r.report.algorithm == "cpu-reference: scan + filter + limit + project");
  CHECK(r.report.passes[3].items == 5);
  CHECK(r.report.passes[3].passed == 0u);
}

TEST_CASE("cpu: ORDER BY over empty and one-row tables") {
  CHECK(ids(Table{{Column::ints("id", {}), Column::floats("f", {})}}, OrderBy{col("f"), true}).empty());
  CHECK(ids(Table{{Column::ints("id", {7}), Column::floats("f", {kNaN})}}, OrderBy{col("f"), true}) == Ids{7});
}

TEST_CASE("cpu: random ORDER BY is sorted and stable") {
  const uint64_t seed = 20240612;
  INFO("seed = " << seed);
  std::mt19937_64 rng(seed);
  const float specials[] = {kNaN, kNegNaN, 0.0f, -0.0f, kInf, -kInf};
  // The total order, written independently of order_key.h.
  const auto rank_of = [](float v) { return std::isnan(v) ? 1 : 0; };
  const auto less = [&](float a, float b) { return rank_of(a) != rank_of(b) ? rank_of(a) < rank_of(b) : a < b; };
  for (int round = 0; round < 40; ++round) {
    const int32_t n = static_cast<int32_t>(rng() % 300);
    std::vector<float> f(static_cast<size_t>(n));
    for (auto& v : f) v = (rng() % 3 == 0) ? specials[rng() % 6] : static_cast<float>(rng() % 7);
    const bool desc = rng() % 2;
    CAPTURE(n);
    CAPTURE(desc);
    const Ids out = ids(Table{{Column::ints("id", iota_ids(n)), Column::floats("f", f)}}, OrderBy{col("f"), desc});
    REQUIRE(out.size() == static_cast<size_t>(n));
    std::vector<bool> seen(static_cast<size_t>(n), false);
    for (int32_t id : out) seen[static_cast<size_t>(id)] = true;
    CHECK(std::find(seen.begin(), seen.end(), false) == seen.end());  // a permutation
    for (size_t i = 1; i < out.size(); ++i) {
      const float a = f[static_cast<size_t>(out[i - 1])], b = f[static_cast<size_t>(out[i])];
      const bool tie = !less(a, b) && !less(b, a);
      CHECK((desc ? !less(a, b) : !less(b, a)));  // in order
      if (tie) CHECK(out[i - 1] < out[i]);        // stable
    }
  }
}
