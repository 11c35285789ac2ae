#pragma once
//! \file table.h
//! Columnar host tables, the catalog of named tables, CSV input/output and seeded generators.

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gfxq {

//! Column types. Input tables hold Int32 ("int") and Float32 ("float");
//! results may also hold Int64 (COUNT, SUM of INT) and Float64 (AVG, SUM of FLOAT).
enum class Type { Int32, Float32, Int64, Float64 };

//! SQL-ish name of a type: "int", "float", "bigint", "double".
const char* to_string(Type type) noexcept;

//! One cell: NULL (std::monostate) or a value of the column's type.
using Value = std::variant<std::monostate, int32_t, float, int64_t, double>;

//! A named, typed column. Values live in the vector matching the type;
//! `nulls` is empty when the column has no NULLs, else one byte per row (1 = NULL).
struct Column {
  std::string name;                 //!< column name, unique within its table
  Type type = Type::Int32;          //!< element type
  std::variant<std::vector<int32_t>, std::vector<float>, std::vector<int64_t>, std::vector<double>> data;
  std::vector<uint8_t> nulls;       //!< empty, or one flag per row (1 = NULL)

  //! An empty column of the given name and type.
  static Column make(std::string name, Type type);
  //! An Int32 column holding `values`.
  static Column ints(std::string name, std::vector<int32_t> values);
  //! A Float32 column holding `values`.
  static Column floats(std::string name, std::vector<float> values);

  //! Number of rows.
  uint64_t size() const noexcept;
  //! True when row `row` is NULL.
  bool is_null(uint64_t row) const noexcept { return !nulls.empty() && nulls[row] != 0; }
  //! The cell at `row` (NULL-aware).
  Value value(uint64_t row) const;
  //! Appends one cell; the Value's alternative must match `type` or be NULL.
  void push(const Value& v);
  //! Typed access to the values; throws Error(Internal) if T does not match `type`.
  template <class T>
  const std::vector<T>& as() const;
  //! Mutable typed access; throws Error(Internal) if T does not match `type`.
  template <class T>
  std::vector<T>& as();
};

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
  //! Adds or replaces table `name` (validated first).
  void add(std::string name, Table table);
  //! The table named `name`; throws Error(InvalidQuery) if absent.
  const Table& get(std::string_view name) const;
  //! True when a table of that name exists.
  bool contains(std::string_view name) const;
  //! All table names, sorted.
  std::vector<std::string> names() const;

 private:
  std::map<std::string, Table, std::less<>> tables_;
};

//! Reads a CSV table. Header fields are `name:int`, `name:float` or a bare `name`
//! (bare: INT when every value is an int32 integer, else FLOAT). Errors are
//! Error(InvalidInput) naming `source`, line and column; Error(Io) when the file cannot be read.
Table read_csv(std::istream& in, std::string_view source = "<stream>");
//! Reads a CSV file (see read_csv(std::istream&)).
Table read_csv_file(const std::string& path);
//! Writes `table` as CSV: typed header (`a:int`), then rows. Floats are written in the shortest
//! form that reads back to the same bits; NULL is an empty field.
void write_csv(std::ostream& out, const Table& table, bool typed_header = true);
//! Writes a CSV file; Error(Io) on failure.
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
  std::string name;                        //!< column name
  Type type = Type::Int32;                 //!< Int32 or Float32
  Distribution dist = Distribution::Uniform;  //!< value distribution
  double lo = 0;                           //!< smallest value (Uniform, Skewed, Sorted)
  double hi = 1000000;                     //!< largest value
};

//! Generates `rows` rows; the same seed gives the same table on every machine.
Table generate_table(const std::vector<ColumnSpec>& columns, uint64_t rows, uint64_t seed);

}  // namespace gfxq
