// CSV output: write_csv, write_csv_file, format_value.
//
// Format written: the header (`a:int,b:float` when typed, else names), then one line per row, '\n'
// line endings. Integers in decimal; floats and doubles in the shortest form that reads back to the
// same value (std::to_chars), "nan", "inf", "-inf", "-0"; dates as YYYY-MM-DD; NULL as an empty
// field, or as "" in a table of one column that is not STRING (an empty line would read as no row;
// a one-column STRING table's NULL has no text of its own and stays an empty line). Strings are
// quoted as RFC 4180 says where they must be: holding ',', '"', CR or LF, and also when empty (an
// empty field is NULL) or with a space or tab at either end (the reader trims unquoted fields).
// Header fields are quoted (name and type together) when the name is no bare name
// (detail::is_bare_csv_name): `"QUANTILE(a, 0.5):double"`. read_csv reads back exactly what
// write_csv writes (one-column STRING tables with NULLs excepted).
//
// How: the rows are cut into blocks formatted on all threads, a batch of blocks at a time, and
// written in order. A string column's dictionary entries are formatted (quoted) once when the
// dictionary is not larger than the table.

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "core/csv_names.h"
#include "core/parallel.h"
#include "gfxq/error.h"
#include "gfxq/table.h"

namespace gfxq {

namespace {

std::string io_reason() {
  return errno ? std::strerror(errno) : "unknown error";
}

template <class T>
void append_number(std::string& out, T x) {
  char buf[64];
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) {
      out += "nan";
      return;
    }
    if (std::isinf(x)) {
      out += x > 0 ? "inf" : "-inf";
      return;
    }
  }
  const auto res = std::to_chars(buf, buf + sizeof buf, x);
  out.append(buf, res.ptr);
}

// YYYY-MM-DD for the years 0001 to 9999 without snprintf; format_date otherwise.
void append_date(std::string& out, int32_t days) {
  int32_t y = 0, m = 0, d = 0;
  civil_from_date(Date{days}, y, m, d);
  if (y < 1 || y > 9999) {
    out += format_date(Date{days});
    return;
  }
  const char text[10] = {char('0' + y / 1000),
                         char('0' + y / 100 % 10),
                         char('0' + y / 10 % 10),
                         char('0' + y % 10),
                         '-',
                         char('0' + m / 10),
                         char('0' + m % 10),
                         '-',
                         char('0' + d / 10),
                         char('0' + d % 10)};
  out.append(text, sizeof text);
}

void append_value(std::string& out, const Value& v) {
  switch (v.index()) {
    case 0: break;
    case 1: append_number(out, std::get<int32_t>(v)); break;
    case 2: append_number(out, std::get<float>(v)); break;
    case 3: append_number(out, std::get<int64_t>(v)); break;
    case 4: append_number(out, std::get<double>(v)); break;
    case 5: out += std::get<std::string>(v); break;
    case 6: append_date(out, std::get<Date>(v).days); break;
  }
}

// A field quoted as RFC 4180 does where it must be (see the file comment).
void append_quoted(std::string& buf, std::string_view field) {
  const bool quote = field.find_first_of(",\"\r\n") != std::string_view::npos || field.empty() ||
                     field.front() == ' ' || field.back() == ' ' || field.front() == '\t' || field.back() == '\t';
  if (!quote) {
    buf += field;
    return;
  }
  buf += '"';
  for (char c : field) {
    if (c == '"') buf += '"';
    buf += c;
  }
  buf += '"';
}

// Appends the rows [first, last) of `table` to `out`. `quoted[i]`: the formatted dictionary of
// string column i, when made.
void format_rows(const Table& table, const std::vector<std::vector<std::string>>& quoted, uint64_t first, uint64_t last,
                 std::string& out) {
  const size_t n = table.columns.size();
  for (uint64_t row = first; row < last; ++row) {
    for (size_t i = 0; i < n; ++i) {
      if (i) out += ',';
      const Column& c = table.columns[i];
      if (c.is_null(row)) continue;
      switch (c.type) {
        case Type::Int32: append_number(out, std::get<std::vector<int32_t>>(c.data)[row]); break;
        case Type::Float32: append_number(out, std::get<std::vector<float>>(c.data)[row]); break;
        case Type::Int64: append_number(out, std::get<std::vector<int64_t>>(c.data)[row]); break;
        case Type::Float64: append_number(out, std::get<std::vector<double>>(c.data)[row]); break;
        case Type::Date: append_date(out, std::get<std::vector<int32_t>>(c.data)[row]); break;
        case Type::String: {
          const auto code = static_cast<size_t>(std::get<std::vector<int32_t>>(c.data)[row]);
          if (!quoted[i].empty())
            out += quoted[i][code];
          else
            append_quoted(out, c.dictionary->value(code));
          break;
        }
      }
    }
    // A NULL alone on its line would be a blank line: it is written as the quoted empty field
    // (which is the empty string in a STRING column, so there the line stays blank).
    if (n == 1 && table.columns[0].is_null(row) && table.columns[0].type != Type::String) out += "\"\"";
    out += '\n';
  }
}

}  // namespace

