#include "duckdb/duckdb_client.h"

#include <dlfcn.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <utility>

#include "gfxq/arrow.h"
#include "gfxq/error.h"

namespace gfxq::duckdb {

namespace {

// The C API's duckdb_result (an ABI since DuckDB 1.0): the fields are deprecated, only its size and
// alignment matter; it is read through the API's functions.
struct ResultAbi {
  uint64_t deprecated_column_count;
  uint64_t deprecated_row_count;
  uint64_t deprecated_rows_changed;
  void* deprecated_columns;
  char* deprecated_error_message;
  void* internal_data;
};

constexpr int kDuckDbSuccess = 0;  // duckdb_state

// Names of the C API's duckdb_type values.
std::string type_name(int type) {
  switch (type) {
    case 1: return "BOOLEAN";
    case 2: return "TINYINT";
    case 3: return "SMALLINT";
    case 4: return "INTEGER";
    case 5: return "BIGINT";
    case 6: return "UTINYINT";
    case 7: return "USMALLINT";
    case 8: return "UINTEGER";
    case 9: return "UBIGINT";
    case 10: return "FLOAT";
    case 11: return "DOUBLE";
    case 12: return "TIMESTAMP";
    case 13: return "DATE";
    case 14: return "TIME";
    case 15: return "INTERVAL";
    case 16: return "HUGEINT";
    case 17: return "VARCHAR";
    case 18: return "BLOB";
    case 19: return "DECIMAL";
    default: return "TYPE#" + std::to_string(type);
  }
}

std::string quote_identifier(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string quote_literal(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

std::string sql_type(const std::string& type, const std::string& path) {
  if (type == "int") return "INTEGER";
  if (type == "bigint") return "BIGINT";
  if (type == "float") return "REAL";
  if (type == "double") return "DOUBLE";
  if (type == "string") return "VARCHAR";
  if (type == "date") return "DATE";
  throw Error(ErrorCode::InvalidInput, path + ": header type '" + type +
                                           "' has no DuckDB type here "
                                           "(int, bigint, float, double, string, date)");
}

}  // namespace

struct Client::Api {
  const char* (*library_version)();
  int (*open)(const char*, void**);
  void (*close)(void**);
  int (*connect)(void*, void**);
  void (*disconnect)(void**);
  int (*query)(void*, const char*, ResultAbi*);
  void (*destroy_result)(ResultAbi*);
  const char* (*result_error)(ResultAbi*);
  uint64_t (*column_count)(ResultAbi*);
  uint64_t (*row_count)(ResultAbi*);
  const char* (*column_name)(ResultAbi*, uint64_t);
  int (*column_type)(ResultAbi*, uint64_t);
  bool (*value_is_null)(ResultAbi*, uint64_t, uint64_t);
  char* (*value_varchar)(ResultAbi*, uint64_t, uint64_t);
  void (*free)(void*);
  int (*prepare)(void*, const char*, void**);
  const char* (*prepare_error)(void*);
  int (*execute_prepared)(void*, ResultAbi*);
  void (*destroy_prepare)(void**);
  // The Arrow functions of the C API (nullptr when the library lacks them).
  int (*arrow_scan)(void*, const char*, void*) = nullptr;
  int (*query_arrow)(void*, const char*, void**) = nullptr;
  int (*query_arrow_schema)(void*, void**) = nullptr;
  int (*query_arrow_array)(void*, void**) = nullptr;
  const char* (*query_arrow_error)(void*) = nullptr;
  void (*destroy_arrow)(void**) = nullptr;
};

std::string default_library_path() {
  const char* env = std::getenv("GFXQ_DUCKDB_LIB");
  return env && *env ? env : kInstalledLibrary;
}

Client::Client(const std::string& library_path) : api_(std::make_unique<Api>()) {
  // The library stays loaded for the rest of the process (no dlclose): DuckDB keeps thread-local
  // state, and other clients may share the handle.
  void* lib = dlopen(library_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw Error(ErrorCode::Io, "DuckDB's library '" + library_path + "' could not be loaded (" +
                                   (why ? why : "no reason given") +
                                   "): run .ci/install-deps, which installs it in /opt/gfxq/duckdb, "
                                   "or set GFXQ_DUCKDB_LIB to a libduckdb.so");
  }
  auto bind = [&](auto& fn, const char* name) {
    void* sym = dlsym(lib, name);
    if (!sym)
      throw Error(ErrorCode::Io, "DuckDB's library '" + library_path + "' lacks the C API function " + name +
                                     ": run .ci/install-deps for the version gfxq expects");
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(sym);
  };
  Api& a = *api_;
  bind(a.library_version, "duckdb_library_version");
  bind(a.open, "duckdb_open");
  bind(a.close, "duckdb_close");
  bind(a.connect, "duckdb_connect");
  bind(a.disconnect, "duckdb_disconnect");
  bind(a.query, "duckdb_query");
  bind(a.destroy_result, "duckdb_destroy_result");
  bind(a.result_error, "duckdb_result_error");
  bind(a.column_count, "duckdb_column_count");
  bind(a.row_count, "duckdb_row_count");
  bind(a.column_name, "duckdb_column_name");
  bind(a.column_type, "duckdb_column_type");
  bind(a.value_is_null, "duckdb_value_is_null");
  bind(a.value_varchar, "duckdb_value_varchar");
  bind(a.free, "duckdb_free");
  bind(a.prepare, "duckdb_prepare");
  bind(a.prepare_error, "duckdb_prepare_error");
  bind(a.execute_prepared, "duckdb_execute_prepared");
  bind(a.destroy_prepare, "duckdb_destroy_prepare");
  const auto bind_optional = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
  };
  bind_optional(a.arrow_scan, "duckdb_arrow_scan");
  bind_optional(a.query_arrow, "duckdb_query_arrow");
  bind_optional(a.query_arrow_schema, "duckdb_query_arrow_schema");
  bind_optional(a.query_arrow_array, "duckdb_query_arrow_array");
  bind_optional(a.query_arrow_error, "duckdb_query_arrow_error");
  bind_optional(a.destroy_arrow, "duckdb_destroy_arrow");
  if (a.open(nullptr, &database_) != kDuckDbSuccess)
    throw Error(ErrorCode::Internal, "DuckDB could not open an in-memory database");
  if (a.connect(database_, &connection_) != kDuckDbSuccess) {
    a.close(&database_);
    throw Error(ErrorCode::Internal, "DuckDB could not connect to its in-memory database");
  }
}

Client::~Client() {
  api_->disconnect(&connection_);
  api_->close(&database_);
}

std::string Client::version() const {
  return api_->library_version();
}

void Client::set_threads(unsigned threads) {
  if (threads > 0) query("SET threads = " + std::to_string(threads));
}

double Client::load_csv(const std::string& name, const std::string& path) {
  std::ifstream in(path);
  std::string header;
  if (!in || !std::getline(in, header)) throw Error(ErrorCode::Io, "cannot read '" + path + "'");
  if (!header.empty() && header.back() == '\r') header.pop_back();
  std::string columns;
  size_t start = 0;
  while (start <= header.size()) {
    const size_t comma = std::min(header.find(',', start), header.size());
    const std::string field = header.substr(start, comma - start);
    const size_t colon = field.find(':');
    if (colon == std::string::npos || colon == 0)
      throw Error(ErrorCode::InvalidInput, path + ": header field '" + field + "' is not NAME:TYPE");
    columns += (columns.empty() ? "" : ", ") + quote_identifier(field.substr(0, colon)) + " " +
               sql_type(field.substr(colon + 1), path);
    start = comma + 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  query("CREATE OR REPLACE TABLE " + quote_identifier(name) + " (" + columns + ")");
  query("COPY " + quote_identifier(name) + " FROM " + quote_literal(path) +
        " (FORMAT csv, HEADER true, DELIMITER ',', QUOTE '\"', ESCAPE '\"')");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

namespace {

// `r` (a result `state` says succeeded or failed, `seconds` the run's wall time) read whole and
// destroyed; Error(InvalidQuery) with DuckDB's message, naming `sql`, when it failed.
template <class Api>
QueryResult read_result(const Api& api, ResultAbi& r, int state, double seconds, const std::string& sql) {
  QueryResult out;
  out.seconds = seconds;
  struct Destroy {
    const Api& api;
    ResultAbi& r;
    ~Destroy() { api.destroy_result(&r); }
  } destroy{api, r};
  if (state != kDuckDbSuccess) {
    const char* message = api.result_error(&r);
    throw Error(ErrorCode::InvalidQuery,
                std::string("DuckDB: ") + (message ? message : "query failed") + "\n  in: " + sql);
  }
  const uint64_t cols = api.column_count(&r), rows = api.row_count(&r);
  for (uint64_t c = 0; c < cols; ++c) {
    out.names.emplace_back(api.column_name(&r, c));
    out.types.push_back(type_name(api.column_type(&r, c)));
  }
  out.rows.resize(rows);
  for (uint64_t row = 0; row < rows; ++row) {
    out.rows[row].resize(cols);
    for (uint64_t c = 0; c < cols; ++c) {
      if (api.value_is_null(&r, c, row)) continue;
      char* text = api.value_varchar(&r, c, row);
      if (text) {
        out.rows[row][c] = std::string(text);
        api.free(text);
      }
    }
  }
  return out;
}

}  // namespace

QueryResult Client::query(const std::string& sql) {
  ResultAbi r{};
  const auto t0 = std::chrono::steady_clock::now();
  const int state = api_->query(connection_, sql.c_str(), &r);
  return read_result(*api_, r, state, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                     sql);
}

Client::Prepared::~Prepared() {
  if (statement_) api_->destroy_prepare(&statement_);
}

Client::Prepared::Prepared(Prepared&& o) noexcept
    : api_(o.api_), statement_(std::exchange(o.statement_, nullptr)), sql_(std::move(o.sql_)) {}

Client::Prepared& Client::Prepared::operator=(Prepared&& o) noexcept {
  if (this != &o) {
    if (statement_) api_->destroy_prepare(&statement_);
    api_ = o.api_;
    statement_ = std::exchange(o.statement_, nullptr);
    sql_ = std::move(o.sql_);
  }
  return *this;
}

Client::Prepared Client::prepare(const std::string& sql) {
  Prepared p;
  p.api_ = api_.get();
  p.sql_ = sql;
  const int state = api_->prepare(connection_, sql.c_str(), &p.statement_);
  if (state != kDuckDbSuccess) {
    const char* message = p.statement_ ? api_->prepare_error(p.statement_) : nullptr;
    throw Error(ErrorCode::InvalidQuery,
                std::string("DuckDB: ") + (message ? message : "prepare failed") + "\n  in: " + sql);
  }
  return p;
}

QueryResult Client::execute(Prepared& statement) {
  if (!statement.statement_ || statement.api_ != api_.get())
    throw Error(ErrorCode::InvalidInput, "DuckDB: the prepared statement is empty or another client's");
  ResultAbi r{};
  const auto t0 = std::chrono::steady_clock::now();
  const int state = api_->execute_prepared(statement.statement_, &r);
  return read_result(*api_, r, state, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                     statement.sql_);
}

void Client::scan_arrow(const std::string& name, ArrowArrayStream* stream) {
  if (!api_->arrow_scan) throw Error(ErrorCode::Unsupported, "this DuckDB library has no duckdb_arrow_scan");
  if (api_->arrow_scan(connection_, name.c_str(), stream) != kDuckDbSuccess)
    throw Error(ErrorCode::InvalidQuery, "DuckDB could not register the Arrow stream as '" + name + "'");
}

void Client::query_arrow(const std::string& sql,
                         const std::function<void(const ArrowSchema&, const ArrowArray&)>& batch) {
  Api& a = *api_;
  if (!a.query_arrow || !a.query_arrow_schema || !a.query_arrow_array || !a.query_arrow_error || !a.destroy_arrow)
    throw Error(ErrorCode::Unsupported, "this DuckDB library lacks the duckdb_query_arrow functions");
  void* result = nullptr;
  struct Destroy {
    Api& api;
    void*& result;
    ~Destroy() { api.destroy_arrow(&result); }
  } destroy{a, result};
  if (a.query_arrow(connection_, sql.c_str(), &result) != kDuckDbSuccess)
    throw Error(ErrorCode::InvalidQuery, std::string("DuckDB: ") + a.query_arrow_error(result) + "\n  in: " + sql);
  // duckdb_query_arrow_schema/array write into the struct their argument points at.
  ArrowSchema schema{};
  void* schema_out = &schema;
  if (a.query_arrow_schema(result, &schema_out) != kDuckDbSuccess)
    throw Error(ErrorCode::InvalidQuery, "DuckDB could not give the Arrow schema of: " + sql);
  struct ReleaseSchema {
    ArrowSchema& s;
    ~ReleaseSchema() {
      if (s.release) s.release(&s);
    }
  } release_schema{schema};
  for (;;) {
    ArrowArray array{};
    void* array_out = &array;
    if (a.query_arrow_array(result, &array_out) != kDuckDbSuccess)
      throw Error(ErrorCode::InvalidQuery, "DuckDB could not give an Arrow chunk of: " + sql);
    if (!array.release) return;  // no more chunks
    struct ReleaseArray {
      ArrowArray& a;
      ~ReleaseArray() {
        if (a.release) a.release(&a);
      }
    } release_array{array};
    batch(schema, array);
  }
}

Table to_table(const QueryResult& result) {
  Table table;
  for (size_t c = 0; c < result.names.size(); ++c) {
    const std::string& type = result.types[c];
    Type t;
    if (type == "INTEGER" || type == "SMALLINT" || type == "TINYINT")
      t = Type::Int32;
    else if (type == "BIGINT" || type == "HUGEINT")
      t = Type::Int64;
    else if (type == "FLOAT")
      t = Type::Float32;
    else if (type == "DOUBLE")
      t = Type::Float64;
    else
      throw Error(ErrorCode::Unsupported,
                  "DuckDB result column '" + result.names[c] + "' is " + type + ", which a gfxq table cannot hold");
    Column column = Column::make(result.names[c], t);
    for (const auto& row : result.rows) {
      const std::optional<std::string>& cell = row[c];
      if (!cell) {
        column.push(std::monostate{});
        continue;
      }
      const char* begin = cell->data();
      const char* end = begin + cell->size();
      std::from_chars_result parsed{};
      switch (t) {
        case Type::Int32: {
          int32_t v = 0;
          parsed = std::from_chars(begin, end, v);
          column.push(v);
          break;
        }
        case Type::Int64: {
          int64_t v = 0;
          parsed = std::from_chars(begin, end, v);
          if (parsed.ec == std::errc::result_out_of_range)
            throw Error(ErrorCode::Overflow,
                        "DuckDB result column '" + result.names[c] + "': " + *cell + " does not fit a bigint");
          column.push(v);
          break;
        }
        case Type::Float32: {
          float v = 0;
          parsed = std::from_chars(begin, end, v);
          column.push(v);
          break;
        }
        case Type::Float64: {
          double v = 0;
          parsed = std::from_chars(begin, end, v);
          column.push(v);
          break;
        }
        case Type::String:
        case Type::Date: break;  // never chosen above
      }
      if (parsed.ec != std::errc{} || parsed.ptr != end)
        throw Error(ErrorCode::Internal,
                    "DuckDB result column '" + result.names[c] + "': cannot read '" + *cell + "' as " + type);
    }
    table.columns.push_back(std::move(column));
  }
  return table;
}

}  // namespace gfxq::duckdb
