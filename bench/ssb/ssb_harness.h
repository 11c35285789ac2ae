#pragma once
// The Star Schema Benchmark's queries against DuckDB (the oracle and CPU peer) and the comparison
// of gfxq's answers with DuckDB's. Used by tests/test_ssb.cpp and gfxq_ssb_bench.

#include <string>
#include <vector>

#include "duckdb/duckdb_client.h"
#include "gfxq/table.h"

namespace gfxq::ssb {

//! One SSB query: its name ("q1.1") and its SQL text, as in bench/ssb/<name>.sql.
struct Query {
  std::string name;  //!< "q1.1" ... "q4.3"
  std::string sql;   //!< the file's text
};

//! The 13 query names in flight order: q1.1, q1.2, q1.3, q2.1, ..., q4.3.
const std::vector<std::string>& query_names();

//! Reads `dir`/<name>.sql for the 13 queries; Error(Io) naming a file that cannot be read.
std::vector<Query> load_queries(const std::string& dir);

//! Loads `data_dir`/<table>.csv of the five SSB tables into `client` (tables named as the files);
//! returns the load's wall seconds.
double load_tables(duckdb::Client& client, const std::string& data_dir);

//! Compares gfxq's answer `got` to `sql` with DuckDB's `expected`: "" when they are equal, else a
//! description of the first difference. Cells compare as text (gfxq's format_value against
//! DuckDB's output; NULL only equals NULL), FLOAT and DOUBLE columns by value. Rows compare in
//! order of the query's ORDER BY keys (output columns named in its last ORDER BY clause): rows
//! whose keys tie may come in either order; without ORDER BY, or with a key that is not an output
//! column, the rows compare as multisets.
std::string compare(const duckdb::QueryResult& expected, const Table& got, const std::string& sql);

//! The ORDER BY keys of `sql` as indices into `columns` (case-insensitive); empty when the query
//! has no ORDER BY or a key is not one of `columns`.
std::vector<size_t> order_key_columns(const std::string& sql, const std::vector<std::string>& columns);

}  // namespace gfxq::ssb
