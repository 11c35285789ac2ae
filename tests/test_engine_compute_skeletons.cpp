// ORDER BY of several keys, DISTINCT, set operations and CROSS JOIN of SQL plans on the compute
// backend (src/vk/engine/{sort,set,product}_fragment.cpp, Red Fox's skeletons in
// src/vk/operators/skeletons): every result equals the CPU engine's exactly, bit for bit (−0.0 and
// NaN payloads included, so the kept copies and tie orders are the CPU's); seeds are logged.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "engine_compute_support.h"

namespace {

using namespace gfxq;
using test::check_sql;
using test::random_floats;
using test::random_ints;

Engine& engine() {
  return test::debug_engine();
}

// A table of `rows` rows: a, b INT in [0, range), f FLOAT (halves, -0.0, NaN, ±inf when `specials`),
// s STRING of few words, d DATE; equal rows are frequent when `range` is small.
Table skeleton_table(std::mt19937_64& rng, size_t rows, int32_t range, bool specials, uint32_t word_seed = 0) {
  static const std::vector<std::string> words{"ant", "bee", "cat", "dog", "eel", "fox", "gnu", "yak"};
  std::vector<std::string> s(rows);
  std::uniform_int_distribution<size_t> w(word_seed % 3, words.size() - 1 - word_seed % 2);
  for (auto& x : s) x = words[w(rng)];
  return Table{{Column::ints("a", random_ints(rng, rows, 0, range - 1)),
                Column::ints("b", random_ints(rng, rows, -range / 2, range / 2)),
                Column::floats("f", random_floats(rng, rows, range, specials)), Column::strings("s", s),
                Column::dates("d", random_ints(rng, rows, 9000, 9000 + range))}};
}

// The node of `r`'s plan whose label starts with `prefix` ran on compute.
void on_compute(const Result& r, const std::string& prefix) {
  const auto* n = test::plan_node(r, prefix);
  REQUIRE_MESSAGE(n, "no " << prefix << " node in\n" << r.report.text());
  CHECK_MESSAGE(n->backend == Backend::Compute, r.report.text());
}

// Sizes around the radix sort's tiles and the 256-row workgroups of the skeleton kernels.
const std::vector<size_t> kSizes{0, 1, 2, 255, 256, 257, 1000, 6143, 6144, 6145, 8193, 20000};

}  // namespace

TEST_CASE("engine-compute-sort: ORDER BY several keys of every type equals the CPU engine's") {
  for (size_t i = 0; i < kSizes.size(); ++i) {
    const uint64_t seed = 100 + i;
    std::mt19937_64 rng(seed);
    const size_t rows = kSizes[i];
    const int32_t range = i % 3 == 0 ? 3 : 200;
    Catalog c;
    c.add("t", skeleton_table(rng, rows, range, i % 2 == 0));
    const std::string what =
        "seed " + std::to_string(seed) + ", " + std::to_string(rows) + " rows, range " + std::to_string(range);
    on_compute(check_sql(engine(), "SELECT * FROM t ORDER BY a, b DESC", c, what), "Sort");
    check_sql(engine(), "SELECT a, f, s FROM t ORDER BY f DESC, a", c, what + ", FLOAT first");
    check_sql(engine(), "SELECT s, d, a FROM t ORDER BY s DESC, d, a DESC", c, what + ", STRING and DATE");
    check_sql(engine(), "SELECT f, b FROM t ORDER BY f, b LIMIT 17 OFFSET 3", c, what + ", LIMIT OFFSET");
    check_sql(engine(), "SELECT a FROM t WHERE b > 0 ORDER BY d, f DESC", c, what + ", WHERE on the device");
  }
}

