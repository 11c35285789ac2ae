// CSV input and output: parsing rules, type inference, every error path, exact round trips.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "gfxq/error.h"
#include "gfxq/ssb.h"
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
    } else if (x.type == gfxq::Type::Int32 || x.type == gfxq::Type::Date) {
      CHECK(x.as<int32_t>() == y.as<int32_t>());
    } else if (x.type == gfxq::Type::String && !x.nulls.empty()) {
      // A NULL row's code is no value (the strings there need not be in the other dictionary).
      for (uint64_t i = 0; i < x.size(); ++i)
        if (!x.is_null(i)) CHECK(x.string_at(i) == y.string_at(i));
    } else if (x.type == gfxq::Type::String) {
      // Both dictionaries are the sorted distinct values, so equal columns have equal codes.
      CHECK(*x.dictionary == *y.dictionary);
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

TEST_CASE("csv: bare columns: a number beyond the float range names the column as untyped") {
  // A value that is no number makes the column a string column (issue 22), no longer an error.
  CHECK(read("a\n1\nx1\n").schema() == "a:string");
  CHECK_ERROR(read("a\n1.5\n1e39\n"), ErrorCode::InvalidInput, "t.csv:3:1: ", "out of range for float",
              "column 'a' (untyped)");
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
  CHECK_ERROR(read("x,\"a\n"), ErrorCode::InvalidInput, "t.csv:1:3: ", "unclosed quote");
  // Errors in a quoted field point at its opening quote.
  CHECK_ERROR(read("x,\"a\tb\"\n"), ErrorCode::InvalidInput, "t.csv:1:3: ", "invalid column name 'a\\tb'");
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
  // Not a regular file: read to its end (here at once).
  CHECK_ERROR(gfxq::read_csv_file("/dev/null"), ErrorCode::InvalidInput, "/dev/null:1:1: ", "no header line");
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

// ---- STRING and DATE columns, RFC 4180 quoting, inference, parallel reading ----

namespace {

gfxq::Table read_with(const std::string& text, unsigned threads, uint64_t chunk_bytes) {
  gfxq::CsvReadOptions options;
  options.threads = threads;
  options.chunk_bytes = chunk_bytes;
  return gfxq::read_csv_text(text, "t.csv", options);
}

std::vector<std::string> strings_of(const gfxq::Column& c) {
  std::vector<std::string> out;
  for (uint64_t r = 0; r < c.size(); ++r) out.emplace_back(c.string_at(r));
  return out;
}

int32_t day(const char* iso) {
  return gfxq::parse_date(iso).value().days;
}

// The table, or the error's code and message, as text: what a read gave, to compare two reads.
std::string outcome(const std::string& text, unsigned threads, uint64_t chunk_bytes) {
  try {
    const gfxq::Table t = read_with(text, threads, chunk_bytes);
    return t.schema() + "\n" + write(t);
  } catch (const gfxq::Error& e) {
    return std::string("error ") + gfxq::to_string(e.code()) + ": " + e.what();
  }
}

// A random string of 0 to 12 pieces: letters, digits, spaces, tabs, commas, quotes, CR, LF and
// multi-byte UTF-8.
std::string random_string(std::mt19937_64& rng) {
  static const std::vector<std::string> pieces = {"a",  "b",   "Z",    "7",          " ",  "\t",   ",",
                                                  "\"", "\n",  "\r\n", "\r",         "é",  "日本", "🙂",
                                                  "-",  "x y", "\"\"", "1992-01-01", "nan"};
  std::string s;
  const size_t n = rng() % 13;
  for (size_t i = 0; i < n; ++i) s += pieces[rng() % pieces.size()];
  return s;
}

// A table of every input type: int, float, string (few or many distinct values), date.
gfxq::Table random_table(std::mt19937_64& rng, size_t rows) {
  std::vector<int32_t> ints(rows), days(rows);
  std::vector<float> floats(rows);
  std::vector<std::string> few(rows), many(rows);
  const int32_t first_day = day("0001-01-01"), last_day = day("9999-12-31");
  for (size_t r = 0; r < rows; ++r) {
    ints[r] = static_cast<int32_t>(static_cast<uint32_t>(rng()));
    floats[r] = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    few[r] = std::string("v") + char('a' + rng() % 5);
    many[r] = random_string(rng);
    days[r] = first_day + static_cast<int32_t>(rng() % static_cast<uint64_t>(last_day - first_day + 1));
  }
  gfxq::Table t{{gfxq::Column::ints("i", ints), gfxq::Column::strings("s", many), gfxq::Column::floats("f", floats),
                 gfxq::Column::dates("d", days), gfxq::Column::strings("k", few)}};
  // About one cell in eight NULL (value zero, as the reader stores it) in the first four columns.
  for (size_t c = 0; c < 4 && rows > 0; ++c) {
    gfxq::Column& col = t.columns[c];
    col.nulls.assign(rows, 0);
    for (size_t r = 0; r < rows; ++r)
      if (rng() % 8 == 0) {
        col.nulls[r] = 1;
        if (col.type == gfxq::Type::Float32)
          col.as<float>()[r] = 0;
        else if (col.type != gfxq::Type::String)
          col.as<int32_t>()[r] = 0;
      }
    if (std::count(col.nulls.begin(), col.nulls.end(), 1) == 0) col.nulls.clear();
  }
  return t;
}

}  // namespace

TEST_CASE("csv: string and date columns from a typed header") {
  const auto t = read("name:string,born:date,n:int\nbob,1992-01-01,1\nalice,1970-01-01,2\nbob,1969-12-31,3\n");
  CHECK(t.schema() == "name:string,born:date,n:int");
  const auto& name = t.column("name");
  CHECK(name.dictionary->strings() == std::vector<std::string>{"alice", "bob"});
  CHECK(name.as<int32_t>() == std::vector<int32_t>{1, 0, 1});
  CHECK(strings_of(name) == std::vector<std::string>{"bob", "alice", "bob"});
  CHECK(t.column("born").as<int32_t>() == std::vector<int32_t>{8035, 0, -1});
  t.validate();
  CHECK(read("s:STRING,d:Date\nx,2000-02-29\n").schema() == "s:string,d:date");
}

TEST_CASE("csv: string fields: unquoted ones trimmed, quoted ones kept exactly (RFC 4180)") {
  const auto u = read(
      "s:string,n:int\n"
      "  plain text  ,1\n"
      "\"a, b\",2\n"
      "\"say \"\"hi\"\"\",3\n"
      "\"two\nlines\",4\n"
      " \"  spaced  \" ,5\n"
      "\"\",6\n"
      "\"crlf\r\ninside\",7\r\n"
      "\"\"\"\",8\n"
      "日本 🙂,9\n");
  CHECK(strings_of(u.column("s")) == std::vector<std::string>{"plain text", "a, b", "say \"hi\"", "two\nlines",
                                                              "  spaced  ", "", "crlf\r\ninside", "\"", "日本 🙂"});
  CHECK(u.column("n").as<int32_t>() == std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  // Byte order: "" < "\"" < "  spaced  " < ... < UTF-8 (bytes >= 0x80) last.
  const auto d = u.column("s").dictionary->strings();
  CHECK(std::is_sorted(d.begin(), d.end()));
  CHECK(d.front().empty());
  CHECK(d.back() == "日本 🙂");
}

TEST_CASE("csv: quoted int, float and date fields are read as their text") {
  const auto t = read("a:int,x:float,d:date\n\"12\",\"-0.5\",\"1998-12-01\"\n");
  CHECK(t.column("a").as<int32_t>() == std::vector<int32_t>{12});
  CHECK(t.column("x").as<float>() == std::vector<float>{-0.5f});
  CHECK(t.column("d").as<int32_t>() == std::vector<int32_t>{day("1998-12-01")});
  CHECK_ERROR(read("a:int\n\" 12\"\n"), ErrorCode::InvalidInput, "t.csv:2:1: ", "unparsable number ' 12'",
              "column 'a' (int)");
  // "" is NULL in int, float and date columns.
  const auto nulls = read("a:int,x:float,d:date,s:string\n\"\",\"\",\"\",\"\"\n");
  for (size_t c = 0; c < 3; ++c) CHECK(nulls.columns[c].is_null(0));
  CHECK(!nulls.column("s").is_null(0));
  CHECK(strings_of(nulls.column("s")) == std::vector<std::string>{""});
  CHECK_ERROR(read("d:date\n\"1,2\"\n"), ErrorCode::InvalidInput, "t.csv:2:1: ", "unparsable date '1,2'");
}

TEST_CASE("csv: date fields: ISO days of the years 0001 to 9999, and errors") {
  const auto t = read("d:date\n0001-01-01\n9999-12-31\n2000-02-29\n1900-02-28\n 1970-01-02 \n");
  CHECK(t.column("d").as<int32_t>() ==
        std::vector<int32_t>{gfxq::date_from_civil(1, 1, 1).days, gfxq::date_from_civil(9999, 12, 31).days,
                             gfxq::date_from_civil(2000, 2, 29).days, gfxq::date_from_civil(1900, 2, 28).days, 1});
  for (const std::string v :
       {"1900-02-29", "2001-02-29", "0000-01-01", "1992-13-01", "1992-00-10", "1992-01-32", "1992-1-01", "92-01-01",
        "1992/01/01", "January 1, 1992", "19920101", "1992-01-01x", "+1992-01-01", "1992-04-31"}) {
    CAPTURE(v);
    const std::string field = v.find(',') != std::string::npos ? "\"" + v + "\"" : v;
    CHECK_ERROR(read("n:int,d:date\n1," + field + "\n"), ErrorCode::InvalidInput,
                "t.csv:2:3: ", "unparsable date '" + v + "' in column 'd' (date)", "YYYY-MM-DD");
  }
}

TEST_CASE("csv: empty fields: an empty unquoted field is NULL, \"\" the empty string in a string column") {
  const auto t = read("s:string,n:int\n,1\n\"\",\n x ,2\n");
  CHECK(t.column("s").nulls == std::vector<uint8_t>{1, 0, 0});
  CHECK(t.column("n").nulls == std::vector<uint8_t>{0, 1, 0});
  CHECK(t.column("s").string_at(1).empty());
  CHECK(t.column("s").string_at(2) == "x");
  CHECK(t.column("n").as<int32_t>() == std::vector<int32_t>{1, 0, 2});
  CHECK_ERROR(read("d:date\n1992-01-01\n   \t,\n"), ErrorCode::InvalidInput, "t.csv:3:6: ", "expected 1 fields");
  CHECK(strings_of(read("s:string\n\"\"\n").column("s")) == std::vector<std::string>{""});
  // A bare column: NULLs and "" are no evidence; "" is the empty string only in a string column.
  const auto only = read("s\n\"\"\n");
  CHECK(only.schema() == "s:int");
  CHECK(only.column("s").is_null(0));
  const auto bare = read("a,b,c,d\n\"\",\"\",,\"\"\n1.5,x,,1999-01-01\n,\"\",,\n");
  CHECK(bare.schema() == "a:float,b:string,c:int,d:date");
  CHECK(bare.column("a").nulls == std::vector<uint8_t>{1, 0, 1});
  CHECK(bare.column("b").nulls.empty());
  CHECK(strings_of(bare.column("b")) == std::vector<std::string>{"", "x", ""});
  CHECK(bare.column("c").nulls == std::vector<uint8_t>{1, 1, 1});
  CHECK(bare.column("d").nulls == std::vector<uint8_t>{1, 0, 1});
}

TEST_CASE("csv: NULLs are the same for every chunking, and chunks of NULLs only do not decide a bare type") {
  const uint64_t seed = 31337;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 20; ++round) {
    CAPTURE(round);
    const size_t rows = 1 + rng() % 300;
    std::string text = "i,f,d,s,t:string,x:bigint\n";
    for (size_t r = 0; r < rows; ++r) {
      // Long runs of NULLs, so that whole chunks hold none of a column's values.
      const bool null = (r / 40) % 2 == 0 || rng() % 4 == 0;
      const auto cell = [&](const std::string& v) { return null ? std::string(rng() % 2 ? "" : "\"\"") : v; };
      text += cell(std::to_string(static_cast<int32_t>(rng()) / 7)) + "," + cell(std::to_string(rng() % 1000) + ".5") +
              "," + cell("2001-02-0" + std::to_string(1 + rng() % 9)) + "," + cell("v" + std::to_string(rng() % 9)) +
              "," + (null ? "" : "w") + "," + cell(std::to_string(static_cast<int64_t>(rng()))) + "\n";
    }
    const gfxq::Table one = read_with(text, 1, 0);
    for (const uint64_t chunk : {1, 9, 100, 1000}) check_same(read_with(text, 3, chunk), one);
    check_same(read(write(one)), one);
  }
  // All NULL in the first chunks, the values late: the type comes from the values.
  std::string text = "a,b\n";
  for (int r = 0; r < 100; ++r) text += ",\n";
  text += "1992-01-01,2.5\n";
  for (const uint64_t chunk : {0, 1, 16}) {
    const gfxq::Table t = read_with(text, 3, chunk);
    CHECK(t.schema() == "a:date,b:float");
    CHECK(std::count(t.column("a").nulls.begin(), t.column("a").nulls.end(), 1) == 100);
  }
}

TEST_CASE("csv: CR only before LF, NUL bytes and a wide header over short lines") {
  CHECK_ERROR(read("s:string,n:int\nab\rc,1\n"), ErrorCode::InvalidInput, "t.csv:2:3: ", "CR-only line ends");
  CHECK_ERROR(read("s:string,n:int\n\"ab\"\r,1\n"), ErrorCode::InvalidInput, "t.csv:2:5: ", "CR-only line ends");
  CHECK_ERROR(read("a:int\rb:int\n"), ErrorCode::InvalidInput, "t.csv:1:6: ", "CR-only line ends");
  // Inside quotes a CR is a byte of the string.
  CHECK(strings_of(read("s:string\r\n\"a\rb\"\r\n").column("s")) == std::vector<std::string>{"a\rb"});
  for (const uint64_t chunk : {0, 1, 5})
    CHECK_ERROR(read_with(std::string("a,b\n1,2\n3,\"x\0\"\n", 15), 2, chunk), ErrorCode::InvalidInput,
                "t.csv:3:5: ", "NUL byte");
  std::string wide = "a";
  for (int c = 1; c < 50; ++c) wide += ",c" + std::to_string(c);
  wide += "\n";
  for (int r = 0; r < 500; ++r) wide += r == 300 ? "1\n" : std::string(49, ',') + "\n";
  for (const uint64_t chunk : {0, 7, 200})
    CHECK_ERROR(read_with(wide, 2, chunk), ErrorCode::InvalidInput, "t.csv:302:2: ", "expected 50 fields, found 1");
}

TEST_CASE("csv: quote errors name the line and column") {
  CHECK_ERROR(read("s:string,n:int\nok,1\n\"never closed,2\n3,4\n"), ErrorCode::InvalidInput,
              "t.csv:3:1: ", "unclosed quote");
  CHECK_ERROR(read("s:string,n:int\n\"ab\"cd,1\n"), ErrorCode::InvalidInput,
              "t.csv:2:5: ", "text after the closing quote");
  CHECK_ERROR(read("s:string,n:int\n\"ab\" \"cd\",1\n"), ErrorCode::InvalidInput,
              "t.csv:2:6: ", "text after the closing quote");
  CHECK_ERROR(read("s:string,n:int\nx,1\nab\"c,2\n"), ErrorCode::InvalidInput,
              "t.csv:3:1: ", "a '\"' inside the unquoted field 'ab\"c'");
  CHECK_ERROR(read("n:int,s:string\n1,  5\" screen \n"), ErrorCode::InvalidInput,
              "t.csv:2:5: ", "inside the unquoted field '5\" screen'");
  CHECK_ERROR(read("\"a:int,b\n1,2\n"), ErrorCode::InvalidInput, "t.csv:1:1: ", "unclosed quote");
}

TEST_CASE("csv: line numbers count the line ends inside quoted fields") {
  const std::string head = "s:string,n:int\n\"one\ntwo\nthree\",1\n\"x\r\ny\",2\n";
  CHECK(read(head).rows() == 2);
  CHECK_ERROR(read(head + "z,bad\n"), ErrorCode::InvalidInput, "t.csv:7:3: ", "unparsable number 'bad'");
  CHECK_ERROR(read(head + "z,1,2\n"), ErrorCode::InvalidInput, "t.csv:7:5: ", "expected 2 fields, found 3");
  CHECK(read("s:string,n:int\n\"a\nb\",\n").column("n").is_null(0));
  // The same with every thread count and tiny chunks.
  for (const uint64_t chunk : {1, 3, 8}) {
    CAPTURE(chunk);
    CHECK_ERROR(read_with(head + "z,bad\n", 4, chunk), ErrorCode::InvalidInput, "t.csv:7:3: ", "'bad'");
  }
}

TEST_CASE("csv: a wrong field count is reported before a bad value of the same record") {
  CHECK_ERROR(read("a:int,b:int\nx,1,2\n"), ErrorCode::InvalidInput, "t.csv:2:5: ", "expected 2 fields, found 3");
  CHECK_ERROR(read("a:int,b:int\n,\"q,r\",9\n"), ErrorCode::InvalidInput, "t.csv:2:8: ", "expected 2 fields, found 3");
  CHECK_ERROR(read("s:string,b:int,c:int\n\"x,y\",z\n"), ErrorCode::InvalidInput,
              "t.csv:2:8: ", "expected 3 fields, found 2");
}

TEST_CASE("csv: the header: quoted fields, string and date types, errors naming the new types") {
  CHECK(read("\"a:int\",\"b\" , \"c:string\"\n1,2,x\n").schema() == "a:int,b:int,c:string");
  CHECK_ERROR(read("a:text\n"), ErrorCode::InvalidInput, "t.csv:1:1: ", "unknown type 'text'",
              "types: int, float, string, date, bigint, double");
  // The type of a quoted name goes inside the quotes.
  CHECK_ERROR(read("\"a,b\":int\n"), ErrorCode::InvalidInput, "t.csv:1:6: ", "text after the closing quote");
  CHECK(read("x,\"a b\",\"a,b:int\"\n1,2,3\n").schema() == "x:int,a b:int,a,b:int");
  CHECK_ERROR(read("x,\"x\"\n"), ErrorCode::InvalidInput, "t.csv:1:3: ", "duplicate column name 'x'");
}

TEST_CASE("csv: bare columns: INT, FLOAT, DATE, else STRING") {
  const auto t = read(
      "i,f,d,s1,s2,s3,s4,s5\n"
      "1,1,1992-01-01,1,1992-01-01,a,3000000000,1e39\n"
      "2,2.5,2024-02-29,1992-01-01,x,1,b,c\n"
      "-3,nan,1970-01-01,1.5,2,\"\",-1,2\n");
  CHECK(t.schema() == "i:int,f:float,d:date,s1:string,s2:string,s3:string,s4:string,s5:string");
  CHECK(t.column("d").as<int32_t>() == std::vector<int32_t>{day("1992-01-01"), day("2024-02-29"), 0});
  CHECK(strings_of(t.column("s1")) == std::vector<std::string>{"1", "1992-01-01", "1.5"});
  // Out-of-range numbers are plain text in a string column: no inference error.
  CHECK(strings_of(t.column("s4")) == std::vector<std::string>{"3000000000", "b", "-1"});
  CHECK(strings_of(t.column("s5")) == std::vector<std::string>{"1e39", "c", "2"});
  // Quoted numbers and dates infer like unquoted ones.
  CHECK(read("a,b,c\n\"1\",\"2.5\",\"1999-01-01\"\n").schema() == "a:int,b:float,c:date");
  // An invalid calendar day is no date: the column is a string column.
  CHECK(read("d\n1992-01-01\n1992-02-30\n").schema() == "d:string");
  // The inference errors: the earliest in the file of any column.
  CHECK_ERROR(read("a,b\n1,2\n1e39,5000000000\n"), ErrorCode::InvalidInput, "t.csv:3:1: ", "'1e39'",
              "out of range for float");
  CHECK_ERROR(read("a,b\n1,2\n3,5000000000\n1e39,2\n"), ErrorCode::InvalidInput, "t.csv:3:3: ", "integer '5000000000'",
              "b:float");
}

TEST_CASE("csv: bare columns widen the same whatever the chunking: a late value decides") {
  const uint64_t seed = 777001;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 20; ++round) {
    const size_t rows = 1 + rng() % 200, late = rng() % rows;
    std::string text = "a,b,c\n";
    for (size_t r = 0; r < rows; ++r) {
      const std::string a = r == late ? "0.5" : std::to_string(static_cast<int32_t>(rng()) / 1000);
      const std::string b =
          r == late ? "z" : "20" + std::to_string(10 + rng() % 10) + "-01-0" + std::to_string(1 + rng() % 9);
      const std::string c = r == late && round % 2 ? "9999999999" : std::to_string(rng() % 100);
      text += a + "," + b + "," + c + "\n";
    }
    CAPTURE(round);
    if (round % 2) {  // c: integers, one outside int32: an error for every chunking
      for (const uint64_t chunk : {0, 1, 5, 40, 300})
        CHECK_ERROR(read_with(text, chunk ? 3 : 1, chunk), ErrorCode::InvalidInput, "'9999999999'", "c:float");
      continue;
    }
    const gfxq::Table one = read_with(text, 1, 0);
    CHECK(one.schema() == "a:float,b:string,c:int");
    for (const uint64_t chunk : {1, 5, 40, 300}) check_same(read_with(text, 3, chunk), one);
  }
}

TEST_CASE("csv: random tables of every type round trip, and parallel reads equal one-thread reads") {
  const uint64_t seed = 4242;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const size_t rows : {0, 1, 2, 17, 300, 5000}) {
    CAPTURE(rows);
    const gfxq::Table t = random_table(rng, rows);
    const std::string text = write(t);
    const gfxq::Table one = read_with(text, 1, 0);
    check_same(one, t);
    CHECK(write(one) == text);
    for (const unsigned threads : {2u, 4u})
      for (const uint64_t chunk : {1, 7, 64, 4096}) {
        if (rows == 5000 && chunk < 64) continue;
        CAPTURE(threads);
        CAPTURE(chunk);
        check_same(read_with(text, threads, chunk), t);
      }
    // Written with many threads and small blocks: the same bytes.
    gfxq::CsvWriteOptions w;
    w.threads = 4;
    w.chunk_rows = 3;
    std::ostringstream out;
    gfxq::write_csv(out, t, w);
    CHECK(out.str() == text);
  }
}

