// Device relations between compute fragments (src/vk/engine/inputs.h, src/engine/executor.cpp): a
// compute join's output reaches the compute GROUP BY or join above it on the device, with no
// download or upload between them; a CPU node above a compute join gets one download; every answer
// equals the CPU engine's exactly. Seeds are logged.
#include <doctest/doctest.h>

#include <cstdlib>
#include <random>

#include "cpu/exec/ops.h"
#include "engine/executor.h"
#include "engine_compute_support.h"
#include "plan/binder.h"
#include "sql/parse_statement.h"
#include "vk/engine/inputs.h"

namespace {

using namespace gfxq;
using test::check_sql;
using test::random_floats;
using test::random_ints;

Engine& shared_engine() {
  return test::debug_engine();
}

// f(dk, pk, v, w) of `rows` rows, d(k, y) of `drows` rows (keys 0..drows-1), p(k, brand) of 50 rows.
Catalog star(std::mt19937_64& rng, size_t rows, size_t drows) {
  Catalog c;
  const int32_t dmax = std::max<int32_t>(int32_t(drows) - 1, 0);
  c.add("f",
        Table{{Column::ints("dk", random_ints(rng, rows, 0, dmax)), Column::ints("pk", random_ints(rng, rows, 0, 49)),
               Column::ints("v", random_ints(rng, rows, -100, 1000)),
               Column::floats("w", random_floats(rng, rows, 50, false))}});
  std::vector<int32_t> keys(drows), pkeys(50);
  for (size_t i = 0; i < drows; ++i) keys[i] = int32_t(i);
  for (int32_t i = 0; i < 50; ++i) pkeys[size_t(i)] = i;
  c.add("d", Table{{Column::ints("k", keys), Column::ints("y", random_ints(rng, drows, 1, 7))}});
  std::vector<std::string> brands;
  for (int i = 0; i < 50; ++i) brands.push_back("MFGR#" + std::to_string(i % 9));
  c.add("p", Table{{Column::ints("k", pkeys), Column::strings("brand", brands)}});
  return c;
}

// Transfers of a join's result between device and host: the executor's download of a Join result,
// a host-side pair download ("pairs (N bytes)") and gather, an upload of a host Join result's column.
size_t join_transfers(const Result& r) {
  size_t n = 0;
  for (const auto& p : r.report.passes)
    n += (p.kind == "download" && (p.detail.find("Join") != std::string::npos || p.detail.rfind("pairs (", 0) == 0)) ||
         (p.kind == "upload" && p.detail.find("Join result") != std::string::npos) ||
         (p.kind == "gather" && p.detail.find("on the host") != std::string::npos);
  return n;
}

// Downloads of the query's result by the executor.
size_t result_downloads(const Result& r) {
  size_t n = 0;
  for (const auto& p : r.report.passes)
    n += p.kind == "download" && p.detail.find("the query's result") != std::string::npos;
  return n;
}

}  // namespace

TEST_CASE("engine-device-relation: a compute join under a compute GROUP BY or join hands over on the device") {
  const std::vector<std::pair<size_t, size_t>> sizes{{0, 10}, {1, 1}, {1, 10}, {37, 5}, {3000, 100}, {5000, 1}};
  for (uint64_t seed = 1; seed <= 3; ++seed)
    for (const auto& [rows, drows] : sizes) {
      std::mt19937_64 rng(seed * 1000 + rows);
      const Catalog c = star(rng, rows, drows);
      const std::string what = "seed " + std::to_string(seed * 1000 + rows) + ", " + std::to_string(rows) +
                               " fact rows, " + std::to_string(drows) + " dimension rows";
      const Result g = check_sql(shared_engine(),
                                 "SELECT d.y, SUM(f.v), COUNT(*), MAX(f.w) FROM f JOIN d ON f.dk = d.k WHERE d.y > 2 "
                                 "GROUP BY d.y ORDER BY d.y",
                                 c, what + ", join and GROUP BY");
      CHECK_MESSAGE(join_transfers(g) == 0, g.report.text());
      const auto* join = test::plan_node(g, "Join");
      REQUIRE(join);
      CHECK(join->backend == Backend::Compute);
      const Result three =
          check_sql(shared_engine(),
                    "SELECT d.y, p.brand, SUM(f.v), AVG(f.w) FROM f JOIN d ON f.dk = d.k JOIN p ON f.pk = p.k "
                    "WHERE f.v < 900 GROUP BY d.y, p.brand ORDER BY d.y, p.brand",
                    c, what + ", two joins and GROUP BY");
      CHECK_MESSAGE(join_transfers(three) == 0, three.report.text());
      // A join's result as the query's result: downloaded once, at the end.
      const Result rows_out =
          check_sql(shared_engine(), "SELECT f.v, d.y, p.brand FROM f JOIN d ON f.dk = d.k JOIN p ON f.pk = p.k", c,
                    what + ", two joins");
      CHECK_MESSAGE(join_transfers(rows_out) == 0, rows_out.report.text());
      CHECK(result_downloads(rows_out) == 1);
    }
  CHECK(shared_engine().take_debug_messages().empty());
}

