// CSV input: read_csv, read_csv_file, read_csv_text.
//
// Format read (docs/SQL.md, "CSV", says the same for users):
// - The first record is the header: comma-separated `name:TYPE` or a bare `name`; TYPE is int,
//   float, string or date (case-insensitive). Names match [A-Za-z_][A-Za-z0-9_]* and are unique. A
//   header field may be quoted as a whole ("a:int").
// - Fields are unquoted or quoted as RFC 4180 says: a quoted field starts with '"', ends at the
//   next '"' not doubled, holds commas, line ends and doubled quotes ("" for one "). A '"' inside an
//   unquoted field and text after a closing quote are errors.
// - Spaces and tabs around every field (outside the quotes) are trimmed, and around the ':' of a
//   header field. Records end in LF or CRLF; the final line end is optional; blank lines at the end
//   are ignored, a blank line anywhere else is an error. A leading UTF-8 byte-order mark is skipped.
// - int fields: optional '+' or '-', then decimal digits, within int32.
// - float fields: decimal or scientific notation, or nan / inf / infinity (any case, optional
//   sign), rounded to the nearest float. Values that round to infinity are an error; tiny values
//   round to the nearest subnormal or zero.
// - date fields: YYYY-MM-DD (years 0001 to 9999, a real calendar day): days since 1970-01-01.
// - string fields: the bytes as written (quoted: without the quotes, doubled quotes undoubled;
//   unquoted: trimmed). The column's dictionary is the sorted distinct strings (gfxq::Dictionary).
// - Quoted int, float and date fields are read as their text between the quotes (not trimmed).
// - A bare column is int when every value is an int32 integer token; float when every value is a
//   number and one is not an integer token (a '.', an exponent, nan, inf); date when every value is
//   a date; else string. An integer outside int32 in an otherwise all-integer column, and a number
//   beyond the float range in an otherwise all-number column, are errors (precision is never lost
//   silently; the first asks for `name:float`). A bare column without values is int.
// - An empty unquoted field is NULL, which is not supported yet: an error. "" is the empty string.
// - Every data error is Error(InvalidInput) with the prefix "<source>:<line>:<column>: ", 1-based,
//   lines counted by their LF bytes (a line end inside quotes starts a new line too), the column a
//   byte offset in its line, pointing where the field's text starts (after leading spaces; the
//   opening quote of a quoted field). A wrong field count is reported before a bad value of the same
//   record. Of several errors the one a one-thread read meets first is reported, whatever the
//   thread count; the two inference errors above only when there is no other error (the first of
//   them in the file). A file that cannot be opened or read is Error(Io).
//
// How: the input is read whole, the header parsed, and the rest cut into chunks at record starts
// (a line end outside quotes: the parity of the quotes before a cut tells whether it is inside
// quotes, since in valid input every '"' opens, closes or doubles). Threads parse chunks into
// per-chunk vectors and string interners. A bare column's chunk starts as int and widens (int →
// float, or → date, → string) when a value does not fit, reparsing the chunk; the column's type is
// the widest over the chunks, and chunks read with a narrower guess are parsed again with it. The
// string interners are merged into one sorted dictionary and the chunks' codes remapped while the
// chunks are copied into the table's columns.

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstring>
#include <istream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/huge_pages.h"
#include "core/mapped_file.h"
#include "core/parallel.h"
#include "core/string_interner.h"
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

