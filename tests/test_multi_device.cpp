// Partitioned queries over a device set (docs/MULTI_GPU.md): on lavapipe, 2 and 3 logical devices
// over the one software device. Every answer equals the one-device answer and the CPU reference
// exactly (FLOAT sums within the documented bound); random data from logged seeds; boundary sizes
// (no rows, fewer rows than devices, one row per device, uneven splits); the split's refusals; the
// device list's errors; SSB on two devices.
#include <doctest/doctest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cli_support.h"
#include "engine/partitioned/split.h"
#include "engine/partitioned/tables.h"
#include "engine_compute_support.h"
#include "gfxq/gfxq.h"
#include "gfxq/ssb.h"
#include "gpu_support.h"
#include "plan/binder.h"
#include "random_queries.h"
#include "sql/parse_statement.h"
#include "ssb/ssb_harness.h"
#include "test_support.h"

namespace {

using namespace gfxq;
using gfxq::test::table_difference;

// The process-wide engines over 2 and 3 logical devices of device 0 (validation as the other GPU
// tests), partitioning required: a query the split cannot answer fails rather than running whole.
Engine& two() {
  static Engine* e = nullptr;
  if (!e) {
    e = &test::process_wide<Engine>([] {
      EngineOptions options;
      options.debug = test::vk_validation_wanted();
      options.vk_devices = {"0", "0"};
      options.partitioning = Partitioning::Required;
      return std::make_unique<Engine>(options);
    });
  }
  return *e;
}

Engine& three() {
  static Engine* e = nullptr;
  if (!e) {
    e = &test::process_wide<Engine>([] {
      EngineOptions options;
      options.debug = test::vk_validation_wanted();
      options.vk_devices = {"0", "0", "0"};
      options.partitioning = Partitioning::Required;
      return std::make_unique<Engine>(options);
    });
  }
  return *e;
}

// `sql` on the device set equals the one-device compute answer and the CPU reference exactly, and
// the report names one partition per device; `backend` for the set and the one device.
Result check_partitioned(Engine& set, const std::string& sql, const Catalog& catalog, const std::string& what,
                         Backend backend = Backend::Compute) {
  INFO(what << "\nsql: " << sql);
  const Result want = set.execute_sql(sql, catalog, Backend::Cpu);
  Result one, got;
  try {
    one = test::debug_engine().execute_sql(sql, catalog, backend);
    got = set.execute_sql(sql, catalog, backend);
  } catch (const Error& e) {
    FAIL("threw " << std::string(to_string(e.code())) << ": " << std::string(e.what()));
    return got;
  }
  const auto messages = set.take_debug_messages();
  CHECK_MESSAGE(messages.empty(), test::joined(messages));
  CHECK_MESSAGE(test::debug_engine().take_debug_messages().empty(), "one-device messages");
  const std::string vs_one = table_difference(one.table, got.table);
  CHECK_MESSAGE(vs_one.empty(), "against one device: " << vs_one << "\nreport:\n" << got.report.text());
  const std::string vs_cpu = table_difference(want.table, got.table);
  CHECK_MESSAGE(vs_cpu.empty(), "against the CPU engine: " << vs_cpu << "\nreport:\n" << got.report.text());
  CHECK(got.report.partitions.size() >= 2);
  CHECK(got.report.partitioning.rfind("over ", 0) == 0);
  CHECK(got.report.text().find("exchange: " + std::to_string(got.report.exchange_bytes) + " bytes") !=
        std::string::npos);
  return got;
}

// A fact table of `n` rows: k in [0, 20) (join key), g sorted into runs (groups present in one
// partition only), h in [0, 4), v in [-1000, 1000], s a string of five values, f small floats.
Table fact_table(std::mt19937_64& rng, uint64_t n) {
  const auto k = test::random_ints(rng, n, 0, 19);
  const auto h = test::random_ints(rng, n, 0, 3);
  const auto v = test::random_ints(rng, n, -1000, 1000);
  std::vector<int32_t> g(n);
  for (uint64_t i = 0; i < n; ++i) g[i] = int32_t(i * 7 / (n ? n : 1));
  std::vector<std::string> s;
  for (uint64_t i = 0; i < n; ++i) s.push_back("s" + std::to_string(rng() % 5));
  std::vector<float> f;
  for (uint64_t i = 0; i < n; ++i) f.push_back(float(int(rng() % 200) - 100) * 0.25f);
  Table t;
  t.columns = {Column::ints("k", k), Column::ints("g", g),    Column::ints("h", h),
               Column::ints("v", v), Column::strings("s", s), Column::floats("f", f)};
  return t;
}

// A dimension table: dk 0..19 (each once), dg in [0, 3).
Table dim_table(std::mt19937_64& rng) {
  std::vector<int32_t> dk, dg;
  for (int32_t i = 0; i < 20; ++i) dk.push_back(i), dg.push_back(int32_t(rng() % 3));
  Table d;
  d.columns = {Column::ints("dk", dk), Column::ints("dg", dg)};
  return d;
}

const std::vector<std::string>& exact_queries() {
  static const std::vector<std::string> q = {
      "SELECT COUNT(*), SUM(v), MIN(v), MAX(v), AVG(v) FROM t WHERE v > -500",
      "SELECT MIN(f), MAX(f), SUM(f) FROM t WHERE v > 0",
      "SELECT g, COUNT(*), SUM(v), AVG(v), MIN(v), MAX(v) FROM t GROUP BY g",
      "SELECT g, h, SUM(v), COUNT(*) FROM t WHERE v < 700 GROUP BY g, h",
      "SELECT s, SUM(v) FROM t GROUP BY s",
      "SELECT k, v FROM t WHERE v > 600",
      "SELECT v, k FROM t WHERE v < 0 ORDER BY v DESC, k LIMIT 7",
      "SELECT v, g FROM t ORDER BY g, v",
      "SELECT DISTINCT h FROM t",
      "SELECT dg, SUM(v), COUNT(*) FROM t, d WHERE k = dk GROUP BY dg",
      "SELECT dg, SUM(v) FROM t, d WHERE k = dk AND h = 1 GROUP BY dg ORDER BY dg",
  };
  return q;
}

}  // namespace