TEST_CASE("engine-device-relation: a join output of many chunks is concatenated on the device") {
  std::mt19937_64 rng(77);
  const Catalog c = star(rng, 4000, 20);
  Engine& chunks = test::engine_with({.join_chunk_pairs = 1024});
  // MIN keeps the star aggregate out (it would join and aggregate in one pass, gathering nothing).
  const std::string sql = "SELECT d.y, SUM(f.v), MIN(f.v) FROM f JOIN d ON f.dk = d.k GROUP BY d.y ORDER BY d.y";
  const Result r = check_sql(chunks, sql, c, "seed 77, 4000 x 20 rows, 1024 pairs per chunk");
  CHECK(join_transfers(r) == 0);
  CHECK(test::passes_of(r, "gather") > 1);
  CHECK(test::passes_of(r, "concat") == 1);
  const Result rows_out = check_sql(chunks, "SELECT f.v, f.w, d.y FROM f JOIN d ON f.dk = d.k WHERE f.v > 100", c,
                                    "seed 77, 1024 pairs per chunk, the join's rows");
  CHECK(test::passes_of(rows_out, "concat") == 1);
  // A Filter over chunks of 2048 rows: its row ids, one region per chunk, are moved together on the
  // device and handed to the join as its selection.
  Engine& scan_chunks = test::engine_with({.chunk_rows = 2048, .join_chunk_pairs = 1024});
  const Result filtered = check_sql(scan_chunks,
                                    "SELECT d.y, SUM(f.v), MIN(f.v) FROM f JOIN d ON f.dk = d.k WHERE f.v > 100 "
                                    "GROUP BY d.y ORDER BY d.y",
                                    c, "seed 77, the fact table's Filter in 2 chunks");
  CHECK(join_transfers(filtered) == 0);
  CHECK(test::passes_of(filtered, "concat") == 2);  // the Filter's ids and the join's columns
  CHECK(chunks.take_debug_messages().empty());
  CHECK(scan_chunks.take_debug_messages().empty());
}

