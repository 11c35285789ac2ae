// CSV input and output.
//
// Format read by read_csv:
// - The first line is the header: comma-separated `name:type` or a bare `name`. Types (any case):
//   int, float, and the result types bigint and double. A bare (unquoted) name starts with a
//   letter or '_' and holds letters, digits, '_' and the characters of result names ('.', '(',
//   ')', '*'), e.g. `a`, `r.a`, `SUM(a)`, `COUNT(*)`; a quoted name ("QUANTILE(a, 0.5)") may hold
//   any printable text. Names are unique. Only identifier names can be queried in SQL.
// - Fields may be quoted as in RFC 4180 ("..." with "" for a quote) within one line. Spaces and
//   tabs around every field (and around the ':') are trimmed. Lines end in LF or CRLF; a carriage
//   return without a line feed is an error (CR-only line ends are not supported); the final line
//   ending is optional; blank lines at the end are ignored, a blank line anywhere else is an error.
//   A leading UTF-8 byte-order mark is skipped. A NUL byte is an error (not a text file), and so
//   is a line longer than kMaxLineBytes, detected while reading (so /dev/zero fails at once).
// - An empty field, or the quoted empty field "", is NULL (queries refuse columns holding NULLs).
// - int fields: optional '+' or '-', then decimal digits, within int32 (bigint: int64).
// - float fields: decimal or scientific notation, or nan / inf / infinity (any case, optional
//   sign), rounded to the nearest float (double: to the nearest double). Values that round to
//   infinity are an error; tiny values round to the nearest subnormal or zero.
// - A bare column is int when every value is an int32 integer token (sign and digits only), and
//   float as soon as one value has a '.', an exponent, or is nan/inf. An integer token outside
//   int32 in an otherwise all-integer bare column is an error asking for `name:float`. A bare
//   column without values (or only NULLs) is int.
// - Every data error is Error(InvalidInput) with the prefix "<source>:<line>:<column>: ", 1-based,
//   the column being where the field's text starts (after leading spaces); the bad text is quoted
//   through excerpt() (control characters escaped, long text elided). A file that cannot be
//   opened or read is Error(Io).
//
// Format written by write_csv: the header (`a:int,b:float` when typed, else names), then one
// line per row, '\n' line endings. Integers in decimal; floats and doubles in the shortest form
// that reads back to the same value (std::to_chars), "nan", "inf", "-inf", "-0"; NULL as an
// empty field, or as "" in a table of one column (an empty line would read as no row). Header
// fields holding ',', '"', ':' or blanks are quoted as in RFC 4180. read_csv reads back exactly
// what write_csv writes.

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
constexpr const char* kInt64Range = "(int64: -9223372036854775808..9223372036854775807)";
//! The longest line read_csv accepts (a 100,000-column header takes about 1 MiB).
constexpr uint64_t kMaxLineBytes = 16ull << 20;

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

bool is_letter(char c) {
  return (lower(c) >= 'a' && lower(c) <= 'z') || c == '_';
}

//! A name write_csv leaves unquoted: an identifier, or a result name such as `r.a` or `SUM(a)`.
bool is_bare_name(std::string_view s) {
  if (s.empty() || !is_letter(s.front())) return false;
  for (char c : s)
    if (!(is_letter(c) || is_digit(c) || c == '.' || c == '(' || c == ')' || c == '*')) return false;
  return true;
}

//! A quoted name: not empty, no control characters.
bool is_printable_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

//! `text` quoted for a message: 'text', elided when long, control characters escaped.
std::string quoted(std::string_view text) {
  return "'" + excerpt(text) + "'";
}

enum class IntParse { Ok, NotInteger, OutOfRange };

// An integer token: optional sign, then one or more digits, nothing else; in [-2^(bits-1), 2^(bits-1)-1].
template <class T>
IntParse parse_int(std::string_view s, T& out) {
  constexpr int kBits = sizeof(T) * 8;
  size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) i = 1;
  if (i == s.size()) return IntParse::NotInteger;
  constexpr uint64_t kLimit = uint64_t{1} << (kBits - 1);
  uint64_t magnitude = 0;
  bool overflow = false;
  for (; i < s.size(); ++i) {
    if (!is_digit(s[i])) return IntParse::NotInteger;
    const uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (overflow || magnitude > (kLimit - digit) / 10) {
      overflow = true;  // saturate; keep checking that the rest are digits
      continue;
    }
    magnitude = magnitude * 10 + digit;
  }
  if (overflow || magnitude > (negative ? kLimit : kLimit - 1)) return IntParse::OutOfRange;
  out = negative ? static_cast<T>(0 - magnitude) : static_cast<T>(magnitude);
  return IntParse::Ok;
}

