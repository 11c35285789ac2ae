#pragma once
//! \file tables.h
//! Host tables of partitioned queries: row ranges, slices of a table, and the partial results
//! collected into one table for the merge (docs/MULTI_GPU.md).

#include <cstdint>
#include <utility>
#include <vector>

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

}  // namespace gfxq::engine::partitioned
