#pragma once
//! \file rows.h
//! Red Fox's relational skeletons on the compute path (issue 23), over whole rows of several columns:
//! a stable multi-column sort of row ids (ORDER BY), DISTINCT and the set operations by sorting both
//! operands as one relation, and the PRODUCT's pairs (product.h).
//!
//! Rows are sorted by key planes: each column gives one 32-bit plane (INT, FLOAT, DATE, STRING codes),
//! two (BIGINT, DOUBLE: low and high word of the 64-bit order key) and one more when it holds NULLs
//! (the NULL flags, more significant than the value planes). A plane's key is computed from the
//! column's words at the row the current order puts there (row_key.comp: a gather fused with the
//! order-key transform) and the (key, row id) pairs are sorted stably by the onesweep radix sort,
//! least significant plane first (LSD), so after the last plane the row ids are in the rows' order
//! with ties in their input order. Equal values have equal keys (FLOAT and DOUBLE −0.0 = +0.0,
//! every NaN equal and largest; NULL cells equal and first ascending, last descending), as in the CPU
//! engine's cell keys (cpu/exec/ops.h), so the order is the CPU engine's exactly.
//!
//! DISTINCT by hash (distinct_hash.comp): the key planes of every row by row id, then each row taking
//! part inserted into a table of 2^k ≥ 2n row ids (open addressing, linear probing, compare-and-swap
//! into an empty slot; a slot holding an equal row keeps the smaller id by atomicMin), so every
//! distinct row's slot ends with its first appearance; occupied slots mark their row ids and a
//! compaction gives them in row order. The rule picks it for rows of at most 4 key planes.
//!
//! DISTINCT and the set operations sort the concatenation of the operands (left row ids first), by
//! packed keys when the planes' ranges pack into 32 bits, and mark the rows the operation keeps at
//! their row id in one pass over the sorted keys and row ids (set_mark.comp: run heads for DISTINCT
//! and UNION; each run's start, end and first right row resolved in tiles for the others); unpacked,
//! the runs' numbers (an inclusive scan of the heads of runs of equal rows, row_heads) stand for the
//! keys. A compaction of the marks gives the kept row ids in row order, left rows first: the CPU
//! engine's output order (first appearances; ALL keeps the first copies). When the packed keys are
//! narrow, a dense table of one word per packed key replaces the sort (inserted in key slices that
//! the cache holds when it is large).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gfxq/result.h"
#include "gfxq/table.h"
#include "vk/device.h"

