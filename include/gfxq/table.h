#pragma once
//! \file table.h
//! Columnar host tables, the catalog of named tables, CSV input/output and seeded generators.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gfxq {

//! Column types. Input tables hold Int32 ("int"), Float32 ("float"), String ("string": dictionary
//! codes, see Dictionary) and Date ("date": days since 1970-01-01); results may also hold Int64
//! (COUNT, SUM of INT, integer arithmetic) and Float64 (AVG, SUM of FLOAT).
enum class Type { Int32, Float32, Int64, Float64, String, Date };

//! SQL-ish name of a type: "int", "float", "bigint", "double", "string", "date".
const char* to_string(Type type) noexcept;

//! A DATE value: days since 1970-01-01 (proleptic Gregorian calendar).
struct Date {
  int32_t days = 0;  //!< days since 1970-01-01, negative before it
  auto operator<=>(const Date&) const = default;
};

//! One cell: NULL (std::monostate) or a value of the column's type (std::string for String).
using Value = std::variant<std::monostate, int32_t, float, int64_t, double, std::string, Date>;

//! `YYYY-MM-DD` (years 0001 to 9999, a real calendar day) as a Date; nullopt otherwise.
std::optional<Date> parse_date(std::string_view text) noexcept;
//! The ISO form `YYYY-MM-DD` of a date (years before 1 or after 9999 as a signed year).
std::string format_date(Date date);
//! The year, month (1-12) and day (1-31) of a date.
void civil_from_date(Date date, int32_t& year, int32_t& month, int32_t& day) noexcept;
//! The date of a year, month (1-12) and day (1-31); the caller checks the day exists.
Date date_from_civil(int32_t year, int32_t month, int32_t day) noexcept;

//! The distinct strings of a STRING column, sorted byte-wise (as memcmp, the order SQLite's BINARY
//! collation and DuckDB use). A value is stored as its index (code) here, so comparing codes is
//! comparing strings: `=`, `<`, `BETWEEN` and `IN` on strings run as 32-bit integer comparisons.
//! The strings lie in one block of bytes, one after another (data()), with size() + 1 offsets into
//! it (offsets()): string k is the bytes [offsets()[k], offsets()[k + 1]), any bytes (NUL too).
class Dictionary {
 public:
  //! A random-access iterator over the strings in code order; its elements are string_views.
  class Iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;  //!< for the standard algorithms
    using value_type = std::string_view;                        //!< a string of the dictionary
    using difference_type = std::ptrdiff_t;                     //!< codes apart
    using reference = std::string_view;                         //!< elements are returned by value
    using pointer = void;                                       //!< no addressable element

    Iterator() = default;
    //! The string at this position.
    std::string_view operator*() const noexcept { return dictionary_->value(code_); }
    //! The string `n` positions on.
    std::string_view operator[](difference_type n) const noexcept {
      return dictionary_->value(static_cast<size_t>(static_cast<difference_type>(code_) + n));
    }
    //! The code of the string at this position.
    size_t code() const noexcept { return code_; }
    Iterator& operator++() noexcept { return ++code_, *this; }                    //!< next string
    Iterator operator++(int) noexcept { return Iterator(dictionary_, code_++); }  //!< next string
    Iterator& operator--() noexcept { return --code_, *this; }                    //!< previous string
    Iterator operator--(int) noexcept { return Iterator(dictionary_, code_--); }  //!< previous string
    //! `n` strings on.
    Iterator& operator+=(difference_type n) noexcept {
      code_ = static_cast<size_t>(static_cast<difference_type>(code_) + n);
      return *this;
    }
    //! `n` strings back.
    Iterator& operator-=(difference_type n) noexcept { return *this += -n; }
    //! `n` strings on.
    friend Iterator operator+(Iterator i, difference_type n) noexcept { return i += n; }
    //! `n` strings on.
    friend Iterator operator+(difference_type n, Iterator i) noexcept { return i += n; }
    //! `n` strings back.
    friend Iterator operator-(Iterator i, difference_type n) noexcept { return i -= n; }
    //! Strings from `b` to `a`.
    friend difference_type operator-(const Iterator& a, const Iterator& b) noexcept {
      return static_cast<difference_type>(a.code_) - static_cast<difference_type>(b.code_);
    }
    //! Same position (of the same dictionary).
    friend bool operator==(const Iterator& a, const Iterator& b) noexcept { return a.code_ == b.code_; }
    //! Order of positions (of the same dictionary).
    friend auto operator<=>(const Iterator& a, const Iterator& b) noexcept { return a.code_ <=> b.code_; }

