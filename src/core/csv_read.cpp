// CSV input: read_csv, read_csv_file, read_csv_text.
//
// Format read (docs/SQL.md, "CSV", says the same for users):
// - The first record is the header: comma-separated `name:TYPE` or a bare `name`; TYPE is int,
//   float, string, date, or the result types bigint and double (case-insensitive). A bare
//   (unquoted) name starts with a letter or '_' and holds letters, digits, '_' and the characters
//   of result names ('.', '(', ')', '*'): `a`, `r.a`, `SUM(a)`, `COUNT(*)`. A quoted header field
//   ("QUANTILE(a, 0.5)", "QUANTILE(a, 0.5):int") may hold any printable name, kept as written; its
//   type follows the last ':' inside the quotes. Names are unique. Only identifiers can be named in
//   SQL.
// - Fields are unquoted or quoted as RFC 4180 says: a quoted field starts with '"', ends at the
//   next '"' not doubled, holds commas, line ends and doubled quotes ("" for one "). A '"' inside an
//   unquoted field and text after a closing quote are errors.
// - Spaces and tabs around every field (outside the quotes) are trimmed, and around the ':' of a
//   bare header field. Records end in LF or CRLF; outside quotes a carriage return not followed by
//   a line feed is an error (CR-only line ends are not supported). The final line end is optional;
//   blank lines at the end are ignored, a blank line anywhere else is an error. A leading UTF-8
//   byte-order mark is skipped. A NUL byte is an error (not a text file), and so is a line longer
//   than kMaxLineBytes (a stream fails while it is read, so /dev/zero or an endless line fails at
//   once).
// - NULL: an empty unquoted field is NULL in every column. The quoted empty field "" is NULL in
//   int, float, date, bigint and double columns and the empty string in string columns (write_csv
//   writes a NULL alone on its line as ""). NULLs are Column::nulls flags over a zero value.
// - int fields: optional '+' or '-', then decimal digits, within int32 (bigint: int64).
// - float fields: decimal or scientific notation, or nan / inf / infinity (any case, optional
//   sign), rounded to the nearest float (double: the nearest double). Values that round to
//   infinity are an error; tiny values round to the nearest subnormal or zero.
// - date fields: YYYY-MM-DD (years 0001 to 9999, a real calendar day): days since 1970-01-01.
// - string fields: the bytes as written (quoted: without the quotes, doubled quotes undoubled;
//   unquoted: trimmed). The column's dictionary is the sorted distinct strings (gfxq::Dictionary).
// - Quoted int, float and date fields are read as their text between the quotes (not trimmed).
// - A bare column is int when every value is an int32 integer token; float when every value is a
//   number and one is not an integer token (a '.', an exponent, nan, inf); date when every value is
//   a date; else string. NULLs (empty fields and "") are no evidence: a column without values or of
//   NULLs only is int, and "" is the empty string only when the column ends up string. An integer
//   outside int32 in an otherwise all-integer column, and a number beyond the float range in an
//   otherwise all-number column, are errors (precision is never lost silently; the first asks for
//   `name:float`).
// - Every data error is Error(InvalidInput) with the prefix "<source>:<line>:<column>: ", 1-based,
//   lines counted by their LF bytes (a line end inside quotes starts a new line too), the column a
//   byte offset in its line, pointing where the field's text starts (after leading spaces; the
//   opening quote of a quoted field). Bad text is quoted through excerpt() (control characters
//   escaped, cut after 64 bytes with its length). A wrong field count is reported before a bad value
//   of the same record, and before any rows are reserved. A NUL byte or an overlong line is reported
//   first; of other errors the one a one-thread read meets first is reported, whatever the thread
//   count; the two inference errors above only when there is no other error (the first of them in
//   the file). A file that cannot be opened or read is Error(Io).
//
// How: the input is read whole, the header parsed, and the rest cut into chunks at record starts
// (a line end outside quotes: the parity of the quotes before a cut tells whether it is inside
// quotes, since in valid input every '"' opens, closes or doubles); one pass over the bytes, 64 at
// a time, gives each piece's quote parity and line ends, and so each chunk's record count (an
// unquoted field's end is then found 16 bytes at a time). Threads parse chunks into
// per-chunk vectors and string interners. A bare column's chunk starts as int and widens (int →
// float, or → date, → string) when a value does not fit, reparsing the chunk; the column's type is
// the widest over the chunks that hold values, and chunks read with another guess are parsed again
// with it. NULLs are kept per chunk and column as a list of the chunk's NULL rows (nothing per
// non-NULL row), turned into the column's flags at the end. Each thread interns a STRING column's
// values into its own hash table, 32 at a time in a pipeline of three batches (a batch hashed,
// the next step its table slots' copies fetched, the step after that looked up), bounded unless the
// column's repeats call for a larger one (past the bound a value is a view into the input);
// merge_dictionaries() turns the threads' strings into one sorted dictionary on all threads (key
// ranges, each radix-sorted, repeats dropped; the columns one after the other in one workspace, which
// may become a dictionary's block), and the chunks' codes are remapped while the chunks
// are copied into the table's columns. Before the rows are reserved, their count is checked
// against the bytes: records of n fields take at least n bytes each, so more records than that means a record with too
// few fields, found by parsing without storing values.

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstring>
#include <fstream>
#include <istream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <sys/stat.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/csv_names.h"
#include "core/huge_pages.h"
#include "core/mapped_file.h"
#include "core/parallel.h"
#include "core/string_interner.h"
#include "gfxq/error.h"
#include "gfxq/table.h"

