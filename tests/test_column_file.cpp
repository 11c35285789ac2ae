// gfxq column files (docs/FORMATS.md): round trips of every column type, NULL flags and
// dictionaries; every check a reader makes on a damaged file; reading and writing by extension.
#include <doctest/doctest.h>

#include <unistd.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "gfxq/column_file.h"
#include "gfxq/error.h"
#include "gfxq/table.h"
#include "test_support.h"

namespace {

using gfxq::ErrorCode;

struct TempDir {
  std::filesystem::path path;
  TempDir() : path(std::filesystem::temp_directory_path() / ("gfxq_test_colfile_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Equal tables, bit for bit (NaN payloads included), NULL flags and dictionaries too.
void check_identical(const gfxq::Table& a, const gfxq::Table& b) {
  REQUIRE(a.columns.size() == b.columns.size());
  for (size_t i = 0; i < a.columns.size(); ++i) {
    const gfxq::Column& x = a.columns[i];
    const gfxq::Column& y = b.columns[i];
    CAPTURE(x.name);
    CHECK(x.name == y.name);
    REQUIRE(x.type == y.type);
    CHECK(x.nulls == y.nulls);
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          const V& w = std::get<V>(y.data);
          REQUIRE(v.size() == w.size());
          CHECK(std::memcmp(v.data(), w.data(), v.size() * sizeof(typename V::value_type)) == 0);
        },
        x.data);
    if (x.type == gfxq::Type::String) CHECK(*x.dictionary == *y.dictionary);
  }
}

gfxq::Table every_type(std::mt19937_64& rng, size_t rows) {
  std::vector<int32_t> i(rows), d(rows);
  std::vector<float> f(rows);
  std::vector<std::string> s(rows);
  for (size_t r = 0; r < rows; ++r) {
    i[r] = static_cast<int32_t>(rng());
    f[r] = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    d[r] = static_cast<int32_t>(rng() % 100000) - 50000;
    s[r] = rng() % 3 ? std::string("v") + char('a' + rng() % 26) : std::string(rng() % 70, char('!' + rng() % 90));
  }
  gfxq::Column big = gfxq::Column::make("big", gfxq::Type::Int64);
  gfxq::Column dbl = gfxq::Column::make("dbl", gfxq::Type::Float64);
  for (size_t r = 0; r < rows; ++r) {
    if (rng() % 5 == 0)
      big.push(gfxq::Value{});
    else
      big.push(static_cast<int64_t>(rng()));
    dbl.push(std::bit_cast<double>(rng()));
  }
  gfxq::Column str = gfxq::Column::strings("s", s);
  if (rows > 0) {  // a string column with NULLs (their codes are 0)
    str.nulls.assign(rows, 0);
    str.nulls[rows / 2] = 1;
  }
  return gfxq::Table{
      {gfxq::Column::ints("i", i), gfxq::Column::floats("f", f), gfxq::Column::dates("d", d), str, big, dbl}};
}

}  // namespace

TEST_CASE("column file: every column type round trips bit for bit, at sizes across the copy pieces") {
  TempDir dir;
  const uint64_t seed = 5150;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const size_t rows : {0, 1, 2, 63, 64, 65, 1000, 70000}) {
    CAPTURE(rows);
    const gfxq::Table t = every_type(rng, rows);
    const std::string path = dir.file("t.gfxq");
    gfxq::write_column_file(path, t);
    CHECK(!std::filesystem::exists(path + ".tmp"));
    for (const unsigned threads : {1u, 3u}) {
      gfxq::ColumnFileReadOptions o;
      o.threads = threads;
      const gfxq::Table back = gfxq::read_column_file(path, o);
      check_identical(back, t);
      back.validate();
    }
    CHECK(slurp(path).size() % 64 == 0);
  }
  // A table without columns.
  gfxq::write_column_file(dir.file("empty.gfxq"), gfxq::Table{});
  CHECK(gfxq::read_column_file(dir.file("empty.gfxq")).columns.empty());
}

TEST_CASE("column file: by extension, .csv and .gfxq give the same table; other names are refused") {
  TempDir dir;
  const gfxq::Table t{{gfxq::Column::ints("a", {3, 1, 2}), gfxq::Column::strings("s", {"x, y", "\"q\"", "x, y"}),
                       gfxq::Column::dates("d", {0, 1, -1})}};
  gfxq::write_table_file(dir.file("t.csv"), t);
  gfxq::write_table_file(dir.file("t.gfxq"), t);
  check_identical(gfxq::read_table_file(dir.file("t.csv")), t);
  check_identical(gfxq::read_table_file(dir.file("t.gfxq")), t);
  CHECK(slurp(dir.file("t.csv")).substr(0, 5) == "a:int");
  CHECK_ERROR(gfxq::read_table_file(dir.file("t.parquet")), ErrorCode::InvalidInput, "t.parquet", ".csv or .gfxq");
  CHECK_ERROR(gfxq::write_table_file(dir.file("t"), t), ErrorCode::InvalidInput, ".csv or .gfxq");
}

TEST_CASE("column file: write errors: invalid tables and paths") {
  TempDir dir;
  gfxq::Table dup{{gfxq::Column::ints("a", {1}), gfxq::Column::ints("a", {2})}};
  CHECK_ERROR(gfxq::write_column_file(dir.file("d.gfxq"), dup), ErrorCode::InvalidInput, "duplicate column name 'a'");
  CHECK_ERROR(gfxq::write_column_file(dir.file("no/such/dir.gfxq"), gfxq::Table{}), ErrorCode::Io, "no/such/dir.gfxq");
  CHECK_ERROR(gfxq::read_column_file(dir.file("missing.gfxq")), ErrorCode::Io, "missing.gfxq");
}