   private:
    friend class Dictionary;
    Iterator(const Dictionary* dictionary, size_t code) noexcept : dictionary_(dictionary), code_(code) {}
    const Dictionary* dictionary_ = nullptr;
    size_t code_ = 0;
  };

  //! An empty dictionary.
  Dictionary() = default;
  //! Adopts the bytes and offsets of strings the caller has sorted ascending and made distinct:
  //! `offsets` holds one more entry than there are strings, ascending from 0 to the number of bytes
  //! `bytes` holds. Neither is checked (for builders that sort, such as the CSV reader; a reader of
  //! outside data checks them first, see sorted_at()).
  Dictionary(std::unique_ptr<char[]> bytes, std::vector<uint64_t> offsets) noexcept
      : bytes_(std::move(bytes)), offsets_(std::move(offsets)) {}
  //! A copy of `other`'s strings.
  Dictionary(const Dictionary& other);
  //! Replaces the strings by a copy of `other`'s.
  Dictionary& operator=(const Dictionary& other);
  Dictionary(Dictionary&&) noexcept = default;             //!< takes `other`'s strings
  Dictionary& operator=(Dictionary&&) noexcept = default;  //!< takes `other`'s strings

  //! A dictionary of the distinct strings of `strings` (any order, repeats allowed).
  static std::shared_ptr<const Dictionary> of(std::vector<std::string> strings);
  //! The strings of all of `parts` (each sorted and distinct, as every Dictionary), merged in
  //! linear time.
  static std::shared_ptr<const Dictionary> union_of(const std::vector<const Dictionary*>& parts);

  //! Number of distinct values.
  size_t size() const noexcept { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  //! True when the dictionary holds no string.
  bool empty() const noexcept { return size() == 0; }
  //! The string of `code` (0 <= code < size()).
  std::string_view value(size_t code) const noexcept {
    return {bytes_.get() + offsets_[code], static_cast<size_t>(offsets_[code + 1] - offsets_[code])};
  }
  //! The code of `s`, or nullopt when it is not in the dictionary.
  std::optional<int32_t> find(std::string_view s) const noexcept;
  //! How many values sort before `s`: the code `s` has or would have.
  int32_t lower_bound(std::string_view s) const noexcept;
  //! The first string, in code order.
  Iterator begin() const noexcept { return {this, 0}; }
  //! Past the last string.
  Iterator end() const noexcept { return {this, size()}; }
  //! The strings' bytes, one after another (string k at offsets()[k]); null when there are none.
  const char* data() const noexcept { return bytes_.get(); }
  //! The strings' bytes in all.
  uint64_t bytes() const noexcept { return offsets_.empty() ? 0 : offsets_.back(); }
  //! size() + 1 byte offsets into data(), ascending from 0: string k ends where string k + 1 starts.
  std::span<const uint64_t> offsets() const noexcept;
  //! The strings as a vector (a copy).
  std::vector<std::string> strings() const;
  //! The first code k > 0 whose string does not sort strictly after string k - 1 in [first, last)
  //! (codes), or `last` when there is none: a check of adopted strings from outside (after their
  //! offsets are checked), in pieces a caller may run on several threads.
  size_t sorted_at(size_t first, size_t last) const noexcept;
  //! Same strings in the same order.
  friend bool operator==(const Dictionary& a, const Dictionary& b) noexcept;

 private:
  std::unique_ptr<char[]> bytes_;  // the strings' bytes (null when there are none)
  std::vector<uint64_t> offsets_;  // size() + 1, ascending from 0; empty when there are no strings
};