TEST_CASE("multi-device: random tables on 2 and 3 devices equal one device and the CPU engine") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (Engine* set : {&two(), &three()}) {
    const uint64_t n = 1 + rng() % 5000;
    Catalog catalog;
    catalog.add("t", fact_table(rng, n));
    catalog.add("d", dim_table(rng));
    for (const auto& q : exact_queries())
      check_partitioned(*set, q, catalog, "rows " + std::to_string(n) + ", seed " + std::to_string(seed));
  }
}

namespace {

// A table for merges of many groups: g in [0, n / 2) (most groups in every partition), q with at most
// four rows a group (q = a permutation of the rows / 4), h in [0, 3), v random with the INT extremes
// one row in eight, w over the whole INT range (w * 2^30 within 2^61, so q's four rows sum within
// BIGINT while a group's partial and merged sums reach 2^62 and more; w * 2^20 sums of g's groups,
// which may have more rows, stay within it too).
Table many_groups_table(std::mt19937_64& rng, uint64_t n) {
  std::vector<int32_t> g(n), q(n), h(n), v(n), w(n);
  std::vector<uint64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  for (uint64_t i = 0; i < n; ++i) {
    g[i] = int32_t(rng() % std::max<uint64_t>(1, n / 2));
    q[i] = int32_t(perm[i] / 4);
    h[i] = int32_t(rng() % 3);
    const uint64_t pick = rng() % 16;
    v[i] = pick == 0   ? std::numeric_limits<int32_t>::max()
           : pick == 1 ? std::numeric_limits<int32_t>::min()
                       : int32_t(int64_t(rng() % 2000001) - 1000000);
    w[i] = int32_t(uint32_t(rng()));
  }
  Table t;
  t.columns = {Column::ints("g", g), Column::ints("q", q), Column::ints("h", h), Column::ints("v", v),
               Column::ints("w", w)};
  return t;
}

// The report's merge GROUP BY part ("merge: GROUP BY of N partial rows on <backend>: ...").
std::string merge_part(const Result& r) {
  const auto at = r.report.algorithm.find("merge: GROUP BY of ");
  return at == std::string::npos ? std::string() : r.report.algorithm.substr(at);
}

}  // namespace

