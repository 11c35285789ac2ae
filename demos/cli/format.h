#pragma once
// How the CLI and the shell print result tables: CSV, aligned columns, or JSON.

#include <iosfwd>
#include <optional>
#include <string>

#include "gfxq/table.h"

namespace gfxq::cli {

//! A result format.
enum class Format { Csv, Table, Json };

//! The format named "csv", "table" or "json", else nullopt.
std::optional<Format> format_named(const std::string& text);

//! Writes `table` in `format`: CSV with a bare header; columns padded to their widest cell with
//! numbers right-aligned and NULL printed as NULL; or a JSON array of row objects (NaN and
//! infinities, which JSON lacks, as strings).
void write_result(std::ostream& out, const Table& table, Format format);

}  // namespace gfxq::cli
