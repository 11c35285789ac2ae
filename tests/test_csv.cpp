// CSV input and output: parsing rules, type inference, every error path, exact round trips.
#include <doctest/doctest.h>

#include <bit>
#include <cerrno>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "gfxq/error.h"
#include "gfxq/table.h"
#include "test_support.h"

namespace {

using gfxq::ErrorCode;


gfxq::Table read(const std::string& text, std::string_view source = "t.csv") {
  std::istringstream in(text);
  return gfxq::read_csv(in, source);
}

std::string write(const gfxq::Table& t, bool typed = true) {
  std::ostringstream out;
  gfxq::write_csv(out, t, typed);
  return out.str();
}

uint32_t bits(float f) {
  return std::bit_cast<uint32_t>(f);
}

// Bit-exact equality of two tables, except that any NaN equals any NaN.
void check_same(const gfxq::Table& a, const gfxq::Table& b) {
  REQUIRE(a.columns.size() == b.columns.size());
  for (size_t c = 0; c < a.columns.size(); ++c) {
    const auto& x = a.columns[c];
    const auto& y = b.columns[c];
    CAPTURE(x.name);
    CHECK(x.name == y.name);
    REQUIRE(x.type == y.type);
    REQUIRE(x.size() == y.size());
    CHECK(x.nulls == y.nulls);
    if (x.type == gfxq::Type::Int64 || x.type == gfxq::Type::Float64) {
      // Exact text of every cell (format_value is shortest round-trip, "nan" for any NaN).
      for (uint64_t i = 0; i < x.size(); ++i) CHECK(gfxq::format_value(x.value(i)) == gfxq::format_value(y.value(i)));
    } else if (x.type == gfxq::Type::Int32) {
      CHECK(x.as<int32_t>() == y.as<int32_t>());
    } else {
      const auto& fx = x.as<float>();
      const auto& fy = y.as<float>();
      size_t mismatches = 0;
      for (size_t i = 0; i < fx.size(); ++i) {
        const bool same = (std::isnan(fx[i]) && std::isnan(fy[i])) || bits(fx[i]) == bits(fy[i]);
        if (!same && mismatches++ < 5) {
          INFO("row " << i << ": " << gfxq::format_value(fx[i]) << " (0x" << std::hex << bits(fx[i])
                      << ") read back as 0x" << bits(fy[i]));
          CHECK(same);
        }
      }
      CHECK(mismatches == 0);
    }
  }
}

float parse_back(const std::string& s) {
  float f = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), f);
  REQUIRE(ec == std::errc{});
  REQUIRE(p == s.data() + s.size());
  return f;
}

}  // namespace

TEST_CASE("csv: typed header and values") {
  const auto t = read("a:int,b:float\n1,2.5\n-3,1e3\n");
  CHECK(t.schema() == "a:int,b:float");
  CHECK(t.rows() == 2);
  CHECK(t.column("a").as<int32_t>() == std::vector<int32_t>{1, -3});
  CHECK(t.column("b").as<float>() == std::vector<float>{2.5f, 1000.0f});
  t.validate();
}

TEST_CASE("csv: type names are case-insensitive and spaces around ':' are trimmed") {
  const auto t = read("a : INT, b:Float\n1,2\n");
  CHECK(t.schema() == "a:int,b:float");
}

TEST_CASE("csv: whitespace, CRLF, missing final newline and trailing blank lines give the same table") {
  const auto expected = read("a:int,b:float\n1,0.5\n2,-4\n");
  for (const std::string text : {
           "a:int,b:float\n1,0.5\n2,-4",
           "a:int,b:float\r\n1,0.5\r\n2,-4\r\n",
           "a:int,b:float\r\n1,0.5\r\n2,-4",
           "  a:int ,\tb:float\t\n 1 , 0.5\n2,   -4   \n",
           "a:int,b:float\n1,0.5\n2,-4\n\n\n",
           "a:int,b:float\r\n1,0.5\r\n2,-4\r\n\r\n  \r\n\t\n",
           "\xEF\xBB\xBF"
           "a:int,b:float\n1,0.5\n2,-4\n",
       }) {
    CAPTURE(text);
    check_same(read(text), expected);
  }
}