TEST_CASE("multi-device: GROUP BY merges of many groups and BIGINT sums near 2^63 equal one device") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Merges the compute GROUP BY takes (keys and 32-bit columns: partial COUNTs and SUMs within INT
  // narrowed, the others split into high and low words), and one it does not (five value columns).
  const std::vector<std::pair<std::string, bool>> queries = {
      {"SELECT g, COUNT(*), SUM(v) FROM t GROUP BY g", true},
      {"SELECT q, SUM(w * 1073741824), COUNT(*) FROM t GROUP BY q", true},
      {"SELECT q, AVG(w * 1073741824) FROM t GROUP BY q", true},
      {"SELECT g, h, SUM(v), MAX(w) FROM t GROUP BY g, h ORDER BY g, h", true},
      {"SELECT g, MIN(v), MAX(v), SUM(w * 1048576), COUNT(*) FROM t GROUP BY g", false},
  };
  for (Engine* set : {&two(), &three()}) {
    const uint64_t n = 2000 + rng() % 4000;
    Catalog catalog;
    catalog.add("t", many_groups_table(rng, n));
    const std::string what = "rows " + std::to_string(n) + ", seed " + std::to_string(seed);
    for (const auto& [q, compute] : queries) {
      const Result got = check_partitioned(*set, q, catalog, what);
      const std::string merge = merge_part(got);
      INFO(q << "\nalgorithm: " << got.report.algorithm);
      CHECK(!merge.empty());
      CHECK((merge.find("partial rows on compute: ") != std::string::npos) == compute);
      CHECK((merge.find("the compute backend does not take the merge") != std::string::npos) == !compute);
    }
    // A few partial rows (one per device) merge on the host, and the report says why.
    const Result few = check_partitioned(*set, "SELECT COUNT(*), SUM(v), MAX(w) FROM t", catalog, what);
    INFO("algorithm: " << few.report.algorithm);
    CHECK(merge_part(few).find("partial rows on cpu: ") != std::string::npos);
    CHECK(merge_part(few).find("partial rows merge on the host") != std::string::npos);
  }
}

TEST_CASE("multi-device: a merged BIGINT SUM past 2^63 raises the CPU engine's Overflow") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max(), kLow = std::numeric_limits<int32_t>::min();
  // One row per device, each partial sum within BIGINT (|w * 2^32| <= 2^63), their sum past it
  // (all kMax, or all kLow) or within it (mixed signs).
  for (Engine* set : {&two(), &three()}) {
    const size_t parts = set == &two() ? 2 : 3;
    for (int round = 0; round < 4; ++round) {
      std::vector<int32_t> w(parts);
      for (auto& x : w) x = round == 0 ? kMax : round == 1 ? kLow : (rng() % 2 ? kMax : kLow);
      if (round == 3) w[0] = kMax, w[1] = kLow;
      Catalog catalog;
      catalog.add("t", Table{{Column::ints("g", std::vector<int32_t>(parts, 7)), Column::ints("w", w)}});
      for (const char* q : {"SELECT g, SUM(w * 4294967296) FROM t GROUP BY g", "SELECT SUM(w * 4294967296) FROM t"}) {
        INFO(q << ", round " << round);
        std::optional<Error> want;
        try {
          set->execute_sql(q, catalog, Backend::Cpu);
        } catch (const Error& e) {
          want = e;
        }
        if (!want) {
          check_partitioned(*set, q, catalog, "seed " + std::to_string(seed));
          continue;
        }
        CHECK(want->code() == ErrorCode::Overflow);
        try {
          set->execute_sql(q, catalog, Backend::Compute);
          FAIL("the partitioned query did not raise " << want->what());
        } catch (const Error& e) {
          CHECK(e.code() == ErrorCode::Overflow);
          CHECK(std::string(e.what()) == std::string(want->what()));
        }
        // The engine answers the next query.
        check_partitioned(*set, "SELECT g, COUNT(*) FROM t GROUP BY g", catalog, "after the overflow");
      }
    }
  }
}