TEST_CASE("engine-compute-sort: ORDER BY of GROUP BY results (BIGINT SUM, DOUBLE AVG) as SSB Q3.x") {
  for (uint64_t seed = 120; seed < 124; ++seed) {
    std::mt19937_64 rng(seed);
    Catalog c;
    c.add("t", skeleton_table(rng, 3000 + seed, seed % 2 ? 5 : 60, true));
    const std::string what = "seed " + std::to_string(seed);
    const std::string q3 = "SELECT d, s, SUM(b) AS revenue FROM t GROUP BY d, s ORDER BY d ASC, revenue DESC";
    const Result r = check_sql(engine(), q3, c, what);
    on_compute(r, "Sort");
    on_compute(r, "Aggregate");
    // The few groups are sorted on the host; with the host's share set to 0, by the GPU row sort.
    const auto* sort = test::plan_node(r, "Sort");
    REQUIRE(sort);
    CHECK(sort->algorithm.find("sorted on the host") != std::string::npos);
    {
      Engine& gpu_sort = test::engine_with({.host_sort_rows = 0});
      const Result g = check_sql(gpu_sort, q3, c, what + ", sorted on the GPU");
      const auto* s = test::plan_node(g, "Sort");
      REQUIRE(s);
      CHECK(s->algorithm.find("key plane") != std::string::npos);
      check_sql(gpu_sort, "SELECT a, AVG(f) AS m, COUNT(*) FROM t GROUP BY a ORDER BY m DESC, a LIMIT 5", c,
                what + ", DOUBLE key, sorted on the GPU");
    }
    check_sql(engine(), "SELECT a, AVG(f) AS m, COUNT(*) FROM t GROUP BY a ORDER BY m DESC, a LIMIT 5", c,
              what + ", DOUBLE key");
    check_sql(engine(), "SELECT a, SUM(b) FROM t GROUP BY a ORDER BY 2", c, what + ", ordinal");
  }
}

TEST_CASE("engine-compute-sort: NULL keys sort first ascending and last descending, as the CPU engine") {
  std::mt19937_64 rng(130);
  Catalog c;
  Table t = skeleton_table(rng, 700, 9, true);
  for (auto& col : t.columns) {
    col.nulls.assign(700, 0);
    for (size_t r = 0; r < 700; r += 7) col.nulls[r] = 1;
  }
  c.add("t", t);
  check_sql(engine(), "SELECT * FROM t ORDER BY a, f DESC, s", c, "seed 130, NULLs every 7th row");
  check_sql(engine(), "SELECT a, b FROM t ORDER BY b DESC, a", c, "seed 130, NULLs, DESC first");
  check_sql(engine(), "SELECT DISTINCT a, s FROM t", c, "seed 130, DISTINCT with NULLs");
}

TEST_CASE("engine-compute-distinct: DISTINCT on whole rows keeps the CPU engine's first appearances") {
  for (size_t i = 0; i < kSizes.size(); ++i) {
    const uint64_t seed = 200 + i;
    std::mt19937_64 rng(seed);
    Catalog c;
    c.add("t", skeleton_table(rng, kSizes[i], i % 2 ? 4 : 1000, true));
    const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(kSizes[i]) + " rows";
    on_compute(check_sql(engine(), "SELECT DISTINCT a, b FROM t", c, what), "Distinct");
    check_sql(engine(), "SELECT DISTINCT f FROM t", c, what + ", FLOAT -0.0/NaN");
    check_sql(engine(), "SELECT DISTINCT s, d, a FROM t", c, what + ", STRING, DATE");
    check_sql(engine(), "SELECT DISTINCT * FROM t WHERE a < 2", c, what + ", WHERE on the device");
  }
  Catalog same;
  same.add("t", Table{{Column::ints("a", std::vector<int32_t>(5000, 7)),
                       Column::floats("f", std::vector<float>(5000, -0.0f))}});
  check_sql(engine(), "SELECT DISTINCT a, f FROM t", same, "all-equal rows");
}