TEST_CASE("csv: corrupted inputs give the same table or the same error for every chunking") {
  const uint64_t seed = 99173;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::string good = write(random_table(rng, 60));
  const std::string good_bare = write(random_table(rng, 60), false);
  const char replacements[] = {'"', ',', '\n', 'x', ' ', '\r', '9', '-'};
  for (int round = 0; round < 300; ++round) {
    std::string text = round % 2 ? good : good_bare;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) text[rng() % text.size()] = replacements[rng() % sizeof replacements];
    CAPTURE(round);
    const std::string one = outcome(text, 1, 0);
    CHECK(outcome(text, 4, 1 + rng() % 200) == one);
    CHECK(outcome(text, 2, 1 + rng() % 3000) == one);
  }
}

TEST_CASE("csv: a table written by write_csv reads back with a bare header too") {
  gfxq::Table t{{gfxq::Column::strings("s", {"x, y", "\"q\"", "plain", " lead", "multi\nline"}),
                 gfxq::Column::dates("d", {0, -1, 8035, day("9999-12-31"), day("0001-01-01")}),
                 gfxq::Column::ints("i", {1, 2, 3, 4, 5})}};
  check_same(read(write(t, false)), t);
}

TEST_CASE("csv: an SSB SF 0.01 set loads with its types, and writing it back gives the same bytes") {
  const auto dir = std::filesystem::temp_directory_path() / ("gfxq_test_csv_ssb_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  gfxq::SsbOptions o;
  o.scale_factor = 0.01;
  o.out_dir = dir.string();
  o.threads = 2;
  const gfxq::SsbCardinalities rows = gfxq::generate_ssb(o);
  const std::map<std::string, uint64_t> expected_rows = {{"lineorder", rows.lineorder},
                                                         {"date", rows.date},
                                                         {"customer", rows.customer},
                                                         {"supplier", rows.supplier},
                                                         {"part", rows.part}};
  for (const std::string& name : gfxq::ssb_table_names()) {
    CAPTURE(name);
    const std::string path = (dir / (name + ".csv")).string();
    std::ifstream in(path, std::ios::binary);
    std::ostringstream file;
    file << in.rdbuf();
    const std::string bytes = file.str();
    const gfxq::Table t = gfxq::read_csv_file(path);
    CHECK(t.rows() == expected_rows.at(name));
    CHECK(t.schema() == bytes.substr(0, bytes.find('\n')));
    CHECK(write(t) == bytes);
    gfxq::CsvReadOptions tiny;
    tiny.threads = 3;
    tiny.chunk_bytes = 4096;
    check_same(gfxq::read_csv_file(path, tiny), t);
  }
  const gfxq::Table date = gfxq::read_csv_file((dir / "date.csv").string());
  CHECK(date.column("d_date").string_at(0) == "January 1, 1992");
  CHECK(date.column("d_year").as<int32_t>().front() == 1992);
  std::filesystem::remove_all(dir);
}