//! A named, typed column. Values live in the vector matching the type's storage (storage_type:
//! String codes and Date days in the int32 vector); `nulls` is empty when the column has no NULLs,
//! else one byte per row (1 = NULL).
struct Column {
  std::string name;         //!< column name, unique within its table
  Type type = Type::Int32;  //!< element type
  std::variant<std::vector<int32_t>, std::vector<float>, std::vector<int64_t>, std::vector<double>> data;
  std::vector<uint8_t> nulls;  //!< empty, or one flag per row (1 = NULL)
  //! String columns: the dictionary their codes index (never null for a String column); else null.
  std::shared_ptr<const Dictionary> dictionary;

  //! An empty column of the given name and type (String: with an empty dictionary).
  static Column make(std::string name, Type type);
  //! An Int32 column holding `values`.
  static Column ints(std::string name, std::vector<int32_t> values);
  //! A Float32 column holding `values`.
  static Column floats(std::string name, std::vector<float> values);
  //! A String column holding `values` (the dictionary is built from them).
  static Column strings(std::string name, const std::vector<std::string>& values);
  //! A String column of `codes` into `dictionary` (each code must index it).
  static Column coded(std::string name, std::vector<int32_t> codes, std::shared_ptr<const Dictionary> dictionary);
  //! A Date column holding `days` (days since 1970-01-01).
  static Column dates(std::string name, std::vector<int32_t> days);

  //! Number of rows.
  uint64_t size() const noexcept;
  //! True when row `row` is NULL.
  bool is_null(uint64_t row) const noexcept { return !nulls.empty() && nulls[row] != 0; }
  //! The cell at `row` (NULL-aware).
  Value value(uint64_t row) const;
  //! Appends one cell; the Value's alternative must match `type` or be NULL. A string not yet in
  //! the dictionary is added to a copy of it and the codes renumbered (linear time: for building
  //! small results; build large String columns with strings() or coded()).
  void push(const Value& v);
  //! The string at `row` of a String column (a view into its dictionary).
  std::string_view string_at(uint64_t row) const;
  //! Typed access to the values; throws Error(Internal) if T does not match the storage type
  //! (int32_t for Int32, String codes and Date days).
  template <class T>
  const std::vector<T>& as() const;
  //! Mutable typed access; throws Error(Internal) if T does not match `type`.
  template <class T>
  std::vector<T>& as();
};

//! The C++ type a column of `type` stores its values as: Int32 for Int32, String (codes) and Date
//! (days); the type itself otherwise.
Type storage_type(Type type) noexcept;

//! A table: named columns of equal length. Row counts are 64-bit.
struct Table {
  std::vector<Column> columns;  //!< in schema order

  //! Number of rows (0 for a table without columns).
  uint64_t rows() const noexcept;
  //! Index of the column named `name`, or std::nullopt.
  std::optional<size_t> find(std::string_view name) const noexcept;
  //! The column named `name`; throws Error(InvalidQuery) naming the column and the available ones.
  const Column& column(std::string_view name) const;
  //! Checks equal lengths and unique names; throws Error(InvalidInput) otherwise.
  void validate() const;
  //! Schema as text, e.g. "a:int,b:float".
  std::string schema() const;
};

//! Named tables a query can refer to.
class Catalog {
 public:
  //! Adds or replaces table `name` (validated first). It gets a new version (version()).
  void add(std::string name, Table table);
  //! Removes table `name`; throws Error(InvalidQuery) if absent.
  void remove(std::string_view name);
  //! The table named `name`; throws Error(InvalidQuery) if absent.
  const Table& get(std::string_view name) const;
  //! The version of table `name`: an id unique over every Catalog::add of the process (so it changes
  //! whenever the table is replaced; a copied catalog keeps it, with the same contents). Caches of
  //! table data (the compute backend's resident columns) key on it. Error(InvalidQuery) if absent.
  uint64_t version(std::string_view name) const;
  //! True when a table of that name exists.
  bool contains(std::string_view name) const;
  //! All table names, sorted.
  std::vector<std::string> names() const;

 private:
  std::map<std::string, Table, std::less<>> tables_;
  std::map<std::string, uint64_t, std::less<>> versions_;
};

