// Bad input and CLI edges (issue 26, item 6): bounded messages, bounded memory before a field-count
// error, endless or binary inputs, `gen --rows` limits, literal underflow, table names, options,
// CR-only line ends, and a one-column NULL result that gfxq's own reader reads back.
#include <doctest/doctest.h>

#include <cstdio>

#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli_support.h"
#include "gfxq/gfxq.h"
#include "test_support.h"

namespace {

using gfxq::ErrorCode;

using gfxq::test::cli;
using gfxq::test::CliRun;

std::string scratch_file(const std::string& name, const std::string& content) {
  const auto dir = std::filesystem::temp_directory_path() / ("gfxq_bad_input_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

gfxq::Table read(const std::string& text) {
  std::istringstream in(text);
  return gfxq::read_csv(in, "t.csv");
}

//! The message of the gfxq::Error that `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const gfxq::Error& e) {
    return e.what();
  }
  return "";
}

//! An endless stream of one character (a file without line ends that never ends).
class Endless : public std::streambuf {
 public:
  explicit Endless(char c) : block_(1 << 16, c) {}

 protected:
  int_type underflow() override {
    setg(block_.data(), block_.data(), block_.data() + block_.size());
    return traits_type::to_int_type(block_[0]);
  }

 private:
  std::string block_;
};

}  // namespace

TEST_CASE("bad-input: excerpt escapes control characters and elides long text with its length") {
  CHECK(gfxq::excerpt("abc") == "abc");
  CHECK(gfxq::excerpt("a\rb\nc\td\x01") == "a\\rb\\nc\\td\\x01");
  CHECK(gfxq::excerpt(std::string(100, 'x'), 8) == "xxxxxxxx... (100 bytes)");
  // A cut never splits a UTF-8 character: "é" is two bytes.
  CHECK(gfxq::excerpt("aé", 2) == "a... (3 bytes)");
}

TEST_CASE("bad-input: a 10 MB field, name or argument gives a short message") {
  const std::string huge(10u << 20, '7');
  const std::string huge_name(10u << 20, 'n');
  for (const std::string& message :
       {error_of([&] { read("a:float\n1x" + huge + "\n"); }), error_of([&] { read("a:int\n" + huge + "\n"); }),
        error_of([&] { read("1" + huge_name + "\n"); }), error_of([&] { read("a:" + huge_name + "\n"); }),
        error_of([&] { gfxq::sql::parse("SELECT " + huge_name + " FROM t"); }),
        error_of([&] { gfxq::sql::parse("SELECT a FROM t WHERE a < " + huge + "x"); }),
        error_of([&] { gfxq::sql::parse("SELECT a FROM t LIMIT " + huge); })}) {
    CAPTURE(message.substr(0, 200));
    CHECK(!message.empty());
    CHECK(message.size() < 400);
    CHECK(message.find("bytes") != std::string::npos);
  }
  const auto r = cli({"sql", "--table", "t=" + huge_name, "SELECT 1"});
  CHECK(r.status == 2);
  CHECK(r.err.size() < 6000);  // the path, elided at 4096 bytes
  const auto u = cli({"sql", "--backend", huge_name, "SELECT 1"});
  CHECK(u.status == 2);
  CHECK(u.err.size() < 400);
}

