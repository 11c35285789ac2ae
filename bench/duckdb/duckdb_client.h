#pragma once
// DuckDB as the oracle of the tests and the CPU peer of the benchmarks: its C library
// (libduckdb.so from the npm package @duckdb/node-bindings-linux-x64, which .ci/install-deps puts
// in /opt/gfxq/duckdb) loaded at run time with dlopen, so nothing about DuckDB is needed to build.
// The C API functions it calls are declared in duckdb_client.cpp from DuckDB's published C API.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gfxq/table.h"

struct ArrowSchema;
struct ArrowArray;
struct ArrowArrayStream;

namespace gfxq::duckdb {

//! Where .ci/install-deps puts libduckdb.so.
inline constexpr const char* kInstalledLibrary = "/opt/gfxq/duckdb/libduckdb.so";

//! The library to load: $GFXQ_DUCKDB_LIB when set, else kInstalledLibrary.
std::string default_library_path();

//! A query's answer: column names and DuckDB type names, every cell as DuckDB prints it
//! (std::nullopt for NULL), and the query's wall time.
struct QueryResult {
  std::vector<std::string> names;                             //!< column names
  std::vector<std::string> types;                             //!< e.g. "INTEGER", "HUGEINT", "VARCHAR"
  std::vector<std::vector<std::optional<std::string>>> rows;  //!< rows[r][c]
  double seconds = 0;                                         //!< duckdb_query's wall time
};

//! An in-memory DuckDB database and one connection to it.
class Client {
  struct Api;  // the C API's functions, loaded from the library

 public:
  //! Loads `library_path` and opens an in-memory database. A missing or unloadable library is
  //! Error(Io) whose message says to run .ci/install-deps (or to set GFXQ_DUCKDB_LIB).
  explicit Client(const std::string& library_path = default_library_path());
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  //! DuckDB's version, e.g. "v1.5.6".
  std::string version() const;
  //! Sets DuckDB's worker threads (SET threads); 0 leaves DuckDB's default (all cores).
  void set_threads(unsigned threads);
  //! Creates table `name` from a CSV file with a typed header (`a:int,b:string,x:float`; int →
  //! INTEGER, bigint → BIGINT, float → REAL, double → DOUBLE, string → VARCHAR, date → DATE) and
  //! returns the load's wall seconds. Error(InvalidInput) for a header it cannot type,
  //! Error(InvalidQuery) with DuckDB's message when DuckDB rejects the file.
  double load_csv(const std::string& name, const std::string& path);
  //! Runs `sql` and returns its whole result; Error(InvalidQuery) with DuckDB's message on failure.
  QueryResult query(const std::string& sql);

  //! A statement DuckDB parsed and planned once (duckdb_prepare), run by Client::execute; it
  //! belongs to the client that made it and must not outlive it.
  class Prepared {
   public:
    Prepared() = default;
    ~Prepared();
    Prepared(Prepared&& o) noexcept;
    Prepared& operator=(Prepared&& o) noexcept;
    Prepared(const Prepared&) = delete;
    Prepared& operator=(const Prepared&) = delete;

   private:
    friend class Client;
    const Api* api_ = nullptr;
    void* statement_ = nullptr;
    std::string sql_;
  };
  //! Prepares `sql` (duckdb_prepare); Error(InvalidQuery) with DuckDB's message on failure.
  Prepared prepare(const std::string& sql);
  //! Runs `statement` (duckdb_execute_prepared) and returns its whole result, as query() does.
  QueryResult execute(Prepared& statement);
  //! Registers `stream` (the Arrow C Stream Interface, gfxq/arrow.h) as the view `name`
  //! (duckdb_arrow_scan): DuckDB reads it during the next query of the view, once. The caller keeps
  //! the stream alive until then and releases it. Error(Unsupported) when the library lacks the
  //! function.
  void scan_arrow(const std::string& name, ArrowArrayStream* stream);
  //! Runs `sql` and hands each chunk of its result to `batch` as Arrow structs (duckdb_query_arrow);
  //! they are released after each call. Error(InvalidQuery) with DuckDB's message on failure.
  void query_arrow(const std::string& sql, const std::function<void(const ArrowSchema&, const ArrowArray&)>& batch);

 private:
  std::unique_ptr<Api> api_;
  void* database_ = nullptr;
  void* connection_ = nullptr;
};

//! `result` as a gfxq::Table: INTEGER, SMALLINT, TINYINT → int; BIGINT, HUGEINT (within int64) →
//! bigint; FLOAT → float; DOUBLE → double. Error(Unsupported) naming the column for other types
//! (VARCHAR until gfxq tables hold strings), Error(Overflow) for a HUGEINT outside int64.
Table to_table(const QueryResult& result);

}  // namespace gfxq::duckdb