TEST_CASE("csv: a header alone is a table with no rows") {
  for (const std::string text : {"a:int,b:float", "a:int,b:float\n", "a:int,b:float\r\n\r\n"}) {
    CAPTURE(text);
    const auto t = read(text);
    CHECK(t.schema() == "a:int,b:float");
    CHECK(t.rows() == 0);
  }
  const auto bare = read("x,y\n");
  CHECK(bare.rows() == 0);
  CHECK(bare.schema() == "x:int,y:int");  // nothing contradicts int
}

TEST_CASE("csv: one column") {
  const auto t = read("v\n7\n8\n");
  CHECK(t.schema() == "v:int");
  CHECK(t.column("v").as<int32_t>() == std::vector<int32_t>{7, 8});
}

TEST_CASE("csv: int fields: signs, leading zeros, the int32 limits") {
  const auto t = read("a:int\n+5\n-0\n007\n2147483647\n-2147483648\n+0000000000002147483647\n");
  CHECK(t.column("a").as<int32_t>() == std::vector<int32_t>{5, 0, 7, INT32_MAX, INT32_MIN, INT32_MAX});
}

TEST_CASE("csv: int fields out of int32 range are errors naming the range") {
  for (const std::string v : {"2147483648", "-2147483649", "4294967296", "99999999999999999999999999", "+2147483648"}) {
    CAPTURE(v);
    CHECK_ERROR(read("a:int\n" + v + "\n"), ErrorCode::InvalidInput, "t.csv:2:1: ", "integer '" + v + "'",
                "out of range for int (int32: -2147483648..2147483647)", "column 'a'");
  }
}

TEST_CASE("csv: unparsable int fields") {
  for (const std::string v : {"1.5", "abc", "1e3", "+", "-", "+-1", "--1", "0x10", "1 2", "nan", "inf", "1,5"}) {
    CAPTURE(v);
    const std::string text = "a:int\n" + v + "\n";
    if (v == "1,5") {
      CHECK_ERROR(read(text), ErrorCode::InvalidInput, "t.csv:2:3: ", "expected 1 fields, found 2");
    } else {
      CHECK_ERROR(read(text), ErrorCode::InvalidInput, "t.csv:2:1: ", "unparsable number '" + v + "'",
                  "in column 'a' (int)");
    }
  }
}

TEST_CASE("csv: float fields: notations and special values") {
  const auto t =
      read("x:float\n1.5\n-.25\n5.\n1e3\n1E-2\n+2.5e+1\nnan\nNaN\n-nan\ninf\n-Infinity\n+INF\ninfinity\n0\n-0\n-0.0\n");
  const auto& v = t.column("x").as<float>();
  REQUIRE(v.size() == 16);
  CHECK(v[0] == 1.5f);
  CHECK(v[1] == -0.25f);
  CHECK(v[2] == 5.0f);
  CHECK(v[3] == 1000.0f);
  CHECK(v[4] == 0.01f);
  CHECK(v[5] == 25.0f);
  CHECK(std::isnan(v[6]));
  CHECK(std::isnan(v[7]));
  CHECK(std::isnan(v[8]));
  CHECK(v[9] == std::numeric_limits<float>::infinity());
  CHECK(v[10] == -std::numeric_limits<float>::infinity());
  CHECK(v[11] == std::numeric_limits<float>::infinity());
  CHECK(v[12] == std::numeric_limits<float>::infinity());
  CHECK(bits(v[13]) == bits(0.0f));
  CHECK(bits(v[14]) == bits(-0.0f));
  CHECK(bits(v[15]) == bits(-0.0f));
}