enum class FloatParse { Ok, NotNumber, OutOfRange };

// Fallback for from_chars' result_out_of_range (libstdc++ reports it on underflow, and some
// versions on subnormal results): strtof/strtod in the "C" locale give the correctly rounded value.
template <class T>
T strto_c(std::string_view s) {
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
  if constexpr (std::is_same_v<T, float>)
    return strtof_l(text, nullptr, c_locale);
  else
    return strtod_l(text, nullptr, c_locale);
}

// A float token: decimal, scientific, nan, inf or infinity, with an optional sign.
template <class T>
FloatParse parse_float(std::string_view s, T& out) {
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
    out = strto_c<T>(body);
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
  return "column " + quoted(r.out.name) + " (" + (r.bare ? std::string("untyped") : to_string(r.out.type)) + ")";
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

// Appends a NULL cell: a zero value and the row's null flag.
void push_null(Column& c) {
  if (c.nulls.empty()) c.nulls.assign(c.size(), 0);
  std::visit([](auto& v) { v.emplace_back(); }, c.data);
  c.nulls.push_back(1);
}

// Appends a value (`push` adds it to the column's vector); keeps the null flags in step.
template <class T>
void push_value(Column& c, T v) {
  std::get<std::vector<T>>(c.data).push_back(v);
  if (!c.nulls.empty()) c.nulls.push_back(0);
}

void parse_wide_field(Reader& r, std::string_view text, const Location& loc, uint64_t line, uint64_t column) {
  if (r.out.type == Type::Int64) {
    int64_t v = 0;
    switch (parse_int(text, v)) {
      case IntParse::Ok: push_value(r.out, v); return;
      case IntParse::OutOfRange:
        throw loc.error(line, column,
                        "integer " + quoted(text) + " out of range for bigint " + kInt64Range + " in " + describe(r));
      case IntParse::NotInteger:
        throw loc.error(line, column, "unparsable number " + quoted(text) + " in " + describe(r));
    }
  }
  double d = 0;
  switch (parse_float(text, d)) {
    case FloatParse::Ok: push_value(r.out, d); return;
    case FloatParse::OutOfRange:
      throw loc.error(line, column, "number " + quoted(text) + " out of range for double in " + describe(r));
    case FloatParse::NotNumber:
      throw loc.error(line, column, "unparsable number " + quoted(text) + " in " + describe(r));
  }
}

void parse_field(Reader& r, std::string_view text, const Location& loc, uint64_t line, uint64_t column) {
  if (r.out.type == Type::Int64 || r.out.type == Type::Float64) return parse_wide_field(r, text, loc, line, column);
  if (r.out.type == Type::Int32) {
    int32_t v = 0;
    switch (parse_int(text, v)) {
      case IntParse::Ok:
        if (r.bare && v == 0 && text[0] == '-') r.negative_zeros.push_back(r.out.size());
        push_value(r.out, v);
        return;
      case IntParse::OutOfRange:
        if (!r.bare)
          throw loc.error(line, column,
                          "integer " + quoted(text) + " out of range for int " + kInt32Range + " in " + describe(r));
        r.pending = PendingRange{line, column, excerpt(text)};
        break;
      case IntParse::NotInteger:
        if (!r.bare) throw loc.error(line, column, "unparsable number " + quoted(text) + " in " + describe(r));
        r.saw_non_integer = true;
        break;
    }
    widen_to_float(r);  // bare column: from here on every value is read as float
  } else if (r.bare && !r.saw_non_integer) {
    int32_t v = 0;
    const IntParse p = parse_int(text, v);
    if (p == IntParse::NotInteger) r.saw_non_integer = true;
    if (p == IntParse::OutOfRange && !r.pending) r.pending = PendingRange{line, column, excerpt(text)};
  }
  float f = 0;
  switch (parse_float(text, f)) {
    case FloatParse::Ok: push_value(r.out, f); return;
    case FloatParse::OutOfRange:
      throw loc.error(line, column,
                      "number " + quoted(text) + " out of range for float (beyond +-3.4028235e+38) in " + describe(r));
    case FloatParse::NotNumber:
      throw loc.error(line, column, "unparsable number " + quoted(text) + " in " + describe(r));
  }
}

// One field of a line: its trimmed text (inside the quotes for a quoted field, with "" still
// doubled) and the 1-based column where that text starts.
struct Field {
  std::string_view text;
  uint64_t column;
  bool quoted = false;
};

// The text of a quoted field with each "" turned into ".
std::string unescape(const Field& f) {
  std::string out;
  for (size_t i = 0; i < f.text.size(); ++i) {
    out += f.text[i];
    if (f.text[i] == '"') ++i;
  }
  return out;
}

// Splits line `line_no` at commas into trimmed fields; a field starting with '"' runs to its
// closing quote (RFC 4180, within the line), after which only blanks may come before the comma.
void split_line(std::string_view line, uint64_t line_no, const Location& loc, std::vector<Field>& fields) {
  fields.clear();
  size_t start = 0;
  for (;;) {
    size_t begin = start;
    while (begin < line.size() && is_blank(line[begin])) ++begin;
    size_t end;  // where the field's separator (',' or the line end) is
    if (begin < line.size() && line[begin] == '"') {
      size_t close = begin + 1;
      for (;; ++close) {
        if (close >= line.size())
          throw loc.error(line_no, begin + 1, "unterminated quoted field (a quoted field ends on its line)");
        if (line[close] == '"') {
          if (close + 1 < line.size() && line[close + 1] == '"') {
            ++close;
            continue;
          }
          break;
        }
      }
      end = close + 1;
      while (end < line.size() && is_blank(line[end])) ++end;
      if (end < line.size() && line[end] != ',')
        throw loc.error(line_no, end + 1,
                        "unexpected " + quoted(line.substr(end, 1)) + " after the closing quote of a quoted field");
      fields.push_back({line.substr(begin + 1, close - begin - 1), begin + 2, true});
    } else {
      const void* hit = std::memchr(line.data() + start, ',', line.size() - start);
      end = hit ? static_cast<size_t>(static_cast<const char*>(hit) - line.data()) : line.size();
      fields.push_back({trim(line.substr(begin, end - begin)), begin + 1, false});
    }
    if (end >= line.size()) return;
    start = end + 1;
  }
}

Reader parse_header_field(const Field& f, const Location& loc) {
  Reader r;
  const std::string text = f.quoted ? unescape(f) : std::string(f.text);
  std::string_view field = text;
  std::string_view name = field;
  std::string_view type;
  // A quoted field may hold ':' in its name: its type follows the last ':'. A quoted name is kept
  // as written (blanks included); a bare one is trimmed.
  const size_t colon = f.quoted ? field.rfind(':') : field.find(':');
  if (colon != std::string_view::npos) {
    name = f.quoted ? field.substr(0, colon) : trim(field.substr(0, colon));
    type = trim(field.substr(colon + 1));
  }
  if (name.empty()) throw loc.error(1, f.column, "empty column name in the header");
  if (f.quoted ? !is_printable_name(name) : !is_bare_name(name))
    throw loc.error(1, f.column,
                    "invalid column name " + quoted(name) +
                        (f.quoted ? " (a quoted name holds no control characters)"
                                  : " (a name is a letter or '_', then letters, digits or '_'; quote other names)"));
  const std::pair<std::string_view, Type> kTypes[] = {
      {"int", Type::Int32}, {"float", Type::Float32}, {"bigint", Type::Int64}, {"double", Type::Float64}};
  if (colon == std::string_view::npos) {
    r.bare = true;
    r.out = Column::make(std::string(name), Type::Int32);
    return r;
  }
  for (const auto& [type_name, t] : kTypes)
    if (iequals(type, type_name)) {
      r.out = Column::make(std::string(name), t);
      return r;
    }
  throw loc.error(1, f.column,
                  "unknown type " + quoted(type) + " for column " + quoted(name) +
                      " (types: int, float, bigint, double; or a bare name to infer int or float)");
}

// Reads the whole input, failing as soon as it cannot be a CSV text: a NUL byte, or a line
// longer than kMaxLineBytes (so an endless or binary input fails at once instead of filling memory).
std::string read_all(std::istream& in, const Location& loc) {
  std::string data;
  char chunk[1 << 16];
  uint64_t line = 1;
  uint64_t line_start = 0;  // offset of the current line's first byte
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    const size_t n = static_cast<size_t>(in.gcount());
    const size_t offset = data.size();
    data.append(chunk, n);
    for (size_t i = offset; i < data.size(); ++i) {
      if (data[i] == '\n') {
        ++line;
        line_start = i + 1;
      } else if (data[i] == '\0') {
        throw loc.error(line, i - line_start + 1, "NUL byte: this is not a text CSV file");
      }
    }
    if (data.size() - line_start > kMaxLineBytes)
      throw loc.error(line, 1,
                      "line " + std::to_string(line) + " is longer than " + std::to_string(kMaxLineBytes >> 20) +
                          " MiB (no line end found)");
  }
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
  const Location loc(source);
  const std::string data = read_all(in, loc);
  if (in.bad()) throw Error(ErrorCode::Io, "cannot read '" + std::string(source) + "': " + io_reason());

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
    // A carriage return belongs only right before the line feed (CRLF).
    const size_t cr = line.find('\r');
    if (cr != std::string_view::npos && cr + 1 < line.size())
      throw loc.error(line_no, cr + 1,
                      "carriage return without a line feed: CR-only line ends are not supported (use LF or CRLF)");
    return line;
  };

  std::vector<Field> fields;
  const std::string_view header = next_line();
  if (trim(header).empty()) throw loc.error(1, 1, "blank line where the header is expected");
  split_line(header, 1, loc, fields);
  std::vector<Reader> readers;
  std::set<std::string> names;
  for (const Field& f : fields) {
    readers.push_back(parse_header_field(f, loc));
    if (!names.insert(readers.back().out.name).second)
      throw loc.error(1, f.column, "duplicate column name " + quoted(readers.back().out.name) + " in the header");
  }

  // Room for the rows, but never more than the input can hold: every row takes at least two bytes
  // per column ("0,"), so a huge header over short lines reserves no more than the input's size.
  const uint64_t lines =
      pos > text.size()
          ? 0
          : static_cast<uint64_t>(std::count(text.begin() + static_cast<ptrdiff_t>(pos), text.end(), '\n')) + 1;
  const uint64_t expected_rows = std::min<uint64_t>(lines, text.size() / (2 * readers.size()) + 1);
  for (Reader& r : readers) std::visit([&](auto& v) { v.reserve(expected_rows); }, r.out.data);

  while (pos <= text.size()) {
    ++line_no;
    const std::string_view line = next_line();
    if (trim(line).empty())
      throw loc.error(line_no, 1, "blank line inside the data (only trailing blank lines are ignored)");
    split_line(line, line_no, loc, fields);
    if (fields.size() != readers.size()) {
      // Where the first surplus field starts, or just past the line's last character.
      const uint64_t column = fields.size() > readers.size()
                                  ? fields[readers.size()].column
                                  : fields.back().column + fields.back().text.size() + (fields.back().quoted ? 1 : 0);
      throw loc.error(line_no, column,
                      "expected " + std::to_string(readers.size()) + " fields, found " + std::to_string(fields.size()));
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].text.empty())
        push_null(readers[i].out);
      else
        parse_field(readers[i], fields[i].text, loc, line_no, fields[i].column);
    }
  }

  Table table;
  for (Reader& r : readers) {
    if (r.bare && r.pending && !r.saw_non_integer)
      throw loc.error(r.pending->line, r.pending->column,
                      "integer '" + r.pending->token + "' out of range for int " + kInt32Range + " in column " +
                          quoted(r.out.name) + " (untyped, every value an integer); declare it as '" +
                          excerpt(r.out.name) + ":float' in the header to read the column as float");
    table.columns.push_back(std::move(r.out));
  }
  return table;
}

