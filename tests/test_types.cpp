// STRING (dictionary-encoded) and DATE columns: dictionaries, codes in string order, pushes that
// grow a dictionary, the calendar, and how results print.

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gfxq/error.h"
#include "gfxq/table.h"

using namespace gfxq;

TEST_CASE("types: a dictionary is sorted and distinct, and codes compare as strings do") {
  const std::vector<std::string> values = {"pear", "apple", "", "Zebra", "apple", "apple pie", "\xc3\xa9t\xc3\xa9"};
  const Column c = Column::strings("s", values);
  CHECK(c.type == Type::String);
  REQUIRE(c.dictionary);
  CHECK(c.dictionary->strings() ==
        std::vector<std::string>{"", "Zebra", "apple", "apple pie", "pear", "\xc3\xa9t\xc3\xa9"});
  const auto& codes = c.as<int32_t>();
  for (size_t i = 0; i < values.size(); ++i) {
    CHECK(c.string_at(i) == values[i]);
    CHECK(std::get<std::string>(c.value(i)) == values[i]);
    for (size_t j = 0; j < values.size(); ++j) CHECK((codes[i] < codes[j]) == (values[i] < values[j]));
  }
  CHECK(c.dictionary->find("apple") == 2);
  CHECK_FALSE(c.dictionary->find("banana"));
  CHECK(c.dictionary->lower_bound("banana") == 4);
  CHECK(c.dictionary->lower_bound("zzz") == 5);  // byte order: 0xc3 sorts after 'z'
  CHECK(c.dictionary->lower_bound("\xff") == 6);
  CHECK(c.dictionary->lower_bound("") == 0);
}

TEST_CASE("types: pushing a new string renumbers the codes and keeps every value") {
  std::mt19937_64 rng(5);
  INFO("seed 5");
  Column c = Column::make("s", Type::String);
  std::vector<std::string> want;
  for (int i = 0; i < 300; ++i) {
    if (i % 17 == 3) {
      c.push(std::monostate{});
      want.push_back("<null>");
      continue;
    }
    const std::string s = "k" + std::to_string(rng() % 40);
    c.push(s);
    want.push_back(s);
  }
  Table t{{c}};
  CHECK_NOTHROW(t.validate());
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == "<null>")
      CHECK(c.is_null(i));
    else
      CHECK(c.string_at(i) == want[i]);
  }
  CHECK(std::is_sorted(c.dictionary->begin(), c.dictionary->end()));
  CHECK_THROWS_AS(c.push(int32_t(3)), Error);
}

TEST_CASE("types: dates count days from 1970-01-01 in the Gregorian calendar") {
  CHECK(parse_date("1970-01-01")->days == 0);
  CHECK(parse_date("1969-12-31")->days == -1);
  CHECK(parse_date("2000-03-01")->days == 11017);
  CHECK(parse_date("1998-12-01")->days == 10561);
  CHECK(parse_date("0001-01-01")->days == -719162);
  CHECK(parse_date("9999-12-31")->days == 2932896);
  CHECK(parse_date("2024-02-29"));
  for (const char* bad : {"2023-02-29", "1900-02-29", "2000-13-01", "2000-00-10", "2000-01-32", "2000-1-01", "20000101",
                          "2000-01-01 ", "0000-01-01", "abcd-ef-gh", ""})
    CHECK_MESSAGE(!parse_date(bad), bad);
  // Every day from 0001-01-01 to 9999-12-31 formats and parses back, and days are consecutive.
  int32_t y0 = 0, m0 = 0, d0 = 0;
  std::string first_bad;
  for (int32_t days = -719162; days <= 2932896 && first_bad.empty(); ++days) {
    const std::string text = format_date(Date{days});
    const auto back = parse_date(text);
    int32_t y = 0, m = 0, d = 0;
    civil_from_date(Date{days}, y, m, d);
    const bool next = days == -719162 || d == d0 + 1 || (d == 1 && (m == m0 + 1 || (m == 1 && y == y0 + 1)));
    if (!back || back->days != days || !next) first_bad = std::to_string(days) + " " + text;
    y0 = y, m0 = m, d0 = d;
  }
  CHECK_MESSAGE(first_bad.empty(), first_bad);
}

TEST_CASE("types: results print strings quoted where CSV needs it and dates in ISO form") {
  Table t;
  t.columns.push_back(Column::strings("s", {"plain", "a,b", "say \"hi\"", "", " padded", "two\nlines"}));
  Column d = Column::dates("d", {0, 10561, -1, 11017, 1, 2});
  t.columns.push_back(d);
  std::ostringstream out;
  write_csv(out, t);
  CHECK(out.str() ==
        "s:string,d:date\n"
        "plain,1970-01-01\n"
        "\"a,b\",1998-12-01\n"
        "\"say \"\"hi\"\"\",1969-12-31\n"
        "\"\",2000-03-01\n"
        "\" padded\",1970-01-02\n"
        "\"two\nlines\",1970-01-03\n");
  CHECK(format_value(Date{10561}) == "1998-12-01");
  CHECK(format_value(std::string("a,b")) == "a,b");
  CHECK(t.schema() == "s:string,d:date");
}