TEST_CASE("csv: float fields: extremes, subnormals and underflow") {
  const auto t = read(
      "x:float\n3.4028235e+38\n-3.4028235e38\n1.17549435e-38\n1e-45\n-1e-45\n1.4e-45\n1.1754942e-38\n"
      "8e-46\n1e-50\n-1e-300\n");
  const auto& v = t.column("x").as<float>();
  REQUIRE(v.size() == 10);
  CHECK(v[0] == FLT_MAX);
  CHECK(v[1] == -FLT_MAX);
  CHECK(v[2] == FLT_MIN);
  CHECK(bits(v[3]) == 1u);                  // smallest subnormal
  CHECK(bits(v[4]) == (0x80000000u | 1u));  // its negative
  CHECK(bits(v[5]) == 1u);
  CHECK(bits(v[6]) == bits(std::nextafter(FLT_MIN, 0.0f)));  // largest subnormal
  CHECK(bits(v[7]) == 1u);                                   // just above half the smallest subnormal
  CHECK(bits(v[8]) == bits(0.0f));                           // underflows to zero, correctly rounded
  CHECK(bits(v[9]) == bits(-0.0f));
}

TEST_CASE("csv: float fields beyond the float range are errors") {
  for (const std::string v : {"3.5e38", "-3.5e38", "1e39", "1e400", "3.4028236e38"}) {
    CAPTURE(v);
    CHECK_ERROR(read("x:float\n" + v + "\n"), ErrorCode::InvalidInput, "t.csv:2:1: ", "'" + v + "'",
                "out of range for float", "column 'x' (float)");
  }
}

TEST_CASE("csv: unparsable float fields") {
  for (const std::string v : {"abc", "1.2.3", "1e", ".", "e5", "0x1p3", "+-1", "1f", "nan(", "infinit", "1 .5"}) {
    CAPTURE(v);
    CHECK_ERROR(read("x:float\n" + v + "\n"), ErrorCode::InvalidInput, "t.csv:2:1: ", "unparsable number '" + v + "'",
                "column 'x' (float)");
  }
}

TEST_CASE("csv: bare columns: int when every value is an int32 integer") {
  const auto t = read("a,b\n1,-2147483648\n+2,2147483647\n-3,0\n");
  CHECK(t.schema() == "a:int,b:int");
  CHECK(t.column("a").as<int32_t>() == std::vector<int32_t>{1, 2, -3});
  CHECK(t.column("b").as<int32_t>() == std::vector<int32_t>{INT32_MIN, INT32_MAX, 0});
}

TEST_CASE("csv: bare columns: float as soon as one value is not an integer token") {
  for (const std::string late : {"0.5", "1e2", "nan", "-inf", "2.", "3E0"}) {
    CAPTURE(late);
    const auto t = read("a\n1\n-0\n16777217\n" + late + "\n7\n");
    CHECK(t.schema() == "a:float");
    const auto& v = t.column("a").as<float>();
    REQUIRE(v.size() == 5);
    CHECK(v[0] == 1.0f);
    CHECK(bits(v[1]) == bits(-0.0f));             // "-0" read as float keeps its sign
    CHECK(v[2] == static_cast<float>(16777217));  // rounded as the float parser rounds it
    CHECK(v[2] == parse_back("16777217"));
    CHECK(v[4] == 7.0f);
  }
  // The first value already decides.
  CHECK(read("a\n0.25\n3\n").column("a").as<float>() == std::vector<float>{0.25f, 3.0f});
}

TEST_CASE("csv: bare columns: an integer outside int32 asks for a float declaration") {
  CHECK_ERROR(read("id,a\n1,5\n2,3000000000\n3,-4000000000\n4,6\n"), ErrorCode::InvalidInput,
              "t.csv:3:3: ", "integer '3000000000'", "out of range for int (int32: -2147483648..2147483647)",
              "column 'a'", "a:float");
  // With a float elsewhere in the column it is a float column and the big integer is just a float.
  const auto t = read("a\n3000000000\n0.5\n");
  CHECK(t.schema() == "a:float");
  CHECK(t.column("a").as<float>() == std::vector<float>{3e9f, 0.5f});
  const auto u = read("a\n0.5\n-3000000000\n");
  CHECK(u.column("a").as<float>() == std::vector<float>{0.5f, -3e9f});
  // Declared float reads it directly.
  CHECK(read("a:float\n3000000000\n").column("a").as<float>() == std::vector<float>{3e9f});
}

