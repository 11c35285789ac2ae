// The CPU engine's GROUP BY through SQL (an Engine, so not in the host-only sanitizer build): group
// ids by hash and by merging sorted runs against a brute force over key tuples.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

#include "core/bind.h"
#include "gfxq/engine.h"
#include "gfxq/error.h"
#include "random_queries.h"
#include "test_support.h"

using namespace gfxq;
using namespace gfxq::test;

TEST_CASE("cpu: SQL GROUP BY by hash and by merging sorted runs agrees with a brute force over key tuples") {
  const uint64_t seed = std::random_device{}();
  INFO("seed = " << seed);
  std::mt19937_64 rng(seed);
  Engine engine;
  for (int round = 0; round < 6; ++round) {
    // a in [0, n / 3) with NULLs (many groups), b in [0, 3), v with the INT extremes and NULLs.
    const size_t n = round == 0 ? 0 : round == 1 ? 1 : rng() % 5000;
    struct Row {
      bool a_null, v_null;
      int32_t a, b, v;
    };
    std::vector<Row> rows(n);
    for (auto& r : rows) {
      r.a_null = rng() % 10 == 0;
      r.a = r.a_null ? 0 : int32_t(rng() % std::max<size_t>(1, n / 3));
      r.b = int32_t(rng() % 3);
      r.v_null = rng() % 6 == 0;
      const uint64_t pick = rng() % 8;
      r.v = r.v_null ? 0 : pick == 0 ? kMax : pick == 1 ? kMin : int32_t(int64_t(rng() % 2001) - 1000);
    }
    // Brute force: a map from (a present, a, b) to the group's values, ascending as the engine's
    // groups are (NULL first).
    struct Stats {
      int64_t rows = 0, count = 0;
      __int128 sum = 0;
      int32_t min = kMax, max = kMin;
    };
    std::map<std::tuple<int, int32_t, int32_t>, Stats> groups;
    for (const auto& r : rows) {
      Stats& s = groups[{r.a_null ? 0 : 1, r.a, r.b}];
      ++s.rows;
      if (r.v_null) continue;
      ++s.count, s.sum += r.v, s.min = std::min(s.min, r.v), s.max = std::max(s.max, r.v);
    }
    const std::vector<std::string> names = {"a", "b", "COUNT(*)", "COUNT(v)", "SUM(v)", "MIN(v)", "MAX(v)", "AVG(v)"};
    const std::vector<Type> types = {Type::Int32, Type::Int32, Type::Int64, Type::Int64,
                                     Type::Int64, Type::Int32, Type::Int32, Type::Float64};
    Table want;
    for (size_t c = 0; c < names.size(); ++c) want.columns.push_back(Column::make(names[c], types[c]));
    for (const auto& [key, s] : groups) {
      const Value none = std::monostate{};
      const std::vector<Value> cells = {std::get<0>(key) ? Value(std::get<1>(key)) : none,
                                        std::get<2>(key),
                                        s.rows,
                                        s.count,
                                        s.count ? Value(int64_t(s.sum)) : none,
                                        s.count ? Value(s.min) : none,
                                        s.count ? Value(s.max) : none,
                                        s.count ? Value(int_average(s.sum, uint64_t(s.count))) : none};
      for (size_t c = 0; c < cells.size(); ++c) want.columns[c].push(cells[c]);
    }
    // The same rows in random order (hashed), in 5 sorted runs (merged) and in 100 (hashed).
    for (const size_t runs : {size_t(0), size_t(5), size_t(100)}) {
      std::shuffle(rows.begin(), rows.end(), rng);
      for (size_t i = 0; runs && i < runs; ++i) {
        const auto lo = rows.begin() + long(n * i / runs), hi = rows.begin() + long(n * (i + 1) / runs);
        std::sort(lo, hi, [](const Row& x, const Row& y) {
          return std::make_tuple(!x.a_null, x.a, x.b) < std::make_tuple(!y.a_null, y.a, y.b);
        });
      }
      Column a = Column::make("a", Type::Int32), b = Column::make("b", Type::Int32), v = Column::make("v", Type::Int32);
      for (const auto& r : rows) {
        a.push(r.a_null ? Value(std::monostate{}) : Value(r.a));
        b.push(r.b);
        v.push(r.v_null ? Value(std::monostate{}) : Value(r.v));
      }
      Catalog catalog;
      catalog.add("t", Table{{a, b, v}});
      const Result got =
          engine.execute_sql("SELECT a, b, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v) FROM t GROUP BY a, b",
                             catalog, Backend::Cpu);
      INFO("rows " << n << ", runs " << runs << "\n" << got.report.text());
      const std::string diff = test::table_difference(want, got.table);
      CHECK_MESSAGE(diff.empty(), diff);
    }
    // Without GROUP BY: one row, NULL aggregates over no values (0 rows, or every v NULL).
    Stats all;
    for (const auto& r : rows) {
      ++all.rows;
      if (!r.v_null) ++all.count, all.sum += r.v, all.min = std::min(all.min, r.v), all.max = std::max(all.max, r.v);
    }
    Column v = Column::make("v", Type::Int32);
    for (const auto& r : rows) v.push(r.v_null ? Value(std::monostate{}) : Value(r.v));
    Catalog catalog;
    catalog.add("t", Table{{v}});
    const Result got =
        engine.execute_sql("SELECT COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v) FROM t", catalog, Backend::Cpu);
    const Value none = std::monostate{};
    const std::vector<Value> cells = {all.rows,
                                      all.count,
                                      all.count ? Value(int64_t(all.sum)) : none,
                                      all.count ? Value(all.min) : none,
                                      all.count ? Value(all.max) : none,
                                      all.count ? Value(int_average(all.sum, uint64_t(all.count))) : none};
    INFO("rows " << n << ", no GROUP BY");
    REQUIRE(got.table.rows() == 1);
    for (size_t c = 0; c < cells.size(); ++c) CHECK(got.table.columns[c].value(0) == cells[c]);
  }
}
