// CSV input and output.
//
// Format read by read_csv:
// - The first line is the header: comma-separated `name:int`, `name:float` or a bare `name`
//   (type names are case-insensitive). Names match [A-Za-z_][A-Za-z0-9_]* and are unique.
// - Spaces and tabs around every field (and around the ':') are trimmed. Lines end in LF or
//   CRLF; the final line ending is optional; blank lines at the end are ignored, a blank line
//   anywhere else is an error. A leading UTF-8 byte-order mark is skipped. No quoting.
// - int fields: optional '+' or '-', then decimal digits, within int32.
// - float fields: decimal or scientific notation, or nan / inf / infinity (any case, optional
//   sign), rounded to the nearest float. Values that round to infinity are an error; tiny values
//   round to the nearest subnormal or zero.
// - A bare column is int when every value is an int32 integer token (sign and digits only), and
//   float as soon as one value has a '.', an exponent, or is nan/inf. An integer token outside
//   int32 in an otherwise all-integer bare column is an error asking for `name:float`. A bare
//   column without values is int.
// - Empty fields (NULL) are not supported yet and are an error.
// - Every data error is Error(InvalidInput) with the prefix "<source>:<line>:<column>: ", 1-based,
//   the column being where the field's text starts (after leading spaces); a file that cannot
//   be opened or read is Error(Io).
//
// Format written by write_csv: the header (`a:int,b:float` when typed, else names), then one
// line per row, '\n' line endings. Integers in decimal; floats and doubles in the shortest form
// that reads back to the same value (std::to_chars), "nan", "inf", "-inf", "-0"; NULL as an
// empty field. Header fields holding ',' or '"' (result names such as `QUANTILE(a, 0.5)`) are
// quoted as in RFC 4180. read_csv reads back exactly what write_csv writes for int and float tables.

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <istream>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "gfxq/error.h"
#include "gfxq/table.h"

namespace gfxq {

namespace {

constexpr const char* kInt32Range = "(int32: -2147483648..2147483647)";

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || is_digit(s.front())) return false;
  for (char c : s)
    if (!(is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'z') || c == '_')) return false;
  return true;
}

enum class IntParse { Ok, NotInteger, OutOfRange };

// An integer token: optional sign, then one or more digits, nothing else.
IntParse parse_int(std::string_view s, int32_t& out) {
  size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) i = 1;
  if (i == s.size()) return IntParse::NotInteger;
  uint64_t magnitude = 0;
  bool overflow = false;
  for (; i < s.size(); ++i) {
    if (!is_digit(s[i])) return IntParse::NotInteger;
    magnitude = magnitude * 10 + static_cast<uint64_t>(s[i] - '0');
    if (magnitude > (uint64_t{1} << 31)) {
      overflow = true;
      magnitude = uint64_t{1} << 32;  // saturate; keep checking that the rest are digits
    }
  }
  if (overflow || magnitude > (negative ? (uint64_t{1} << 31) : (uint64_t{1} << 31) - 1)) return IntParse::OutOfRange;
  out = negative ? static_cast<int32_t>(-static_cast<int64_t>(magnitude)) : static_cast<int32_t>(magnitude);
  return IntParse::Ok;
}

enum class FloatParse { Ok, NotNumber, OutOfRange };

// Fallback for from_chars' result_out_of_range (libstdc++ reports it on underflow, and some
// versions on subnormal results): strtof in the "C" locale gives the correctly rounded value.
float strtof_c(std::string_view s) {
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
  char buf[512];
  std::string long_buf;
  const char* text = buf;
  if (s.size() < sizeof buf) {
    std::memcpy(buf, s.data(), s.size());
    buf[s.size()] = '\0';
  } else {
    long_buf.assign(s);
    text = long_buf.c_str();
  }
  return strtof_l(text, nullptr, c_locale);
}