namespace gfxq {

namespace {

constexpr const char* kInt32Range = "(int32: -2147483648..2147483647)";
constexpr const char* kInt64Range = "(int64: -9223372036854775808..9223372036854775807)";
//! The longest line read accepts (a 100,000-column header takes about 1 MiB).
constexpr uint64_t kMaxLineBytes = 16ull << 20;

// Blanks trimmed around fields. A carriage return is no blank: outside quotes it belongs only
// right before a line feed (CRLF).
bool is_blank(char c) {
  return c == ' ' || c == '\t';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The first of ',', '\n', '"' and '\r' at or after p (an unquoted field's end), or `end`: 16 bytes
// at a time while they fit before `end`.
const char* plain_field_end(const char* p, const char* end) noexcept {
#if defined(__SSE2__)
  const __m128i comma = _mm_set1_epi8(','), line_end = _mm_set1_epi8('\n'), quote = _mm_set1_epi8('"'),
                cr = _mm_set1_epi8('\r');
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, line_end)),
                                     _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, cr)));
    if (const int mask = _mm_movemask_epi8(hit)) return p + __builtin_ctz(static_cast<unsigned>(mask));
  }
#endif
  while (p < end && *p != ',' && *p != '\n' && *p != '"' && *p != '\r') ++p;
  return p;
}

