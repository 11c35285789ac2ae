#pragma once
//! \file tables.h
//! Host tables of partitioned queries: row ranges, slices of a table, and the partial results
//! collected into one table for the merge (docs/MULTI_GPU.md).

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/partitioned/split.h"
#include "gfxq/table.h"
#include "plan/logical.h"

namespace gfxq::engine::partitioned {

//! Row range [first, first + count) of partition `index` of `parts` over `rows` rows: the rows split
//! as evenly as whole rows allow, in order (partition i starts at floor(i * rows / parts)).
std::pair<uint64_t, uint64_t> row_range(uint64_t rows, size_t parts, size_t index) noexcept;

//! Rows [first, first + count) of `table` (same names, types and dictionaries).
Table slice(const Table& table, uint64_t first, uint64_t count);

//! Bytes of a table's values and NULL flags (what moving it between memories costs).
uint64_t table_bytes(const Table& table) noexcept;

//! The tables concatenated in order as one table of `schema`'s types, columns named c0, c1, ...;
//! STRING codes re-encoded into the schema's dictionary where a part has another.
//! Error(Internal) if a part does not match the schema.
Table concatenate(const std::vector<Table>& parts, const plan::Schema& schema);

//! One partition's tables under their catalog names: its row range of a split's partitioned table and
//! copies of the broadcast ones, each remembered with the version it was made from and remade when
//! the source table is replaced or changes role (so the compute backend's resident columns, keyed by
//! version, stay valid from one query to the next).
class PartitionCatalog {
 public:
  //! The tables of partition `index` of `parts` for `split` over `catalog`.
  const Catalog& prepare(const Split& split, const Catalog& catalog, size_t parts, size_t index);

 private:
  struct From {
    uint64_t version = 0;
    bool sliced = false;
  };
  Catalog catalog_;
  std::map<std::string, From, std::less<>> from_;
};

//! `table` as bytes for a transport between processes (MPI): per column its type, values, NULL flags
//! and, for STRING, its dictionary's strings.
std::vector<uint8_t> serialize(const Table& table);

//! The table serialize() wrote; Error(Internal) for malformed bytes.
Table deserialize(const uint8_t* bytes, size_t size);

}  // namespace gfxq::engine::partitioned