TEST_CASE("bad-input: a 100000-column header over short lines fails at line 2 without reserving their rows") {
  std::string text;
  for (int c = 0; c < 100000; ++c) text += (c ? ",c" : "c") + std::to_string(c);
  text += '\n';
  for (int line = 0; line < 2000000; ++line) text += "1\n";
#if defined(__SANITIZE_ADDRESS__) || defined(GFXQ_TEST_SANITIZED)
  // ASan reserves terabytes of shadow memory, so no address-space limit can apply; the message is checked.
  gfxq::test::expect_error([&] { read(text); }, ErrorCode::InvalidInput,
                           {"t.csv:2:2: ", "expected 100000 fields, found 1"});
#else
  // In a child process limited to 4 GiB of address space beyond what it has mapped already (the
  // GPU drivers of earlier tests map many GiB): reserving 2 M rows for 100,000 columns (800 GB)
  // would fail there; the reader must report the field count before reserving. One malloc arena:
  // each reader thread's own arena reserves 64 MiB of address space, so on 16 cores and more the
  // threads alone would exhaust a small limit (as 1 GiB did on the GPU machine).
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    mallopt(M_ARENA_MAX, 1);
    unsigned long long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%llu", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    const rlim_t mapped = rlim_t(pages) * rlim_t(sysconf(_SC_PAGESIZE));
    const rlimit limit{mapped + (4ull << 30), mapped + (4ull << 30)};
    setrlimit(RLIMIT_AS, &limit);
    int status = 1;
    try {
      read(text);
    } catch (const gfxq::Error& e) {
      const std::string m = e.what();
      status =
          (e.code() == ErrorCode::InvalidInput && m.find("t.csv:2:2: expected 100000 fields, found 1") == 0) ? 0 : 2;
    } catch (...) {
      status = 3;  // std::bad_alloc: the rows were reserved first
    }
    _exit(status);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
#endif
}

TEST_CASE("bad-input: /dev/zero and an endless line fail at once instead of filling memory") {
  CHECK_ERROR(gfxq::read_csv_file("/dev/zero"), ErrorCode::InvalidInput, "/dev/zero:1:1: ", "NUL byte");
  Endless endless('a');
  std::istream in(&endless);
  CHECK_ERROR(gfxq::read_csv(in, "pipe"), ErrorCode::InvalidInput, "pipe:1:1: ", "longer than 16 MiB");
  CHECK_ERROR(read(std::string("a:int\n1\n2\0\n", 11)), ErrorCode::InvalidInput, "t.csv:3:2: ", "NUL byte");
  const auto r = cli({"sql", "--table", "t=/dev/zero", "SELECT COUNT(*) FROM t"});
  CHECK(r.status == 2);
  CHECK(r.err.find("NUL byte") != std::string::npos);
}

TEST_CASE("bad-input: gen --rows beyond memory or not an integer exits 2 naming the value") {
  const auto out = scratch_file("gen.csv", "");
  for (const std::string rows : {"4611686018427387904", "18446744073709551615", "10000000000000"}) {
    CAPTURE(rows);
    const auto r = cli({"gen", "--out", out, "--rows", rows});
    CHECK(r.status == 2);
    CHECK(r.err.find("--rows " + rows + " is too many") != std::string::npos);
    CHECK(r.err.find("host limit") != std::string::npos);
  }
  for (const std::string rows : {"1e10", "-1", "", "18446744073709551616", "12abc"}) {
    CAPTURE(rows);
    const auto r = cli({"gen", "--out", out, "--rows", rows});
    CHECK(r.status == 2);
    CHECK(r.err.find("--rows needs a non-negative integer") != std::string::npos);
  }
  CHECK_ERROR(gfxq::generate_table({{"a", gfxq::Type::Int32}}, uint64_t{1} << 62, 1), ErrorCode::ResultTooLarge,
              "generating 4611686018427387904 rows of 1 columns", "host limit");
}

TEST_CASE("bad-input: literals below the smallest double round to zero; past the largest are errors") {
  const auto value = [](const std::string& literal) {
    const gfxq::Query q = gfxq::sql::parse("SELECT a FROM t WHERE a > " + literal);
    return std::get<double>(q.where.clauses.at(0).terms.at(0).rhs);
  };
  CHECK(value("1e-400") == 0.0);
  CHECK(!std::signbit(value("1e-400")));
  CHECK(value("4.9e-324") == 4.9e-324);
  CHECK(value("2.4703282292062328e-324") == 4.9e-324);  // just above half the smallest subnormal
  CHECK(value("2.4703282292062327e-324") == 0.0);
  CHECK(value("-1e-400") == 0.0);
  CHECK(std::signbit(value("-1e-400")));
  CHECK_ERROR(gfxq::sql::parse("SELECT a FROM t WHERE a > 1e400"), ErrorCode::InvalidQuery,
              "at 1:27: ", "'1e400' is out of range for a double");
  const auto t = scratch_file("lit.csv", "a:float\n0\n1e-45\n-0\n");
  const auto r = cli({"sql", "--backend", "cpu", "--table", "t=" + t, "SELECT COUNT(*) FROM t WHERE a > 1e-400"});
  CHECK(r.status == 0);
  CHECK(r.out == "COUNT(*)\n1\n");
}

