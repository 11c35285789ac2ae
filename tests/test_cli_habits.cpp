// The CLI's habits: help for every command, --version, close matches for mistyped commands and
// options, result formats and --output, convert, and progress lines (their text; silent when
// stderr is not a terminal).
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_support.h"
#include "cli/cli.h"
#include "gfxq/gfxq.h"

namespace {

using gfxq::test::cli;
using gfxq::test::CliRun;

struct TempDir {
  std::filesystem::path path;
  TempDir() : path(std::filesystem::temp_directory_path() / ("gfxq_cli_habits_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name, const std::string& content = "") const {
    const std::string p = (path / name).string();
    if (!content.empty()) std::ofstream(p, std::ios::binary) << content;
    return p;
  }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("cli: --help, -h and help print the usage on stdout; no command prints it on stderr") {
  for (const std::string h : {"--help", "-h", "help"}) {
    CAPTURE(h);
    const auto r = cli({h});
    CHECK(r.status == 0);
    CHECK(r.out.find("usage: gfxq COMMAND") != std::string::npos);
    CHECK(r.out.find("gfxq convert IN OUT") != std::string::npos);
    CHECK(r.err.empty());
  }
  const auto none = cli({});
  CHECK(none.status == 2);
  CHECK(none.out.empty());
  CHECK(none.err.find("usage: gfxq COMMAND") != std::string::npos);
}

TEST_CASE("cli: every command has help, the same from 'help COMMAND' and 'COMMAND --help'") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> commands = {
      {{"info"}, "capability records"}, {{"sql"}, "--output FILE"}, {{"gen"}, "--column SPEC"},
      {{"gen", "ssb"}, "--sf N"},       {{"convert"}, "IN OUT"},    {{"demo"}, "--rows N"}};
  for (const auto& [words, text] : commands) {
    CAPTURE(words.back());
    std::vector<std::string> help = {"help"};
    help.insert(help.end(), words.begin(), words.end());
    const auto a = cli(help);
    CHECK(a.status == 0);
    CHECK(a.out.find("usage: gfxq " + words[0]) != std::string::npos);
    CHECK(a.out.find(text) != std::string::npos);
    for (const std::string flag : {"--help", "-h"}) {
      std::vector<std::string> with = words;
      with.push_back(flag);
      const auto b = cli(with);
      CHECK(b.status == 0);
      CHECK(b.out == a.out);
    }
  }
  // --help wins over other arguments, even wrong ones.
  CHECK(cli({"sql", "--nonsense", "--help"}).status == 0);
  const auto unknown = cli({"help", "frobnicate"});
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("unknown command 'frobnicate'") != std::string::npos);
}

TEST_CASE("cli: --version") {
  for (const std::string v : {"--version", "version"}) {
    const auto r = cli({v});
    CHECK(r.status == 0);
    CHECK(r.out.rfind("gfxq ", 0) == 0);
    CHECK(r.out.size() > 6);
  }
}

TEST_CASE("cli: a mistyped command or option names the close match") {
  struct Case {
    std::vector<std::string> args;
    std::string message, guess;
  };
  const std::vector<Case> cases = {
      {{"sq"}, "unknown command 'sq'", "did you mean 'sql'?"},
      {{"conver", "a.csv", "b.gfxq"}, "unknown command 'conver'", "did you mean 'convert'?"},
      {{"sql", "--tabel", "t=x.csv", "SELECT 1"}, "unknown option '--tabel' for gfxq sql", "'--table'"},
      {{"sql", "--explian", "SELECT 1"}, "unknown option '--explian'", "'--explain'"},
      {{"sql", "--out", "f.csv", "SELECT 1"}, "unknown option '--out'", "'--output'"},
      {{"gen", "--row", "5", "--out", "x.csv"}, "unknown argument '--row' for gfxq gen", "'--rows'"},
      {{"demo", "--sed", "1"}, "unknown argument '--sed' for gfxq demo", "'--seed'"},
      {{"gen", "ssb", "--sf", "1", "--thread", "2"}, "unknown argument '--thread' for gfxq gen ssb", "'--threads'"},
      {{"sql", "--format", "tabel", "SELECT 1"}, "--format takes csv, table or json", "'table'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.message);
    const auto r = cli(c.args);
    CHECK(r.status == 2);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(r.err.find(c.guess) != std::string::npos);
  }
  // Nothing close: no guess.
  const auto r = cli({"sql", "--zzzzzz", "SELECT 1"});
  CHECK(r.err.find("unknown option '--zzzzzz'") != std::string::npos);
  CHECK(r.err.find("did you mean") == std::string::npos);
  CHECK(!gfxq::cli::closest("x", {"sql", "gen"}));
  CHECK(gfxq::cli::closest("--tab", {"--backend", "--table"}) == std::optional<std::string>("--table"));
  CHECK(gfxq::cli::closest("gne", {"gen", "info"}) == std::optional<std::string>("gen"));
}

TEST_CASE("cli: sql --output FILE --format csv|table|json") {
  TempDir dir;
  const std::string t = dir.file("t.csv", "a:int,x:float\n3,0.5\n-10,nan\n250,-inf\n");
  const std::string q = "SELECT a, x FROM t ORDER BY a";
  const auto csv = cli({"sql", "--backend", "cpu", "--table", "t=" + t, q});
  REQUIRE(csv.status == 0);
  CHECK(csv.out == "a,x\n-10,nan\n3,0.5\n250,-inf\n");

  const auto table = cli({"sql", "--backend", "cpu", "--format", "table", "--table", "t=" + t, q});
  CHECK(table.status == 0);
  CHECK(table.out == "  a     x\n---  ----\n-10   nan\n  3   0.5\n250  -inf\n");

  const auto json = cli({"sql", "--backend", "cpu", "--format", "json", "--table", "t=" + t, q});
  CHECK(json.status == 0);
  CHECK(json.out == "[\n {\"a\": -10, \"x\": \"nan\"},\n {\"a\": 3, \"x\": 0.5},\n {\"a\": 250, \"x\": \"-inf\"}\n]\n");
  const auto null = cli({"sql", "--backend", "cpu", "--format", "json", "--table", "t=" + t,
                         "SELECT MIN(a), COUNT(*) FROM t WHERE a > 1000"});
  CHECK(null.out == "[\n {\"MIN(a)\": null, \"COUNT(*)\": 0}\n]\n");
  const auto empty =
      cli({"sql", "--backend", "cpu", "--format", "json", "--table", "t=" + t, "SELECT a FROM t WHERE a > 1000"});
  CHECK(empty.out == "[]\n");

  // To a file: nothing on stdout; the format from --format, else from the extension.
  for (const auto& [name, format, want] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"r.csv", "", csv.out}, {"r.json", "", json.out}, {"r.txt", "", table.out}, {"r.out", "json", json.out}}) {
    CAPTURE(name);
    std::vector<std::string> args = {"sql", "--backend", "cpu", "--table", "t=" + t, "--output", dir.file(name)};
    if (!format.empty()) args.insert(args.end(), {"--format", format});
    args.push_back(q);
    const auto r = cli(args);
    CHECK(r.status == 0);
    CHECK(r.out.empty());
    CHECK(slurp(dir.file(name)) == want);
  }
  const auto bad = cli({"sql", "--table", "t=" + t, "--output", dir.file("no/such/dir/r.csv"), q});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("cannot open") != std::string::npos);
}