//! How read_csv works; the defaults suit every input (tests make chunks tiny to cross many cuts).
struct CsvReadOptions {
  unsigned threads = 0;      //!< worker threads; 0: std::thread::hardware_concurrency()
  uint64_t chunk_bytes = 0;  //!< bytes per unit of work, cut at the next record start; 0: automatic
  //! Distinct strings a thread's hash table of a STRING column holds at first; later new strings go
  //! to the merge unmatched unless the column's repeats make the table grow (docs/SQL.md, "CSV").
  //! 0: automatic (2^15). Tests force small tables.
  uint64_t string_table_limit = 0;
  //! Key ranges a STRING column's dictionary is built in, in parallel; 0: automatic. For tests.
  uint64_t string_merge_ranges = 0;
  //! Called as chunks are parsed with (bytes parsed, bytes in all), from worker threads but never
  //! two calls at once; empty: no calls. For progress lines (gfxq's CLI).
  std::function<void(uint64_t done, uint64_t total)> progress;
};

//! Reads a CSV table (RFC 4180 quoting). Header fields are `name:int`, `name:float`,
//! `name:string`, `name:date` or a bare `name` (bare: INT when every value is an int32 integer,
//! else FLOAT when every value is a number, else DATE when every value is YYYY-MM-DD, else
//! STRING). docs/SQL.md ("CSV") gives every rule. Errors are Error(InvalidInput) naming `source`,
//! line and column (the first error in the input, whatever the thread count); Error(Io) when the
//! input cannot be read. The result does not depend on `options`.
Table read_csv(std::istream& in, std::string_view source = "<stream>", const CsvReadOptions& options = {});
//! Reads a CSV file (see read_csv(std::istream&)), on all cores.
Table read_csv_file(const std::string& path, const CsvReadOptions& options = {});
//! Reads CSV text held in memory (see read_csv(std::istream&)).
Table read_csv_text(std::string_view text, std::string_view source = "<text>", const CsvReadOptions& options = {});

//! How write_csv works.
struct CsvWriteOptions {
  bool typed_header = true;  //!< `a:int` rather than `a` in the header
  unsigned threads = 0;      //!< formatting threads; 0: std::thread::hardware_concurrency()
  uint64_t chunk_rows = 0;   //!< rows per unit of work; 0: automatic
  //! Called on the calling thread after each batch of rows is written, with (rows written, rows).
  std::function<void(uint64_t done, uint64_t total)> progress;
};

//! Writes `table` as CSV: the header (typed: `a:int`), then rows. Floats are written in the
//! shortest form that reads back to the same bits, dates as YYYY-MM-DD, strings quoted as RFC 4180
//! needs; NULL is an empty field. read_csv reads back the same table. Rows are formatted on all
//! cores and written in order.
void write_csv(std::ostream& out, const Table& table, const CsvWriteOptions& options);
//! write_csv with default options but the header's form.
void write_csv(std::ostream& out, const Table& table, bool typed_header = true);
//! Writes a CSV file; Error(Io) on failure.
void write_csv_file(const std::string& path, const Table& table, const CsvWriteOptions& options);
//! write_csv_file with default options but the header's form.
void write_csv_file(const std::string& path, const Table& table, bool typed_header = true);
//! Formats one cell exactly as write_csv does.
std::string format_value(const Value& v);

//! Value distributions of the seeded generators.
enum class Distribution {
  Uniform,   //!< uniform over [lo, hi]
  Skewed,    //!< Zipf-like: a few values very frequent
  Sorted,    //!< uniform values, ascending
  AllEqual,  //!< every row the same value
};

//! Parses "uniform", "skewed", "sorted", "all-equal"; Error(InvalidQuery) otherwise.
Distribution parse_distribution(std::string_view text);
//! Name of a distribution as parse_distribution accepts it.
const char* to_string(Distribution d) noexcept;

//! What one generated column looks like.
struct ColumnSpec {
  std::string name;                           //!< column name
  Type type = Type::Int32;                    //!< Int32 or Float32
  Distribution dist = Distribution::Uniform;  //!< value distribution
  double lo = 0;                              //!< smallest value (Uniform, Skewed, Sorted)
  double hi = 1000000;                        //!< largest value
};

//! Generates `rows` rows; the same seed gives the same table on every machine.
Table generate_table(const std::vector<ColumnSpec>& columns, uint64_t rows, uint64_t seed);

}  // namespace gfxq