TEST_CASE("engine-compute-set-ops: UNION / INTERSECT / EXCEPT, set and ALL, equal the CPU engine's") {
  const std::vector<std::string> ops{"UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"};
  const std::vector<std::pair<size_t, size_t>> sizes{{0, 0},     {0, 5},       {7, 0},      {1, 1},
                                                     {255, 257}, {3000, 1000}, {6145, 6143}};
  for (size_t i = 0; i < sizes.size(); ++i) {
    const uint64_t seed = 300 + i;
    std::mt19937_64 rng(seed);
    Catalog c;
    const int32_t range = i % 2 ? 3 : 40;
    c.add("l", skeleton_table(rng, sizes[i].first, range, true, 0));
    c.add("r", skeleton_table(rng, sizes[i].second, range, true, 1));  // other words: another dictionary
    for (const auto& op : ops) {
      const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(sizes[i].first) + " and " +
                               std::to_string(sizes[i].second) + " rows, " + op;
      on_compute(check_sql(engine(), "SELECT a, s FROM l " + op + " SELECT a, s FROM r", c, what), "SetOp");
      check_sql(engine(), "SELECT a, f, d FROM l " + op + " SELECT a, f, d FROM r", c, what + ", FLOAT and DATE");
      check_sql(engine(), "SELECT a, b FROM l WHERE b >= 0 " + op + " SELECT a, b FROM r WHERE a > 0", c,
                what + ", WHERE on both sides");
    }
  }
  // Identical and disjoint relations.
  std::mt19937_64 rng(310);
  Catalog c;
  const Table t = skeleton_table(rng, 2000, 6, true);
  c.add("l", t);
  c.add("r", t);
  Table far = skeleton_table(rng, 1500, 6, false);
  far.columns[0] = Column::ints("a", random_ints(rng, 1500, 100, 200));
  c.add("far", far);
  for (const auto& op : ops) {
    check_sql(engine(), "SELECT * FROM l " + op + " SELECT * FROM r", c, "seed 310, identical, " + op);
    check_sql(engine(), "SELECT * FROM l " + op + " SELECT * FROM far", c, "seed 310, disjoint, " + op);
  }
  check_sql(engine(), "SELECT a FROM l UNION SELECT a FROM r ORDER BY a DESC LIMIT 3", c, "set op then ORDER BY");
}

TEST_CASE("engine-compute-product: CROSS JOIN in (left row, right row) order, in many chunks") {
  const std::vector<std::pair<size_t, size_t>> sizes{{0, 3}, {1, 1}, {1, 300}, {17, 255}, {257, 31}, {40, 600}};
  for (size_t i = 0; i < sizes.size(); ++i) {
    const uint64_t seed = 400 + i;
    std::mt19937_64 rng(seed);
    Catalog c;
    c.add("r", skeleton_table(rng, sizes[i].first, 50, true));
    c.add("s", skeleton_table(rng, sizes[i].second, 50, true));
    const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(sizes[i].first) + " x " +
                             std::to_string(sizes[i].second);
    on_compute(check_sql(engine(), "SELECT * FROM r CROSS JOIN s", c, what), "Join");
    check_sql(engine(), "SELECT r.f, s.s, r.a FROM r, s WHERE r.a < 20 AND s.b > 0", c, what + ", filtered sides");
    // Chunks of 1000 pairs (and of 1: a chunk per pair) instead of one binding.
    for (const uint64_t chunk : {1000, 1}) {
      if (chunk == 1 && sizes[i].first * sizes[i].second > 2000) continue;
      const Result r =
          check_sql(test::engine_with({.product_chunk_pairs = chunk}), "SELECT s.d, r.b FROM r CROSS JOIN s", c,
                    what + ", chunks of " + std::to_string(chunk));
      CHECK(test::passes_of(r, "product-write") == (sizes[i].first * sizes[i].second + chunk - 1) / chunk);
    }
  }
}

TEST_CASE("engine-compute-product: right sides around the kernel's vectors and steps, chunk boundaries") {
  // product.comp writes 4 positions per vector and steps 1024 positions between an invocation's
  // vectors: right sides of 1, 2, 3, 1023, 1024 and 1025 rows, chunks that end inside a vector and
  // inside a left row's run, selections on either side.
  const std::vector<std::pair<size_t, size_t>> sizes{{4099, 1}, {2050, 2}, {1367, 3}, {5, 1023}, {5, 1024}, {5, 1025}};
  for (size_t i = 0; i < sizes.size(); ++i) {
    const uint64_t seed = 450 + i;
    std::mt19937_64 rng(seed);
    Catalog c;
    c.add("r", skeleton_table(rng, sizes[i].first, 50, true));
    c.add("s", skeleton_table(rng, sizes[i].second, 50, true));
    const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(sizes[i].first) + " x " +
                             std::to_string(sizes[i].second);
    on_compute(check_sql(engine(), "SELECT r.a, s.b, s.f FROM r CROSS JOIN s", c, what), "Join");
    check_sql(engine(), "SELECT s.d, r.f FROM r, s WHERE r.a < 20", c, what + ", left side filtered");
    check_sql(engine(), "SELECT r.b, s.s FROM r, s WHERE s.b > 0", c, what + ", right side filtered");
    for (const uint64_t chunk : {1027, 4096})
      check_sql(test::engine_with({.product_chunk_pairs = chunk}),
                "SELECT s.a, r.d FROM r, s WHERE r.b <> 3 AND s.a < 40", c,
                what + ", chunks of " + std::to_string(chunk));
  }
}

