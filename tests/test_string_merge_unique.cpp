// Columns of (nearly) unique strings through the string merge and the CSV reader, against a
// std::set build: one merge workspace reused over merges of unique, nearly unique and repeated
// strings (the dictionary's bytes written into it or not), strings of 2^24 bytes and more (their
// size kept apart from the sort's entries), values kept in 8 bytes or apart (copies, views of the
// input); and CSV columns whose string tables are passed by ever more rarely, over many threads and
// small chunks, with quoted fields holding commas, line ends and quotes.
#include <doctest/doctest.h>

#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/string_interner.h"
#include "gfxq/table.h"

namespace {

// An address-like string: letters, digits, spaces, commas, quotes, line ends and UTF-8, with a
// prefix of more than 8 bytes shared by every string of its kind.
std::string address(std::mt19937_64& rng) {
  static const std::string chars = "0123456789abcdefXYZ, \"\n\xc3\xa9";
  std::string s = rng() % 2 ? "a shared prefix/" : "";
  const uint64_t length = rng() % 30;
  for (uint64_t i = 0; i < length; ++i) s += chars[rng() % chars.size()];
  return s;
}

// The value of row `r` of a column of `kind`: 0 unique (the row number in it), 1 nearly unique
// (one in 8 a repeat of an earlier row), 2 repeated (30 values), 3 unique or empty.
std::string value(std::mt19937_64& rng, int kind, uint64_t r) {
  switch (kind) {
    case 0: return address(rng) + "#" + std::to_string(r * 2654435761u % 1000000007);
    case 1: return "Customer#" + std::to_string(1000000000 + (rng() % 8 == 0 ? rng() % (r + 1) : r));
    case 2: return "Brand#" + std::to_string(rng() % 30);
    default: return rng() % 3 == 0 ? std::string() : "e" + std::to_string(r);
  }
}

// A CSV field holding `s`, quoted (quotes doubled) when it holds a comma, a quote, a line end or is
// empty, or at random.
std::string field(std::mt19937_64& rng, const std::string& s) {
  if (!s.empty() && s.find_first_of(",\"\n ") == std::string::npos && rng() % 4 != 0) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

TEST_CASE(
    "string merge: one workspace over unique, nearly unique, repeated and 2^24-byte strings equals a std::set build") {
  const uint64_t seed = 20261127;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  gfxq::detail::MergeWorkspace workspace;
  // Strings of 2^24 - 2 to 2^24 + 1 bytes, sharing all but their last byte, and their prefixes.
  std::vector<std::string> long_strings;
  for (const size_t size : {(size_t{1} << 24) - 2, (size_t{1} << 24) - 1, size_t{1} << 24, (size_t{1} << 24) + 1})
    for (const char last : {'a', 'b'}) long_strings.push_back(std::string(size - 1, 'L') + last);
  int merges = 0;
  for (const int kind : {0, 1, 2, 0, 3, 4, 2, 1}) {  // 4: the long strings among short ones
    for (const size_t parts : {1, 4}) {
      for (const size_t limit : {size_t{1}, size_t{64}, gfxq::detail::StringInterner::kTableLimit}) {
        CAPTURE(kind);
        CAPTURE(parts);
        CAPTURE(limit);
        const size_t rows = kind == 4 ? 40 : 3000 + rng() % 3000;
        // The strings of each part, kept in one buffer so views of them are read in place.
        std::vector<std::string> buffers(parts);
        std::vector<std::vector<std::pair<size_t, size_t>>> spans(parts);
        std::set<std::string> set;
        for (size_t r = 0; r < rows; ++r) {
          const std::string s = kind == 4 ? (r % 4 == 0 ? long_strings[rng() % long_strings.size()] : value(rng, 0, r))
                                          : value(rng, kind, r);
          set.insert(s);
          const size_t p = rng() % parts;
          spans[p].push_back({buffers[p].size(), s.size()});
          buffers[p] += s;
        }
        std::vector<gfxq::detail::StringInterner> interners;
        for (size_t p = 0; p < parts; ++p) interners.emplace_back(limit, rows / parts);
        std::vector<std::vector<int32_t>> local(parts);
        for (size_t p = 0; p < parts; ++p)
          for (const auto& [at, size] : spans[p]) {
            const std::string_view s(buffers[p].data() + at, size);
            // Views of the buffer and copies (the table's, and others kept apart).
            local[p].push_back(interners[p].intern(s, rng() % 5 != 0));
          }
        std::vector<const gfxq::detail::StringInterner*> pointers;
        for (const auto& in : interners) pointers.push_back(&in);
        const unsigned threads = 1 + static_cast<unsigned>(rng() % 3);
        const uint64_t ranges = rng() % 2 ? 0 : 1 + rng() % 9;
        CAPTURE(threads);
        CAPTURE(ranges);
        const gfxq::detail::MergedDictionary merged =
            gfxq::detail::merge_dictionaries(pointers, {threads, ranges, &workspace}, "c");
        const std::vector<std::string> reference(set.begin(), set.end());
        CHECK(merged.dictionary->strings() == reference);
        bool rows_right = true;
        for (size_t p = 0; p < parts; ++p)
          for (size_t k = 0; k < spans[p].size(); ++k) {
            const auto code = static_cast<size_t>(merged.code_of(p)[static_cast<size_t>(local[p][k])]);
            rows_right = rows_right && code < reference.size() &&
                         reference[code] == std::string_view(buffers[p].data() + spans[p][k].first, spans[p][k].second);
          }
        CHECK(rows_right);
        ++merges;
      }
    }
  }
  CHECK(merges == 8 * 2 * 3);
}

TEST_CASE(
    "csv: unique, nearly unique and repeated string columns over many threads and small chunks equal a std::set "
    "build") {
  const uint64_t seed = 20261128;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const size_t rows : {0, 1, 2, 31, 1000, 90000}) {
    // Columns u (unique), n (nearly unique), r (repeated) and e (unique, empty or NULL).
    std::vector<std::vector<std::optional<std::string>>> cells(4, std::vector<std::optional<std::string>>(rows));
    std::string text = "u:string,n:string,r:string,e:string\n";
    for (size_t row = 0; row < rows; ++row) {
      for (int kind = 0; kind < 4; ++kind) {
        const bool null = kind == 3 && rng() % 5 == 0;  // an empty unquoted field
        if (!null) cells[kind][row] = value(rng, kind, row);
        text += (null ? std::string() : field(rng, *cells[kind][row])) + (kind < 3 ? "," : "\n");
      }
    }
    std::vector<std::set<std::string>> sets(4);
    for (int kind = 0; kind < 4; ++kind)
      for (const auto& cell : cells[kind])
        if (cell) sets[kind].insert(*cell);
    for (const unsigned threads : {1u, 2u, 7u}) {
      for (const uint64_t chunk : {uint64_t{0}, uint64_t{4096}}) {
        for (const uint64_t limit : {0, 1, 50}) {
          CAPTURE(rows);
          CAPTURE(threads);
          CAPTURE(chunk);
          CAPTURE(limit);
          gfxq::CsvReadOptions options;
          options.threads = threads;
          options.chunk_bytes = chunk;
          options.string_table_limit = limit;
          const gfxq::Table t = gfxq::read_csv_text(text, "unique.csv", options);
          REQUIRE(t.rows() == rows);
          for (int kind = 0; kind < 4; ++kind) {
            CAPTURE(kind);
            const gfxq::Column& c = t.columns[static_cast<size_t>(kind)];
            CHECK(c.dictionary->strings() == std::vector<std::string>(sets[kind].begin(), sets[kind].end()));
            bool cells_right = true;
            for (size_t row = 0; row < rows && cells_right; ++row) {
              const auto& want = cells[kind][row];
              cells_right = c.is_null(row) == !want.has_value() && (!want || c.string_at(row) == *want);
            }
            CHECK(cells_right);
          }
        }
      }
    }
  }
}
