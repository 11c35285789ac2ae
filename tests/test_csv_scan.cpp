// The CSV reader's scans (src/core/csv_read.cpp): chunk cuts and record counts from one pass over
// the quotes and line ends, 64 bytes at a time; unquoted fields' ends found 16 bytes at a time; and
// STRING values interned through a pipeline of batches. Random tables whose quotes, commas and line
// ends fall anywhere relative to those blocks and to the chunk cuts, checked cell by cell against
// the values written and a std::map build of each dictionary, for many chunkings and thread counts.
// And a mapped file's pages populated and released on several threads.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/mapped_file.h"
#include "gfxq/error.h"
#include "gfxq/table.h"

namespace {

// A value of a string column: NULL, empty, or of 1 to 200 bytes mixing letters, UTF-8, blanks,
// commas, quotes and line ends, often after a shared prefix longer than 8 bytes, drawn from
// `distinct` values (so the interners find repeats).
std::optional<std::string> scan_value(std::mt19937_64& rng, uint64_t distinct) {
  if (rng() % 13 == 0) return std::nullopt;
  const uint64_t v = rng() % distinct;
  if (v % 17 == 16) return std::string();
  std::mt19937_64 shape(v * 0x9e3779b97f4a7c15ull + 1);  // the value's text follows from v alone
  static const char* pieces[] = {"a",    "Zq", ",",        "\"",           "\n",
                                 "\r\n", " ",  "\xc3\xa9", "\xe2\x82\xac", "0123456789abcdef"};
  std::string s = shape() % 2 ? "shared prefix of the column " : "";
  const size_t length = 1 + shape() % (shape() % 4 == 0 ? 200 : 24);
  while (s.size() < length) s += pieces[shape() % 10];
  return s + "#" + std::to_string(v);
}

// The field as written to CSV: quoted when it must be (and when empty), quotes doubled; unquoted
// values with blanks around them would be trimmed, so they are quoted too.
std::string scan_field(const std::string& s) {
  const bool quote =
      s.empty() || s.find_first_of(",\"\r\n") != std::string::npos || s.front() == ' ' || s.back() == ' ';
  if (!quote) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

TEST_CASE("csv scan: records cut and counted in one pass, fields scanned by blocks, strings pipelined") {
  const uint64_t seed = 20261127;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Rows around the interning batches (32) and their pipeline (3 batches); distinct counts from all
  // equal to all distinct.
  for (const size_t rows : {1, 31, 32, 33, 95, 96, 97, 500, 4000}) {
    for (const uint64_t distinct : {1, 40, 1000000}) {
      CAPTURE(rows);
      CAPTURE(distinct);
      std::vector<std::optional<std::string>> a(rows), b(rows);
      std::vector<int32_t> n(rows);
      std::string text = "a:string,n:int,b:string\n";
      for (size_t r = 0; r < rows; ++r) {
        a[r] = scan_value(rng, distinct);
        b[r] = scan_value(rng, 1 + distinct / 4);
        n[r] = static_cast<int32_t>(rng() % 2000) - 1000;
        text += (a[r] ? scan_field(*a[r]) : std::string()) + "," + std::to_string(n[r]) + "," +
                (b[r] ? scan_field(*b[r]) : std::string());
        if (r + 1 < rows || rng() % 2) text += rng() % 3 ? "\n" : "\r\n";  // the last line end optional
      }
      // Each dictionary built apart: the distinct values in byte order, numbered.
      std::map<std::string, int32_t> map_a, map_b;
      for (size_t r = 0; r < rows; ++r) {
        if (a[r]) map_a.emplace(*a[r], 0);
        if (b[r]) map_b.emplace(*b[r], 0);
      }
      std::vector<std::string> dict_a, dict_b;
      for (auto& [s, code] : map_a) {
        code = static_cast<int32_t>(dict_a.size());
        dict_a.push_back(s);
      }
      for (auto& [s, code] : map_b) {
        code = static_cast<int32_t>(dict_b.size());
        dict_b.push_back(s);
      }
      for (const unsigned threads : {1u, 2u, 3u, 8u}) {
        for (const uint64_t chunk : {0, 1, 7, 63, 64, 65, 300, 4096}) {
          if (rows >= 500 && chunk > 0 && chunk < 64) continue;
          CAPTURE(threads);
          CAPTURE(chunk);
          gfxq::CsvReadOptions options;
          options.threads = threads;
          options.chunk_bytes = chunk;
          options.string_table_limit = chunk == 65 ? 4 : 0;  // small tables too: full, grown or passed by
          const gfxq::Table t = gfxq::read_csv_text(text, "scan.csv", options);
          REQUIRE(t.rows() == rows);
          const gfxq::Column& ca = t.columns[0];
          const gfxq::Column& cn = t.columns[1];
          const gfxq::Column& cb = t.columns[2];
          CHECK(ca.dictionary->strings() == dict_a);
          CHECK(cb.dictionary->strings() == dict_b);
          size_t wrong = 0;
          for (size_t r = 0; r < rows; ++r) {
            const bool null_a = !ca.nulls.empty() && ca.nulls[r], null_b = !cb.nulls.empty() && cb.nulls[r];
            wrong += null_a != !a[r].has_value() || (a[r] && ca.as<int32_t>()[r] != map_a.at(*a[r]));
            wrong += null_b != !b[r].has_value() || (b[r] && cb.as<int32_t>()[r] != map_b.at(*b[r]));
            wrong += cn.as<int32_t>()[r] != n[r];
          }
          CHECK(wrong == 0);
        }
      }
    }
  }
}

TEST_CASE("csv scan: an unclosed quote or a stray quote is found at the same place for every chunking") {
  const uint64_t seed = 4242;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 20; ++round) {
    // Quoted fields with line ends and doubled quotes, then one bad field somewhere.
    const size_t rows = 1 + rng() % 300, bad = rng() % rows;
    const bool unclosed = rng() % 2;
    std::string text = "a:string,b:string\n";
    for (size_t r = 0; r < rows; ++r) {
      const std::string value = scan_value(rng, 50).value_or("x");
      if (r == bad)
        text += unclosed ? "\"never closed\n" + value + ",x\n" : "x" + std::string(rng() % 40, 'y') + "\"z,x\n";
      else
        text += scan_field(value) + ",x\n";
    }
    std::string expected;
    try {
      gfxq::CsvReadOptions one;
      one.threads = 1;
      one.chunk_bytes = 1 << 30;
      (void)gfxq::read_csv_text(text, "bad.csv", one);
    } catch (const gfxq::Error& e) {
      expected = e.what();
    }
    CAPTURE(round);
    REQUIRE(!expected.empty());
    for (const unsigned threads : {1u, 2u, 5u})
      for (const uint64_t chunk : {1, 17, 64, 129, 1000}) {
        CAPTURE(threads);
        CAPTURE(chunk);
        gfxq::CsvReadOptions options;
        options.threads = threads;
        options.chunk_bytes = chunk;
        std::string got;
        try {
          (void)gfxq::read_csv_text(text, "bad.csv", options);
        } catch (const gfxq::Error& e) {
          got = e.what();
        }
        CHECK(got == expected);
      }
  }
}

TEST_CASE("csv scan: a mapped file's pages populated and released in pieces on several threads read the same") {
  const uint64_t seed = 99;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const auto path = std::filesystem::temp_directory_path() / ("gfxq_scan_map_" + std::to_string(::getpid()));
  // Sizes around a page and around the 16 MiB pieces.
  for (const uint64_t size :
       {uint64_t{1}, uint64_t{4095}, uint64_t{4097}, (uint64_t{16} << 20) + 4099, (uint64_t{48} << 20) - 1}) {
    CAPTURE(size);
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>('a' + rng() % 26);
    {
      std::ofstream out(path, std::ios::binary);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    for (const unsigned threads : {1u, 3u, 8u}) {
      CAPTURE(threads);
      const gfxq::detail::FileBytes file(path.string(), false);
      file.populate(threads);
      CHECK(file.bytes() == bytes);
      file.release(threads);
      CHECK(file.bytes() == bytes);  // mapped again on use
    }
  }
  {
    std::ofstream out(path, std::ios::binary);
    out << "a:string,b:int\n\"x,\ny\",1\nz,2\n";
  }
  gfxq::CsvReadOptions options;
  options.threads = 3;
  const gfxq::Table t = gfxq::read_csv_file(path.string(), options);
  CHECK(t.columns[0].dictionary->strings() == std::vector<std::string>{"x,\ny", "z"});
  CHECK(t.columns[1].as<int32_t>() == std::vector<int32_t>{1, 2});
  std::filesystem::remove(path);
}
