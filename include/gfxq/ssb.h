#pragma once
//! \file ssb.h
//! The Star Schema Benchmark's data generator (O'Neil, O'Neil, Chen, revision 3): the five tables
//! as typed CSV files, seeded, the same bytes for every thread count. docs/SSB.md describes the
//! columns, their distributions and where a detail is gfxq's choice.

#include <cstdint>
#include <string>
#include <vector>

namespace gfxq {

//! What generate_ssb writes.
struct SsbOptions {
  double scale_factor = 1;  //!< SF, in (0, 300]: lineorder has about 6,000,000·SF rows
  std::string out_dir;      //!< the folder of the CSV files (created if missing)
  uint64_t seed = 1;        //!< the same seed and SF give the same files on every machine
  unsigned threads = 0;     //!< worker threads; 0: std::thread::hardware_concurrency()
  //! Tables to write, by name (see ssb_table_names()); empty: all five.
  std::vector<std::string> tables;
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

//! The exact row counts generate_ssb writes for `options` (out_dir, tables and threads aside); only
//! the orders' line counts are drawn, so SF 100 takes a fraction of a second. Error(InvalidQuery)
//! for an SF outside (0, 300].
SsbCardinalities ssb_cardinalities(const SsbOptions& options);

//! Writes `out_dir`/<table>.csv for the selected tables, streaming (memory use does not grow with
//! SF), each file first as <table>.csv.tmp and renamed when complete. Returns the row counts of all
//! five tables (as ssb_cardinalities). Error(InvalidQuery) for a bad option (SF, unknown table,
//! empty out_dir), Error(Io) naming the path when a file cannot be written.
SsbCardinalities generate_ssb(const SsbOptions& options);

}  // namespace gfxq