TEST_CASE("engine-device-relation: a CPU node above a compute join downloads once") {
  for (uint64_t seed = 11; seed <= 13; ++seed) {
    std::mt19937_64 rng(seed);
    const size_t rows = std::uniform_int_distribution<size_t>(0, 3000)(rng);
    const Catalog c = star(rng, rows, 40);
    const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(rows) + " fact rows";
    EngineOptions options;
    options.debug = test::vk_validation_wanted();
    engine::Backends backends(options);
    // Auto with compute a candidate (on lavapipe too) that is cheapest wherever it claims a node.
    engine::CostTable costs = backends.costs();
    costs.compute = std::make_shared<engine::ComputeCostModel>(
        engine::ComputeFigures{.bytes_per_s = 1e15, .dispatch_s = 0, .submit_s = 0, .source = "test figures"});
    backends.set_costs(costs);
    // Aggregates compute has no operator for over a join's output (a rank without GROUP BY, a DISTINCT
    // aggregate) run on the CPU engine, above the compute join.
    for (const std::string sql : {"SELECT MEDIAN(f.v), COUNT(*) FROM f JOIN d ON f.dk = d.k WHERE d.y < 5",
                                  "SELECT COUNT(DISTINCT f.v), MAX(d.y) FROM f JOIN d ON f.dk = d.k"}) {
      INFO(what << "\nsql: " << sql);
      const auto root = plan::bind(sql::parse_statement(sql).query, c);
      const Result got = engine::execute_plan(*root, c, Backend::Auto, backends);
      const Result want = shared_engine().execute_sql(sql, c, Backend::Cpu);
      CHECK(test::table_difference(want.table, got.table).empty());
      const auto* join = test::plan_node(got, "Join");
      REQUIRE(join);
      CHECK(join->backend == Backend::Compute);
      CHECK(got.report.plan.front().backend == Backend::Cpu);
      // The executor's transfers name what they move and for whom; the operators' own small
      // downloads (counts, control words) do not.
      size_t downloads = 0;
      for (const auto& p : got.report.passes)
        if (p.kind == "download" && p.detail.find(" result for ") != std::string::npos) {
          ++downloads;
          CHECK(p.detail.find("result for the cpu backend's") != std::string::npos);
        }
      CHECK_MESSAGE(downloads == 1, got.report.text());
      const auto messages = backends.take_debug_messages();
      CHECK_MESSAGE(messages.empty(), test::joined(messages));
    }
  }
}

TEST_CASE("engine-device-relation: InputRows reads a device relation with a selection in place") {
  std::mt19937_64 rng(91);
  const size_t n = 3000;
  const auto dict = Dictionary::of({"ASIA", "EUROPE", "AFRICA"});
  Catalog c;
  c.add("t",
        Table{{Column::ints("k", random_ints(rng, n, -50, 50)), Column::floats("x", random_floats(rng, n, 9, true)),
               Column::coded("s", random_ints(rng, n, 0, 2), dict)}});
  const Table& t = c.get("t");
  const auto root = plan::bind(sql::parse_statement("SELECT k, x, s FROM t").query, c);
  vk::Device& device = test::vk_device();
  vk::ResidentColumns resident(0);
  vk::FragmentEnv env{device, c, resident, {}};
  // Every third row selected (seed 91).
  std::vector<uint32_t> ids;
  for (uint32_t r = 0; r < n; r += 3) ids.push_back(r);
  std::vector<PassRecord> passes;
  auto rel = std::make_shared<vk::DeviceRelation>();
  for (const auto& col : t.columns)
    rel->columns.push_back(std::make_shared<vk::DeviceColumn>(vk::upload_column(device, col)));
  rel->schema = root->schema;
  rel->row_count = n;
  rel->selection = std::make_shared<vk::Buffer>(vk::upload_selection(device, ids, "ids", passes));
  rel->selected = ids.size();
  const engine::Relation relation(Backend::Compute, rel);
  CHECK(relation.rows() == ids.size());
  vk::InputRows in(env, *root, &relation, passes);
  CHECK(in.rows() == n);
  CHECK(in.count() == ids.size());
  const vk::DeviceRows live = in.live({0, 1}, "ids");
  CHECK(live.selection == rel->selection.get());
  CHECK(live.count == ids.size());
  CHECK(&in.column(1) == rel->columns[1].get());
  // In host memory: every row by row id; downloaded as a relation: the selected rows, decoded.
  const Table all = in.host().to_table();
  CHECK(test::table_difference(t, all).empty());
  const Table selected = vk::download_relation(device, *rel, "the relation", passes).to_table();
  std::vector<uint64_t> rows(ids.begin(), ids.end());
  Table want;
  for (const auto& col : t.columns) want.columns.push_back(cpu::gather_column(col, rows, col.name));
  CHECK(test::table_difference(want, selected).empty());
  CHECK(selected.columns[2].dictionary == dict);
  CHECK(device.take_debug_messages().empty());
}