TEST_CASE("bad-input: --table names must be queryable and given once") {
  const auto t = scratch_file("names.csv", "a:int\n1\n");
  for (const std::string name : {"my t", "select", "1x", "t.x", "FROM"}) {
    CAPTURE(name);
    const auto r = cli({"sql", "--table", name + "=" + t, "SELECT COUNT(*) FROM t"});
    CHECK(r.status == 2);
    CHECK(r.err.find("--table name '" + name + "' cannot be named in a query") != std::string::npos);
  }
  const auto r = cli({"sql", "--table", "t=" + t, "--table", "t=" + t, "SELECT COUNT(*) FROM t"});
  CHECK(r.status == 2);
  CHECK(r.err.find("--table t is given twice") != std::string::npos);
  CHECK(gfxq::sql::is_identifier("_t1"));
  CHECK(!gfxq::sql::is_identifier("Where"));
}

TEST_CASE("bad-input: an unknown option is not taken as the query; --backend names its values") {
  const auto t = scratch_file("opts.csv", "a:int\n1\n");
  auto r = cli({"sql", "-x"});
  CHECK(r.status == 2);
  CHECK(r.err.find("unknown option '-x' for gfxq sql") != std::string::npos);
  r = cli({"sql", "--table", "t=" + t, "SELECT COUNT(*) FROM t", "-q"});
  CHECK(r.status == 2);
  CHECK(r.err.find("unknown option '-q'") != std::string::npos);
  r = cli({"sql", "--backend", "CPU", "--table", "t=" + t, "SELECT COUNT(*) FROM t"});
  CHECK(r.status == 2);
  CHECK(r.err.find("--backend must be cpu, raster, compute or auto, got 'CPU'") != std::string::npos);
  CHECK(r.err.find("InvalidQuery") == std::string::npos);
}

TEST_CASE("bad-input: CR-only line ends are an error that names them; no raw CR reaches a message") {
  const std::string message = error_of([] { read("a\r1\r2\r"); });
  CHECK(message.find("t.csv:1:2: carriage return without a line feed") == 0);
  CHECK(message.find('\r') == std::string::npos);
  CHECK_ERROR(read("a:int\n1\r2\n"), ErrorCode::InvalidInput, "t.csv:2:2: ", "CR-only line ends");
  // CRLF stays fine, and a bad value holding a CR is quoted escaped.
  CHECK(read("a:int\r\n1\r\n").rows() == 1);
  const std::string bad = error_of([] { read("a:int\n\x1b[2J\n"); });
  CHECK(bad.find("'\\x1b[2J'") != std::string::npos);
}

TEST_CASE("bad-input: a one-column NULL result prints a line gfxq's own reader reads back as NULL") {
  const auto t = scratch_file("null.csv", "a:int,x:float\n1,0.5\n2,1.5\n");
  for (const std::string backend : {"cpu", "auto"}) {
    const auto r = cli({"sql", "--backend", backend, "--table", "t=" + t, "SELECT MIN(a) FROM t WHERE a > 10"});
    CHECK(r.status == 0);
    CHECK(r.out == "MIN(a)\n\"\"\n");
    const gfxq::Table back = read(r.out);
    REQUIRE(back.rows() == 1);
    CHECK(back.columns[0].name == "MIN(a)");
    CHECK(back.columns[0].is_null(0));
  }
  // The reader reads every result gfxq writes: names, NULLs, several columns.
  const auto r = cli({"sql", "--backend", "cpu", "--table", "t=" + t,
                      "SELECT COUNT(*), SUM(a), QUANTILE(x, 0.5), MAX(x) FROM t WHERE a > 10"});
  CHECK(r.status == 0);
  const gfxq::Table back = read(r.out);
  CHECK(back.schema() == "COUNT(*):int,SUM(a):int,QUANTILE(x, 0.5):int,MAX(x):int");
  CHECK(back.rows() == 1);
  CHECK(back.columns[1].is_null(0));
}