Table read_csv_file(const std::string& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) throw Error(ErrorCode::Io, "cannot open '" + excerpt(path, 4096) + "': " + io_reason());
  return read_csv(in, path);
}

std::string format_value(const Value& v) {
  std::string s;
  append_value(s, v);
  return s;
}

namespace {

// A string value quoted as RFC 4180 does where it must be: holding commas, quotes or line ends,
// empty (an empty field is NULL), or with blanks at either end (kept exactly).
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

// A header field read_csv would not read bare (`QUANTILE(a, 0.5)`, a name with blanks) is quoted
// as RFC 4180 does.
void append_header_field(std::string& buf, const std::string& name, const std::string& field) {
  if (is_bare_name(name)) {
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
    append_header_field(buf, table.columns[i].name, field);
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
    // A NULL alone on its line would be a blank line: write it as the quoted empty field (which is
    // the empty string in a STRING column, so there the line stays blank).
    if (table.columns.size() == 1 && table.columns[0].is_null(row) && table.columns[0].type != Type::String)
      buf += "\"\"";
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
  if (!out.is_open())
    throw Error(ErrorCode::Io, "cannot open '" + excerpt(path, 4096) + "' for writing: " + io_reason());
  write_csv(out, table, typed_header);
  out.close();
  if (out.fail()) throw Error(ErrorCode::Io, "cannot write '" + excerpt(path, 4096) + "': " + io_reason());
}

}  // namespace gfxq