TEST_CASE("multi-device: merges of many groups with NULL keys and NULL values on the CPU engine") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const uint64_t n = 1000 + rng() % 3000;
  Table t = many_groups_table(rng, n);
  for (const char* name : {"g", "v", "w"}) {
    Column& c = t.columns[*t.find(name)];
    c.nulls.assign(n, 0);
    for (auto& flag : c.nulls) flag = rng() % (name[0] == 'g' ? 8 : 3) == 0;
  }
  Catalog catalog;
  catalog.add("t", std::move(t));
  // Auto: on lavapipe the devices' fragments and the merge run on the CPU engine, which takes NULLs
  // (partial SUMs are NULL where a group's values all are, in their narrowed or split words too).
  for (const char* q : {"SELECT g, COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v) FROM t GROUP BY g",
                        "SELECT g, h, COUNT(*), SUM(w * 1048576), AVG(w) FROM t GROUP BY g, h",
                        "SELECT q, SUM(w * 1073741824), MIN(g) FROM t GROUP BY q ORDER BY q LIMIT 50"})
    for (Engine* set : {&two(), &three()}) {
      const Result got = check_partitioned(
          *set, q, catalog, "rows " + std::to_string(n) + ", seed " + std::to_string(seed), Backend::Auto);
      CHECK_MESSAGE(merge_part(got).find("partial rows on cpu: ") != std::string::npos, got.report.algorithm);
    }
}

TEST_CASE("multi-device: boundary sizes (no rows, fewer rows than devices, one per device, uneven)") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const uint64_t n : {0, 1, 2, 3, 4, 5, 7, 1001}) {
    Catalog catalog;
    catalog.add("t", fact_table(rng, n));
    catalog.add("d", dim_table(rng));
    for (const char* q : {"SELECT COUNT(*), SUM(v), MIN(v), MAX(v), AVG(v) FROM t",
                          "SELECT g, COUNT(*), SUM(v) FROM t GROUP BY g", "SELECT k, v FROM t WHERE v > 0",
                          "SELECT v FROM t ORDER BY v LIMIT 2", "SELECT dg, SUM(v) FROM t, d WHERE k = dk GROUP BY dg"})
      check_partitioned(three(), q, catalog, "rows " + std::to_string(n) + ", seed " + std::to_string(seed));
  }
}

TEST_CASE("multi-device: FLOAT sums within the documented bound") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const uint64_t n = 2000 + rng() % 2000;
  std::vector<float> f(n);
  double magnitude = 0;
  for (auto& x : f)
    x = std::ldexp(float(int(rng() % 2001) - 1000) / 7.0f, int(rng() % 40) - 20), magnitude += std::fabs(x);
  Catalog catalog;
  Table t;
  t.columns = {Column::floats("f", f)};
  catalog.add("t", std::move(t));
  const Result want = three().execute_sql("SELECT SUM(f), AVG(f) FROM t", catalog, Backend::Cpu);
  const Result got = three().execute_sql("SELECT SUM(f), AVG(f) FROM t", catalog, Backend::Compute);
  // Each partial is its range's exact sum rounded once; the merge adds them exactly and rounds once:
  // at most (devices + 1) half-ulps of the sum of magnitudes.
  const double bound = 4 * 0.5 * std::ldexp(1.0, -52) * magnitude;
  CHECK(std::fabs(got.table.columns[0].as<double>()[0] - want.table.columns[0].as<double>()[0]) <= bound);
  CHECK(std::fabs(got.table.columns[1].as<double>()[0] - want.table.columns[1].as<double>()[0]) <= bound / double(n));
  CHECK(got.report.partitions.size() == 3);
  CHECK(three().take_debug_messages().empty());
}

TEST_CASE("multi-device: auto placement splits the same way and the report names each device") {
  std::mt19937_64 rng(7);
  Catalog catalog;
  catalog.add("t", fact_table(rng, 1000));
  catalog.add("d", dim_table(rng));
  const std::string sql = "SELECT dg, SUM(v) FROM t, d WHERE k = dk GROUP BY dg";
  check_partitioned(two(), sql, catalog, "auto", Backend::Auto);
  const Result r = two().execute_sql(sql, catalog, Backend::Compute);
  REQUIRE(r.report.partitions.size() == 2);
  CHECK(r.report.partitions[0].first_row == 0);
  CHECK(r.report.partitions[0].rows == 500);
  CHECK(r.report.partitions[1].first_row == 500);
  CHECK(r.report.partitioning.find("t by row ranges; broadcast d") != std::string::npos);
  CHECK(r.report.text().find("device 1 ('0'") != std::string::npos);
  CHECK(r.report.text().find("exchange:") != std::string::npos);
  // The Database API takes the same options.
  EngineOptions options;
  options.vk_devices = {"0", "0"};
  Database db(options);
  db.add("t", catalog.get("t"));
  db.add("d", catalog.get("d"));
  const Result from_db = db.sql(sql, Backend::Compute);
  CHECK(from_db.report.partitions.size() == 2);
  CHECK(table_difference(r.table, from_db.table).empty());
  const auto explain = two().explain_sql(sql, catalog, Backend::Compute);
  CHECK(explain.partitioning.find("over 2 devices") == 0);
  CHECK(two().take_debug_messages().empty());
}