// A float token: decimal, scientific, nan, inf or infinity, with an optional sign.
FloatParse parse_float(std::string_view s, float& out) {
  std::string_view body = s;
  if (!body.empty() && body[0] == '+') {
    body.remove_prefix(1);
    if (!body.empty() && body[0] == '-') return FloatParse::NotNumber;
  }
  if (body.empty()) return FloatParse::NotNumber;
  const char* end = body.data() + body.size();
  const auto [ptr, ec] = std::from_chars(body.data(), end, out, std::chars_format::general);
  if (ptr != end || ec == std::errc::invalid_argument) return FloatParse::NotNumber;
  if (ec == std::errc::result_out_of_range) {
    out = strtof_c(body);
    if (std::isinf(out)) return FloatParse::OutOfRange;
  }
  return FloatParse::Ok;
}

// An integer token that does not fit int32 in a bare column.
struct PendingRange {
  uint64_t line = 0, column = 0;
  std::string token;
};

// One column being read.
struct Reader {
  Column out;
  bool bare = false;
  // Bare columns only: a value that is not an integer token was seen (the column is float).
  bool saw_non_integer = false;
  // Bare columns only: the first integer token outside int32 (the column cannot be int).
  std::optional<PendingRange> pending;
  // Bare columns only, while int: rows whose token was a negative zero ("-0"), -0.0 as float.
  std::vector<uint64_t> negative_zeros;
};

// Makes InvalidInput errors with the prefix "<source>:<line>:<column>: ".
class Location {
 public:
  explicit Location(std::string_view source) : source_(source) {}
  Error error(uint64_t line, uint64_t column, const std::string& what) const {
    return Error(ErrorCode::InvalidInput,
                 std::string(source_) + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
  }

 private:
  std::string_view source_;
};

std::string describe(const Reader& r) {
  return "column '" + r.out.name + "' (" + (r.bare ? std::string("untyped") : to_string(r.out.type)) + ")";
}

// Switches a bare column that held ints so far to float.
void widen_to_float(Reader& r) {
  if (r.out.type == Type::Float32) return;
  const auto& ints = r.out.as<int32_t>();
  std::vector<float> floats;
  floats.reserve(ints.capacity());
  floats.assign(ints.begin(), ints.end());
  for (uint64_t row : r.negative_zeros) floats[row] = -0.0f;
  r.negative_zeros.clear();
  r.out.type = Type::Float32;
  r.out.data = std::move(floats);
}

void parse_field(Reader& r, std::string_view text, const Location& loc, uint64_t line, uint64_t column) {
  if (text.empty()) throw loc.error(line, column, "empty field: NULLs are not supported yet; in " + describe(r));
  if (r.out.type == Type::Int32) {
    int32_t v = 0;
    switch (parse_int(text, v)) {
      case IntParse::Ok:
        if (r.bare && v == 0 && text[0] == '-') r.negative_zeros.push_back(r.out.size());
        r.out.as<int32_t>().push_back(v);
        return;
      case IntParse::OutOfRange:
        if (!r.bare)
          throw loc.error(
              line, column,
              "integer '" + std::string(text) + "' out of range for int " + kInt32Range + " in " + describe(r));
        r.pending = PendingRange{line, column, std::string(text)};
        break;
      case IntParse::NotInteger:
        if (!r.bare) throw loc.error(line, column, "unparsable number '" + std::string(text) + "' in " + describe(r));
        r.saw_non_integer = true;
        break;
    }
    widen_to_float(r);  // bare column: from here on every value is read as float
  } else if (r.bare && !r.saw_non_integer) {
    int32_t v = 0;
    const IntParse p = parse_int(text, v);
    if (p == IntParse::NotInteger) r.saw_non_integer = true;
    if (p == IntParse::OutOfRange && !r.pending) r.pending = PendingRange{line, column, std::string(text)};
  }
  float f = 0;
  switch (parse_float(text, f)) {
    case FloatParse::Ok: r.out.as<float>().push_back(f); return;
    case FloatParse::OutOfRange:
      throw loc.error(
          line, column,
          "number '" + std::string(text) + "' out of range for float (beyond +-3.4028235e+38) in " + describe(r));
    case FloatParse::NotNumber:
      throw loc.error(line, column, "unparsable number '" + std::string(text) + "' in " + describe(r));
  }
}

Reader parse_header_field(std::string_view field, const Location& loc, uint64_t column) {
  Reader r;
  std::string_view name = field;
  std::string_view type;
  const size_t colon = field.find(':');
  if (colon != std::string_view::npos) {
    name = trim(field.substr(0, colon));
    type = trim(field.substr(colon + 1));
  }
  if (name.empty()) throw loc.error(1, column, "empty column name in the header");
  if (!is_identifier(name))
    throw loc.error(
        1, column,
        "invalid column name '" + std::string(name) + "' (a name is a letter or '_', then letters, digits or '_')");
  if (colon == std::string_view::npos) {
    r.bare = true;
    r.out = Column::make(std::string(name), Type::Int32);
  } else if (iequals(type, "int")) {
    r.out = Column::make(std::string(name), Type::Int32);
  } else if (iequals(type, "float")) {
    r.out = Column::make(std::string(name), Type::Float32);
  } else {
    throw loc.error(1, column,
                    "unknown type '" + std::string(type) + "' for column '" + std::string(name) +
                        "' (types: int, float; or a bare name to infer it)");
  }
  return r;
}

// One field of a line: its trimmed text and the 1-based column where that text starts.
struct Field {
  std::string_view text;
  uint64_t column;
};

// Splits `line` at commas into trimmed fields.
void split_line(std::string_view line, std::vector<Field>& fields) {
  fields.clear();
  size_t start = 0;
  for (;;) {
    const void* hit = std::memchr(line.data() + start, ',', line.size() - start);
    const size_t end = hit ? static_cast<size_t>(static_cast<const char*>(hit) - line.data()) : line.size();
    size_t begin = start;
    while (begin < end && is_blank(line[begin])) ++begin;
    fields.push_back({trim(line.substr(begin, end - begin)), begin + 1});
    if (!hit) return;
    start = end + 1;
  }
}

std::string read_all(std::istream& in) {
  std::string data;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) data.append(chunk, static_cast<size_t>(in.gcount()));
  return data;
}