TEST_CASE("csv: bare columns: unparsable values name the column as untyped") {
  CHECK_ERROR(read("a\n1\nx1\n"), ErrorCode::InvalidInput, "t.csv:3:1: ", "unparsable number 'x1'",
              "column 'a' (untyped)");
  CHECK_ERROR(read("a\n1.5\n1e39\n"), ErrorCode::InvalidInput, "t.csv:3:1: ", "out of range for float");
  CHECK_ERROR(read("a\n1\n1e39\n"), ErrorCode::InvalidInput, "t.csv:3:1: ", "out of range for float");
}

TEST_CASE("csv: error positions are 1-based line and the column where the field's text starts") {
  CHECK_ERROR(read("a:int, b:int\n1, 2\n3,  abc\n", "data.csv"), ErrorCode::InvalidInput,
              "data.csv:3:5: unparsable number 'abc' in column 'b' (int)");
  CHECK_ERROR(read("a:int,b:int\r\n1,2\r\nzz,2\r\n"), ErrorCode::InvalidInput, "t.csv:3:1: ", "'zz'",
              "column 'a' (int)");
  CHECK_ERROR(read("a:int\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n1.5\n"), ErrorCode::InvalidInput, "t.csv:12:1: ");
  // The default source name.
  std::istringstream in("a:int\nq\n");
  CHECK_ERROR(gfxq::read_csv(in), ErrorCode::InvalidInput, "<stream>:2:1: ");
}

TEST_CASE("csv: wrong field counts say how many were expected and found") {
  CHECK_ERROR(read("a:int,b:int\n1,2\n1,2,3\n"), ErrorCode::InvalidInput, "t.csv:3:5: ", "expected 2 fields, found 3");
  CHECK_ERROR(read("a:int,b:int\n1,2\n1\n"), ErrorCode::InvalidInput, "t.csv:3:2: ", "expected 2 fields, found 1");
  CHECK_ERROR(read("a:int,b:int,c:int\n1,2\r\n"), ErrorCode::InvalidInput, "t.csv:2:4: ", "expected 3 fields, found 2");
}

TEST_CASE("csv: empty fields are NULL, and so is the quoted empty field") {
  const auto t = read("a:int,b:float\n1,\n ,2\n\"\",\"3\"\n");
  REQUIRE(t.rows() == 3);
  CHECK(t.columns[0].nulls == std::vector<uint8_t>{0, 1, 1});
  CHECK(t.columns[1].nulls == std::vector<uint8_t>{1, 0, 0});
  CHECK(t.columns[0].as<int32_t>()[0] == 1);
  CHECK(t.columns[1].as<float>()[2] == 3.0f);
  // A bare column infers its type from its values only; all NULL is int.
  const auto u = read("a,b\n,1.5\n,\n");
  CHECK(u.schema() == "a:int,b:float");
  CHECK(u.columns[0].nulls == std::vector<uint8_t>{1, 1});
}

TEST_CASE("csv: blank lines are only allowed at the end") {
  CHECK_ERROR(read("a:int,b:int\n1,2\n\n3,4\n"), ErrorCode::InvalidInput, "t.csv:3:1: ", "blank line");
  CHECK_ERROR(read("a:int\n1\n  \r\n3\n"), ErrorCode::InvalidInput, "t.csv:3:1: ", "blank line");
  CHECK_ERROR(read("\na:int\n1\n"), ErrorCode::InvalidInput, "t.csv:1:1: ", "header");
}

TEST_CASE("csv: input without a header line") {
  for (const std::string text : {"", "\n", "\r\n\r\n", "   \n\t\n"}) {
    CAPTURE(text);
    CHECK_ERROR(read(text), ErrorCode::InvalidInput, "t.csv:1:1: ", "no header line");
  }
}