TEST_CASE("multi-device: what the split cannot answer exactly runs on one device, or fails when required") {
  std::mt19937_64 rng(11);
  Catalog catalog;
  catalog.add("t", fact_table(rng, 300));
  for (const char* q : {"SELECT MEDIAN(v) FROM t", "SELECT COUNT(DISTINCT v) FROM t",
                        "SELECT k FROM t UNION SELECT h FROM t", "SELECT a.k FROM t a, t b WHERE a.k = b.v"}) {
    CAPTURE(q);
    test::expect_error([&] { two().execute_sql(q, catalog, Backend::Auto); }, ErrorCode::Unsupported,
                       {"partitioned execution over 2 devices cannot answer exactly"});
  }
  EngineOptions options;
  options.vk_devices = {"0", "0"};
  Engine lenient(options);
  const Result r = lenient.execute_sql("SELECT MEDIAN(v) FROM t", catalog, Backend::Auto);
  CHECK(r.report.partitions.empty());
  CHECK(r.report.partitioning.find("one device") == 0);
  CHECK(r.report.partitioning.find("MEDIAN(v)") != std::string::npos);
  CHECK(table_difference(lenient.execute_sql("SELECT MEDIAN(v) FROM t", catalog, Backend::Cpu).table, r.table).empty());
}

TEST_CASE("multi-device: device lists name the entry that is wrong") {
  Catalog catalog;
  catalog.add("t", Table{{Column::ints("v", {1, 2, 3})}});
  EngineOptions options;
  options.vk_devices = {"0", "99"};
  Engine bad(options);
  test::expect_error([&] { bad.execute_sql("SELECT SUM(v) FROM t", catalog); }, ErrorCode::Unsupported,
                     {"EngineOptions::vk_devices entry 1 ('99')", "matches no Vulkan device"});
  options.vk_devices = {"0", ""};
  test::expect_error([&] { Engine e(options); }, ErrorCode::InvalidInput, {"entry 1 is empty"});
  // GFXQ_VK_DEVICE takes a list; its errors name the entry too.
  ::setenv("GFXQ_VK_DEVICE", "0,0", 1);
  {
    Engine from_env;
    const Result r = from_env.execute_sql("SELECT SUM(v) FROM t", catalog, Backend::Compute);
    CHECK(r.report.partitions.size() == 2);
    CHECK(r.table.columns[0].as<int64_t>()[0] == 6);
  }
  ::setenv("GFXQ_VK_DEVICE", "0,,0", 1);
  test::expect_error([] { Engine e; }, ErrorCode::InvalidInput, {"GFXQ_VK_DEVICE='0,,0': entry 1 is empty"});
  ::unsetenv("GFXQ_VK_DEVICE");
}

TEST_CASE("multi-device: SSB at SF 0.01 on two devices equals one device") {
  const auto dir = std::filesystem::temp_directory_path() / ("gfxq_multi_ssb_" + std::to_string(getpid()));
  SsbOptions options;
  options.scale_factor = 0.01;
  options.out_dir = dir.string();
  generate_ssb(options);
  Catalog catalog;
  for (const std::string& t : ssb_table_names()) catalog.add(t, read_csv_file((dir / (t + ".csv")).string()));
  std::filesystem::remove_all(dir);
  for (const auto& q : ssb::load_queries(GFXQ_SSB_QUERY_DIR)) {
    if (q.name != "q1.1" && q.name != "q2.1" && q.name != "q3.1" && q.name != "q4.1") continue;
    check_partitioned(two(), q.sql, catalog, q.name);
  }
}