// A field's text as error messages show it.
std::string shown(std::string_view text) {
  std::string s(1, '\'');
  s += text;
  s += '\'';
  return s;
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

// How a chunk reads a column. Bare columns move up the lattice Int < Float < String,
// Date < String (join()); typed columns stay at their type.
enum class Kind : uint8_t { Int, Float, Date, String };

Kind join(Kind a, Kind b) {
  if (a == b) return a;
  if ((a == Kind::Int && b == Kind::Float) || (a == Kind::Float && b == Kind::Int)) return Kind::Float;
  return Kind::String;
}

// The narrowest kind that reads `token` (an integer outside int32 counts as Int: numeric, the
// column's error or float reading comes later; so does a number beyond the float range as Float).
Kind kind_of(std::string_view token) {
  int32_t i = 0;
  if (parse_int(token, i) != IntParse::NotInteger) return Kind::Int;
  float f = 0;
  if (parse_float(token, f) != FloatParse::NotNumber) return Kind::Float;
  if (parse_date(token)) return Kind::Date;
  return Kind::String;
}

Type type_of(Kind k) {
  switch (k) {
    case Kind::Int: return Type::Int32;
    case Kind::Float: return Type::Float32;
    case Kind::Date: return Type::Date;
    case Kind::String: return Type::String;
  }
  return Type::Int32;
}

// One column of the header.
struct ColumnDef {
  std::string name;
  bool bare = false;
  Kind kind = Kind::Int;  // the declared kind; Int (the first guess) for a bare column
};

std::string describe(const ColumnDef& c) {
  return "column '" + c.name + "' (" + (c.bare ? std::string("untyped") : to_string(type_of(c.kind))) + ")";
}

// The input after its byte-order mark, without trailing blank lines; turns positions into
// "<source>:<line>:<column>: " errors.
struct Text {
  const char* begin = nullptr;
  const char* end = nullptr;
  std::string_view source;

  Error error_at(const char* at, const std::string& what) const {
    const uint64_t line = 1 + static_cast<uint64_t>(std::count(begin, at, '\n'));
    const char* line_start = at;
    while (line_start > begin && line_start[-1] != '\n') --line_start;
    return Error(ErrorCode::InvalidInput, std::string(source) + ":" + std::to_string(line) + ":" +
                                              std::to_string(at - line_start + 1) + ": " + what);
  }
};

// The end of the quoted field whose opening quote is at `quote` (just past its closing quote), or
// nullptr when it is not closed before `end`. Sets `doubled` when it holds a doubled quote.
const char* quoted_end(const char* quote, const char* end, bool& doubled) {
  const char* p = quote + 1;
  for (;;) {
    const auto* close = static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(end - p)));
    if (!close) return nullptr;
    if (close + 1 < end && close[1] == '"') {
      doubled = true;
      p = close + 2;
      continue;
    }
    return close + 1;
  }
}

// The text between the quotes of a quoted field, each doubled quote as one, into `out`.
void undouble(std::string_view inside, std::string& out) {
  out.clear();
  for (size_t i = 0; i < inside.size(); ++i) {
    out += inside[i];
    if (inside[i] == '"') ++i;
  }
}

std::string unclosed_quote() {
  return "unclosed quote: the quoted field that starts here has no closing '\"' (a '\"' inside quotes is "
         "written twice)";
}

// ---- The header ----

ColumnDef parse_header_field(std::string_view field, const Text& text, const char* at) {
  ColumnDef def;
  std::string_view name = field;
  std::string_view type;
  const size_t colon = field.find(':');
  if (colon != std::string_view::npos) {
    name = trim(field.substr(0, colon));
    type = trim(field.substr(colon + 1));
  }
  if (name.empty()) throw text.error_at(at, "empty column name in the header");
  if (!is_identifier(name))
    throw text.error_at(
        at, "invalid column name " + shown(name) + " (a name is a letter or '_', then letters, digits or '_')");
  def.name = std::string(name);
  if (colon == std::string_view::npos) {
    def.bare = true;
  } else if (iequals(type, "int")) {
    def.kind = Kind::Int;
  } else if (iequals(type, "float")) {
    def.kind = Kind::Float;
  } else if (iequals(type, "string")) {
    def.kind = Kind::String;
  } else if (iequals(type, "date")) {
    def.kind = Kind::Date;
  } else {
    throw text.error_at(at, "unknown type " + shown(type) + " for column '" + def.name +
                                "' (types: int, float, string, date; or a bare name to infer it)");
  }
  return def;
}