std::string io_reason() {
  return errno ? std::strerror(errno) : "unknown error";
}

void append_value(std::string& out, const Value& v) {
  char buf[64];
  const auto put = [&](auto x) {
    const auto res = std::to_chars(buf, buf + sizeof buf, x);
    out.append(buf, res.ptr);
  };
  const auto put_float = [&](auto x) {
    if (std::isnan(x))
      out += "nan";
    else if (std::isinf(x))
      out += x > 0 ? "inf" : "-inf";
    else
      put(x);
  };
  switch (v.index()) {
    case 0: break;
    case 1: put(std::get<int32_t>(v)); break;
    case 2: put_float(std::get<float>(v)); break;
    case 3: put(std::get<int64_t>(v)); break;
    case 4: put_float(std::get<double>(v)); break;
    case 5: out += std::get<std::string>(v); break;
    case 6: out += format_date(std::get<Date>(v)); break;
  }
}

}  // namespace

Table read_csv(std::istream& in, std::string_view source) {
  const std::string data = read_all(in);
  if (in.bad()) throw Error(ErrorCode::Io, "cannot read '" + std::string(source) + "': " + io_reason());
  const Location loc(source);

  std::string_view text = data;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  // Drop trailing blank lines: keep everything up to the end of the last line with content.
  size_t last = text.size();
  while (last > 0 && (is_blank(text[last - 1]) || text[last - 1] == '\n')) --last;
  if (last == 0) throw loc.error(1, 1, "no header line (the input is empty)");
  text = text.substr(0, last);

  uint64_t line_no = 1;
  size_t pos = 0;
  const auto next_line = [&]() {
    const size_t nl = text.find('\n', pos);
    const size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    return line;
  };

  std::vector<Field> fields;
  const std::string_view header = next_line();
  if (trim(header).empty()) throw loc.error(1, 1, "blank line where the header is expected");
  split_line(header, fields);
  std::vector<Reader> readers;
  std::set<std::string> names;
  for (const Field& f : fields) {
    readers.push_back(parse_header_field(f.text, loc, f.column));
    if (!names.insert(readers.back().out.name).second)
      throw loc.error(1, f.column, "duplicate column name '" + readers.back().out.name + "' in the header");
  }

  const uint64_t expected_rows =
      pos > text.size()
          ? 0
          : static_cast<uint64_t>(std::count(text.begin() + static_cast<ptrdiff_t>(pos), text.end(), '\n')) + 1;
  for (Reader& r : readers) std::visit([&](auto& v) { v.reserve(expected_rows); }, r.out.data);

  while (pos <= text.size()) {
    ++line_no;
    const std::string_view line = next_line();
    if (trim(line).empty())
      throw loc.error(line_no, 1, "blank line inside the data (only trailing blank lines are ignored)");
    split_line(line, fields);
    if (fields.size() != readers.size()) {
      // Where the first surplus field starts, or just past the line's last character.
      const uint64_t column = fields.size() > readers.size() ? fields[readers.size()].column
                                                             : fields.back().column + fields.back().text.size();
      throw loc.error(line_no, column,
                      "expected " + std::to_string(readers.size()) + " fields, found " + std::to_string(fields.size()));
    }
    for (size_t i = 0; i < fields.size(); ++i) parse_field(readers[i], fields[i].text, loc, line_no, fields[i].column);
  }

  Table table;
  for (Reader& r : readers) {
    if (r.bare && r.pending && !r.saw_non_integer)
      throw loc.error(r.pending->line, r.pending->column,
                      "integer '" + r.pending->token + "' out of range for int " + kInt32Range + " in column '" +
                          r.out.name + "' (untyped, every value an integer); declare it as '" + r.out.name +
                          ":float' in the header to read the column as float");
    table.columns.push_back(std::move(r.out));
  }
  return table;
}