TEST_CASE("csv: header errors") {
  CHECK_ERROR(read("a:int,b:float,a:float\n"), ErrorCode::InvalidInput, "t.csv:1:15: ", "duplicate column name 'a'");
  CHECK_ERROR(read("a,a\n1,2\n"), ErrorCode::InvalidInput, "t.csv:1:3: ", "duplicate column name 'a'");
  CHECK_ERROR(read("a:int,b:text\n"), ErrorCode::InvalidInput, "t.csv:1:7: ", "unknown type 'text'", "column 'b'",
              "int", "float");
  CHECK_ERROR(read("a:text\n"), ErrorCode::InvalidInput, "unknown type 'text'", "bigint", "double");
  CHECK_ERROR(read("a:\n"), ErrorCode::InvalidInput, "unknown type ''");
  CHECK_ERROR(read("a,,b\n"), ErrorCode::InvalidInput, "t.csv:1:3: ", "empty column name");
  CHECK_ERROR(read("a,b,\n"), ErrorCode::InvalidInput, "t.csv:1:5: ", "empty column name");
  CHECK_ERROR(read(":int\n"), ErrorCode::InvalidInput, "empty column name");
  for (const std::string name : {"1a", "a b", "a-b", "é", "(a)"}) {
    CAPTURE(name);
    CHECK_ERROR(read("x," + name + ":int\n"), ErrorCode::InvalidInput,
                "t.csv:1:3: ", "invalid column name '" + name + "'");
  }
  CHECK_ERROR(read("x,\"a\":int\n"), ErrorCode::InvalidInput, "t.csv:1:6: ", "after the closing quote");
  CHECK_ERROR(read("x,\"a\n"), ErrorCode::InvalidInput, "t.csv:1:3: ", "unterminated quoted field");
  CHECK_ERROR(read("x,\"a\tb\"\n"), ErrorCode::InvalidInput, "t.csv:1:4: ", "invalid column name 'a\\tb'");
  const auto ok = read("_,A_1,z9\n1,2,3\n");
  CHECK(ok.schema() == "_:int,A_1:int,z9:int");
  // Result names as gfxq writes them: bare, or quoted when they hold other characters.
  const auto results = read("r.a,SUM(a),COUNT(*),\"QUANTILE(a, 0.5)\",\"say \"\"hi\"\":float\"\n1,2,3,4,5\n");
  CHECK(results.schema() == "r.a:int,SUM(a):int,COUNT(*):int,QUANTILE(a, 0.5):int,say \"hi\":float");
}

TEST_CASE("csv: format_value") {
  CHECK(gfxq::format_value(gfxq::Value{}) == "");
  CHECK(gfxq::format_value(int32_t{-42}) == "-42");
  CHECK(gfxq::format_value(INT32_MIN) == std::to_string(INT32_MIN));
  CHECK(gfxq::format_value(INT32_MAX) == std::to_string(INT32_MAX));
  CHECK(gfxq::format_value(INT64_MIN) == std::to_string(INT64_MIN));
  CHECK(gfxq::format_value(INT64_MAX) == std::to_string(INT64_MAX));
  const float fnan = std::numeric_limits<float>::quiet_NaN();
  const double dnan = std::numeric_limits<double>::quiet_NaN();
  const float finf = std::numeric_limits<float>::infinity();
  const double dinf = std::numeric_limits<double>::infinity();
  CHECK(gfxq::format_value(fnan) == "nan");
  CHECK(gfxq::format_value(-fnan) == "nan");
  CHECK(gfxq::format_value(std::bit_cast<float>(0x7f800001u)) == "nan");  // signalling payload
  CHECK(gfxq::format_value(std::bit_cast<float>(0xffc12345u)) == "nan");
  CHECK(gfxq::format_value(dnan) == "nan");
  CHECK(gfxq::format_value(-dnan) == "nan");
  CHECK(gfxq::format_value(finf) == "inf");
  CHECK(gfxq::format_value(-finf) == "-inf");
  CHECK(gfxq::format_value(dinf) == "inf");
  CHECK(gfxq::format_value(-dinf) == "-inf");
  CHECK(gfxq::format_value(-0.0f) == "-0");
  CHECK(gfxq::format_value(0.0f) == "0");
  CHECK(gfxq::format_value(-0.0) == "-0");
  CHECK(gfxq::format_value(1.5f) == "1.5");
  CHECK(gfxq::format_value(0.1f) == "0.1");  // the shortest form, not 0.100000001
  CHECK(gfxq::format_value(0.1) == "0.1");
  CHECK(gfxq::format_value(int64_t{3}) == "3");
  CHECK(gfxq::format_value(2.5) == "2.5");
}