// Parses the header record; returns where the data starts.
const char* parse_header(const Text& text, std::vector<ColumnDef>& defs) {
  const char* p = text.begin;
  const char* const end = text.end;
  while (p < end && is_blank(*p)) ++p;
  if (p < end && *p == '\n') throw text.error_at(text.begin, "blank line where the header is expected");
  std::set<std::string> names;
  std::string unquoted;
  for (;;) {
    while (p < end && is_blank(*p)) ++p;
    const char* start = p;
    std::string_view field;
    bool whole = false;  // a quoted field with nothing but blanks after its closing quote
    if (p < end && *p == '"') {
      bool doubled = false;
      const char* close = quoted_end(p, end, doubled);
      if (!close) throw text.error_at(start, unclosed_quote());
      const char* after = close;
      while (after < end && is_blank(*after)) ++after;
      if (after == end || *after == ',' || *after == '\n') {
        undouble(std::string_view(start + 1, static_cast<size_t>(close - 1 - (start + 1))), unquoted);
        field = trim(unquoted);
        whole = true;
        p = after;
      } else {
        p = close;  // text after the quotes: the field is read as written, and fails as a name
      }
    }
    if (!whole) {
      while (p < end && *p != ',' && *p != '\n') ++p;
      field = trim(std::string_view(start, static_cast<size_t>(p - start)));
    }
    defs.push_back(parse_header_field(field, text, start));
    if (!names.insert(defs.back().name).second)
      throw text.error_at(start, "duplicate column name '" + defs.back().name + "' in the header");
    if (p < end && *p == ',') {
      ++p;
      continue;
    }
    return p < end ? p + 1 : end;
  }
}

// ---- Chunks ----

// One column of one chunk: where its values go, and what a bare column learned.
struct ChunkColumn {
  Kind kind = Kind::Int;
  // Bare columns: the chunk's own values, one per record (Int, Date, String codes; Float), until
  // the column's type is known.
  std::vector<int32_t> ints;
  std::vector<float> floats;
  // Where the chunk's record k goes: int_out[k] or float_out[k] (the table's column for typed
  // columns, the vectors above for bare ones).
  int32_t* int_out = nullptr;
  float* float_out = nullptr;
  // Bare columns: the first integer token outside int32 and the first number beyond the float
  // range (errors unless the column ends up wider), with their text.
  const char* big_int_at = nullptr;
  std::string big_int;
  const char* float_overflow_at = nullptr;
  std::string float_overflow;
};

struct Chunk {
  const char* begin = nullptr;
  const char* end = nullptr;
  uint64_t records = 0;     // records the cut counted: line ends outside quotes
  uint64_t first_row = 0;   // the table row of its first record
  std::vector<Kind> kinds;  // how this chunk reads each column (bare columns: the guess so far)
  std::vector<ChunkColumn> columns;
  unsigned worker = 0;             // whose string interners its String codes index (the thread that parsed it)
  const char* error_at = nullptr;  // the chunk's first error, if any
  std::string error;
};

// Where typed columns' values go: the table's columns (nullptr for bare columns).
struct Outputs {
  std::vector<int32_t*> ints;
  std::vector<float*> floats;
};

enum class Outcome { Done, Widened, Failed };

// Parses the records of one chunk.
class ChunkParser {
 public:
  // `strings`: the calling thread's interner of each column, kept across the chunks it parses.
  ChunkParser(const Text& text, const std::vector<ColumnDef>& defs, const Outputs& outputs,
              std::vector<detail::StringInterner>& strings, Chunk& chunk)
      : text_(text), defs_(defs), outputs_(outputs), strings_(strings), chunk_(chunk) {
    for (unsigned char c : {',', '\n', '"'}) stop_[c] = true;
  }

  // Parses until done or failed, widening bare columns (and starting over) as values demand;
  // with `fixed`, a value that does not fit its column's kind is an Internal error.
  void parse(bool fixed) {
    for (;;) {
      const Outcome o = run();
      if (o == Outcome::Done && row_ != chunk_.records)
        throw Error(ErrorCode::Internal, "CSV reader: a chunk parsed " + std::to_string(row_) + " records of the " +
                                             std::to_string(chunk_.records) + " its cut counted");
      if (o != Outcome::Widened) return;
      if (fixed) throw Error(ErrorCode::Internal, "CSV reader: a chunk widened a column whose type was settled");
    }
  }