// Trims blanks and a CR (of a CRLF): for header names and error positions.
std::string_view trim(std::string_view s) {
  const auto blank_or_cr = [](char c) { return is_blank(c) || c == '\r'; };
  while (!s.empty() && blank_or_cr(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank_or_cr(s.back())) s.remove_suffix(1);
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

//! A quoted name: not empty, no control characters.
bool is_printable_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

// A field's text as error messages show it: 'text', control characters escaped, long text cut.
std::string shown(std::string_view text) {
  return "'" + excerpt(text) + "'";
}

std::string cr_only() {
  return "carriage return without a line feed: CR-only line ends are not supported (use LF or CRLF)";
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
    const auto digit = static_cast<uint64_t>(s[i] - '0');
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

// How a chunk reads a column. Bare columns move up the lattice Int < Float < String,
// Date < String (join()); typed columns stay at their type (BigInt and Double are never inferred).
enum class Kind : uint8_t { Int, Float, Date, String, BigInt, Double };

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
    case Kind::BigInt: return Type::Int64;
    case Kind::Double: return Type::Float64;
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
  return "column " + shown(c.name) + " (" + (c.bare ? std::string("untyped") : to_string(type_of(c.kind))) + ")";
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

// Whether a record or line ends at `p`: the input's end, LF, or the CR of a CRLF.
bool at_line_end(const char* p, const char* end) {
  return p == end || *p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n');
}

// One header field: `field` is the unquoted text (trimmed) or the text between the quotes
// (undoubled, as written). `at`: where the field starts, for errors.
ColumnDef parse_header_field(std::string_view field, bool quoted, const Text& text, const char* at) {
  ColumnDef def;
  std::string_view name = field;
  std::string_view type;
  // A quoted field may hold ':' in its name: its type follows the last ':'.
  const size_t colon = quoted ? field.rfind(':') : field.find(':');
  if (colon != std::string_view::npos) {
    name = quoted ? field.substr(0, colon) : trim(field.substr(0, colon));
    type = trim(field.substr(colon + 1));
  }
  if (name.empty()) throw text.error_at(at, "empty column name in the header");
  if (quoted ? !is_printable_name(name) : !detail::is_bare_csv_name(name))
    throw text.error_at(at, "invalid column name " + shown(name) +
                                (quoted ? " (a quoted name holds no control characters)"
                                        : " (a bare name is a letter or '_', then letters, digits, '_', '.', '(', "
                                          "')' or '*'; quote other names)"));
  def.name = std::string(name);
  if (colon == std::string_view::npos) {
    def.bare = true;
    return def;
  }
  static constexpr std::pair<std::string_view, Kind> kTypes[] = {{"int", Kind::Int},       {"float", Kind::Float},
                                                                 {"string", Kind::String}, {"date", Kind::Date},
                                                                 {"bigint", Kind::BigInt}, {"double", Kind::Double}};
  for (const auto& [type_name, kind] : kTypes)
    if (iequals(type, type_name)) {
      def.kind = kind;
      return def;
    }
  throw text.error_at(at, "unknown type " + shown(type) + " for column " + shown(def.name) +
                              " (types: int, float, string, date, bigint, double; or a bare name to infer int, "
                              "float, date or string)");
}

std::string text_after_quote() {
  return "text after the closing quote of a quoted field (a field is either quoted as a whole or not at all; a "
         "'\"' inside quotes is written twice)";
}

// Parses the header record; returns where the data starts.
const char* parse_header(const Text& text, std::vector<ColumnDef>& defs) {
  const char* p = text.begin;
  const char* const end = text.end;
  while (p < end && is_blank(*p)) ++p;
  if (p < end && at_line_end(p, end)) throw text.error_at(text.begin, "blank line where the header is expected");
  std::set<std::string> names;
  std::string unquoted;
  for (;;) {
    while (p < end && is_blank(*p)) ++p;
    const char* start = p;
    if (p < end && *p == '"') {
      bool doubled = false;
      const char* close = quoted_end(p, end, doubled);
      if (!close) throw text.error_at(start, unclosed_quote());
      undouble(std::string_view(start + 1, static_cast<size_t>(close - 1 - (start + 1))), unquoted);
      p = close;
      while (p < end && is_blank(*p)) ++p;
      if (p < end && *p == '\r' && !at_line_end(p, end)) throw text.error_at(p, cr_only());
      if (p < end && *p != ',' && !at_line_end(p, end)) throw text.error_at(p, text_after_quote());
      defs.push_back(parse_header_field(unquoted, true, text, start));
    } else {
      while (p < end && *p != ',' && *p != '\n' && *p != '\r') ++p;
      if (p < end && *p == '\r' && !at_line_end(p, end)) throw text.error_at(p, cr_only());
      defs.push_back(
          parse_header_field(trim(std::string_view(start, static_cast<size_t>(p - start))), false, text, start));
    }
    if (!names.insert(defs.back().name).second)
      throw text.error_at(start, "duplicate column name " + shown(defs.back().name) + " in the header");
    if (p < end && *p == '\r') ++p;  // the CR of a CRLF
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
  int64_t* int64_out = nullptr;  // bigint and double columns (always typed)
  double* double_out = nullptr;
  // The chunk's records that are NULL in this column, ascending (their values are zero).
  std::vector<uint64_t> null_rows;
  // Whether a value (not NULL) was seen: a bare column's guess is evidence only then.
  bool seen = false;
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
  std::vector<int64_t*> int64s;
  std::vector<double*> doubles;
  // Parse without storing values or NULLs: the input has more records than it could hold with the
  // header's field count, so it fails (a record with too few fields) before any row is reserved.
  bool dry = false;
};

enum class Outcome { Done, Widened, Failed };

// Parses the records of one chunk.
class ChunkParser {
 public:
  // `strings`: the calling thread's interner of each column, kept across the chunks it parses.
  ChunkParser(const Text& text, const std::vector<ColumnDef>& defs, const Outputs& outputs,
              std::vector<detail::StringInterner>& strings, Chunk& chunk)
      : text_(text), defs_(defs), outputs_(outputs), strings_(strings), chunk_(chunk) {}

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
    pending_.resize(n);
    for (auto& pending : pending_) pending.clear();
    capacity_ = outputs_.dry ? 0 : chunk_.records;
    for (size_t i = 0; i < n; ++i) {
      ChunkColumn& c = chunk_.columns[i];
      c.kind = chunk_.kinds[i];
      c.big_int_at = c.float_overflow_at = nullptr;
      c.null_rows.clear();
      c.seen = false;
      if (outputs_.dry) continue;
      if (!defs_[i].bare) {
        const auto at = [&](auto* column) { return column ? column + chunk_.first_row : nullptr; };
        c.int_out = at(outputs_.ints[i]);
        c.float_out = at(outputs_.floats[i]);
        c.int64_out = at(outputs_.int64s[i]);
        c.double_out = at(outputs_.doubles[i]);
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
    const ChunkColumn& c = chunk_.columns[i];
    chunk_.kinds[i] = c.seen ? join(chunk_.kinds[i], kind_of(token)) : kind_of(token);
    return Outcome::Widened;
  }

  // Where the current record's value of column i goes (a scratch cell past the counted records,
  // which only invalid input reaches: it fails before the chunk ends; and every record in a dry run).
  int32_t& int_slot(const ChunkColumn& c) { return row_ < capacity_ ? c.int_out[row_] : scratch_int_; }
  float& float_slot(const ChunkColumn& c) { return row_ < capacity_ ? c.float_out[row_] : scratch_float_; }
  int64_t& int64_slot(const ChunkColumn& c) { return row_ < capacity_ ? c.int64_out[row_] : scratch_int64_; }
  double& double_slot(const ChunkColumn& c) { return row_ < capacity_ ? c.double_out[row_] : scratch_double_; }

  // The current record is NULL in column i: a zero value, and the row listed.
  Outcome store_null(size_t i) {
    ChunkColumn& c = chunk_.columns[i];
    switch (c.kind) {
      case Kind::Float: float_slot(c) = 0; break;
      case Kind::BigInt: int64_slot(c) = 0; break;
      case Kind::Double: double_slot(c) = 0; break;
      default: int_slot(c) = 0; break;
    }
    if (row_ < capacity_) c.null_rows.push_back(row_);
    return Outcome::Done;
  }

  Outcome store(size_t i, std::string_view token, bool quoted, const char* at, const char* record) {
    ChunkColumn& c = chunk_.columns[i];
    // An empty field is NULL; "" too, except in a string column, where it is the empty string. In a
    // bare column neither is evidence of a type.
    if (token.empty() && (!quoted || c.kind != Kind::String)) return store_null(i);
    const Outcome o = store_value(i, token, at, record);
    if (o == Outcome::Done) c.seen = true;
    return o;
  }

  Outcome store_value(size_t i, std::string_view token, const char* at, const char* record) {
    ChunkColumn& c = chunk_.columns[i];
    const ColumnDef& def = defs_[i];
    switch (c.kind) {
      case Kind::BigInt: {
        int64_t v = 0;
        switch (parse_int(token, v)) {
          case IntParse::Ok: int64_slot(c) = v; return Outcome::Done;
          case IntParse::OutOfRange:
            return value_error(
                record, at,
                "integer " + shown(token) + " out of range for bigint " + kInt64Range + " in " + describe(def));
          case IntParse::NotInteger:
            return value_error(record, at, "unparsable number " + shown(token) + " in " + describe(def));
        }
        break;
      }
      case Kind::Double: {
        double v = 0;
        switch (parse_float(token, v)) {
          case FloatParse::Ok: double_slot(c) = v; return Outcome::Done;
          case FloatParse::OutOfRange:
            return value_error(record, at, "number " + shown(token) + " out of range for double in " + describe(def));
          case FloatParse::NotNumber:
            return value_error(record, at, "unparsable number " + shown(token) + " in " + describe(def));
        }
        break;
      }
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
              c.big_int = excerpt(token);
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
              c.float_overflow = excerpt(token);
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
      case Kind::String:
        // A token read in place is a view into the input, which outlives the dictionary's merge: it
        // waits in its column's pipeline to be interned with the next ones. One undoubled into
        // scratch_ is copied at once.
        if (token.data() != scratch_.data() && row_ < capacity_) {
          pending_[i].add(strings_[i], token, &c.int_out[row_]);
          return Outcome::Done;
        }
        int_slot(c) = strings_[i].intern(token, token.data() != scratch_.data());
        return Outcome::Done;
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
        if (i == 0 && at_line_end(p, end))
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
          if (p < end && *p == '\r') {
            if (!at_line_end(p, end)) return fail(p, cr_only());
            ++p;  // to the LF of the CRLF
          }
          if (p < end && *p != ',' && *p != '\n') return fail(p, text_after_quote());
        } else {
          p = plain_field_end(p, end);
          if (p < end && *p == '"') {
            while (p < end && *p != ',' && *p != '\n') ++p;
            return fail(start, "a '\"' inside the unquoted field " +
                                   shown(trim(std::string_view(start, static_cast<size_t>(p - start)))) +
                                   " (quote the whole field and write each '\"' in it twice)");
          }
          const char* e = p;
          if (p < end && *p == '\r') {
            if (!at_line_end(p, end)) return fail(p, cr_only());
            ++p;  // to the LF of the CRLF
          }
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
    for (size_t i = 0; i < n; ++i) pending_[i].finish(strings_[i]);
    return Outcome::Done;
  }

  const Text& text_;
  const std::vector<ColumnDef>& defs_;
  const Outputs& outputs_;
  std::vector<detail::StringInterner>& strings_;
  Chunk& chunk_;
  uint64_t row_ = 0;  // the record being parsed, counted from the chunk's first
  std::string scratch_;
  // Per column: strings read in place whose local codes are still to be written.
  std::vector<detail::InternPipeline> pending_;
  uint64_t capacity_ = 0;  // records whose values are stored: the chunk's, or none in a dry run
  int32_t scratch_int_ = 0;
  float scratch_float_ = 0;
  int64_t scratch_int64_ = 0;
  double scratch_double_ = 0;
};

// A piece of the input's quotes and line ends: whether it holds an odd number of '"', and its
// line ends outside quotes when it starts outside them (those inside are the rest).
struct PieceCount {
  bool odd = false;
  uint64_t line_ends = 0, outside = 0;
};

// Bit i of the result: the XOR of bits 0..i of x (set where an odd number of quotes is at or before).
uint64_t prefix_xor(uint64_t x) noexcept {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  return x ^ (x << 32);
}

// The masks of the '"' and '\n' bytes of 64 bytes at p.
void masks_of(const char* p, uint64_t& quotes, uint64_t& line_ends) noexcept {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), line_end = _mm_set1_epi8('\n');
  quotes = line_ends = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    quotes |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)))} << (16 * k);
    line_ends |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, line_end)))} << (16 * k);
  }