TEST_CASE("csv: format_value prints floats and doubles that parse back to the same bits") {
  const uint64_t seed = 20240611;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 20000; ++i) {
    const auto f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    const auto d = std::bit_cast<double>(rng());
    if (!std::isfinite(f) || !std::isfinite(d)) continue;
    const std::string fs = gfxq::format_value(f);
    CAPTURE(fs);
    CHECK(bits(parse_back(fs)) == bits(f));
    CHECK(fs.size() <= 15);  // "-1.2345678e-38": at most 9 significant digits
    const std::string ds = gfxq::format_value(d);
    double back = 0;
    CHECK(std::from_chars(ds.data(), ds.data() + ds.size(), back).ec == std::errc{});
    CHECK(std::bit_cast<uint64_t>(back) == std::bit_cast<uint64_t>(d));
  }
}

TEST_CASE("csv: write_csv output shape") {
  gfxq::Table t{{gfxq::Column::ints("a", {1, -2}), gfxq::Column::floats("b", {0.5f, -0.0f})}};
  CHECK(write(t) == "a:int,b:float\n1,0.5\n-2,-0\n");
  CHECK(write(t, false) == "a,b\n1,0.5\n-2,-0\n");
  CHECK(write(gfxq::Table{}) == "\n");

  gfxq::Column big = gfxq::Column::make("n", gfxq::Type::Int64);
  gfxq::Column avg = gfxq::Column::make("m", gfxq::Type::Float64);
  big.push(int64_t{1} << 40);
  big.push(gfxq::Value{});
  avg.push(0.25);
  avg.push(gfxq::Value{});
  const gfxq::Table r{{big, avg}};
  CHECK(write(r) == "n:bigint,m:double\n" + std::to_string(int64_t{1} << 40) + ",0.25\n,\n");
}

TEST_CASE("csv: write_csv rejects columns of unequal lengths, but not repeated names") {
  const gfxq::Table t{{gfxq::Column::ints("a", {1, 2}), gfxq::Column::ints("b", {1})}};
  CHECK_ERROR(write(t), ErrorCode::InvalidInput, "column 'b' has 1 rows", "column 'a' has 2");
  gfxq::Column n = gfxq::Column::ints("n", {1, 2});
  n.nulls = {1};
  CHECK_ERROR(write(gfxq::Table{{n}}), ErrorCode::InvalidInput, "column 'n'", "null flags");
  // A query result may repeat a name (SELECT a, a); it is written as it is.
  const gfxq::Table r{{gfxq::Column::ints("a", {1}), gfxq::Column::ints("a", {2})}};
  CHECK(write(r, false) == "a,a\n1,2\n");
}

TEST_CASE("csv: write then read gives back random float bit patterns, special values and int32 limits") {
  const uint64_t seed = 314159;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<float> f = {0.0f,
                          -0.0f,
                          FLT_MAX,
                          -FLT_MAX,
                          FLT_MIN,
                          -FLT_MIN,
                          std::nextafter(FLT_MIN, 0.0f),
                          1e-45f,
                          -1e-45f,
                          1.0f,
                          -1.0f,
                          0.1f,
                          16777217.0f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          std::bit_cast<float>(0xffffffffu)};
  std::vector<int32_t> ints = {INT32_MIN, INT32_MAX, 0, -1, 1, INT32_MIN + 1, INT32_MAX - 1};
  while (f.size() < 50000) {
    const uint64_t r = rng();
    // Mix fully random bit patterns with subnormals (exponent bits all zero).
    const auto pattern = static_cast<uint32_t>(r);
    f.push_back(std::bit_cast<float>((r >> 63) ? pattern : (pattern & 0x807fffffu)));
    ints.push_back(static_cast<int32_t>(static_cast<uint32_t>(r >> 32)));
  }
  ints.resize(f.size(), 0);
  std::vector<float> g(f.rbegin(), f.rend());
  const gfxq::Table t{{gfxq::Column::floats("x", f), gfxq::Column::ints("k", ints), gfxq::Column::floats("y", g)}};
  const std::string text = write(t);
  check_same(read(text), t);
  // Untyped: the int column is inferred back as int, the float columns as float (they hold NaN).
  check_same(read(write(t, false)), t);
}