 private:
  void reset() {
    const size_t n = defs_.size();
    chunk_.columns.resize(n);
    for (size_t i = 0; i < n; ++i) {
      ChunkColumn& c = chunk_.columns[i];
      c.kind = chunk_.kinds[i];
      c.big_int_at = c.float_overflow_at = nullptr;
      if (!defs_[i].bare) {
        c.int_out = outputs_.ints[i] ? outputs_.ints[i] + chunk_.first_row : nullptr;
        c.float_out = outputs_.floats[i] ? outputs_.floats[i] + chunk_.first_row : nullptr;
      } else if (c.kind == Kind::Float) {
        c.ints = {};
        detail::resize_huge(c.floats, chunk_.records);
        c.float_out = c.floats.data();
      } else {
        c.floats = {};
        detail::resize_huge(c.ints, chunk_.records);
        c.int_out = c.ints.data();
      }
    }
    row_ = 0;
  }

  Outcome fail(const char* at, std::string what) {
    chunk_.error_at = at;
    chunk_.error = std::move(what);
    return Outcome::Failed;
  }

  // The fields of the record at `record` (trimmed, quotes included), for error messages.
  std::vector<std::string_view> split_record(const char* record) const {
    std::vector<std::string_view> fields;
    const char* p = record;
    const char* const end = text_.end;
    for (;;) {
      while (p < end && is_blank(*p)) ++p;
      const char* start = p;
      if (p < end && *p == '"') {
        bool doubled = false;
        const char* close = quoted_end(p, end, doubled);
        p = close ? close : end;
      }
      while (p < end && *p != ',' && *p != '\n') ++p;
      fields.push_back(trim(std::string_view(start, static_cast<size_t>(p - start))));
      if (p == end || *p == '\n') return fields;
      ++p;
    }
  }

  // A wrong field count in the record at `record`, or Done when the count is right.
  Outcome check_field_count(const char* record) {
    const std::vector<std::string_view> fields = split_record(record);
    const size_t n = defs_.size();
    if (fields.size() == n) return Outcome::Done;
    // Where the first surplus field starts, or just past the record's last character.
    const char* at = fields.size() > n ? fields[n].data() : fields.back().data() + fields.back().size();
    return fail(at, "expected " + std::to_string(n) + " fields, found " + std::to_string(fields.size()));
  }

  // A bad value: the record's field count is reported first when it is wrong too.
  Outcome value_error(const char* record, const char* at, std::string what) {
    if (check_field_count(record) == Outcome::Failed) return Outcome::Failed;
    return fail(at, std::move(what));
  }

  // A bare column's value does not fit the chunk's guess: the guess widens to take it, or becomes
  // the value's kind when this is the column's first value (int was a guess without evidence).
  Outcome widen(size_t i, std::string_view token) {
    chunk_.kinds[i] = row_ == 0 ? kind_of(token) : join(chunk_.kinds[i], kind_of(token));
    return Outcome::Widened;
  }

  // Where the current record's value of column i goes (a scratch cell past the counted records,
  // which only invalid input reaches: it fails before the chunk ends).
  int32_t& int_slot(const ChunkColumn& c) { return row_ < chunk_.records ? c.int_out[row_] : scratch_int_; }
  float& float_slot(const ChunkColumn& c) { return row_ < chunk_.records ? c.float_out[row_] : scratch_float_; }

