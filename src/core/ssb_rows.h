#pragma once
// The SSB generator's rows (src/core/ssb.cpp): the one source of values that both the CSV writer
// (generate_ssb) and the in-memory tables (generate_ssb_tables, src/core/ssb_tables.cpp) consume.
// A table's row function draws each row from the row's own random stream and hands it to a sink as
// cells; the sink formats it as CSV text or stores it into columns.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gfxq/ssb.h"

namespace gfxq::detail::ssb {

//! The row counts and seed of one generation.
struct Plan {
  uint64_t seed = 0;
  uint64_t orders = 0, customers = 0, suppliers = 0, parts = 0;
};

//! The plan of `options`; Error(InvalidQuery) for an SF outside (0, 300].
Plan make_plan(const SsbOptions& options);
//! The worker threads of `options`; Error(InvalidQuery) above 4096.
unsigned worker_count(const SsbOptions& options);

//! A fixed set of strings a STRING column draws from, numbered by the generator ("raw" index: a
//! city is nation·10 + digit), with each one's position in byte-wise sorted order.
struct Domain {
  std::vector<std::string> text;    //!< by raw index (repeats allowed)
  std::vector<std::string> sorted;  //!< the distinct strings of `text`, ascending byte-wise
  std::vector<int32_t> rank;        //!< by raw index: the position of text[raw] in `sorted`
  std::vector<std::string> csv;     //!< by raw index: text[raw] as a CSV field (quoted where needed)
};

//! How a column's cells are given: INT values, raw indices into a Domain, or free text.
enum class ColumnKind { Int, Domain, Text };

//! One column of a generated table.
struct ColumnDef {
  const char* name;
  ColumnKind kind;
  const Domain* domain;  //!< ColumnKind::Domain only
};

//! One cell of a row: `value` for Int (the number) and Domain (the raw index); `text` for Text
//! (valid during the sink's call only).
struct Cell {
  int64_t value = 0;
  std::string_view text;
};

//! Receives the rows of a chunk in order: row(context, cells), one cell per column of the table.
struct RowSink {
  void* context;
  void (*row)(void* context, const Cell* cells);
};

//! One table of the generator.
struct TableDef {
  const char* name;
  std::vector<ColumnDef> columns;  //!< in schema order
  uint64_t default_chunk;          //!< units per chunk
  uint64_t (*units)(const Plan&);  //!< orders for lineorder, else rows
  //! Hands the rows of units [first, first + count) to `sink` in order; returns how many.
  uint64_t (*rows)(const Plan&, uint64_t first, uint64_t count, const RowSink& sink);
};

//! The five tables, in ssb_table_names() order (lineorder first).
const std::array<TableDef, 5>& table_defs();

//! The lineorder rows of orders [first, end): the sum of their line counts (one draw per order).
uint64_t count_lines(const Plan& plan, uint64_t first, uint64_t end);

//! Per table (table_defs() order), which of its columns `options` selects (tables, columns): all
//! false for a table left out. Error(InvalidQuery) naming an unknown table or column, or a column
//! whose table `options.tables` leaves out.
std::vector<std::vector<bool>> selected_columns(const SsbOptions& options);

}  // namespace gfxq::detail::ssb