#else
  quotes = line_ends = 0;
  for (int k = 0; k < 64; ++k) {
    quotes |= uint64_t{p[k] == '"'} << k;
    line_ends |= uint64_t{p[k] == '\n'} << k;
  }
#endif
}

// The quotes and line ends of [begin, end), 64 bytes at a time: the bytes inside quotes are those
// after an odd number of quotes (a doubled quote closes and opens again).
// Built twice on x86-64, picked when the library is loaded: with the popcnt instruction where the
// processor has it (the baseline has none: a call per count).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default")))
#endif
PieceCount
count_piece(const char* begin, const char* end) noexcept {
  PieceCount count;
  uint64_t inside = 0;  // all ones while the bytes so far hold an odd number of quotes
  const auto block = [&](const char* p) {
    uint64_t quotes = 0, line_ends = 0;
    masks_of(p, quotes, line_ends);
    const uint64_t quoted = prefix_xor(quotes) ^ inside;
    count.line_ends += static_cast<uint64_t>(__builtin_popcountll(line_ends));
    count.outside += static_cast<uint64_t>(__builtin_popcountll(line_ends & ~quoted));
    inside = static_cast<uint64_t>(-static_cast<int64_t>(quoted >> 63));
  };
  const char* p = begin;
  for (; end - p >= 64; p += 64) block(p);
  if (p < end) {
    char last[64] = {};  // the tail, padded with bytes that are neither
    std::memcpy(last, p, static_cast<size_t>(end - p));
    block(last);
  }
  count.odd = inside != 0;
  return count;
}

