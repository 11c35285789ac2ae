// STRING column dictionaries built in parallel (src/core/string_interner.h, the CSV reader): the
// interners and their merge against a std::set build, for many thread counts, table limits, key
// range counts and chunkings, boundary sizes and awkward strings.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/string_interner.h"
#include "gfxq/error.h"
#include "gfxq/table.h"

namespace {

// Strings that stress the order and the hashing: empty, shared 8-byte prefixes (the merge's
// prefix ties), one a prefix of another, NUL and 0xff bytes (byte-wise order, not char's sign).
std::string awkward(std::mt19937_64& rng, uint64_t distinct) {
  const uint64_t v = rng() % distinct;
  switch (v % 6) {
    case 0: return std::string(v % 3, 'a');
    case 1: return "prefix__" + std::to_string(v);
    case 2: return std::string("ab\0", 3) + std::to_string(v % 7);
    case 3: return std::string(1, static_cast<char>(0xff)) + std::to_string(v);
    case 4: return "same long prefix of many strings " + std::to_string(v);
    default: return std::to_string(v * 2654435761u);
  }
}

// Parts of strings: `kind` 0 all equal, 1 all distinct, 2 few distinct, 3 many distinct, awkward.
std::vector<std::vector<std::string>> random_parts(std::mt19937_64& rng, size_t parts, size_t rows, int kind) {
  std::vector<std::vector<std::string>> out(parts);
  uint64_t serial = 0;
  for (auto& part : out) {
    const size_t n = rows == 0 ? 0 : rng() % (2 * rows + 1);
    for (size_t k = 0; k < n; ++k) {
      switch (kind) {
        case 0: part.push_back("same"); break;
        case 1: part.push_back("u" + std::to_string(serial++ * 7919 % 1000003)); break;
        case 2: part.push_back(awkward(rng, 5)); break;
        default: part.push_back(awkward(rng, 1 + rows)); break;
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("string dictionary: merged interners equal a std::set build for every split of the work") {
  const uint64_t seed = 20261126;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  int cases = 0;
  for (const size_t rows : {0, 1, 2, 40, 700}) {
    for (int kind = 0; kind < 4; ++kind) {
      for (const size_t parts : {1, 2, 5}) {
        const std::vector<std::vector<std::string>> strings = random_parts(rng, parts, rows, kind);
        std::set<std::string> reference_set;
        for (const auto& part : strings) reference_set.insert(part.begin(), part.end());
        const std::vector<std::string> reference(reference_set.begin(), reference_set.end());
        for (const size_t limit : {1, 3, 64, 1 << 15}) {
          for (const bool stable : {false, true}) {
            // Each part interned, remembering each row's local code.
            std::vector<gfxq::detail::StringInterner> interners;
            for (size_t p = 0; p < parts; ++p) interners.emplace_back(limit);
            std::vector<std::vector<int32_t>> local(parts);
            for (size_t p = 0; p < parts; ++p)
              for (const std::string& s : strings[p]) local[p].push_back(interners[p].intern(s, stable));
            std::vector<const gfxq::detail::StringInterner*> pointers;
            for (const auto& in : interners) pointers.push_back(&in);
            for (const unsigned threads : {1u, 2u, 3u, 8u}) {
              for (const uint64_t ranges : {0, 1, 2, 3, 17, 1000}) {
                CAPTURE(rows);
                CAPTURE(kind);
                CAPTURE(parts);
                CAPTURE(limit);
                CAPTURE(stable);
                CAPTURE(threads);
                CAPTURE(ranges);
                const gfxq::detail::MergedDictionary merged =
                    gfxq::detail::merge_dictionaries(pointers, {threads, ranges}, "c");
                REQUIRE(merged.dictionary);
                CHECK(merged.dictionary->strings() == reference);
                REQUIRE(merged.starts.size() == parts);
                REQUIRE(merged.codes.size() ==
                        std::accumulate(interners.begin(), interners.end(), size_t{0},
                                        [](size_t sum, const auto& in) { return sum + in.size(); }));
                bool rows_right = true;
                for (size_t p = 0; p < parts; ++p) {
                  for (size_t k = 0; k < strings[p].size(); ++k) {
                    const auto code = static_cast<size_t>(merged.code_of(p)[static_cast<size_t>(local[p][k])]);
                    rows_right = rows_right && code < reference.size() && reference[code] == strings[p][k];
                  }
                }
                CHECK(rows_right);
                ++cases;
              }
            }
          }
        }
      }
    }
  }
  CHECK(cases == 5 * 4 * 3 * 4 * 2 * 4 * 6);
}

TEST_CASE("string dictionary: an interner's table keeps its repeats until full, then gives new codes") {
  gfxq::detail::StringInterner small(2);
  CHECK(small.intern("a") == 0);
  CHECK(small.intern("b") == 1);
  CHECK(small.intern("a") == 0);
  CHECK(small.intern("c") == 2);  // the table is full: "c" is not in it
  CHECK(small.intern("c") == 3);
  CHECK(small.intern("b") == 1);
  REQUIRE(small.size() == 4);
  CHECK(small.value(2) == "c");
  CHECK(small.value(3) == "c");
  // A copy survives its source; a stable string is read in place past the table.
  std::string source = "temporary";
  CHECK(small.intern(source) == 4);
  const std::string kept = "kept in place";
  CHECK(small.intern(kept, true) == 5);
  source.assign(source.size(), 'x');
  CHECK(small.value(4) == "temporary");
  CHECK(small.value(5).data() == kept.data());
  gfxq::detail::StringInterner big;
  for (int i = 0; i < 5000; ++i) CHECK(big.intern(std::to_string(i % 1000)) == i % 1000);
  CHECK(big.size() == 1000);
}

namespace {

// A CSV field for `s`: quoted when it holds a comma, quote, CR, LF or a blank at an end, or is empty
// (the quoted empty field is the empty string, an empty field NULL).
std::string field(const std::string& s) {
  const bool quote = s.empty() || s.find_first_of(",\"\r\n") != std::string::npos || s.front() == ' ' ||
                     s.back() == ' ' || s.front() == '\t' || s.back() == '\t';
  if (!quote) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// A random value of a CSV string column (nullopt: NULL), drawn from `distinct` values: empty, or
// pieces that need quoting (commas, quotes, line ends, blanks) and non-ASCII bytes.
std::optional<std::string> csv_value(std::mt19937_64& rng, uint64_t distinct) {
  if (rng() % 9 == 0) return std::nullopt;
  const uint64_t v = rng() % distinct;
  if (v % 11 == 10) return std::string();  // the empty string, not NULL
  static const char* pieces[] = {"x", ",", "\"", "\n", "\r\n", " ", "", "long shared prefix ", "\xc3\xa9", "\xff"};
  std::string s;
  for (uint64_t k = v; k > 0; k /= 10) s += pieces[k % 10];
  return s + std::to_string(v % 3);
}

}  // namespace

TEST_CASE("csv: string columns read with small string tables and any chunking equal a std::set build") {
  const uint64_t seed = 777001;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const size_t rows : {0, 1, 2, 3, 100, 3000}) {
    for (const uint64_t distinct : {1, 4, 50, 1000000}) {  // all equal, few, many, (almost) all distinct
      CAPTURE(rows);
      CAPTURE(distinct);
      std::vector<std::optional<std::string>> a(rows), b(rows);
      std::string text = "a:string,b\n";
      for (size_t r = 0; r < rows; ++r) {
        a[r] = csv_value(rng, distinct);
        b[r] = "k" + std::to_string(rng() % (distinct + 1));  // a bare column that ends up STRING
        text += (a[r] ? field(*a[r]) : std::string()) + "," + *b[r] + (r % 2 ? "\r\n" : "\n");
      }
      std::set<std::string> set_a, set_b;
      for (size_t r = 0; r < rows; ++r) {
        if (a[r]) set_a.insert(*a[r]);
        set_b.insert(*b[r]);
      }
      for (const unsigned threads : {1u, 2u, 3u, 7u}) {
        for (const uint64_t chunk : {0, 1, 13, 200, 4096}) {
          for (const uint64_t limit : {0, 1, 2, 16}) {
            if (rows == 3000 && chunk > 0 && chunk < 200) continue;
            CAPTURE(threads);
            CAPTURE(chunk);
            CAPTURE(limit);
            gfxq::CsvReadOptions options;
            options.threads = threads;
            options.chunk_bytes = chunk;
            options.string_table_limit = limit;
            options.string_merge_ranges = limit == 2 ? 5 : 0;
            const gfxq::Table t = gfxq::read_csv_text(text, "s.csv", options);
            REQUIRE(t.columns.size() == 2);
            REQUIRE(t.rows() == rows);
            const gfxq::Column& ca = t.columns[0];
            const gfxq::Column& cb = t.columns[1];
            REQUIRE(ca.type == gfxq::Type::String);
            REQUIRE(cb.type == (rows == 0 ? gfxq::Type::Int32 : gfxq::Type::String));
            CHECK(ca.dictionary->strings() == std::vector<std::string>(set_a.begin(), set_a.end()));
            if (rows > 0) CHECK(cb.dictionary->strings() == std::vector<std::string>(set_b.begin(), set_b.end()));
            bool cells_right = true;
            const std::vector<std::string> dict_a = ca.dictionary->strings();
            const std::vector<std::string> dict_b = rows > 0 ? cb.dictionary->strings() : std::vector<std::string>{};
            for (size_t r = 0; r < rows; ++r) {
              const int32_t code = ca.as<int32_t>()[r];
              const bool null = !ca.nulls.empty() && ca.nulls[r];
              cells_right = cells_right && null == !a[r].has_value() &&
                            (null ? code == 0 : dict_a.at(static_cast<size_t>(code)) == *a[r]);
              cells_right = cells_right && dict_b.at(static_cast<size_t>(cb.as<int32_t>()[r])) == *b[r];
            }
            CHECK(cells_right);
          }
        }
      }
    }
  }
}

TEST_CASE("csv: errors in string columns are the same with small string tables") {
  const uint64_t seed = 31337;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::string good = "s:string,t\n";
  for (int r = 0; r < 80; ++r) {
    const auto v = csv_value(rng, 30);
    good += (v ? field(*v) : std::string()) + ",t" + std::to_string(rng() % 5) + "\n";
  }
  const char replacements[] = {'"', ',', '\n', 'x', '\r'};
  const auto outcome = [](const std::string& text, unsigned threads, uint64_t chunk, uint64_t limit) {
    gfxq::CsvReadOptions options;
    options.threads = threads;
    options.chunk_bytes = chunk;
    options.string_table_limit = limit;
    try {
      const gfxq::Table t = gfxq::read_csv_text(text, "e.csv", options);
      std::ostringstream out;
      gfxq::write_csv(out, t);
      return t.schema() + "\n" + out.str();
    } catch (const gfxq::Error& e) {
      return std::string("error ") + gfxq::to_string(e.code()) + ": " + e.what();
    }
  };
  int errors = 0;
  for (int round = 0; round < 150; ++round) {
    std::string text = good;
    text[11 + rng() % (text.size() - 11)] = replacements[rng() % sizeof replacements];
    CAPTURE(round);
    const std::string one = outcome(text, 1, 0, 0);
    errors += one.rfind("error", 0) == 0;
    CHECK(outcome(text, 3, 1 + rng() % 100, 1) == one);
    CHECK(outcome(text, 2, 1 + rng() % 1000, 3) == one);
  }
  CHECK(errors > 0);
}

namespace {

// A string for the merge's sort: lengths around the 8-byte keys' bounds (0 to 26), bytes from a
// small alphabet with NUL and 0xff (many shared prefixes, strings that are prefixes of others).
std::string boundary_string(std::mt19937_64& rng) {
  static const char alphabet[] = {'\0', 'a', 'b', static_cast<char>(0xff)};
  std::string s(rng() % 27, 'a');
  for (char& c : s) c = rng() % 8 == 0 ? alphabet[rng() % 4] : 'a';
  return s;
}

// The interners' strings merged: the dictionary equals the sorted distinct strings and every local
// code maps to its own string.
void check_merge(const std::vector<std::vector<std::string>>& strings, size_t limit, uint64_t expected,
                 unsigned threads, uint64_t ranges) {
  std::set<std::string> reference_set;
  for (const auto& part : strings) reference_set.insert(part.begin(), part.end());
  const std::vector<std::string> reference(reference_set.begin(), reference_set.end());
  std::vector<gfxq::detail::StringInterner> interners;
  for (size_t p = 0; p < strings.size(); ++p) interners.emplace_back(limit, expected);
  std::vector<std::vector<int32_t>> local(strings.size());
  for (size_t p = 0; p < strings.size(); ++p) {
    // Half through intern_batch (read in place), half one by one and copied.
    std::vector<gfxq::detail::StringInterner::Request> requests;
    local[p].resize(strings[p].size());
    for (size_t k = 0; k < strings[p].size(); ++k) {
      if (k % 2 == 0) {
        requests.push_back({strings[p][k], &local[p][k]});
        if (requests.size() == 7) {
          interners[p].intern_batch(requests.data(), requests.size());
          requests.clear();
        }
      } else {
        local[p][k] = interners[p].intern(strings[p][k]);
      }
    }
    interners[p].intern_batch(requests.data(), requests.size());
  }
  std::vector<const gfxq::detail::StringInterner*> pointers;
  for (const auto& in : interners) pointers.push_back(&in);
  const gfxq::detail::MergedDictionary merged = gfxq::detail::merge_dictionaries(pointers, {threads, ranges}, "c");
  CHECK(merged.dictionary->strings() == reference);
  bool rows_right = true;
  for (size_t p = 0; p < strings.size(); ++p) {
    REQUIRE(merged.starts[p] + interners[p].size() <= merged.codes.size());
    for (size_t k = 0; k < strings[p].size(); ++k) {
      rows_right = rows_right && interners[p].value(static_cast<size_t>(local[p][k])) == strings[p][k];
      const auto code = static_cast<size_t>(merged.code_of(p)[static_cast<size_t>(local[p][k])]);
      rows_right = rows_right && code < reference.size() && reference[code] == strings[p][k];
    }
  }
  CHECK(rows_right);
}

}  // namespace

TEST_CASE("string dictionary: the merge sorts strings around the 8-byte key bounds, with many repeats") {
  const uint64_t seed = 20261127;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const size_t rows : {1, 31, 33, 500, 20000}) {
    for (const size_t parts : {1, 3}) {
      std::vector<std::vector<std::string>> strings(parts);
      for (auto& part : strings)
        for (size_t k = 0; k < rows; ++k) part.push_back(boundary_string(rng));
      for (const unsigned threads : {1u, 4u}) {
        for (const uint64_t ranges : {1, 0, 7}) {
          CAPTURE(rows);
          CAPTURE(parts);
          CAPTURE(threads);
          CAPTURE(ranges);
          check_merge(strings, 1, 0, threads, ranges);  // a table of one string: every repeat goes to the merge
        }
      }
    }
  }
}

TEST_CASE("string dictionary: a full table grows when its column repeats, else is passed by") {
  const uint64_t seed = 4242;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  constexpr size_t kStrings = 200000, kLimit = 64;
  for (const uint64_t distinct : {10, 1000, 20000, 1000000}) {
    CAPTURE(distinct);
    std::vector<std::vector<std::string>> strings(2);
    for (auto& part : strings)
      for (size_t k = 0; k < kStrings; ++k) part.push_back("value " + std::to_string(rng() % distinct));
    // The merge is right whatever the interners did.
    check_merge(strings, kLimit, kStrings, 2, 0);
    check_merge(strings, kLimit, 0, 2, 0);
    // What they did: with the strings expected, a column of 1000 distinct values grows the table and
    // finds its repeats there; without, and for (nearly) unique values, the full table is passed by
    // and most strings get codes of their own.
    gfxq::detail::StringInterner expecting(kLimit, kStrings), not_expecting(kLimit, 0);
    for (const std::string& s : strings[0]) {
      expecting.intern(s, true);
      not_expecting.intern(s, true);
    }
    if (distinct == 10) {
      CHECK(expecting.size() == 10);
      CHECK(not_expecting.size() == 10);
    }
    if (distinct == 1000) {
      CHECK(expecting.size() < kStrings / 4);
      CHECK(not_expecting.size() > kStrings / 2);
    }
    if (distinct == 1000000) CHECK(expecting.size() > kStrings / 2);
  }
}

TEST_CASE("csv: long string columns read with small tables that grow or are passed by equal a std::set build") {
  const uint64_t seed = 8675309;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  constexpr size_t kRows = 60000;
  // Column a: 300 distinct values (some quoted with doubled quotes, interned one by one between the
  // batches); b: all distinct; c: 20000 distinct.
  std::vector<std::string> a(kRows), b(kRows), c(kRows);
  std::string text = "a:string,b:string,c:string\n";
  for (size_t r = 0; r < kRows; ++r) {
    const uint64_t v = rng() % 300;
    a[r] = v % 7 == 0 ? "q\"" + std::to_string(v) : "a" + std::to_string(v);
    b[r] = "b" + std::to_string(rng());
    c[r] = "c" + std::to_string(rng() % 20000);
    text += field(a[r]) + "," + b[r] + "," + c[r] + "\n";
  }
  const std::vector<std::string>* columns[] = {&a, &b, &c};
  for (const unsigned threads : {1u, 2u, 5u}) {
    for (const uint64_t limit : {0, 16}) {
      CAPTURE(threads);
      CAPTURE(limit);
      gfxq::CsvReadOptions options;
      options.threads = threads;
      options.chunk_bytes = 64 << 10;
      options.string_table_limit = limit;
      const gfxq::Table t = gfxq::read_csv_text(text, "long.csv", options);
      REQUIRE(t.rows() == kRows);
      for (size_t i = 0; i < 3; ++i) {
        const std::set<std::string> set(columns[i]->begin(), columns[i]->end());
        const gfxq::Column& column = t.columns[i];
        const std::vector<std::string> dict = column.dictionary->strings();
        CHECK(dict == std::vector<std::string>(set.begin(), set.end()));
        bool cells_right = true;
        for (size_t r = 0; r < kRows; ++r)
          cells_right = cells_right && dict.at(static_cast<size_t>(column.as<int32_t>()[r])) == (*columns[i])[r];
        CHECK(cells_right);
      }
    }
  }
}

namespace {

// Interns each part's strings (read in place) into interners of `limit` strings, merges them with
// every thread count and range count given, and checks the dictionary and every local code
// against a std::map build of the same strings.
template <class S>
void check_merges_like_map(const std::vector<std::vector<S>>& strings, size_t limit,
                           std::initializer_list<unsigned> thread_counts,
                           std::initializer_list<uint64_t> range_counts) {
  std::map<std::string, size_t> reference_map;
  for (const auto& part : strings)
    for (const S& s : part) reference_map.emplace(std::string(s), 0);
  std::vector<std::string> reference;
  for (auto& [s, code] : reference_map) {
    code = reference.size();
    reference.push_back(s);
  }
  const size_t parts = strings.size();
  std::vector<gfxq::detail::StringInterner> interners;
  for (size_t p = 0; p < parts; ++p) interners.emplace_back(limit);
  std::vector<std::vector<int32_t>> local(parts);
  for (size_t p = 0; p < parts; ++p)
    for (const S& s : strings[p]) local[p].push_back(interners[p].intern(s, true));
  std::vector<const gfxq::detail::StringInterner*> pointers;
  for (const auto& in : interners) pointers.push_back(&in);
  for (const unsigned threads : thread_counts) {
    for (const uint64_t ranges : range_counts) {
      CAPTURE(threads);
      CAPTURE(ranges);
      const gfxq::detail::MergedDictionary merged = gfxq::detail::merge_dictionaries(pointers, {threads, ranges}, "c");
      CHECK(merged.dictionary->strings() == reference);
      size_t wrong = 0;
      for (size_t p = 0; p < parts; ++p)
        for (size_t k = 0; k < strings[p].size(); ++k)
          wrong += static_cast<size_t>(merged.code_of(p)[static_cast<size_t>(local[p][k])]) !=
                   reference_map.at(std::string(strings[p][k]));
      CHECK(wrong == 0);
    }
  }
}

}  // namespace

TEST_CASE(
    "string dictionary: runs of tied keys (repeats, NUL-padded prefixes, late differences) merge as a std::map build") {
  const uint64_t seed = 5550123;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Strings whose 8-byte keys tie at many depths: one base of 0 to 40 bytes, then at a random
  // place a byte changed, NUL bytes appended (equal keys, longer strings) or nothing (a repeat).
  const std::string base = "0123456789abcdefghijklmnopqrstuvwxyzABCD";
  const auto draw = [&]() {
    std::string s = base.substr(0, rng() % (base.size() + 1));
    switch (rng() % 4) {
      case 0:
        if (!s.empty()) s[rng() % s.size()] = static_cast<char>(rng() % 4);
        break;
      case 1: s.append(rng() % 3, '\0'); break;
      default: break;
    }
    return s;
  };
  for (const size_t parts : {1, 4, 16}) {
    for (const size_t rows : {10, 300, 5000}) {
      std::vector<std::vector<std::string>> strings(parts);
      for (auto& part : strings)
        for (size_t k = 0; k < rows; ++k) part.push_back(draw());
      for (const size_t limit : {1, 1 << 15}) {  // every repeat left to the merge, or found by the tables
        CAPTURE(parts);
        CAPTURE(rows);
        CAPTURE(limit);
        check_merges_like_map(strings, limit, {1u, 4u}, {0, 1, 7});
      }
    }
  }
}

TEST_CASE(
    "string dictionary: repeats compared in one pass, runs that differ late or are prefixes of each other, and "
    "strings past 2^24 bytes merge as a std::map build") {
  const uint64_t seed = 90210;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // A pool of strings that share prefixes of every length up to 80 bytes (a random text's first
  // bytes, then a tail of 0 to 3 bytes from {a, NUL}: strings that are prefixes of each other, or
  // differ only at the end, around every 8-byte bound), the empty string among them; every row a
  // repeat from the pool, so runs of tied keys hold many repeats and some strings that differ late.
  std::string text(80, ' ');
  for (char& c : text) c = static_cast<char>('a' + rng() % 3);
  std::vector<std::string> pool;
  for (size_t k = 0; k < 300; ++k) {
    std::string s = text.substr(0, rng() % (text.size() + 1));
    for (size_t tail = rng() % 4; tail > 0; --tail) s.push_back(rng() % 2 ? 'a' : '\0');
    pool.push_back(s);
  }
  pool.push_back("");
  // Strings past kLongSize (2^24 - 1) bytes, repeated: two that share all but their last byte, and
  // one a prefix of the others.
  std::string long_a(size_t{1} << 24, 'x');
  long_a.back() = 'a';
  std::string long_b = long_a;
  long_b.back() = 'b';
  const std::string long_prefix = long_a.substr(0, long_a.size() - 1);
  for (const size_t parts : {1, 3, 16}) {
    for (const size_t rows : {1, 40, 4000}) {
      const bool with_long = parts == 3 && rows == 40;
      std::vector<std::vector<std::string_view>> strings(parts);
      for (auto& part : strings)
        for (size_t k = 0; k < rows; ++k) {
          part.push_back(pool[rng() % pool.size()]);
          if (with_long && k % 10 == 0) part.push_back(k % 20 ? long_a : k % 30 ? long_b : long_prefix);
        }
      for (const size_t limit : {1, 1 << 15}) {  // every repeat left to the merge, or found by the tables
        CAPTURE(parts);
        CAPTURE(rows);
        CAPTURE(limit);
        check_merges_like_map(strings, limit, {2u}, {0, 1, 5});
      }
    }
  }
}

TEST_CASE(
    "string dictionary: keys that differ in few bits of their bytes, across byte bounds, in large ranges merge as a "
    "std::map build") {
  const uint64_t seed = 4242017;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // The key sort's digits start at the first bit where a range's keys differ, not at a byte, and
  // are up to 11 bits wide in ranges of 2^14 strings or more: numbered names (10 byte values a
  // digit), strings of '0' and '1' (one bit a byte, and lengths that differ), strings of any bytes,
  // some of them repeats.
  const auto draw = [&]() {
    std::string s;
    switch (rng() % 3) {
      case 0: s = "Customer#" + std::to_string(1000000000 + rng() % 60000); break;
      case 1:
        for (size_t k = rng() % 20; k > 0; --k) s.push_back(static_cast<char>('0' + rng() % 2));
        break;
      default:
        for (size_t k = rng() % 12; k > 0; --k) s.push_back(static_cast<char>(rng() % 256));
        break;
    }
    return s;
  };
  std::vector<std::vector<std::string>> strings(2);
  for (auto& part : strings)
    for (size_t k = 0; k < 40000; ++k) part.push_back(draw());
  check_merges_like_map(strings, 1, {1u, 2u}, {1, 3});
}

TEST_CASE("string dictionary: parts of very different sizes merged in pieces equal a std::map build") {
  const uint64_t seed = 31337;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Parts of 1, 150,000 and 300,000 strings (the merge's loops split parts past 65,536 strings),
  // half of them repeats from a pool, half new.
  const size_t sizes[] = {1, 150000, 300000};
  std::vector<std::vector<std::string>> strings(3);
  std::map<std::string, size_t> reference_map;
  for (size_t p = 0; p < 3; ++p)
    for (size_t k = 0; k < sizes[p]; ++k) {
      strings[p].push_back(rng() % 2 ? "pool entry " + std::to_string(rng() % 5000)
                                     : "new " + std::to_string(rng() % 1000000000));
      reference_map.emplace(strings[p].back(), 0);
    }
  std::vector<std::string> reference;
  for (auto& [s, code] : reference_map) {
    code = reference.size();
    reference.push_back(s);
  }
  std::vector<gfxq::detail::StringInterner> interners;
  for (size_t p = 0; p < 3; ++p) interners.emplace_back(16);  // small tables: most strings reach the merge
  std::vector<std::vector<int32_t>> local(3);
  for (size_t p = 0; p < 3; ++p)
    for (const std::string& s : strings[p]) local[p].push_back(interners[p].intern(s, true));
  const std::vector<const gfxq::detail::StringInterner*> pointers = {&interners[0], &interners[1], &interners[2]};
  for (const unsigned threads : {1u, 2u, 5u}) {
    for (const uint64_t ranges : {0, 3}) {
      CAPTURE(threads);
      CAPTURE(ranges);
      const gfxq::detail::MergedDictionary merged = gfxq::detail::merge_dictionaries(pointers, {threads, ranges}, "c");
      CHECK(merged.dictionary->strings() == reference);
      size_t wrong = 0;
      for (size_t p = 0; p < 3; ++p)
        for (size_t k = 0; k < strings[p].size(); ++k)
          wrong += static_cast<size_t>(merged.code_of(p)[static_cast<size_t>(local[p][k])]) !=
                   reference_map.at(strings[p][k]);
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("string dictionary: the interning pipeline finds every repeat, whatever batch a chunk ends in") {
  const uint64_t seed = 777;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // A pool of 40 strings drawn again and again, in "chunks" of every length from 0 to 7 batches
  // and a bit (finish() after each): the table holds the pool, so every string has one code.
  std::vector<std::string> pool;
  for (int k = 0; k < 40; ++k) pool.push_back("pool string number " + std::to_string(k * 7919));
  for (size_t chunk = 0; chunk < 8 * gfxq::detail::StringInterner::kBatch + 3; chunk += 5) {
    CAPTURE(chunk);
    gfxq::detail::StringInterner interner;
    gfxq::detail::InternPipeline pipeline;
    std::vector<size_t> drawn;
    std::vector<int32_t> codes(4 * chunk + 1, -1);
    for (int round = 0; round < 4; ++round) {
      for (size_t k = 0; k < chunk; ++k) {
        drawn.push_back(rng() % pool.size());
        pipeline.add(interner, pool[drawn.back()], &codes[drawn.size() - 1]);
      }
      pipeline.finish(interner);
    }
    std::vector<int32_t> code_of(pool.size(), -1);
    size_t wrong = 0;
    for (size_t i = 0; i < drawn.size(); ++i) {
      if (code_of[drawn[i]] < 0) code_of[drawn[i]] = codes[i];
      wrong += codes[i] < 0 || codes[i] != code_of[drawn[i]] ||
               interner.value(static_cast<size_t>(codes[i])) != pool[drawn[i]];
    }
    CHECK(wrong == 0);
    CHECK(interner.size() ==
          static_cast<size_t>(std::count_if(code_of.begin(), code_of.end(), [](int32_t c) { return c >= 0; })));
  }
}