namespace gfxq::vk::skel {

//! One column's words on the device, by row id.
struct PlaneSource {
  const Buffer* word0 = nullptr;  //!< the 32-bit values (low words of BIGINT and DOUBLE)
  const Buffer* word1 = nullptr;  //!< BIGINT and DOUBLE: the high words; else unused
  const Buffer* nulls = nullptr;  //!< uint32 NULL flags (nonzero: NULL), or nullptr: no NULLs
};

//! One column of the rows.
struct RowColumn {
  Type type = Type::Int32;  //!< INT, FLOAT, DATE, STRING (codes of one dictionary), BIGINT or DOUBLE
  PlaneSource left;         //!< its words in the (left) rows
  PlaneSource right;        //!< its words in the right operand's rows (set operations only)
  bool descending = false;  //!< sort order (DESC: NULLs last)
  //! INT, DATE, STRING without NULLs: bounds of its values on both sides when known (column
  //! statistics), so that DISTINCT and the set operations run no pass for its key range. They must
  //! hold every value of the rows taking part (a superset is fine); the result is undefined otherwise.
  std::optional<std::pair<int32_t, int32_t>> range;
};

//! Rows to sort or compare: row ids 0 .. left_rows - 1 read the left sources, left_rows ..
//! left_rows + right_rows - 1 the right ones at id - left_rows.
struct RowsInput {
  std::vector<RowColumn> columns;  //!< most significant first
  uint64_t left_rows = 0;          //!< rows of the left sources
  uint64_t right_rows = 0;         //!< rows of the right sources (0 but for set operations)
  //! The ascending row ids that take part, or empty with `all`: every row.
  std::vector<uint32_t> ids;
  bool all = true;  //!< every row takes part (ids ignored)
  //! Rows taking part.
  uint64_t count() const noexcept { return all ? left_rows + right_rows : ids.size(); }
};

//! What DISTINCT and the set operations keep.
enum class SetKind { Distinct, Union, UnionAll, Intersect, IntersectAll, Except, ExceptAll };
//! "DISTINCT", "UNION", "UNION ALL", ...
const char* to_string(SetKind kind) noexcept;

//! How DISTINCT (and UNION, INTERSECT, EXCEPT: Auto, Sort or Dense) runs.
enum class DistinctAlgorithm {
  Auto,   //!< the rule: dense when the rows' packed keys fit the dense table, else (DISTINCT) hash
          //!< within its limits, else sort
  Sort,   //!< the sort-based skeleton
  Hash,   //!< DISTINCT: a hash table of first row ids (Unsupported when the rule's limits are not met)
  Dense,  //!< a table of one word per packed key (Unsupported when the key ranges are too wide)
};

//! Knobs of the skeletons (tests, benchmarks).
struct SkeletonOptions {
  //! Passed to the radix sorts (0: every tile but the first gives up, forcing the fallback).
  uint32_t lookback_limit = 16384;
  //! DISTINCT's algorithm (Auto: the rule).
  DistinctAlgorithm distinct = DistinctAlgorithm::Auto;
  //! UNION's, INTERSECT's and EXCEPT's (Auto: the rule; Hash is InvalidInput; the ALL variants sort).
  DistinctAlgorithm set = DistinctAlgorithm::Auto;
  //! Whether the sort-based skeleton sorts once by packed keys when the planes' ranges pack into 32
  //! bits (false: one radix sort per plane).
  bool pack = true;
  //! Key slices of the dense table's insert (1 .. 1024; InvalidInput past it): each slice is one pass
  //! over every row that inserts the rows whose packed keys fall in its part of the range, so that
  //! the atomics of a table larger than the cache go to words the cache holds. 0: the rule (as many
  //! slices as 24 MiB parts of the table, up to 16; else one).
  uint32_t dense_slices = 0;
};

//! The cache budget of one key slice of the dense table: about half the L2 of current large GPUs
//! (H100, H200: 50 MB; Vulkan does not report the L2's size), so that the words of the slice being
//! inserted stay in the cache while its rows' atomics go to them.
inline constexpr uint64_t kDenseSliceBytes = uint64_t(24) << 20;
//! The most slices the rule takes: each slice after the first rereads every row's packed key (4
//! bytes, stored by the first) while a miss that slicing saves costs one or two 32-byte sectors at
//! random, so past about 16 slices the rereading costs more than it saves.
inline constexpr uint32_t kDenseMaxSlices = 16;

//! The key slices the rule gives the dense table's insert for a table of `table_bytes` (4 bytes per
//! packed key; 8 for INTERSECT and EXCEPT, whose `seen` words are sliced with it): one per
//! kDenseSliceBytes of it, or 1 when that is more than kDenseMaxSlices.
//! Example: 16 MiB -> 1, 64 MiB -> 3, 400 MiB (17 parts) -> 1
uint32_t dense_slices_rule(uint64_t table_bytes) noexcept;

//! Why the hash DISTINCT cannot take `input` (more than DISTINCT_HASH_PLANES key planes, a table
//! past one binding), or empty when it can.
std::string distinct_hash_refusal(const Device& device, const RowsInput& input);

//! Number of 32-bit key planes of `columns` (1 per 32-bit column, 2 per BIGINT/DOUBLE, + 1 per
//! column with NULLs).
uint32_t key_planes(const std::vector<RowColumn>& columns) noexcept;

//! The first min(keep, input.count()) row ids of input's rows in the stable order of its columns,
//! sorted on the device (one radix sort of (key, row id) pairs per key plane). Passes (GPU times)
//! are appended to `passes`; `how` says what ran. Error(Unsupported) past one binding of rows or
//! 2^32 − 1 row ids, or for a column type outside RowColumn's.
std::vector<uint32_t> sort_rows(Device& device, const RowsInput& input, uint64_t keep, std::vector<PassRecord>& passes,
                                std::string& how, const SkeletonOptions& options = {});

//! The row ids a set operation (or DISTINCT, over the left rows alone) keeps, ascending: left rows
//! first, then right rows (ids from left_rows on), as the CPU engine orders its output. DISTINCT
//! hashes or sorts as options.distinct says (Auto: hash within its limits; a hash insert that probes
//! too long falls back to the sort, and `how` says so); the set operations sort. Whole rows
//! compare equal when every column's cells are (NULLs equal, −0.0 = +0.0, NaN = NaN). UNION ALL
//! keeps every row taking part without GPU work.
std::vector<uint32_t> set_rows(Device& device, const RowsInput& input, SetKind kind, std::vector<PassRecord>& passes,
                               std::string& how, const SkeletonOptions& options = {});

}  // namespace gfxq::vk::skel
