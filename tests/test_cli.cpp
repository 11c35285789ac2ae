// The gfxq CLI, run in-process: output format, exit statuses, error messages.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_support.h"
#include "cli/cli.h"
#include "gfxq/gfxq.h"

namespace {

using gfxq::test::cli;
using gfxq::test::CliRun;

std::string scratch_file(const std::string& name, const std::string& content) {
  const auto dir = std::filesystem::temp_directory_path() / "gfxq_cli_test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << content;
  return path;
}

}  // namespace

TEST_CASE("cli: sql prints the result as CSV and the report with --explain") {
  const auto t = scratch_file("t.csv", "a:int,x:float\n1,0.5\n2,-1.25\n3,0.1\n4,1e-45\n");
  auto r =
      cli({"sql", "--backend", "cpu", "--explain", "--table", "t=" + t, "SELECT a, x FROM t WHERE a >= 2 ORDER BY x"});
  CHECK(r.status == 0);
  CHECK(r.out == "a,x\n2,-1.25\n4,1e-45\n3,0.1\n");
  CHECK(r.err.find("backend: cpu") != std::string::npos);
  CHECK(r.err.find("reason: requested") != std::string::npos);
  CHECK(r.err.find("passes:") != std::string::npos);

  // auto: the same rows, and the report says which backend ran and why.
  r = cli({"sql", "--explain", "--table", "t=" + t, "SELECT a, x FROM t WHERE a >= 2 ORDER BY x"});
  CHECK(r.status == 0);
  CHECK(r.out == "a,x\n2,-1.25\n4,1e-45\n3,0.1\n");
  CHECK(r.err.find("reason: auto") != std::string::npos);

  r = cli({"sql", "--table", "t=" + t, "SELECT COUNT(*), SUM(a), AVG(a), MIN(x) FROM t WHERE a > 10"});
  CHECK(r.status == 0);
  CHECK(r.out == "COUNT(*),SUM(a),AVG(a),MIN(x)\n0,,,\n");  // empty input: COUNT 0, the rest NULL
}

TEST_CASE("cli: exit status 2 for a bad query or input, with the reason on stderr") {
  const auto t = scratch_file("t2.csv", "a:int\n1\n2\n");
  auto r = cli({"sql", "--table", "t=" + t, "SELECT b FROM t"});
  CHECK(r.status == 2);
  CHECK(r.err.find("unknown column 'b'") != std::string::npos);

  r = cli({"sql", "--table", "t=" + t, "SELEC a FROM t"});
  CHECK(r.status == 2);
  CHECK(r.err.find("at 1:1") != std::string::npos);

  const auto bad = scratch_file("bad.csv", "a:int\n1\nx\n");
  r = cli({"sql", "--table", "t=" + bad, "SELECT a FROM t"});
  CHECK(r.status == 2);
  CHECK(r.err.find("bad.csv:3:1") != std::string::npos);

  r = cli({"sql", "--table", "t=/nonexistent/gfxq.csv", "SELECT a FROM t"});
  CHECK(r.status == 2);
  CHECK(r.err.find("/nonexistent/gfxq.csv") != std::string::npos);

  r = cli({"sql", "--backend", "gpu", "SELECT a FROM t"});
  CHECK(r.status == 2);
  CHECK(r.err.find("--backend must be cpu, raster, compute or auto, got 'gpu'") != std::string::npos);

  r = cli({"frobnicate"});
  CHECK(r.status == 2);
  CHECK(r.err.find("unknown command 'frobnicate'") != std::string::npos);
}

TEST_CASE("cli: exit status 3 when the chosen backend cannot run the query, naming the operator") {
  const auto t = scratch_file("t3.csv", "a:int\n1\n2\n");
  for (const char* backend : {"raster", "compute"}) {
    // Raster has no MEDIAN per group; compute has, but groups by columns only.
    const std::string sql = std::string(backend) == "raster" ? "SELECT a, MEDIAN(a) FROM t GROUP BY a"
                                                             : "SELECT a + 1, MEDIAN(a) FROM t GROUP BY a + 1";
    auto r = cli({"sql", "--backend", backend, "--table", "t=" + t, sql});
    CAPTURE(backend);
    CHECK(r.status == 3);
    CHECK(r.out.empty());  // never runs on the CPU behind the user's back
    CHECK(r.err.find(std::string(backend) + " backend") != std::string::npos);
    CHECK(r.err.find("Unsupported") != std::string::npos);
    CHECK(r.err.find("GROUP BY") != std::string::npos);
  }
}

TEST_CASE("cli: gen writes a table that sql reads back") {
  const auto dir = std::filesystem::temp_directory_path() / "gfxq_cli_test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "gen.csv").string();
  auto r = cli(
      {"gen", "--out", path, "--rows", "500", "--seed", "9", "--column", "k:int:sorted:0:9", "--column", "v:float"});
  REQUIRE(r.status == 0);
  const gfxq::Table t = gfxq::read_csv_file(path);
  CHECK(t.rows() == 500);
  CHECK(t.schema() == "k:int,v:float");
  r = cli({"sql", "--table", "g=" + path, "SELECT COUNT(*) FROM g"});
  CHECK(r.out == "COUNT(*)\n500\n");

  r = cli({"gen", "--out", path, "--column", "k:text"});
  CHECK(r.status == 2);
  CHECK(r.err.find("type must be int or float") != std::string::npos);
}

TEST_CASE("cli: info reports both backends' capability records") {
  auto r = cli({"info"});
  CHECK(r.status == 0);
  CHECK(r.out.find("OpenGL (raster backend)") != std::string::npos);
  CHECK(r.out.find("Vulkan (compute backend)") != std::string::npos);
}

TEST_CASE("cli: demo runs its example queries end to end") {
  auto r = cli({"demo", "--rows", "2000"});
  CHECK(r.status == 0);
  CHECK(r.out.find("> SELECT COUNT(*) FROM t JOIN s") != std::string::npos);
  CHECK(r.out.find("backend: cpu") != std::string::npos);
}