TEST_CASE("multi-device: gfxq sql and gfxq shell take --devices") {
  const auto dir = std::filesystem::temp_directory_path() / ("gfxq_multi_cli_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.csv").string();
  {
    std::mt19937_64 rng(5);
    write_csv_file(path, fact_table(rng, 500));
  }
  const std::string sql = "SELECT g, SUM(v), AVG(v) FROM t GROUP BY g ORDER BY g";
  const auto one = test::cli({"sql", "--backend", "cpu", "--table", "t=" + path, sql});
  const auto two =
      test::cli({"sql", "--backend", "compute", "--devices", "0,0", "--explain", "--table", "t=" + path, sql});
  CHECK(one.status == 0);
  CHECK(two.status == 0);
  CHECK(two.out == one.out);
  CHECK(two.err.find("partitioning: over 2 devices: t by row ranges") != std::string::npos);
  CHECK(two.err.find("device 1 ('0'") != std::string::npos);
  const auto plan = test::cli({"sql", "--devices", "0,0", "--plan", "--table", "t=" + path, sql});
  CHECK(plan.out.find("partitioning: over 2 devices") != std::string::npos);
  const auto bad = test::cli({"sql", "--devices", "0,,0", "--table", "t=" + path, sql});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("entry 1 is empty") != std::string::npos);
  const std::string script = (dir / "s.sql").string();
  std::ofstream(script) << ".load t " << path << "\n" << sql << ";\n";
  const auto shell = test::cli({"shell", "--backend", "compute", "--devices", "0,0,0", "-f", script});
  CHECK(shell.status == 0);
  CHECK(shell.out == "loaded t: 500 rows, 6 columns\n" + one.out);
  std::filesystem::remove_all(dir);
}

TEST_CASE("multi-device: NULLs, HAVING, OFFSET and expressions split exactly") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const uint64_t n = 500 + rng() % 1500;
  Table t = fact_table(rng, n);
  // NULLs in v and in the STRING key s, about one row in eight each.
  for (const char* name : {"v", "s"}) {
    Column& c = t.columns[*t.find(name)];
    c.nulls.assign(n, 0);
    for (auto& flag : c.nulls) flag = rng() % 8 == 0;
  }
  Catalog catalog;
  catalog.add("t", std::move(t));
  catalog.add("d", dim_table(rng));
  // Auto: on lavapipe every device's fragment and the merge run on the CPU engine, which takes NULLs.
  for (const char* q :
       {"SELECT COUNT(v), COUNT(*), SUM(v), AVG(v), MIN(v), MAX(v) FROM t",
        "SELECT s, COUNT(v), AVG(v), MIN(s) FROM t GROUP BY s",
        "SELECT g, SUM(v) FROM t GROUP BY g HAVING SUM(v) > 0 ORDER BY g",
        "SELECT k, v FROM t WHERE k > 3 LIMIT 5 OFFSET 3", "SELECT v, k FROM t ORDER BY v DESC, k LIMIT 4 OFFSET 2",
        "SELECT k + g, SUM(v * 2), AVG(f) FROM t GROUP BY k + g", "SELECT DISTINCT s FROM t",
        "SELECT AVG(f), SUM(f), MAX(s) FROM t WHERE v < 0",
        "SELECT dg, COUNT(v), AVG(v) FROM t JOIN d ON k = dk WHERE s > 's1' GROUP BY dg"})
    for (Engine* set : {&two(), &three()})
      check_partitioned(*set, q, catalog, "rows " + std::to_string(n) + ", seed " + std::to_string(seed),
                        Backend::Auto);
}

namespace {

// The split of `sql` over `catalog`, or nullopt with `why`.
std::optional<engine::partitioned::Split> split_of(const std::string& sql, const Catalog& catalog, std::string& why,
                                                   std::unique_ptr<plan::Node>& root) {
  root = plan::bind(sql::parse_statement(sql).query, catalog);
  return engine::partitioned::split_plan(*root, why);
}

}  // namespace