  Outcome store(size_t i, std::string_view token, bool quoted, const char* at, const char* record) {
    ChunkColumn& c = chunk_.columns[i];
    const ColumnDef& def = defs_[i];
    if (token.empty() && !quoted)
      return value_error(record, at, "empty field: NULLs are not supported yet; in " + describe(def));
    switch (c.kind) {
      case Kind::Int: {
        int32_t v = 0;
        switch (parse_int(token, v)) {
          case IntParse::Ok: int_slot(c) = v; return Outcome::Done;
          case IntParse::OutOfRange:
            if (!def.bare)
              return value_error(
                  record, at,
                  "integer " + shown(token) + " out of range for int " + kInt32Range + " in " + describe(def));
            if (!c.big_int_at) {
              c.big_int_at = at;
              c.big_int = std::string(token);
            }
            int_slot(c) = 0;
            return Outcome::Done;
          case IntParse::NotInteger:
            if (!def.bare) return value_error(record, at, "unparsable number " + shown(token) + " in " + describe(def));
            return widen(i, token);
        }
        break;
      }
      case Kind::Float: {
        float f = 0;
        switch (parse_float(token, f)) {
          case FloatParse::Ok: float_slot(c) = f; return Outcome::Done;
          case FloatParse::OutOfRange:
            if (!def.bare)
              return value_error(
                  record, at,
                  "number " + shown(token) + " out of range for float (beyond +-3.4028235e+38) in " + describe(def));
            if (!c.float_overflow_at) {
              c.float_overflow_at = at;
              c.float_overflow = std::string(token);
            }
            float_slot(c) = f;
            return Outcome::Done;
          case FloatParse::NotNumber:
            if (!def.bare) return value_error(record, at, "unparsable number " + shown(token) + " in " + describe(def));
            return widen(i, token);
        }
        break;
      }
      case Kind::Date:
        if (const auto d = parse_date(token)) {
          int_slot(c) = d->days;
          return Outcome::Done;
        }
        if (!def.bare)
          return value_error(record, at,
                             "unparsable date " + shown(token) + " in " + describe(def) +
                                 ": a date is YYYY-MM-DD, a real calendar day of the years 0001 to 9999");
        return widen(i, token);
      case Kind::String: int_slot(c) = strings_[i].intern(token); return Outcome::Done;
    }
    return Outcome::Done;
  }

  Outcome run() {
    reset();
    const char* p = chunk_.begin;
    const char* const end = text_.end;
    const size_t n = defs_.size();
    while (p < chunk_.end) {
      const char* record = p;
      for (size_t i = 0; i < n; ++i) {
        while (p < end && is_blank(*p)) ++p;
        if (i == 0 && (p == end || *p == '\n'))
          return fail(record, "blank line inside the data (only trailing blank lines are ignored)");
        const char* start = p;
        std::string_view token;
        bool quoted = false;
        if (p < end && *p == '"') {
          bool doubled = false;
          const char* close = quoted_end(p, end, doubled);
          if (!close) return fail(start, unclosed_quote());
          token = std::string_view(start + 1, static_cast<size_t>(close - 1 - (start + 1)));
          if (doubled) {
            undouble(token, scratch_);
            token = scratch_;
          }
          quoted = true;
          p = close;
          while (p < end && is_blank(*p)) ++p;
          if (p < end && *p != ',' && *p != '\n')
            return fail(p,
                        "text after the closing quote of a quoted field (a field is either quoted as a whole or "
                        "not at all; a '\"' inside quotes is written twice)");
        } else {
          while (p < end && !stop_[static_cast<unsigned char>(*p)]) ++p;
          if (p < end && *p == '"') {
            while (p < end && *p != ',' && *p != '\n') ++p;
            return fail(start, "a '\"' inside the unquoted field " +
                                   shown(trim(std::string_view(start, static_cast<size_t>(p - start)))) +
                                   " (quote the whole field and write each '\"' in it twice)");
          }
          const char* e = p;
          while (e > start && is_blank(e[-1])) --e;
          token = std::string_view(start, static_cast<size_t>(e - start));
        }
        if (i + 1 < n) {
          if (p == end || *p != ',') return check_field_count(record);
          ++p;
        } else {
          if (p < end && *p == ',') return check_field_count(record);
          if (p < end) ++p;  // the '\n'
        }
        const Outcome o = store(i, token, quoted, start, record);
        if (o != Outcome::Done) return o;
      }
      ++row_;
    }
    return Outcome::Done;
  }