Table read_csv_file(const std::string& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) throw Error(ErrorCode::Io, "cannot open '" + path + "': " + io_reason());
  return read_csv(in, path);
}

std::string format_value(const Value& v) {
  std::string s;
  append_value(s, v);
  return s;
}

namespace {

// A field quoted as RFC 4180 does where it must be: names such as `QUANTILE(a, 0.5)` and strings
// holding commas, quotes or line ends; also the empty string (an empty field is NULL) and strings
// with spaces at either end (kept exactly).
void append_quoted(std::string& buf, const std::string& field) {
  const bool quote = field.find_first_of(",\"\r\n") != std::string::npos || field.empty() ||
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

}  // namespace

void write_csv(std::ostream& out, const Table& table, bool typed_header) {
  // Only equal lengths are needed here: results may repeat a column name (SELECT a, a).
  for (const Column& c : table.columns) {
    if (c.size() != table.rows())
      throw Error(ErrorCode::InvalidInput, "cannot write CSV: column '" + c.name + "' has " + std::to_string(c.size()) +
                                               " rows, column '" + table.columns.front().name + "' has " +
                                               std::to_string(table.rows()));
    if (!c.nulls.empty() && c.nulls.size() != c.size())
      throw Error(ErrorCode::InvalidInput, "cannot write CSV: column '" + c.name + "' has " + std::to_string(c.size()) +
                                               " rows but " + std::to_string(c.nulls.size()) + " null flags");
  }
  std::string buf;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (i) buf += ',';
    std::string field = table.columns[i].name;
    if (typed_header) field += std::string(":") + to_string(table.columns[i].type);
    append_quoted(buf, field);
  }
  buf += '\n';
  const uint64_t rows = table.rows();
  for (uint64_t row = 0; row < rows; ++row) {
    for (size_t i = 0; i < table.columns.size(); ++i) {
      if (i) buf += ',';
      const Column& c = table.columns[i];
      if (c.type == Type::String && !c.is_null(row))
        append_quoted(buf, c.string_at(row));
      else
        append_value(buf, c.value(row));
    }
    buf += '\n';
    if (buf.size() >= (1u << 20)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void write_csv_file(const std::string& path, const Table& table, bool typed_header) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out.is_open()) throw Error(ErrorCode::Io, "cannot open '" + path + "' for writing: " + io_reason());
  write_csv(out, table, typed_header);
  out.close();
  if (out.fail()) throw Error(ErrorCode::Io, "cannot write '" + path + "': " + io_reason());
}

}  // namespace gfxq
