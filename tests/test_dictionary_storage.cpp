// gfxq::Dictionary's storage (one block of bytes and offsets) against a std::set of std::string:
// building, access, search, iteration, copies and unions; String columns built with strings(),
// coded() and push(); and the CSV reader's merge of strings that share long prefixes (the ranges
// sorted from their splitters' common bytes), on many threads over small chunks.
#include <doctest/doctest.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/string_interner.h"
#include "gfxq/table.h"

namespace {

// A random string: empty, NUL bytes inside, UTF-8, 0xff bytes, a shared long prefix, a prefix of
// another, or (rarely) longer than 64 KiB.
std::string random_string(std::mt19937_64& rng) {
  const uint64_t v = rng();
  switch (v % 9) {
    case 0: return std::string(v % 3, 'a');
    case 1: return std::string("n\0ul", 4) + std::string(v % 4, '\0') + std::to_string(v % 50);
    case 2: return "\xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac " + std::to_string(v % 300);
    case 3: return std::string(1 + v % 2, static_cast<char>(0xff)) + std::to_string(v % 100);
    case 4: return "a long prefix shared by many of the strings, " + std::to_string(v % 1000);
    case 5: return "Customer#" + std::to_string(100000000 + v % 5000);
    case 6: return v % 64 == 0 ? std::string(70000 + v % 5000, static_cast<char>('a' + v % 3)) : "x";
    default: return std::to_string(v % 100000);
  }
}

// Strings to look up: members, members with a byte added or taken away, and new random strings.
std::vector<std::string> probes(std::mt19937_64& rng, const std::set<std::string>& set) {
  std::vector<std::string> out;
  for (const std::string& s : set) {
    if (rng() % 4 != 0) continue;
    out.push_back(s);
    out.push_back(s + static_cast<char>(rng() % 256));
    if (!s.empty()) out.push_back(s.substr(0, s.size() - 1));
  }
  for (int k = 0; k < 50; ++k) out.push_back(random_string(rng));
  return out;
}

// Every accessor of `d` against `set`, the strings it should hold.
void check_dictionary(const gfxq::Dictionary& d, const std::set<std::string>& set, std::mt19937_64& rng) {
  const std::vector<std::string> want(set.begin(), set.end());
  REQUIRE(d.size() == want.size());
  CHECK(d.empty() == want.empty());
  CHECK(d.strings() == want);
  // Offsets: from 0, ascending, string k its bytes [offsets[k], offsets[k + 1]) of data().
  const std::span<const uint64_t> offsets = d.offsets();
  REQUIRE(offsets.size() == want.size() + 1);
  CHECK(offsets.front() == 0);
  CHECK(offsets.back() == d.bytes());
  bool values_right = true;
  for (size_t k = 0; k < want.size(); ++k) {
    values_right = values_right && d.value(k) == want[k] && offsets[k + 1] - offsets[k] == want[k].size() &&
                   std::string_view(d.data() + offsets[k], want[k].size()) == want[k];
  }
  CHECK(values_right);
  // Iteration, forwards and through the random-access operations.
  std::vector<std::string> iterated;
  for (const std::string_view s : d) iterated.emplace_back(s);
  CHECK(iterated == want);
  CHECK(d.end() - d.begin() == static_cast<std::ptrdiff_t>(want.size()));
  if (!want.empty()) {
    CHECK(*(d.end() - 1) == want.back());
    CHECK(d.begin()[static_cast<std::ptrdiff_t>(want.size() / 2)] == want[want.size() / 2]);
  }
  CHECK(std::is_sorted(d.begin(), d.end()));
  CHECK(d.sorted_at(0, d.size()) == d.size());
  // Searches: the code a string has or would have.
  bool searches_right = true;
  for (const std::string& s : probes(rng, set)) {
    const auto below = static_cast<int32_t>(std::distance(set.begin(), set.lower_bound(s)));
    const std::optional<int32_t> code = set.count(s) ? std::optional<int32_t>(below) : std::nullopt;
    searches_right = searches_right && d.lower_bound(s) == below && d.find(s) == code &&
                     std::lower_bound(d.begin(), d.end(), std::string_view(s)).code() == static_cast<size_t>(below);
  }
  CHECK(searches_right);
}

}  // namespace