TEST_CASE("multi-device split: merge kinds, the partitioned table, LIMIT pushed below, refusals") {
  std::mt19937_64 rng(3);
  Catalog catalog;
  catalog.add("t", fact_table(rng, 100));
  catalog.add("d", dim_table(rng));
  using engine::partitioned::MergeKind;
  std::string why;
  std::unique_ptr<plan::Node> root;
  auto s = split_of("SELECT g, AVG(v), SUM(v), COUNT(v) FROM t GROUP BY g", catalog, why, root);
  REQUIRE(s);
  CHECK(s->kind == MergeKind::Aggregate);
  CHECK(s->partitioned_table == "t");
  CHECK(s->group_keys == 1);
  CHECK(s->partial_aggs.size() == 2);  // AVG(v) shares SUM(v) and COUNT(v) with the query's own
  REQUIRE(s->finish.size() == 3);
  CHECK(s->finish[0].kind == AggKind::Avg);
  CHECK(s->finish[0].column == s->finish[1].column);
  CHECK(s->finish[0].count_column == s->finish[2].column);
  // The broadcast side is the smaller table, whichever side of the join it is on.
  s = split_of("SELECT dg, SUM(v) FROM d, t WHERE k = dk GROUP BY dg", catalog, why, root);
  REQUIRE(s);
  CHECK(s->partitioned_table == "t");
  CHECK(s->broadcast == std::vector<std::string>{"d"});
  // Row order: the leftmost table is partitioned, and each partition keeps OFFSET + LIMIT rows.
  s = split_of("SELECT v FROM d, t WHERE k = dk ORDER BY v LIMIT 3 OFFSET 2", catalog, why, root);
  REQUIRE(s);
  CHECK(s->kind == MergeKind::Reapply);
  CHECK(s->partitioned_table == "d");
  CHECK(s->partial->kind == plan::NodeKind::Limit);
  CHECK(s->partial->limit == 5);
  CHECK(s->partial->offset == 0);
  s = split_of("SELECT k, v FROM t WHERE v > 0", catalog, why, root);
  REQUIRE(s);
  CHECK(s->kind == MergeKind::Concat);
  CHECK(s->replaced_path.empty());
  for (const auto& [sql, reason] : std::vector<std::pair<std::string, std::string>>{
           {"SELECT QUANTILE(v, 0.9) FROM t", "no distributed radix select"},
           {"SELECT KTH_LARGEST(v, 2) FROM t", "no distributed radix select"},
           {"SELECT g, COUNT(DISTINCT v) FROM t GROUP BY g", "distinct values may repeat"},
           {"SELECT k FROM t EXCEPT SELECT dk FROM d", "is not split across partitions"},
           {"SELECT a.v FROM t a, t b WHERE a.k = b.g ORDER BY a.v", "scanned twice"}}) {
    CAPTURE(sql);
    why.clear();
    CHECK_FALSE(split_of(sql, catalog, why, root));
    CHECK(why.find(reason) != std::string::npos);
  }
  // A forced partitioned table (the MPI ranks' and a future user's choice) must keep row order.
  root = plan::bind(sql::parse_statement("SELECT v FROM d, t WHERE k = dk").query, catalog);
  CHECK_FALSE(engine::partitioned::split_plan(*root, why, std::string("t")));
  CHECK(why.find("not the leftmost") != std::string::npos);
}

TEST_CASE("multi-device split: row ranges, slices, serialized partials and their concatenation") {
  using namespace engine::partitioned;
  for (uint64_t rows : {0, 1, 2, 5, 7, 1000, 1001}) {
    for (size_t parts : {1, 2, 3, 8}) {
      uint64_t next = 0;
      for (size_t i = 0; i < parts; ++i) {
        const auto [first, count] = row_range(rows, parts, i);
        CHECK(first == next);
        CHECK(count <= rows / parts + 1);
        next = first + count;
      }
      CHECK(next == rows);
    }
  }
  std::mt19937_64 rng(9);
  Table t = fact_table(rng, 50);
  t.columns[3].nulls.assign(50, 0);
  t.columns[3].nulls[7] = 1;
  const Table part = slice(t, 10, 20);
  CHECK(part.rows() == 20);
  CHECK(part.columns[4].dictionary == t.columns[4].dictionary);
  CHECK(part.columns[3].value(0) == t.columns[3].value(10));
  // A round trip through bytes keeps every cell; concatenation re-encodes STRING codes into the
  // schema's dictionary.
  const std::vector<uint8_t> bytes = serialize(part);
  const Table back = deserialize(bytes.data(), bytes.size());
  CHECK_THROWS_AS(deserialize(bytes.data(), bytes.size() - 1), Error);
  plan::Schema schema;
  for (const Column& c : t.columns) schema.push_back({c.name, "", c.type, c.dictionary});
  const Table joined = concatenate({slice(t, 0, 10), back, slice(t, 30, 20)}, schema);
  REQUIRE(joined.rows() == 50);
  for (size_t c = 0; c < t.columns.size(); ++c)
    for (uint64_t r = 0; r < 50; ++r) CHECK(joined.columns[c].value(r) == t.columns[c].value(r));
  CHECK(joined.columns[4].dictionary == t.columns[4].dictionary);
  CHECK(table_bytes(part) == 20 * 6 * 4 + 20);  // six 4-byte columns and v's NULL flags
}
