#pragma once
//! \file column_file.h
//! gfxq column files (`.gfxq`): a table's columns as they lie in memory, loaded by mapping the file
//! and copying each column on all cores. docs/FORMATS.md describes the bytes. Also: reading and
//! writing a table by its file name's extension (`.csv` or `.gfxq`).

#include <string>

#include "gfxq/table.h"

namespace gfxq {

//! How read_column_file works.
struct ColumnFileReadOptions {
  unsigned threads = 0;  //!< copying threads; 0: std::thread::hardware_concurrency()
};

//! Writes `table` (every column type, NULL flags, string dictionaries) as a gfxq column file:
//! first to `path`.tmp, renamed to `path` when complete. Error(InvalidInput) for a table that is
//! not valid (unequal lengths, a string code outside its dictionary); Error(Io) naming the path
//! when it cannot be written.
void write_column_file(const std::string& path, const Table& table);

//! Reads a gfxq column file. The file is checked before it is trusted: Error(InvalidInput) naming
//! the path and what is wrong for a file that is not a gfxq column file, of another version, cut
//! short, with sections outside the file, a dictionary not sorted and distinct, or a string code
//! outside its dictionary; Error(Io) when it cannot be opened or mapped.
Table read_column_file(const std::string& path, const ColumnFileReadOptions& options = {});

//! Reads a table by its file name's extension: `.csv` (read_csv_file), `.gfxq` (read_column_file);
//! a pipe or device (/dev/stdin) as CSV; Error(InvalidInput) for any other name, naming the two.
Table read_table_file(const std::string& path);

//! Writes a table by its file name's extension: `.csv` (write_csv_file, typed header), `.gfxq`
//! (write_column_file); Error(InvalidInput) for any other extension.
void write_table_file(const std::string& path, const Table& table);

}  // namespace gfxq
