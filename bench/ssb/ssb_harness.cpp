#include "ssb/ssb_harness.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>

#include "gfxq/error.h"
#include "gfxq/ssb.h"

namespace gfxq::ssb {

namespace {

using Cell = std::optional<std::string>;
using Row = std::vector<Cell>;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// A float cell in a canonical text: the shortest form of its double value.
Cell canonical_number(const Cell& cell) {
  if (!cell) return cell;
  double v = 0;
  const auto r = std::from_chars(cell->data(), cell->data() + cell->size(), v);
  if (r.ec != std::errc{} || r.ptr != cell->data() + cell->size()) return cell;
  char buf[40];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

std::string render(const Row& row) {
  std::string s = "(";
  for (size_t c = 0; c < row.size(); ++c) s += (c ? ", " : "") + (row[c] ? *row[c] : std::string("NULL"));
  return s + ")";
}

Row key_of(const Row& row, const std::vector<size_t>& keys) {
  Row k;
  for (size_t c : keys) k.push_back(row[c]);
  return k;
}

// The first row where two equally long, sorted sub-ranges differ, as a message; "" when equal.
std::string compare_multiset(std::vector<Row> want, std::vector<Row> got, size_t first) {
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  for (size_t i = 0; i < want.size(); ++i)
    if (want[i] != got[i])
      return "rows " + std::to_string(first) + ".." + std::to_string(first + want.size() - 1) +
             " (compared as a multiset): DuckDB has " + render(want[i]) + " where gfxq has " + render(got[i]);
  return "";
}

}  // namespace

const std::vector<std::string>& query_names() {
  static const std::vector<std::string> names = {"q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1",
                                                 "q3.2", "q3.3", "q3.4", "q4.1", "q4.2", "q4.3"};
  return names;
}

std::vector<Query> load_queries(const std::string& dir) {
  std::vector<Query> queries;
  for (const std::string& name : query_names()) {
    const std::string path = dir + "/" + name + ".sql";
    std::ifstream in(path);
    if (!in) throw Error(ErrorCode::Io, "cannot read the SSB query '" + path + "'");
    std::ostringstream text;
    text << in.rdbuf();
    queries.push_back({name, text.str()});
  }
  return queries;
}

double load_tables(duckdb::Client& client, const std::string& data_dir) {
  double seconds = 0;
  for (const std::string& table : ssb_table_names()) seconds += client.load_csv(table, data_dir + "/" + table + ".csv");
  return seconds;
}

std::vector<size_t> order_key_columns(const std::string& sql, const std::vector<std::string>& columns) {
  // The query in lower case with every run of white space as one space.
  std::string text;
  for (char c : lower(sql)) {
    const bool space = std::isspace(static_cast<unsigned char>(c));
    if (!space)
      text += c;
    else if (!text.empty() && text.back() != ' ')
      text += ' ';
  }
  const size_t at = text.rfind("order by ");
  if (at == std::string::npos) return {};
  std::string clause = text.substr(at + 9);
  clause = clause.substr(0, std::min(clause.find(';'), clause.find(" limit ")));
  std::vector<size_t> keys;
  std::istringstream terms(clause);
  for (std::string term; std::getline(terms, term, ',');) {
    term = trim(term);
    for (const char* suffix : {" asc", " desc"})
      if (term.size() > std::string(suffix).size() && term.ends_with(suffix))
        term = trim(term.substr(0, term.rfind(' ')));
    if (const size_t dot = term.rfind('.'); dot != std::string::npos) term = term.substr(dot + 1);
    size_t found = columns.size();
    for (size_t c = 0; c < columns.size(); ++c)
      if (lower(columns[c]) == term) found = c;
    if (found == columns.size()) return {};
    keys.push_back(found);
  }
  return keys;
}

std::string compare(const duckdb::QueryResult& expected, const Table& got, const std::string& sql) {
  const size_t cols = expected.names.size();
  if (got.columns.size() != cols)
    return "DuckDB has " + std::to_string(cols) + " columns, gfxq " + std::to_string(got.columns.size());
  if (got.rows() != expected.rows.size())
    return "DuckDB has " + std::to_string(expected.rows.size()) + " rows, gfxq " + std::to_string(got.rows());
  std::vector<Row> want = expected.rows, have(expected.rows.size(), Row(cols));
  for (size_t c = 0; c < cols; ++c) {
    const bool number = expected.types[c] == "FLOAT" || expected.types[c] == "DOUBLE";
    for (size_t r = 0; r < want.size(); ++r) {
      const Column& column = got.columns[c];
      if (!column.is_null(r)) have[r][c] = format_value(column.value(r));
      if (number) {
        want[r][c] = canonical_number(want[r][c]);
        have[r][c] = canonical_number(have[r][c]);
      }
    }
  }
  const std::vector<size_t> keys = order_key_columns(sql, expected.names);
  if (keys.empty()) return compare_multiset(want, have, 0);
  // In order of the keys; each run of rows with equal keys as a multiset.
  for (size_t first = 0; first < want.size();) {
    const Row key = key_of(want[first], keys);
    size_t end = first;
    while (end < want.size() && key_of(want[end], keys) == key) {
      if (key_of(have[end], keys) != key)
        return "row " + std::to_string(end) + ": DuckDB has " + render(want[end]) + " where gfxq has " +
               render(have[end]) + " (ORDER BY keys differ)";
      ++end;
    }
    const std::string diff = compare_multiset(
        {want.begin() + static_cast<ptrdiff_t>(first), want.begin() + static_cast<ptrdiff_t>(end)},
        {have.begin() + static_cast<ptrdiff_t>(first), have.begin() + static_cast<ptrdiff_t>(end)}, first);
    if (!diff.empty()) return diff;
    first = end;
  }
  return "";
}

}  // namespace gfxq::ssb