TEST_CASE("dictionary storage: of, value, offsets, iteration, find and lower_bound equal a std::set") {
  const uint64_t seed = 20261127;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const size_t n : {0, 1, 2, 3, 31, 32, 33, 700, 3000}) {
    CAPTURE(n);
    std::vector<std::string> strings;
    for (size_t k = 0; k < n; ++k) strings.push_back(random_string(rng));
    const std::set<std::string> set(strings.begin(), strings.end());
    const auto d = gfxq::Dictionary::of(strings);
    REQUIRE(d);
    check_dictionary(*d, set, rng);

    // Copies hold the same strings in storage of their own; equality compares strings.
    gfxq::Dictionary copy(*d);
    CHECK(copy == *d);
    check_dictionary(copy, set, rng);
    gfxq::Dictionary assigned;
    assigned = copy;
    CHECK(assigned == *d);
    const gfxq::Dictionary moved(std::move(copy));
    CHECK(moved == *d);
    CHECK((n == 0 || moved.data() != d->data()));
    if (!set.empty()) {
      std::set<std::string> fewer = set;
      fewer.erase(std::next(fewer.begin(), static_cast<std::ptrdiff_t>(rng() % fewer.size())));
      CHECK(!(*gfxq::Dictionary::of(std::vector<std::string>(fewer.begin(), fewer.end())) == *d));
    }

    // Adopted bytes and offsets are the same dictionary; out of order, sorted_at finds the place.
    const std::span<const uint64_t> offsets = d->offsets();
    auto bytes = std::make_unique<char[]>(d->bytes() + 1);
    std::copy(d->data(), d->data() + d->bytes(), bytes.get());
    const gfxq::Dictionary adopted(std::move(bytes), std::vector<uint64_t>(offsets.begin(), offsets.end()));
    CHECK(adopted == *d);
    if (set.size() >= 2) {
      // The strings reversed: the first out of order is code 1.
      std::vector<std::string> reversed(set.rbegin(), set.rend());
      std::vector<uint64_t> at = {0};
      std::string text;
      for (const std::string& s : reversed) {
        text += s;
        at.push_back(text.size());
      }
      auto block = std::make_unique<char[]>(text.size() + 1);
      std::copy(text.begin(), text.end(), block.get());
      const gfxq::Dictionary unsorted(std::move(block), std::move(at));
      CHECK(unsorted.sorted_at(0, unsorted.size()) == 1);
      CHECK(unsorted.sorted_at(2, unsorted.size()) == 2);
    }

    // Unions of up to four dictionaries (one of them this one) equal the union of their sets.
    std::vector<std::shared_ptr<const gfxq::Dictionary>> parts = {d};
    std::set<std::string> all = set;
    const size_t more = rng() % 4;
    for (size_t p = 0; p < more; ++p) {
      std::vector<std::string> other;
      for (size_t k = rng() % (n + 2); k > 0; --k) other.push_back(random_string(rng));
      all.insert(other.begin(), other.end());
      parts.push_back(gfxq::Dictionary::of(other));
    }
    std::vector<const gfxq::Dictionary*> pointers;
    for (const auto& p : parts) pointers.push_back(p.get());
    check_dictionary(*gfxq::Dictionary::union_of(pointers), all, rng);
  }
  check_dictionary(gfxq::Dictionary(), {}, rng);
  check_dictionary(*gfxq::Dictionary::union_of({}), {}, rng);
}

TEST_CASE("string columns: strings, coded, push and string_at equal a vector of strings") {
  const uint64_t seed = 20261128;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const size_t rows : {0, 1, 2, 65, 400}) {
    CAPTURE(rows);
    std::vector<std::string> values;
    for (size_t r = 0; r < rows; ++r) values.push_back(random_string(rng));
    const std::set<std::string> set(values.begin(), values.end());

    // strings(): the dictionary of the distinct values, codes ordered as the strings are.
    const gfxq::Column c = gfxq::Column::strings("s", values);
    REQUIRE(c.size() == rows);
    check_dictionary(*c.dictionary, set, rng);
    bool cells_right = true;
    for (size_t r = 0; r < rows; ++r) {
      cells_right = cells_right && c.string_at(r) == values[r] && std::get<std::string>(c.value(r)) == values[r];
      const size_t other = rng() % rows;
      cells_right = cells_right && (c.as<int32_t>()[r] < c.as<int32_t>()[other]) == (values[r] < values[other]);
    }
    CHECK(cells_right);

    // coded(): the same codes into the same dictionary; a code outside it is refused.
    const gfxq::Column d = gfxq::Column::coded("d", c.as<int32_t>(), c.dictionary);
    bool coded_right = true;
    for (size_t r = 0; r < rows; ++r) coded_right = coded_right && d.string_at(r) == values[r];
    CHECK(coded_right);
    CHECK_THROWS(gfxq::Column::coded("e", {static_cast<int32_t>(set.size())}, c.dictionary));

    // push(): strings and NULLs one at a time, the dictionary growing (and codes renumbered).
    gfxq::Column pushed = gfxq::Column::make("p", gfxq::Type::String);
    std::vector<std::optional<std::string>> want;
    std::set<std::string> pushed_set;
    for (size_t r = 0; r < rows; ++r) {
      if (rng() % 5 == 0) {
        pushed.push(std::monostate{});
        want.push_back(std::nullopt);
      } else {
        const std::string& s = values[rng() % rows];
        pushed.push(s);
        want.push_back(s);
        pushed_set.insert(s);
      }
    }
    check_dictionary(*pushed.dictionary, pushed_set, rng);
    bool pushed_right = pushed.size() == rows;
    for (size_t r = 0; r < rows && pushed_right; ++r) {
      pushed_right =
          pushed.is_null(r) == !want[r].has_value() &&
          (!want[r] || (pushed.string_at(r) == *want[r] && std::get<std::string>(pushed.value(r)) == *want[r]));
    }
    CHECK(pushed_right);
  }
}

