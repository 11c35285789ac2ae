// CPU reference engine: equi and band joins, their order, and the pipeline after them
// (WHERE with qualified columns, aggregates, GROUP BY, ORDER BY, LIMIT).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "gfxq/cpu.h"
#include "test_support.h"

using namespace gfxq;
using namespace gfxq::test;

namespace {

ColumnRef col(std::string table, std::string name) {
  return ColumnRef{std::move(table), std::move(name)};
}

// SELECT items FROM r JOIN s ON lo <= s.key - r.key <= hi ...
Query join_query(std::vector<SelectItem> items, std::string left_key, std::string right_key, double lo = 0,
                 double hi = 0) {
  Query q;
  q.items = std::move(items);
  q.table = "r";
  q.join = JoinSpec{"s", col("r", std::move(left_key)), col("s", std::move(right_key)), lo, hi};
  return q;
}

// The (r.id, s.id) pairs of SELECT r.id, s.id.
using PairList = std::vector<std::pair<int32_t, int32_t>>;
PairList pairs(const Catalog& c, std::string left_key, std::string right_key, double lo = 0, double hi = 0) {
  const Result res =
      cpu::execute(join_query({col("r", "id"), col("s", "id")}, std::move(left_key), std::move(right_key), lo, hi), c);
  const auto& l = res.table.columns[0].as<int32_t>();
  const auto& r = res.table.columns[1].as<int32_t>();
  PairList out;
  for (size_t i = 0; i < l.size(); ++i) out.emplace_back(l[i], r[i]);
  return out;
}

std::vector<int32_t> iota_ids(int32_t n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

}  // namespace

TEST_CASE("cpu: equi-join with no, one and many matches, ordered by (left row, right row)") {
  // r.k: 5 1 3 1 9 ; s.k: 1 3 7 1 1 3
  const Catalog c = join_catalog(Table{{Column::ints("id", iota_ids(5)), Column::ints("k", {5, 1, 3, 1, 9})}},
                                 Table{{Column::ints("id", iota_ids(6)), Column::ints("k", {1, 3, 7, 1, 1, 3})}});
  CHECK(pairs(c, "k", "k") == PairList{{1, 0}, {1, 3}, {1, 4}, {2, 1}, {2, 5}, {3, 0}, {3, 3}, {3, 4}});

  const Catalog one = join_catalog(Table{{Column::ints("id", {0, 1}), Column::ints("k", {4, 8})}},
                                   Table{{Column::ints("id", {0, 1}), Column::ints("k", {8, 2})}});
  CHECK(pairs(one, "k", "k") == PairList{{1, 0}});

  const Catalog none = join_catalog(Table{{Column::ints("id", {0, 1}), Column::ints("k", {4, 8})}},
                                    Table{{Column::ints("id", {0}), Column::ints("k", {5})}});
  CHECK(pairs(none, "k", "k").empty());
  const Result star = cpu::execute(join_query({Star{}}, "k", "k"), none);
  CHECK(star.table.schema() == "r.id:int,r.k:int,s.id:int,s.k:int");
  CHECK(star.table.rows() == 0);

  const Catalog empty = join_catalog(Table{{Column::ints("id", {}), Column::ints("k", {})}},
                                     Table{{Column::ints("id", {0}), Column::ints("k", {5})}});
  CHECK(pairs(empty, "k", "k").empty());
  CHECK(pairs(join_catalog(Table{{Column::ints("id", {0}), Column::ints("k", {5})}},
                           Table{{Column::ints("id", {}), Column::ints("k", {})}}),
              "k", "k")
            .empty());
}

TEST_CASE("cpu: SELECT * of a join names columns table.column, and explicit refs as written") {
  const Catalog c = join_catalog(Table{{Column::ints("id", {0, 1}), Column::floats("x", {0.5f, 1.5f})}},
                                 Table{{Column::ints("id", {7}), Column::ints("y", {1})}});
  const Result r = cpu::execute(join_query({Star{}, col("x"), col("s", "y")}, "id", "y"), c);
  CHECK(r.table.schema() == "r.id:int,r.x:float,s.id:int,s.y:int,x:float,s.y:int");
  REQUIRE(r.table.rows() == 1);
  CHECK(r.table.columns[0].as<int32_t>()[0] == 1);
  CHECK(r.table.columns[1].as<float>()[0] == 1.5f);
  CHECK(r.table.columns[2].as<int32_t>()[0] == 7);
  CHECK(r.table.columns[4].as<float>()[0] == 1.5f);
  CHECK(r.report.algorithm == "cpu-reference: join + filter + project");
  REQUIRE(r.report.passes.size() == 4);
  CHECK(r.report.passes[1].kind == "join");
  CHECK(r.report.passes[1].items == 3);
  CHECK(r.report.passes[1].passed == 1u);
}

TEST_CASE("cpu: band joins, including negative and empty ranges") {
  // r.k: 0 10 -5 ; s.k: -7 -6 -5 -1 0 1 8 9 10 12
  const Catalog c =
      join_catalog(Table{{Column::ints("id", iota_ids(3)), Column::ints("k", {0, 10, -5})}},
                   Table{{Column::ints("id", iota_ids(10)), Column::ints("k", {-7, -6, -5, -1, 0, 1, 8, 9, 10, 12})}});
  // s.k BETWEEN r.k - 1 AND r.k + 1
  CHECK(pairs(c, "k", "k", -1, 1) == PairList{{0, 3}, {0, 4}, {0, 5}, {1, 7}, {1, 8}, {2, 1}, {2, 2}});
  // s.k BETWEEN r.k - 2 AND r.k - 1 (both offsets negative)
  CHECK(pairs(c, "k", "k", -2, -1) == PairList{{0, 3}, {1, 6}, {1, 7}, {2, 0}, {2, 1}});
  // s.k BETWEEN r.k + 2 AND r.k + 5
  CHECK(pairs(c, "k", "k", 2, 5) == PairList{{1, 9}, {2, 3}, {2, 4}});
  // lo > hi: no pairs
  CHECK(pairs(c, "k", "k", 1, -1).empty());
  // fractional offsets against INT keys: exact in double
  CHECK(pairs(c, "k", "k", -0.5, 0.5) == PairList{{0, 4}, {1, 8}, {2, 2}});
  CHECK(pairs(c, "k", "k", 0.5, 1.5) == PairList{{0, 5}});
}

TEST_CASE("cpu: joins on FLOAT keys: -0.0 matches 0.0, NaN matches NaN, INT matches FLOAT") {
  const Catalog c = join_catalog(
      Table{{Column::ints("id", iota_ids(5)), Column::floats("f", {-0.0f, kNaN, 2.0f, kInf, 2.5f}),
             Column::ints("i", {0, 1, 2, 3, 4})}},
      Table{{Column::ints("id", iota_ids(6)), Column::floats("f", {kNegNaN, 0.0f, 2.0f, 2.5f, kInf, 1.0f})}});
  CHECK(pairs(c, "f", "f") == PairList{{0, 1}, {1, 0}, {2, 2}, {3, 4}, {4, 3}});
  CHECK(pairs(c, "i", "f") == PairList{{0, 1}, {1, 5}, {2, 2}});
  // inf + offsets stays inf; NaN + offsets stays NaN.
  CHECK(pairs(c, "f", "f", -1, 1) == PairList{{0, 1}, {0, 5}, {1, 0}, {2, 2}, {2, 3}, {2, 5}, {3, 4}, {4, 2}, {4, 3}});
}

TEST_CASE("cpu: join then WHERE on qualified columns and aggregates") {
  // r(id, k, w) ; s(id, k, v)
  const Catalog c = join_catalog(
      Table{{Column::ints("id", iota_ids(4)), Column::ints("k", {1, 2, 2, 3}), Column::ints("w", {10, 20, 30, 40})}},
      Table{{Column::ints("id", iota_ids(5)), Column::ints("k", {2, 1, 2, 3, 3}),
             Column::floats("v", {0.5f, 1.5f, 2.5f, 3.5f, 4.5f})}});
  // Pairs (r, s): (0,1) (1,0) (1,2) (2,0) (2,2) (3,3) (3,4)
  Query q = join_query({Aggregate{AggKind::Count, std::nullopt, 0.5, 1}, Aggregate{AggKind::Sum, col("r", "w"), 0.5, 1},
                        Aggregate{AggKind::Sum, col("v"), 0.5, 1}, Aggregate{AggKind::Max, col("s", "id"), 0.5, 1}},
                       "k", "k");
  q.where.clauses.push_back(Clause{{Comparison{col("r", "w"), CmpOp::Ge, 20.0}}});
  q.where.clauses.push_back(
      Clause{{Comparison{col("v"), CmpOp::Lt, col("r", "k")}, Comparison{col("s", "id"), CmpOp::Eq, 4.0}}});
  // w >= 20: (1,0) (1,2) (2,0) (2,2) (3,3) (3,4); v < r.k OR s.id = 4: (1,0) v .5<2, (1,2) 2.5<2 no,
  // (2,0) yes, (2,2) no, (3,3) 3.5<3 no, (3,4) s.id = 4 yes.
  const Result r = cpu::execute(q, c);
  CHECK(r.table.schema() == "COUNT(*):bigint,SUM(r.w):bigint,SUM(v):double,MAX(s.id):int");
  CHECK(r.table.columns[0].value(0) == Value{int64_t{3}});
  CHECK(r.table.columns[1].value(0) == Value{int64_t{20 + 30 + 40}});
  CHECK(r.table.columns[2].value(0) == Value{0.5 + 0.5 + 4.5});
  CHECK(r.table.columns[3].value(0) == Value{int32_t{4}});
  CHECK(r.report.algorithm == "cpu-reference: join + filter + aggregate");
  CHECK(r.report.passes[2].items == 7);
  CHECK(r.report.passes[2].passed == 3u);
}

TEST_CASE("cpu: join then GROUP BY, ORDER BY and LIMIT") {
  const Catalog c = join_catalog(
      Table{{Column::ints("id", iota_ids(4)), Column::ints("k", {1, 2, 2, 3})}},
      Table{{Column::ints("id", iota_ids(5)), Column::ints("k", {2, 1, 2, 3, 3}), Column::ints("v", {5, 6, 7, 8, 9})}});
  Query q = join_query(
      {col("s", "k"), Aggregate{AggKind::Count, std::nullopt, 0.5, 1}, Aggregate{AggKind::Sum, col("v"), 0.5, 1}}, "k",
      "k");
  q.group_by = col("s", "k");
  q.order_by = OrderBy{col("s", "k"), true};
  q.limit = 2;
  // Pairs by s.k: 1 -> (0,1); 2 -> (1,0) (1,2) (2,0) (2,2); 3 -> (3,3) (3,4)
  const Result r = cpu::execute(q, c);
  CHECK(r.table.columns[0].as<int32_t>() == std::vector<int32_t>{3, 2});
  CHECK(r.table.columns[1].as<int64_t>() == std::vector<int64_t>{2, 4});
  CHECK(r.table.columns[2].as<int64_t>() == std::vector<int64_t>{17, 24});

  // A plain join result ordered by a right column, stable over the (left, right) order.
  Query plain = join_query({col("r", "id"), col("s", "id")}, "k", "k");
  plain.order_by = OrderBy{col("v"), true};
  plain.limit = 4;
  const Result p = cpu::execute(plain, c);
  CHECK(p.table.columns[0].as<int32_t>() == std::vector<int32_t>{3, 3, 1, 2});
  CHECK(p.table.columns[1].as<int32_t>() == std::vector<int32_t>{4, 3, 2, 2});
  CHECK(p.report.algorithm == "cpu-reference: join + filter + sort + limit + project");
}

TEST_CASE("cpu: random joins agree with nested loops") {
  const uint64_t seed = 20240614;
  INFO("seed = " << seed);
  std::mt19937_64 rng(seed);
  const float specials[] = {kNaN, kNegNaN, 0.0f, -0.0f, kInf, -kInf};
  // l + lo <= r <= l + hi in the total order, written independently of order_key.h.
  const auto le = [](double a, double b) { return std::isnan(b) || (!std::isnan(a) && a <= b); };
  for (int round = 0; round < 40; ++round) {
    const int32_t n = static_cast<int32_t>(rng() % 40), m = static_cast<int32_t>(rng() % 40);
    std::vector<float> lk(static_cast<size_t>(n)), rk(static_cast<size_t>(m));
    for (auto& v : lk) v = (rng() % 5 == 0) ? specials[rng() % 6] : static_cast<float>(rng() % 9) - 4;
    for (auto& v : rk) v = (rng() % 5 == 0) ? specials[rng() % 6] : static_cast<float>(rng() % 9) - 4;
    double lo = static_cast<double>(rng() % 7) - 3, hi = static_cast<double>(rng() % 7) - 3;
    if (rng() % 3 == 0) lo = hi = 0;
    CAPTURE(n);
    CAPTURE(m);
    CAPTURE(lo);
    CAPTURE(hi);
    PairList expected;
    for (int32_t i = 0; i < n; ++i)
      for (int32_t j = 0; j < m; ++j) {
        const double l = lk[static_cast<size_t>(i)], r = rk[static_cast<size_t>(j)];
        if (le(l + lo, r) && le(r, l + hi)) expected.emplace_back(i, j);
      }
    const Catalog c = join_catalog(Table{{Column::ints("id", iota_ids(n)), Column::floats("k", lk)}},
                                   Table{{Column::ints("id", iota_ids(m)), Column::floats("k", rk)}});
    CHECK(pairs(c, "k", "k", lo, hi) == expected);
  }
}