  const Text& text_;
  const std::vector<ColumnDef>& defs_;
  const Outputs& outputs_;
  std::vector<detail::StringInterner>& strings_;
  Chunk& chunk_;
  uint64_t row_ = 0;  // the record being parsed, counted from the chunk's first
  std::array<bool, 256> stop_{};
  std::string scratch_;
  int32_t scratch_int_ = 0;
  float scratch_float_ = 0;
};

// Chunk starts: about every `chunk_bytes` from `begin`, moved to the next record start.
std::vector<const char*> cut_chunks(const char* begin, const char* end, uint64_t chunk_bytes, unsigned threads) {
  const auto bytes = static_cast<uint64_t>(end - begin);
  const uint64_t pieces = std::max<uint64_t>(1, (bytes + chunk_bytes - 1) / chunk_bytes);
  const auto nominal = [&](uint64_t i) { return begin + std::min(bytes, i * chunk_bytes); };
  // Whether each nominal start is inside quotes: the parity of the quotes before it.
  std::vector<uint8_t> odd(pieces);
  detail::parallel_for(pieces, threads, [&](size_t i) {
    odd[i] = static_cast<uint8_t>(std::count(nominal(i), nominal(i + 1), '"') & 1);
  });
  std::vector<uint8_t> inside(pieces, 0);
  for (uint64_t i = 1; i < pieces; ++i) inside[i] = inside[i - 1] ^ odd[i - 1];
  std::vector<const char*> starts(pieces);
  detail::parallel_for(pieces, threads, [&](size_t i) {
    if (i == 0) {
      starts[0] = begin;
      return;
    }
    bool in_quotes = inside[i] != 0;
    const char* p = nominal(i);
    while (p < end && (*p != '\n' || in_quotes)) {
      if (*p == '"') in_quotes = !in_quotes;
      ++p;
    }
    starts[i] = p < end ? p + 1 : end;
  });
  for (uint64_t i = 1; i < pieces; ++i) starts[i] = std::max(starts[i], starts[i - 1]);
  return starts;
}

// The records in [begin, end), which starts a record: line ends outside quotes, and a last record
// without its line end (the input's last).
uint64_t count_records(const char* begin, const char* end) {
  if (begin == end) return 0;
  uint64_t records = 0;
  if (!std::memchr(begin, '"', static_cast<size_t>(end - begin))) {
    records = static_cast<uint64_t>(std::count(begin, end, '\n'));
  } else {
    bool in_quotes = false;
    for (const char* p = begin; p < end; ++p) {
      if (*p == '"') in_quotes = !in_quotes;
      records += (*p == '\n') & !in_quotes;
    }
  }
  return records + (end[-1] != '\n' ? 1 : 0);
}

// The earliest bare-column inference error over the chunks and columns, if any.
void throw_inference_error(const Text& text, const std::vector<ColumnDef>& defs, const std::vector<Kind>& kinds,
                           const std::vector<Chunk>& chunks) {
  const char* at = nullptr;
  std::string what;
  for (const Chunk& chunk : chunks) {
    if (chunk.records == 0) continue;
    for (size_t i = 0; i < defs.size(); ++i) {
      const ChunkColumn& c = chunk.columns[i];
      if (!defs[i].bare) continue;
      if (kinds[i] == Kind::Int && c.big_int_at && (!at || c.big_int_at < at)) {
        at = c.big_int_at;
        what = "integer " + shown(c.big_int) + " out of range for int " + kInt32Range + " in column '" + defs[i].name +
               "' (untyped, every value an integer); declare it as '" + defs[i].name +
               ":float' in the header to read the column as float";
      }
      if (kinds[i] == Kind::Float && c.float_overflow_at && (!at || c.float_overflow_at < at)) {
        at = c.float_overflow_at;
        what = "number " + shown(c.float_overflow) + " out of range for float (beyond +-3.4028235e+38) in " +
               describe(defs[i]);
      }
    }
  }
  if (at) throw text.error_at(at, what);
}