TEST_CASE("csv: files: round trip, and Io errors naming the path and the reason") {
  const auto dir = std::filesystem::temp_directory_path() / ("gfxq_test_csv_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.csv").string();
  const gfxq::Table t{{gfxq::Column::ints("a", {3, 1, 2}), gfxq::Column::floats("b", {-1.5f, 1e-45f, 2e30f})}};
  gfxq::write_csv_file(path, t);
  check_same(gfxq::read_csv_file(path), t);

  { std::ofstream(path, std::ios::binary) << "a:int\n1\nbad\n"; }
  CHECK_ERROR(gfxq::read_csv_file(path), ErrorCode::InvalidInput, path + ":3:1: ", "unparsable number 'bad'");

  const std::string missing = (dir / "missing.csv").string();
  CHECK_ERROR(gfxq::read_csv_file(missing), ErrorCode::Io, missing, std::strerror(ENOENT));
  CHECK_ERROR(gfxq::read_csv_file(dir.string()), ErrorCode::Io, dir.string());
  const std::string unwritable = (dir / "no_such_dir" / "t.csv").string();
  CHECK_ERROR(gfxq::write_csv_file(unwritable, t), ErrorCode::Io, unwritable, std::strerror(ENOENT));
  std::filesystem::remove_all(dir);
}

TEST_CASE("csv: a larger table round trips through a file-sized string") {
  const uint64_t seed = 27182818;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<int32_t> a(200000);
  std::vector<float> b(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int32_t>(rng() % 2000001) - 1000000;
    b[i] = static_cast<float>(static_cast<double>(rng() >> 11) * 0x1p-53);
  }
  const gfxq::Table t{{gfxq::Column::ints("a", a), gfxq::Column::floats("b", b)}};
  const auto back = read(write(t, false));
  CHECK(back.schema() == "a:int,b:float");
  check_same(back, t);
}

TEST_CASE("csv: header names holding a comma or a quote are written quoted (RFC 4180)") {
  gfxq::Table t{{gfxq::Column::ints("QUANTILE(a, 0.5)", {1}), gfxq::Column::ints("say \"hi\"", {2}),
                 gfxq::Column::ints("plain", {3})}};
  std::ostringstream out;
  gfxq::write_csv(out, t, false);
  CHECK(out.str() == "\"QUANTILE(a, 0.5)\",\"say \"\"hi\"\"\",plain\n1,2,3\n");
  check_same(read(out.str()), t);
}

TEST_CASE("csv: results round trip: bigint, double, NULLs, a one-column NULL row, result names") {
  gfxq::Column count = gfxq::Column::make("COUNT(*)", gfxq::Type::Int64);
  gfxq::Column avg = gfxq::Column::make("AVG(a)", gfxq::Type::Float64);
  for (const gfxq::Value v : {gfxq::Value{int64_t{INT64_MIN}}, gfxq::Value{}, gfxq::Value{int64_t{INT64_MAX}}})
    count.push(v);
  for (const gfxq::Value v : {gfxq::Value{0.1}, gfxq::Value{-0.0}, gfxq::Value{}}) avg.push(v);
  const gfxq::Table r{{count, avg}};
  check_same(read(write(r)), r);
  // One column holding NULL: the NULL row is "", never a blank line (which would read as no row).
  gfxq::Column only = gfxq::Column::make("MIN(a)", gfxq::Type::Int32);
  only.push(gfxq::Value{});
  const gfxq::Table one{{only}};
  CHECK(write(one, false) == "MIN(a)\n\"\"\n");
  const auto back = read(write(one, false));
  REQUIRE(back.rows() == 1);
  CHECK(back.columns[0].is_null(0));
  check_same(read(write(one)), one);
  CHECK_ERROR(read("a:bigint\n9223372036854775808\n"), ErrorCode::InvalidInput,
              "t.csv:2:1: ", "out of range for bigint");
  CHECK_ERROR(read("a:double\n1e999\n"), ErrorCode::InvalidInput, "t.csv:2:1: ", "out of range for double");
}