TEST_CASE("string merge: strings sharing long prefixes, and strings around them, equal a std::set build") {
  // Numbered names share most of their bytes: each key range is sorted from the bytes its splitters
  // share, and the range search keys strings after the prefix all splitters share; strings without
  // that prefix (shorter, smaller, larger) fall before or after every splitter.
  const uint64_t seed = 20261129;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const auto value = [&](uint64_t v) -> std::string {
    switch (v % 11) {
      case 0: return "Customer#10";  // the prefix cut short
      case 1: return "A" + std::to_string(v % 97);
      case 2: return "\xff" + std::to_string(v % 13);
      case 3: return "Customer#1" + std::string(v % 5, '0');
      case 4: return "Customer#100000" + std::string(1, '\0') + std::to_string(v % 7);
      default: return "Customer#" + std::to_string(1000000000 + v % 60000) + (v % 3 ? "" : " with a tail");
    }
  };
  for (const size_t rows : {1, 200, 5000, 40000}) {
    for (const size_t parts : {1, 3, 7}) {
      std::vector<std::vector<std::string>> strings(parts);
      std::set<std::string> set;
      for (size_t r = 0; r < rows; ++r) {
        std::string s = value(rng());
        set.insert(s);
        strings[rng() % parts].push_back(std::move(s));
      }
      const std::vector<std::string> reference(set.begin(), set.end());
      std::vector<gfxq::detail::StringInterner> interners;
      for (size_t p = 0; p < parts; ++p) interners.emplace_back(1 + rng() % 64);
      std::vector<std::vector<int32_t>> local(parts);
      for (size_t p = 0; p < parts; ++p)
        for (const std::string& s : strings[p]) local[p].push_back(interners[p].intern(s, true));
      std::vector<const gfxq::detail::StringInterner*> pointers;
      for (const auto& in : interners) pointers.push_back(&in);
      for (const unsigned threads : {1u, 4u, 16u}) {
        for (const uint64_t ranges : {0, 2, 5, 64, 1000}) {
          CAPTURE(rows);
          CAPTURE(parts);
          CAPTURE(threads);
          CAPTURE(ranges);
          const gfxq::detail::MergedDictionary merged =
              gfxq::detail::merge_dictionaries(pointers, {threads, ranges}, "c");
          CHECK(merged.dictionary->strings() == reference);
          bool rows_right = true;
          for (size_t p = 0; p < parts; ++p)
            for (size_t k = 0; k < strings[p].size(); ++k) {
              const auto code = static_cast<size_t>(merged.code_of(p)[static_cast<size_t>(local[p][k])]);
              rows_right = rows_right && code < reference.size() && reference[code] == strings[p][k];
            }
          CHECK(rows_right);
        }
      }
    }
  }

  // The same through the CSV reader: many threads over small chunks, many key ranges.
  std::string text = "name:string,n:int\n";
  std::vector<std::string> column;
  for (size_t r = 0; r < 20000; ++r) {
    std::string s = value(rng());
    s.erase(std::remove(s.begin(), s.end(), '\0'), s.end());  // a CSV text holds no NUL byte
    column.push_back(s);
    text += "\"" + s + "\"," + std::to_string(r) + "\n";
  }
  const std::set<std::string> set(column.begin(), column.end());
  for (const unsigned threads : {1u, 3u, 16u}) {
    for (const uint64_t ranges : {0, 7, 500}) {
      CAPTURE(threads);
      CAPTURE(ranges);
      gfxq::CsvReadOptions options;
      options.threads = threads;
      options.chunk_bytes = 1000;
      options.string_table_limit = 1 + rng() % 100;
      options.string_merge_ranges = ranges;
      const gfxq::Table t = gfxq::read_csv_text(text, "prefixes.csv", options);
      const gfxq::Column& c = t.column("name");
      CHECK(c.dictionary->strings() == std::vector<std::string>(set.begin(), set.end()));
      bool cells_right = t.rows() == column.size();
      for (size_t r = 0; r < column.size() && cells_right; ++r) cells_right = c.string_at(r) == column[r];
      CHECK(cells_right);
    }
  }
}
