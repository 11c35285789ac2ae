#pragma once
//! \file ssb.h
//! The Star Schema Benchmark's data generator (O'Neil, O'Neil, Chen, revision 3): the five tables
//! as typed CSV files or as tables in memory, seeded, the same for every thread count. docs/SSB.md
//! describes the columns, their distributions and where a detail is gfxq's choice.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gfxq/table.h"

namespace gfxq {

//! What generate_ssb writes and generate_ssb_tables makes.
struct SsbOptions {
  double scale_factor = 1;  //!< SF, in (0, 300]: lineorder has about 6,000,000·SF rows
  std::string out_dir;      //!< the folder of the CSV files (created if missing); generate_ssb only
  uint64_t seed = 1;        //!< the same seed and SF give the same files on every machine
  unsigned threads = 0;     //!< worker threads; 0: std::thread::hardware_concurrency()
  //! Tables to write, by name (see ssb_table_names()); empty: all five.
  std::vector<std::string> tables;
  //! Columns to keep, by name (see ssb_column_names()), in each table's schema order whatever the
  //! order here; a table none of whose columns is named is left out. Empty: every column. The
  //! values of the kept columns do not depend on it.
  std::vector<std::string> columns;
  //! Rows per unit of work (orders for lineorder); 0: the default. Tests make it small to cross
  //! many chunk boundaries; the output does not depend on it.
  uint64_t chunk_rows = 0;
};

//! Row counts of the five tables.
struct SsbCardinalities {
  uint64_t lineorder = 0;  //!< about 6,000,000·SF (1,500,000·SF orders of 1 to 7 lines)
  uint64_t date = 0;       //!< 2,556 (1992-01-01 to 1998-12-30)
  uint64_t customer = 0;   //!< 30,000·SF
  uint64_t supplier = 0;   //!< 2,000·SF
  uint64_t part = 0;       //!< 200,000·⌊1 + log2 SF⌋ for SF >= 1, 200,000·SF below
};

//! The table names in the order generate_ssb writes them: lineorder, date, customer, supplier, part.
const std::vector<std::string>& ssb_table_names();

//! The column names of SSB table `table` in schema order; Error(InvalidQuery) for an unknown table.
std::vector<std::string> ssb_column_names(std::string_view table);

//! The exact row counts generate_ssb writes for `options` (out_dir, tables and threads aside); only
//! the orders' line counts are drawn, so SF 100 takes a fraction of a second. Error(InvalidQuery)
//! for an SF outside (0, 300].
SsbCardinalities ssb_cardinalities(const SsbOptions& options);

//! Writes `out_dir`/<table>.csv for the selected tables, streaming (memory use does not grow with
//! SF), each file first as <table>.csv.tmp and renamed when complete. Returns the row counts of all
//! five tables (as ssb_cardinalities). Error(InvalidQuery) for a bad option (SF, unknown table or
//! column, empty out_dir), Error(Io) naming the path when a file cannot be written.
SsbCardinalities generate_ssb(const SsbOptions& options);

//! The selected tables (in ssb_table_names() order) with their selected columns, made in memory on
//! `options.threads` threads: exactly the tables read_csv_file gives for generate_ssb's files of the
//! same options (names, types, values, row order; STRING columns coded into the sorted dictionary
//! of the strings that occur), without the text. For Catalog::add. out_dir is not used.
//! Error(InvalidQuery) for a bad option (as generate_ssb), Error(ResultTooLarge) when a table would
//! exceed the host limit (half the physical memory) before anything is allocated.
std::vector<std::pair<std::string, Table>> generate_ssb_tables(const SsbOptions& options);

}  // namespace gfxq