TEST_CASE("cli: convert between .csv and .gfxq keeps the table; progress stays off when stderr is no terminal") {
  TempDir dir;
  const std::string csv = dir.file("t.csv"), gfxq_file = dir.file("t.gfxq"), back = dir.file("back.csv");
  REQUIRE(cli({"gen", "--out", csv, "--rows", "3000", "--seed", "9"}).status == 0);
  const auto a = cli({"convert", csv, gfxq_file});
  CHECK(a.status == 0);
  CHECK(a.err.empty());  // no progress line: stderr is a string stream here
  CHECK(a.out.find("wrote 3000 rows") != std::string::npos);
  CHECK(cli({"convert", gfxq_file, back}).status == 0);
  CHECK(slurp(back) == slurp(csv));
  CHECK(cli({"convert", csv}).status == 2);
  CHECK(cli({"convert", csv, dir.file("t.parquet")}).err.find(".csv or .gfxq") != std::string::npos);
  CHECK(cli({"convert", dir.file("missing.csv"), back}).status == 2);
}

TEST_CASE("cli: progress lines give the amount, the share, the rate and the time left") {
  using gfxq::cli::progress_line;
  CHECK(progress_line("reading t.csv", 50'000'000, 200'000'000, "B", 0.5) ==
        "reading t.csv: 50.0 MB of 200.0 MB (25%), 100.0 MB/s, ETA 2 s");
  CHECK(progress_line("reading t.csv", 2'500'000'000, 2'500'000'000, "B", 2) ==
        "reading t.csv: 2.50 GB of 2.50 GB (100%), 1.25 GB/s");
  CHECK(progress_line("writing t.csv", 0, 1000, "rows", 0) == "writing t.csv: 0 rows of 1000 rows (0%)");
  CHECK(progress_line("writing t.csv", 250, 1000, "rows", 1) ==
        "writing t.csv: 250 rows of 1000 rows (25%), 250 rows/s, ETA 3 s");
}

TEST_CASE("cli: the CSV reader and writer report progress through their options") {
  std::ostringstream text;
  std::vector<int32_t> v(100000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(i);
  const gfxq::Table t{{gfxq::Column::ints("a", v)}};
  std::vector<std::pair<uint64_t, uint64_t>> written;
  gfxq::CsvWriteOptions w;
  w.chunk_rows = 1000;
  w.threads = 2;
  w.progress = [&](uint64_t done, uint64_t total) { written.emplace_back(done, total); };
  gfxq::write_csv(text, t, w);
  REQUIRE(!written.empty());
  CHECK(written.back() == std::pair<uint64_t, uint64_t>{100000, 100000});
  CHECK(std::is_sorted(written.begin(), written.end()));
  std::vector<std::pair<uint64_t, uint64_t>> read;
  gfxq::CsvReadOptions r;
  r.chunk_bytes = 4096;
  r.threads = 3;
  r.progress = [&](uint64_t done, uint64_t total) { read.emplace_back(done, total); };
  const std::string s = text.str();
  CHECK(gfxq::read_csv_text(s, "t.csv", r).rows() == 100000);
  REQUIRE(!read.empty());
  const uint64_t data = s.size() - s.find('\n') - 2;  // the data after the header, without the last line end
  CHECK(read.back() == std::pair<uint64_t, uint64_t>{data, data});
  CHECK(std::is_sorted(read.begin(), read.end()));
}