std::string format_value(const Value& v) {
  std::string s;
  append_value(s, v);
  return s;
}

void write_csv(std::ostream& out, const Table& table, const CsvWriteOptions& options) {
  // Only equal lengths are needed here: results may repeat a column name (SELECT a, a).
  for (const Column& c : table.columns) {
    if (c.size() != table.rows())
      throw Error(ErrorCode::InvalidInput, "cannot write CSV: column '" + c.name + "' has " + std::to_string(c.size()) +
                                               " rows, column '" + table.columns.front().name + "' has " +
                                               std::to_string(table.rows()));
    if (!c.nulls.empty() && c.nulls.size() != c.size())
      throw Error(ErrorCode::InvalidInput, "cannot write CSV: column '" + c.name + "' has " + std::to_string(c.size()) +
                                               " rows but " + std::to_string(c.nulls.size()) + " null flags");
    if (c.type == Type::String) {
      if (!c.dictionary)
        throw Error(ErrorCode::InvalidInput, "cannot write CSV: string column '" + c.name + "' has no dictionary");
      for (uint64_t r = 0; r < c.size(); ++r) {
        const int32_t code = std::get<std::vector<int32_t>>(c.data)[r];
        if (!c.is_null(r) && (code < 0 || static_cast<size_t>(code) >= c.dictionary->size()))
          throw Error(ErrorCode::InvalidInput, "cannot write CSV: string column '" + c.name + "': row " +
                                                   std::to_string(r) + " holds code " + std::to_string(code) +
                                                   " outside its dictionary");
      }
    }
  }
  std::string header;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (i) header += ',';
    // A name the reader would not read bare (`QUANTILE(a, 0.5)`, a name with blanks) is quoted with
    // its type as RFC 4180 does; the reader takes the type after the last ':' inside the quotes.
    const std::string& name = table.columns[i].name;
    std::string field = name;
    if (options.typed_header) field += std::string(":") + to_string(table.columns[i].type);
    if (detail::is_bare_csv_name(name)) {
      header += field;
      continue;
    }
    header += '"';
    for (char c : field) {
      if (c == '"') header += '"';
      header += c;
    }
    header += '"';
  }
  header += '\n';
  out.write(header.data(), static_cast<std::streamsize>(header.size()));

  const uint64_t rows = table.rows();
  const unsigned threads = detail::worker_count(options.threads);
  std::vector<std::vector<std::string>> quoted(table.columns.size());
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const Column& c = table.columns[i];
    if (c.type != Type::String || c.dictionary->size() > rows) continue;
    quoted[i].resize(c.dictionary->size());
    for (size_t k = 0; k < quoted[i].size(); ++k) append_quoted(quoted[i][k], c.dictionary->value(k));
  }
  const uint64_t block = options.chunk_rows ? options.chunk_rows : 16384;
  const uint64_t blocks = (rows + block - 1) / block;
  const uint64_t batch = rows <= block ? 1 : 2 * uint64_t{threads};
  std::vector<std::string> text(static_cast<size_t>(std::min(blocks, batch)));
  for (uint64_t first = 0; first < blocks; first += batch) {
    const uint64_t count = std::min(batch, blocks - first);
    detail::parallel_for(count, threads, [&](size_t k) {
      text[k].clear();
      const uint64_t b = first + k;
      format_rows(table, quoted, b * block, std::min(rows, (b + 1) * block), text[k]);
    });
    for (uint64_t k = 0; k < count; ++k) out.write(text[k].data(), static_cast<std::streamsize>(text[k].size()));
    if (options.progress) options.progress(std::min(rows, (first + count) * block), rows);
  }
}

void write_csv(std::ostream& out, const Table& table, bool typed_header) {
  CsvWriteOptions options;
  options.typed_header = typed_header;
  write_csv(out, table, options);
}

void write_csv_file(const std::string& path, const Table& table, const CsvWriteOptions& options) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out.is_open()) throw Error(ErrorCode::Io, "cannot open '" + path + "' for writing: " + io_reason());
  write_csv(out, table, options);
  out.close();
  if (out.fail()) throw Error(ErrorCode::Io, "cannot write '" + path + "': " + io_reason());
}

void write_csv_file(const std::string& path, const Table& table, bool typed_header) {
  CsvWriteOptions options;
  options.typed_header = typed_header;
  write_csv_file(path, table, options);
}

}  // namespace gfxq