// Chunks of the input: about every `chunk_bytes` from `begin`, each start moved to the next record
// start (a line end outside quotes: the parity of the quotes before a cut tells whether it is
// inside quotes, since in valid input every '"' opens, closes or doubles), and the records of each:
// the line ends outside quotes in it, and the input's last record when it has no line end.
struct Cuts {
  std::vector<const char*> starts;
  std::vector<uint64_t> records;
};

Cuts cut_chunks(const char* begin, const char* end, uint64_t chunk_bytes, unsigned threads) {
  const auto bytes = static_cast<uint64_t>(end - begin);
  const uint64_t pieces = std::max<uint64_t>(1, (bytes + chunk_bytes - 1) / chunk_bytes);
  const auto nominal = [&](uint64_t i) { return begin + std::min(bytes, i * chunk_bytes); };
  // One pass over the bytes: each nominal piece's quote parity and line ends.
  std::vector<PieceCount> counts(pieces);
  detail::parallel_for(pieces, threads, [&](size_t i) { counts[i] = count_piece(nominal(i), nominal(i + 1)); });
  // Whether each nominal start is inside quotes, and the line ends outside quotes before it.
  std::vector<uint8_t> inside(pieces, 0);
  std::vector<uint64_t> before(pieces, 0);
  for (uint64_t i = 1; i < pieces; ++i) {
    const PieceCount& c = counts[i - 1];
    inside[i] = inside[i - 1] ^ static_cast<uint8_t>(c.odd);
    before[i] = before[i - 1] + (inside[i - 1] ? c.line_ends - c.outside : c.outside);
  }
  const uint64_t total =
      before[pieces - 1] +
      (inside[pieces - 1] ? counts[pieces - 1].line_ends - counts[pieces - 1].outside : counts[pieces - 1].outside);
  Cuts cuts{std::vector<const char*>(pieces), std::vector<uint64_t>(pieces)};
  // `ends`: the line ends outside quotes before each chunk's start.
  std::vector<uint64_t> ends(pieces, 0);
  detail::parallel_for(pieces, threads, [&](size_t i) {
    if (i == 0) {
      cuts.starts[0] = begin;
      return;
    }
    bool in_quotes = inside[i] != 0;
    const char* p = nominal(i);
    while (p < end && (*p != '\n' || in_quotes)) {
      if (*p == '"') in_quotes = !in_quotes;
      ++p;
    }
    cuts.starts[i] = p < end ? p + 1 : end;
    ends[i] = before[i] + (p < end ? 1 : 0);  // the line end found is the only one outside quotes passed
  });
  for (uint64_t i = 1; i < pieces; ++i)
    if (cuts.starts[i] < cuts.starts[i - 1]) {
      cuts.starts[i] = cuts.starts[i - 1];
      ends[i] = ends[i - 1];
    }
  for (uint64_t i = 0; i < pieces; ++i) {
    const char* chunk_end = i + 1 < pieces ? cuts.starts[i + 1] : end;
    cuts.records[i] = (i + 1 < pieces ? ends[i + 1] : total) - ends[i] +
                      (chunk_end > cuts.starts[i] && chunk_end[-1] != '\n' ? 1 : 0);
  }
  return cuts;
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
  const Cuts cuts = cut_chunks(data, text.end, chunk_bytes, threads);
  const std::vector<const char*>& starts = cuts.starts;
  std::vector<Chunk> chunks(starts.size());
  std::vector<Kind> initial(n);
  for (size_t i = 0; i < n; ++i) initial[i] = defs[i].kind;
  detail::parallel_for(chunks.size(), threads, [&](size_t c) {
    chunks[c].begin = starts[c];
    chunks[c].end = c + 1 < starts.size() ? starts[c + 1] : text.end;
    chunks[c].records = cuts.records[c];
    chunks[c].kinds = initial;
  });
  uint64_t rows = 0;
  for (Chunk& chunk : chunks) {
    chunk.first_row = rows;
    rows += chunk.records;
  }

  Table table;
  Outputs outputs{std::vector<int32_t*>(n, nullptr), std::vector<float*>(n, nullptr), std::vector<int64_t*>(n, nullptr),
                  std::vector<double*>(n, nullptr)};
  // Records of n fields take n bytes at least (n - 1 commas and a line end, the last record none):
  // more records than that means a record with too few fields. Then nothing is reserved (a wide
  // header over many short lines would ask for far more memory than the input's size); the parse
  // below meets that record and fails.
  outputs.dry = rows > 0 && rows > (bytes + 1) / n;
  for (size_t i = 0; i < n; ++i) {
    table.columns.push_back(Column::make(defs[i].name, type_of(defs[i].kind)));
    if (defs[i].bare || outputs.dry) continue;
    std::visit([&](auto& v) { detail::resize_parallel(v, rows, threads); }, table.columns[i].data);
    switch (defs[i].kind) {
      case Kind::Float: outputs.floats[i] = table.columns[i].as<float>().data(); break;
      case Kind::BigInt: outputs.int64s[i] = table.columns[i].as<int64_t>().data(); break;
      case Kind::Double: outputs.doubles[i] = table.columns[i].as<double>().data(); break;
      default: outputs.ints[i] = table.columns[i].as<int32_t>().data(); break;
    }
  }
  // Each thread interns the strings of the chunks it parses into its own interners: a string
  // repeated across its chunks is found in one table (until the table is full; later repeats are
  // found by the merge). A thread expects about its share of the rows. Every string interned is a value of its column
  // (a chunk parsed again interns the same strings), so the merged dictionary holds exactly the column's distinct
  // values.
  std::vector<std::vector<detail::StringInterner>> interners(threads);
  const size_t table_limit = options.string_table_limit ? static_cast<size_t>(options.string_table_limit)
                                                        : detail::StringInterner::kTableLimit;
  for (auto& per_column : interners)
    for (size_t i = 0; i < n; ++i) per_column.emplace_back(table_limit, rows / threads);
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
  if (outputs.dry)
    throw Error(ErrorCode::Internal, "CSV reader: " + std::to_string(rows) + " records of " + std::to_string(n) +
                                         " fields in " + std::to_string(bytes) + " bytes parsed without an error");

  // Each bare column's type: the widest of the guesses of the chunks holding values in it (int
  // without values). Chunks that guessed otherwise are parsed again.
  std::vector<Kind> kinds = initial;
  for (size_t i = 0; i < n; ++i) {
    if (!defs[i].bare) continue;
    bool seen = false;
    for (const Chunk& chunk : chunks) {
      if (chunk.records == 0 || !chunk.columns[i].seen) continue;
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
  detail::MergeWorkspace workspace;  // one column's merge after the other's, in the same memory
  const auto filled =
      static_cast<size_t>(std::count_if(chunks.begin(), chunks.end(), [](const Chunk& c) { return c.records > 0; }));
  for (size_t i = 0; i < n; ++i) {
    Column& column = table.columns[i];
    if (defs[i].bare) {
      column = Column::make(defs[i].name, type_of(kinds[i]));
      if (filled > 1) std::visit([&](auto& v) { detail::resize_parallel(v, rows, threads); }, column.data);
    }
    if (kinds[i] == Kind::String) {
      std::vector<const detail::StringInterner*> parts;
      for (const auto& per_column : interners) parts.push_back(&per_column[i]);
      merged[i] = detail::merge_dictionaries(parts, {threads, options.string_merge_ranges, &workspace}, defs[i].name);
      column.dictionary = merged[i].dictionary;
    }
    const bool has_nulls = std::any_of(
        chunks.begin(), chunks.end(), [&](const Chunk& c) { return c.records > 0 && !c.columns[i].null_rows.empty(); });
    if (has_nulls) detail::resize_huge(column.nulls, rows);
  }
  detail::parallel_for(chunks.size(), threads, [&](size_t c) {
    Chunk& chunk = chunks[c];
    if (chunk.records == 0) return;
    for (size_t i = 0; i < n; ++i) {
      ChunkColumn& from = chunk.columns[i];
      Column& column = table.columns[i];
      for (const uint64_t k : from.null_rows) column.nulls[chunk.first_row + k] = 1;
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
      if (kinds[i] == Kind::String) {  // local codes to dictionary codes, in place; NULLs stay 0
        const int32_t* code_of = merged[i].code_of(chunk.worker);
        int32_t* codes = column.as<int32_t>().data() + chunk.first_row;
        auto null = from.null_rows.begin();
        for (uint64_t k = 0; k < chunk.records; ++k) {
          if (null != from.null_rows.end() && *null == k) {
            ++null;
            continue;
          }
          codes[k] = code_of[static_cast<size_t>(codes[k])];
        }
      }
      from = ChunkColumn{};  // free the chunk's memory as soon as it is used
    }
  });
  // The interners, the merge's code tables and its workspace freed on all threads: giving back
  // that much memory is work too, which one thread would do alone.
  detail::parallel_for(threads + n, threads, [&](size_t k) {
    if (k < threads)
      interners[k].clear();
    else
      merged[k - threads] = {};
  });
  workspace.release(threads);
  return table;
}

std::string io_reason() {
  return errno ? std::strerror(errno) : "unknown error";
}

// The input's first NUL byte or line longer than kMaxLineBytes, as an error (the NUL when it comes
// before that line has gone kMaxLineBytes past its start, as a stream read meets them).
void check_text(const Text& text, unsigned threads) {
  const auto bytes = static_cast<uint64_t>(text.end - text.begin);
  constexpr uint64_t kPiece = 4u << 20;
  const uint64_t pieces = (bytes + kPiece - 1) / kPiece;
  std::vector<const char*> nul(pieces, nullptr);
  detail::parallel_for(pieces, threads, [&](size_t i) {
    const uint64_t first = i * kPiece;
    nul[i] = static_cast<const char*>(std::memchr(text.begin + first, '\0', std::min(kPiece, bytes - first)));
  });
  const char* first_nul = nullptr;
  for (const char* p : nul)
    if (p) {
      first_nul = p;
      break;
    }
  // A line longer than kMaxLineBytes covers a whole aligned window of half that length: only a
  // window without a line end needs a closer look.
  constexpr uint64_t kWindow = kMaxLineBytes / 2;
  const char* long_line = nullptr;
  for (uint64_t w = 0; w + kWindow <= bytes && !long_line; w += kWindow) {
    const char* window = text.begin + w;
    if (std::memchr(window, '\n', kWindow)) continue;
    const char* start = window;
    while (start > text.begin && start[-1] != '\n') --start;
    const auto* nl = static_cast<const char*>(std::memchr(window + kWindow, '\n', bytes - w - kWindow));
    const char* line_end = nl ? nl : text.end;
    if (static_cast<uint64_t>(line_end - start) > kMaxLineBytes) long_line = start;
  }
  if (first_nul && (!long_line || first_nul <= long_line + kMaxLineBytes))
    throw text.error_at(first_nul, "NUL byte: this is not a text CSV file");
  if (long_line) {
    const uint64_t line = 1 + static_cast<uint64_t>(std::count(text.begin, long_line, '\n'));
    throw text.error_at(long_line, "line " + std::to_string(line) + " is longer than " +
                                       std::to_string(kMaxLineBytes >> 20) + " MiB (no line end found)");
  }
}

}  // namespace

Table read_csv_text(std::string_view data, std::string_view source, const CsvReadOptions& options) {
  Text text;
  text.source = source;
  text.begin = data.data();
  text.end = data.data() + data.size();
  if (data.substr(0, 3) == "\xEF\xBB\xBF") text.begin += 3;
  check_text(text, detail::worker_count(options.threads));
  // Trailing blank lines go: keep everything up to the last character that is not blank.
  while (text.end > text.begin && (is_blank(text.end[-1]) || text.end[-1] == '\n' || text.end[-1] == '\r')) --text.end;
  return parse(text, options);
}

Table read_csv(std::istream& in, std::string_view source, const CsvReadOptions& options) {
  // Read whole, failing as soon as the input cannot be a CSV text: a NUL byte, or a line longer
  // than kMaxLineBytes (so an endless or binary input fails at once instead of filling memory).
  std::string data;
  char buffer[1 << 16];
  uint64_t line = 1;
  size_t line_start = 0;  // offset of the current line's first byte
  const auto error = [&](uint64_t column, const std::string& what) {
    return Error(ErrorCode::InvalidInput,
                 std::string(source) + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
  };
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    const size_t offset = data.size();
    data.append(buffer, static_cast<size_t>(in.gcount()));
    for (size_t i = offset; i < data.size(); ++i) {
      if (data[i] == '\n') {
        ++line;
        line_start = i + 1;
      } else if (data[i] == '\0') {
        throw error(i - line_start + 1, "NUL byte: this is not a text CSV file");
      }
    }
    if (data.size() - line_start > kMaxLineBytes)
      throw error(1, "line " + std::to_string(line) + " is longer than " + std::to_string(kMaxLineBytes >> 20) +
                         " MiB (no line end found)");
  }
  if (in.bad()) throw Error(ErrorCode::Io, "cannot read '" + excerpt(source, 4096) + "': " + io_reason());
  return read_csv_text(data, source, options);
}

Table read_csv_file(const std::string& path, const CsvReadOptions& options) {
  // Pipes and devices are read as streams (checked while they are read: /dev/zero fails at once);
  // regular files are mapped.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in.is_open()) throw Error(ErrorCode::Io, "cannot open '" + excerpt(path, 4096) + "': " + io_reason());
    return read_csv(in, path, options);
  }
  // Mapped without MAP_POPULATE: its pages are mapped on all threads, and dropped on all threads
  // once read (each a serial step of about 60 ms per GB on one thread).
  const detail::FileBytes file(path, /*populate=*/false);
  file.populate(options.threads);
  Table table = read_csv_text(file.bytes(), path, options);
  file.release(options.threads);
  return table;
}

}  // namespace gfxq
