#include "cli/format.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <vector>

namespace gfxq::cli {

namespace {
// A cell as text (NULL as "NULL", strings as they are).
std::string cell_text(const Column& c, uint64_t row) {
  if (c.is_null(row)) return "NULL";
  if (c.type == Type::String) return std::string(c.string_at(row));
  return format_value(c.value(row));
}

// Columns padded to their widest cell (counted in UTF-8 characters); numbers right-aligned.
void write_table(std::ostream& out, const Table& table) {
  const size_t n = table.columns.size();
  const auto width = [](const std::string& s) {
    return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  };
  std::vector<size_t> widths(n);
  for (size_t i = 0; i < n; ++i) {
    widths[i] = width(table.columns[i].name);
    for (uint64_t r = 0; r < table.rows(); ++r) widths[i] = std::max(widths[i], width(cell_text(table.columns[i], r)));
  }
  const auto line = [&](const auto& text_of) {
    for (size_t i = 0; i < n; ++i) {
      const std::string text = text_of(i);
      const std::string pad(widths[i] - width(text), ' ');
      const Type t = table.columns[i].type;
      const bool right = t != Type::String && t != Type::Date;  // numbers, and their names
      out << (i ? "  " : "") << (right ? pad + text : text + (i + 1 < n ? pad : ""));
    }
    out << "\n";
  };
  line([&](size_t i) { return table.columns[i].name; });
  line([&](size_t i) { return std::string(widths[i], '-'); });
  for (uint64_t r = 0; r < table.rows(); ++r) line([&](size_t i) { return cell_text(table.columns[i], r); });
}

void json_string(std::ostream& out, const std::string& s) {
  out << '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out << '\\' << c;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out << buf;
    } else {
      out << c;
    }
  }
  out << '"';
}

// An array of row objects; numbers as JSON numbers (nan, inf and -inf, which JSON lacks, as
// strings), dates and strings as strings, NULL as null.
void write_json(std::ostream& out, const Table& table) {
  out << "[";
  for (uint64_t r = 0; r < table.rows(); ++r) {
    out << (r ? ",\n " : "\n ") << "{";
    for (size_t i = 0; i < table.columns.size(); ++i) {
      const Column& c = table.columns[i];
      if (i) out << ", ";
      json_string(out, c.name);
      out << ": ";
      if (c.is_null(r)) {
        out << "null";
      } else if (c.type == Type::String || c.type == Type::Date) {
        json_string(out, cell_text(c, r));
      } else {
        const std::string v = format_value(c.value(r));
        if (v == "nan" || v == "inf" || v == "-inf")
          json_string(out, v);
        else
          out << v;
      }
    }
    out << "}";
  }
  out << (table.rows() ? "\n]\n" : "]\n");
}

}  // namespace

std::optional<Format> format_named(const std::string& text) {
  if (text == "csv") return Format::Csv;
  if (text == "table") return Format::Table;
  if (text == "json") return Format::Json;
  return std::nullopt;
}

void write_result(std::ostream& out, const Table& table, Format format) {
  switch (format) {
    case Format::Csv: write_csv(out, table, /*typed_header=*/false); break;
    case Format::Table: write_table(out, table); break;
    case Format::Json: write_json(out, table); break;
  }
}

}  // namespace gfxq::cli