Table parse(const Text& text, const CsvReadOptions& options) {
  if (text.begin == text.end) throw text.error_at(text.begin, "no header line (the input is empty)");
  std::vector<ColumnDef> defs;
  const char* data = parse_header(text, defs);
  const size_t n = defs.size();
  const unsigned threads = detail::worker_count(options.threads);

  // Chunks, and their records counted (so typed columns are written in place).
  const auto bytes = static_cast<uint64_t>(text.end - data);
  uint64_t chunk_bytes = options.chunk_bytes;
  if (chunk_bytes == 0)
    chunk_bytes = bytes < (1u << 20) ? std::max<uint64_t>(bytes, 1)
                                     : std::clamp<uint64_t>(bytes / (4 * uint64_t{threads}), 256u << 10, 32u << 20);
  const std::vector<const char*> starts = cut_chunks(data, text.end, chunk_bytes, threads);
  std::vector<Chunk> chunks(starts.size());
  std::vector<Kind> initial(n);
  for (size_t i = 0; i < n; ++i) initial[i] = defs[i].kind;
  detail::parallel_for(chunks.size(), threads, [&](size_t c) {
    chunks[c].begin = starts[c];
    chunks[c].end = c + 1 < starts.size() ? starts[c + 1] : text.end;
    chunks[c].records = count_records(chunks[c].begin, chunks[c].end);
    chunks[c].kinds = initial;
  });
  uint64_t rows = 0;
  for (Chunk& chunk : chunks) {
    chunk.first_row = rows;
    rows += chunk.records;
  }

  Table table;
  Outputs outputs{std::vector<int32_t*>(n, nullptr), std::vector<float*>(n, nullptr)};
  for (size_t i = 0; i < n; ++i) {
    table.columns.push_back(Column::make(defs[i].name, type_of(defs[i].kind)));
    if (defs[i].bare) continue;
    std::visit([&](auto& v) { detail::resize_huge(v, rows); }, table.columns[i].data);
    if (defs[i].kind == Kind::Float)
      outputs.floats[i] = table.columns[i].as<float>().data();
    else
      outputs.ints[i] = table.columns[i].as<int32_t>().data();
  }
  // Each thread interns the strings of the chunks it parses into its own interners: a string
  // repeated across its chunks is stored and hashed into one table. Every string interned is a
  // value of its column (a chunk parsed again interns the same strings), so the merged dictionary
  // holds exactly the column's distinct values.
  std::vector<std::vector<detail::StringInterner>> interners(threads);
  for (auto& per_column : interners) per_column.resize(n);
  std::mutex progress_mutex;
  uint64_t parsed_bytes = 0;
  const auto parse_chunks = [&](const std::vector<size_t>& which, bool fixed) {
    detail::parallel_for_workers(which.size(), threads, [&](size_t k, unsigned worker) {
      Chunk& chunk = chunks[which[k]];
      chunk.worker = worker;
      ChunkParser(text, defs, outputs, interners[worker], chunk).parse(fixed);
      if (options.progress && !fixed) {
        const std::lock_guard lock(progress_mutex);
        parsed_bytes += static_cast<uint64_t>(chunk.end - chunk.begin);
        options.progress(parsed_bytes, bytes);
      }
    });
    // The first chunk that failed starts where a one-thread read would be at that point (every
    // chunk before it parsed, so every quote before it was valid and its cut is right): its error is
    // the first of the input. Later chunks may have been cut inside a record after a bad quote.
    for (const Chunk& chunk : chunks)
      if (chunk.error_at) throw text.error_at(chunk.error_at, chunk.error);
  };
  std::vector<size_t> all(chunks.size());
  for (size_t c = 0; c < chunks.size(); ++c) all[c] = c;
  parse_chunks(all, false);

  // Each bare column's type: the widest of its chunks' guesses (int without values). Chunks that
  // guessed narrower are parsed again.
  std::vector<Kind> kinds = initial;
  for (size_t i = 0; i < n; ++i) {
    if (!defs[i].bare) continue;
    bool seen = false;
    for (const Chunk& chunk : chunks) {
      if (chunk.records == 0) continue;
      kinds[i] = seen ? join(kinds[i], chunk.kinds[i]) : chunk.kinds[i];
      seen = true;
    }
  }
  std::vector<size_t> again;
  for (size_t c = 0; c < chunks.size(); ++c)
    if (chunks[c].records > 0 && chunks[c].kinds != kinds) {
      chunks[c].kinds = kinds;
      again.push_back(c);
    }
  if (!again.empty()) parse_chunks(again, true);
  throw_inference_error(text, defs, kinds, chunks);

  // String columns: one dictionary from the chunks' interners. Bare columns: their type, and their
  // values from the chunks' vectors.
  std::vector<detail::MergedDictionary> merged(n);
  const auto filled =
      static_cast<size_t>(std::count_if(chunks.begin(), chunks.end(), [](const Chunk& c) { return c.records > 0; }));
  for (size_t i = 0; i < n; ++i) {
    Column& column = table.columns[i];
    if (defs[i].bare) {
      column = Column::make(defs[i].name, type_of(kinds[i]));
      if (filled > 1) std::visit([&](auto& v) { detail::resize_huge(v, rows); }, column.data);
    }
    if (kinds[i] == Kind::String) {
      std::vector<const detail::StringInterner*> parts;
      for (const auto& per_column : interners) parts.push_back(&per_column[i]);
      merged[i] = detail::merge_dictionaries(parts, threads, defs[i].name);
      column.dictionary = merged[i].dictionary;
    }
  }
  detail::parallel_for(chunks.size(), threads, [&](size_t c) {
    Chunk& chunk = chunks[c];
    if (chunk.records == 0) return;
    for (size_t i = 0; i < n; ++i) {
      ChunkColumn& from = chunk.columns[i];
      Column& column = table.columns[i];
      if (defs[i].bare && filled == 1) {  // one chunk: its vector becomes the column
        if (kinds[i] == Kind::Float) {
          column.data = std::move(from.floats);
          continue;
        }
        column.data = std::move(from.ints);
      } else if (defs[i].bare) {
        if (kinds[i] == Kind::Float)
          std::copy(from.floats.begin(), from.floats.end(),
                    column.as<float>().begin() + static_cast<ptrdiff_t>(chunk.first_row));
        else
          std::copy(from.ints.begin(), from.ints.end(),
                    column.as<int32_t>().begin() + static_cast<ptrdiff_t>(chunk.first_row));
      }
      if (kinds[i] == Kind::String) {  // local codes to dictionary codes, in place
        const std::vector<int32_t>& code_of = merged[i].code_of[chunk.worker];
        auto codes = column.as<int32_t>().begin() + static_cast<ptrdiff_t>(chunk.first_row);
        for (uint64_t k = 0; k < chunk.records; ++k)
          codes[static_cast<ptrdiff_t>(k)] = code_of[static_cast<size_t>(codes[static_cast<ptrdiff_t>(k)])];
      }
      from = ChunkColumn{};  // free the chunk's memory as soon as it is used
    }
  });
  return table;
}

std::string io_reason() {
  return errno ? std::strerror(errno) : "unknown error";
}

}  // namespace

Table read_csv_text(std::string_view data, std::string_view source, const CsvReadOptions& options) {
  Text text;
  text.source = source;
  text.begin = data.data();
  text.end = data.data() + data.size();
  if (data.substr(0, 3) == "\xEF\xBB\xBF") text.begin += 3;
  // Trailing blank lines go: keep everything up to the last character that is not blank.
  while (text.end > text.begin && (is_blank(text.end[-1]) || text.end[-1] == '\n')) --text.end;
  return parse(text, options);
}

Table read_csv(std::istream& in, std::string_view source, const CsvReadOptions& options) {
  std::string data;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) data.append(buffer, static_cast<size_t>(in.gcount()));
  if (in.bad()) throw Error(ErrorCode::Io, "cannot read '" + std::string(source) + "': " + io_reason());
  return read_csv_text(data, source, options);
}

Table read_csv_file(const std::string& path, const CsvReadOptions& options) {
  const detail::FileBytes file(path);
  return read_csv_text(file.bytes(), path, options);
}

}  // namespace gfxq