TEST_CASE("column file: damaged files are InvalidInput naming what is wrong, never read past their end") {
  TempDir dir;
  const gfxq::Table t{{gfxq::Column::ints("a", {1, 2, 3}), gfxq::Column::strings("s", {"b", "a", "c"})}};
  const std::string path = dir.file("t.gfxq");
  gfxq::write_column_file(path, t);
  const std::string good = slurp(path);
  const auto u64 = [&](uint64_t at) {
    uint64_t v;
    std::memcpy(&v, good.data() + at, 8);
    return v;
  };
  const auto with = [&](uint64_t at, auto v) {
    std::string b = good;
    std::memcpy(b.data() + at, &v, sizeof v);
    return b;
  };
  const auto expect = [&](const std::string& bytes, std::initializer_list<std::string_view> parts) {
    spit(path, bytes);
    gfxq::test::expect_error([&] { gfxq::read_column_file(path); }, ErrorCode::InvalidInput, parts);
  };
  const uint64_t a = 32, s = 96;  // the two descriptors
  expect("", {"not a gfxq column file"});
  expect("GFXQCOL", {"not a gfxq column file"});
  expect("a:int\n1\n" + std::string(40, ' '), {"not a gfxq column file"});
  expect(with(8, uint32_t{2}), {"version 2", "version 1"});
  expect(good.substr(0, good.size() - 64), {"the header says the file has"});
  expect(good + std::string(64, '\0'), {"the header says the file has"});
  expect(with(12, uint32_t{1000000}), {"column descriptors do not fit"});
  expect(with(a, uint32_t{9}), {"column 0", "unknown type number 9"});
  expect(with(a + 4, uint32_t{6}), {"column 0", "unknown flags"});
  expect(with(a + 16, uint32_t{0}), {"column 0", "name"});
  expect(with(a + 8, uint64_t{good.size()}), {"column 0", "outside the file"});
  expect(with(s + 8, u64(a + 8)), {"duplicate column name 'a'"});
  expect(with(a + 24, uint64_t{good.size()}), {"column 0 ('a')", "values", "outside the file"});
  expect(with(a + 24, u64(a + 24) + 4), {"values", "not a multiple of 64"});
  expect(with(16, uint64_t{1} << 40), {"column 0 ('a')", "values", "outside the file"});
  expect(with(s + 40, uint64_t{1} << 33), {"column 1 ('s')", "dictionary of 8589934592 strings"});
  expect(with(s + 40, uint64_t{1000}), {"column 1 ('s')", "outside the file"});
  // Dictionary text offsets out of order, strings out of order, codes outside the dictionary.
  const uint64_t offsets = u64(s + 48), text = u64(s + 56), codes = u64(s + 24);
  expect(with(offsets + 8, uint64_t{3}), {"column 's'", "offsets do not ascend"});
  {
    std::string b = good;
    std::swap(b[text], b[text + 1]);  // "abc" -> "bac"
    expect(b, {"column 's'", "not sorted and distinct", "string 1"});
  }
  expect(with(codes + 4, int32_t{3}), {"column 's'", "row 1 holds code 3", "dictionary of 3 strings"});
  expect(with(codes, int32_t{-1}), {"row 0 holds code -1"});
  // The good file still reads.
  spit(path, good);
  check_identical(gfxq::read_column_file(path), t);
}

TEST_CASE("column file: NULL flags other than 0 and 1 are refused; codes under NULL are not checked") {
  TempDir dir;
  gfxq::Column s = gfxq::Column::strings("s", {"x", "y"});
  s.nulls = {0, 1};
  const gfxq::Table t{{s}};
  const std::string path = dir.file("n.gfxq");
  gfxq::write_column_file(path, t);
  std::string b = slurp(path);
  uint64_t nulls, codes;
  std::memcpy(&nulls, b.data() + 32 + 32, 8);
  std::memcpy(&codes, b.data() + 32 + 24, 8);
  const int32_t bad = 77;
  std::memcpy(b.data() + codes + 4, &bad, 4);  // row 1 is NULL: its code is not read
  spit(path, b);
  CHECK(gfxq::read_column_file(path).columns[0].as<int32_t>()[1] == 77);
  b[nulls] = 2;
  spit(path, b);
  CHECK_ERROR(gfxq::read_column_file(path), ErrorCode::InvalidInput, "row 0 has NULL flag 2");
}

TEST_CASE("column file: gfxq gen writes one and gfxq sql reads it, by extension") {
  TempDir dir;
  const std::string gfxq_path = dir.file("t.gfxq"), csv_path = dir.file("t.csv");
  std::ostringstream out, err;
  REQUIRE(gfxq::cli::run({"gen", "--out", gfxq_path, "--rows", "500", "--seed", "3"}, out, err) == 0);
  REQUIRE(gfxq::cli::run({"gen", "--out", csv_path, "--rows", "500", "--seed", "3"}, out, err) == 0);
  check_identical(gfxq::read_column_file(gfxq_path), gfxq::read_csv_file(csv_path));
  const auto query = [&](const std::string& path) {
    std::ostringstream o, e;
    CHECK(gfxq::cli::run({"sql", "--backend", "cpu", "--table", "t=" + path,
                          "SELECT COUNT(*), SUM(a), MIN(c) FROM t WHERE b < 10"},
                         o, e) == 0);
    return o.str();
  };
  CHECK(query(gfxq_path) == query(csv_path));
  std::ostringstream o, e;
  CHECK(gfxq::cli::run({"sql", "--table", "t=" + dir.file("t.txt"), "SELECT COUNT(*) FROM t"}, o, e) == 2);
  CHECK(e.str().find(".csv or .gfxq") != std::string::npos);
}