TEST_CASE("engine-compute-set-ops: a right operand that is a Project of columns reads the columns it names") {
  // Found by the analytic fuzzer (seed 3): the right operand's output was gathered by the Project's
  // positions from the Scan's columns (an out-of-range column, or the wrong one).
  Catalog c;
  c.add("t", Table{{Column::ints("a", {1, 2, 3, 4}), Column::ints("b", {10, 20, 30, 40})}});
  c.add("u", Table{{Column::ints("k", {7, 8, 9}), Column::ints("x", {3, 4, 5}), Column::ints("y", {1, 1, 2})}});
  for (const char* op : {"UNION", "UNION ALL", "INTERSECT", "EXCEPT", "EXCEPT ALL"})
    check_sql(engine(), std::string("SELECT a FROM t ") + op + " SELECT x FROM u ORDER BY 1", c, op);
  check_sql(engine(), "SELECT a, b FROM t UNION SELECT y, x FROM u ORDER BY 1, 2", c, "two columns, swapped");
}

TEST_CASE("engine-compute-set-ops: INT and DATE ranges from the column facts, so no range pass, as the CPU engine") {
  const std::vector<std::pair<size_t, size_t>> sizes{{0, 3}, {1, 1}, {300, 257}, {5000, 4000}};
  for (size_t i = 0; i < sizes.size(); ++i) {
    const uint64_t seed = 320 + i;
    std::mt19937_64 rng(seed);
    Catalog c;
    c.add("l", skeleton_table(rng, sizes[i].first, 50, false, 0));
    c.add("r", skeleton_table(rng, sizes[i].second, 50, false, 1));
    const std::string what = "seed " + std::to_string(seed);
    auto ranges_run = [](const Result& r) {
      return std::count_if(r.report.passes.begin(), r.report.passes.end(),
                           [](const PassRecord& p) { return p.kind == "row-ranges"; });
    };
    for (const std::string op : {"UNION", "INTERSECT", "EXCEPT", "EXCEPT ALL"}) {
      // a, b, d: INT and DATE Scan columns without NULLs (facts; b's through a WHERE on the device).
      const Result r = check_sql(engine(), "SELECT a, d FROM l " + op + " SELECT a, d FROM r", c, what + ", " + op);
      on_compute(r, "SetOp");
      CHECK_MESSAGE(ranges_run(r) == 0, r.report.text());
      const Result w =
          check_sql(engine(), "SELECT b, a FROM l WHERE a > 3 " + op + " SELECT b, a FROM r", c, what + ", WHERE");
      CHECK_MESSAGE(ranges_run(w) == 0, w.report.text());
      // A FLOAT column has no facts: its range is found on the device (when the operation runs at all).
      const Result f = check_sql(engine(), "SELECT a, f FROM l " + op + " SELECT a, f FROM r", c, what + ", FLOAT");
      if (sizes[i].first + sizes[i].second > 0 && op != "EXCEPT ALL")
        CHECK_MESSAGE(ranges_run(f) == 1, f.report.text());
    }
    const Result d = check_sql(engine(), "SELECT DISTINCT d, a FROM l", c, what + ", DISTINCT");
    CHECK_MESSAGE(ranges_run(d) == 0, d.report.text());
    if (sizes[i].first > 0) {
      const auto* n = test::plan_node(d, "Distinct");
      REQUIRE(n);
      CHECK_MESSAGE(n->algorithm.find("dense DISTINCT") != std::string::npos, n->algorithm);
    }
  }
}
