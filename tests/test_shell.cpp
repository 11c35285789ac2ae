// gfxq shell: statements across lines, dot commands, errors that do not stop the shell, exit
// status of a piped run, tables loaded once and used by later statements, plans.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/cli.h"
#include "cli/shell.h"
#include "gfxq/gfxq.h"

namespace {

using namespace gfxq;

struct ShellRun {
  int status;
  std::string out, err;
};

ShellRun shell(const std::string& input, Catalog& catalog, cli::ShellOptions options = {}) {
  std::istringstream in(input);
  std::ostringstream out, err;
  Engine engine;
  options.format = cli::Format::Csv;
  const int status = cli::run_shell(in, out, err, catalog, engine, options);
  return {status, out.str(), err.str()};
}

Catalog small_catalog() {
  Catalog c;
  c.add("t", Table{{Column::ints("a", {3, 1, 2, 5}), Column::strings("s", {"x", "y", "x", "z"})}});
  return c;
}

}  // namespace

TEST_CASE("shell: statements span lines and several share a line; results print in the chosen mode") {
  Catalog catalog = small_catalog();
  const auto r = shell(
      "SELECT COUNT(*)\n  FROM t\n WHERE a > 1;\nSELECT s, COUNT(*) AS n FROM t GROUP BY s ORDER BY s; SELECT MAX(a) "
      "FROM t;\n",
      catalog);
  CHECK(r.status == 0);
  CHECK(r.err == "");
  CHECK(r.out == "COUNT(*)\n3\ns,n\nx,2\ny,1\nz,1\nMAX(a)\n5\n");
}

TEST_CASE("shell: an error prints its message, the shell goes on, the status is the first error's") {
  Catalog catalog = small_catalog();
  const auto r = shell(
      "SELEC a FROM t;\nSELECT a FROM t WHERE a = 5;\nSELECT nope FROM t;\n.frobnicate\nSELECT 1 + a FROM t LIMIT 1;\n",
      catalog);
  CHECK(r.status == cli::kBadInput);
  CHECK(r.out == "a\n5\n\"1 + a\"\n4\n");
  CHECK(r.err.find("at 1:1") != std::string::npos);
  CHECK(r.err.find("unknown column 'nope'") != std::string::npos);
  CHECK(r.err.find("unknown command '.frobnicate'") != std::string::npos);
  // A forced backend that cannot run a node: status 3 when it is the first failure.
  Catalog c2 = small_catalog();
  cli::ShellOptions o;
  const auto u =
      shell(".backend raster\nSELECT a FROM t UNION SELECT a FROM t;\n.backend cpu\nSELECT COUNT(*) FROM t;\n", c2, o);
  CHECK(u.status == cli::kUnsupported);
  CHECK(u.err.find("raster backend cannot run") != std::string::npos);
  CHECK(u.out == "COUNT(*)\n4\n");
}

TEST_CASE("shell: .load, .tables, .schema, .drop, .mode, .explain, .timer, .read, .quit") {
  const auto dir = std::filesystem::temp_directory_path() / ("gfxq_shell_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "u.csv").string();
  std::ofstream(csv) << "k:int,name:string,d:date\n1,ann,2024-02-29\n2,bob,1999-12-31\n";
  const std::string script = (dir / "s.sql").string();
  std::ofstream(script) << "SELECT name FROM u WHERE d < DATE '2000-01-01';\n";
  Catalog catalog;
  const auto r = shell(
      ".load u " + csv + "\n.tables\n.schema u\n.mode json\nSELECT k FROM u ORDER BY k DESC;\n.mode csv\n.read " +
          script + "\n.explain on\n.timer on\nSELECT COUNT(*) FROM u;\n.drop u\n.tables\n.quit\nSELECT 1 FROM u;\n",
      catalog);
  CHECK(r.status == 0);
  CHECK(r.out ==
        "loaded u: 2 rows, 3 columns\nname,rows,columns\nu,2,3\nk INT\nname STRING\nd DATE\n"
        "[\n {\"k\": 2},\n {\"k\": 1}\n]\nname\nbob\nCOUNT(*)\n2\nname,rows,columns\n");
  CHECK(r.err.find("Run Time: wall ") != std::string::npos);
  CHECK(r.err.find("Aggregate") != std::string::npos);  // the plan of the report
  CHECK(!catalog.contains("u"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("shell: gfxq shell -f FILE and --table, and gfxq sql --plan runs nothing") {
  const auto dir = std::filesystem::temp_directory_path() / ("gfxq_shell_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "t.csv").string();
  std::ofstream(csv) << "a:int\n4\n5\n6\n";
  const std::string script = (dir / "q.sql").string();
  std::ofstream(script) << "SELECT SUM(a) FROM t; SELECT a FROM t WHERE a > 4\n;";
  std::ostringstream out, err;
  CHECK(cli::run({"shell", "--table", "t=" + csv, "-f", script}, out, err) == 0);
  CHECK(out.str() == "SUM(a)\n15\na\n5\n6\n");
  std::ostringstream pout, perr;
  CHECK(cli::run({"sql", "--plan", "--backend", "cpu", "--table", "t=" + csv, "SELECT a FROM t WHERE a > 4"}, pout,
                 perr) == 0);
  CHECK(pout.str().find("Filter") != std::string::npos);
  CHECK(pout.str().find("cpu") != std::string::npos);
  std::filesystem::remove_all(dir);
}
