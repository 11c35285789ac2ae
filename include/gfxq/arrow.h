#pragma once
//! \file arrow.h
//! Tables in and out through the Arrow C Data Interface and C Stream Interface
//! (https://arrow.apache.org/docs/format/CDataInterface.html): a host program that holds Arrow data
//! (pyarrow, DuckDB, polars, nanoarrow...) hands gfxq an ArrowSchema and ArrowArray, and receives
//! results the same way. No Arrow library is needed: the structs below are the ABI the
//! specification publishes for copying, under its include guards.
//!
//! Types: int32 "i", float32 "f", int64 "l", float64 "g", date32 "tdD", utf8 "u" and large utf8
//! "U" (imported as STRING: a sorted dictionary is built), and dictionary-encoded utf8 / large utf8
//! with 8- to 64-bit signed or unsigned indices (STRING: the dictionary is sorted if it is not, and the
//! codes mapped). Validity bitmaps become NULL flags. Export gives int32, float32, int64, float64,
//! date32, and STRING as dictionary-encoded utf8 (int32 indices, the dictionary sorted, the
//! DICTIONARY_ORDERED flag set; large utf8 past 2 GiB of text).

#include <cstdint>

#include "gfxq/table.h"

extern "C" {

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

//! The Arrow C Data Interface's schema (a type, a name, children) of one array.
struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};

//! The Arrow C Data Interface's array: buffers, children, a dictionary.
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

//! The Arrow C Stream Interface: a schema, then arrays (record batches) until one is released.
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE
}

namespace gfxq {

//! How import_arrow works.
struct ArrowImportOptions {
  unsigned threads = 0;  //!< threads for copying and building string dictionaries; 0: all cores
};

//! A table from a struct array ("+s") whose children are its columns (a record batch), or from a
//! single array of a column type (one column named by the schema, "column" if unnamed). The values
//! are copied (gfxq columns own their storage: one parallel memcpy per buffer where the layouts
//! match; strings interned into a sorted dictionary). The caller keeps ownership of both structs
//! and releases them. Error(Unsupported) naming the column for a type gfxq has no column for,
//! Error(InvalidInput) for a malformed array (missing buffers, a negative length, an index outside
//! its dictionary, a struct-level NULL).
Table import_arrow(const ArrowSchema& schema, const ArrowArray& array, const ArrowImportOptions& options = {});

//! A table from every record batch of `stream` (appended in order). gfxq releases the schema and
//! arrays it takes from the stream; the caller keeps and releases the stream. A stream error is
//! Error(InvalidInput) with the stream's message.
Table import_arrow_stream(ArrowArrayStream& stream, const ArrowImportOptions& options = {});

//! Moves `table` into a struct array and its schema: fixed-width columns are exported without
//! copying (the buffers are the table's vectors, kept alive until every exported struct is
//! released); STRING columns as dictionary-encoded utf8 (the codes not copied, the dictionary laid
//! out as Arrow text), NULL flags as validity bitmaps. `out_schema` and `out_array` must not hold
//! live structs; the receiver releases them (each child may also be moved and released on its own).
void export_arrow(Table table, ArrowSchema* out_schema, ArrowArray* out_array);

//! Moves `table` into a stream of one record batch (see export_arrow); the receiver releases it.
void export_arrow_stream(Table table, ArrowArrayStream* out);

}  // namespace gfxq
