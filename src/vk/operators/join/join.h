#pragma once
// Joins on the compute path (He et al. 2008, "Relational joins on graphics processors"; Diamos et
// al., Red Fox): blocked nested loop (NINLJ), indexed nested loop on a GPU-built CSS-tree (INLJ),
// sort-merge (SMJ: onesweep radix sort, merge-path partitioned sorted search), radix-partitioned
// hash join with shared-memory tables, and a hash join through one global table. Every algorithm
// ends in the one output routine of output.h (count per slot -> prefix sum -> write, 64-bit
// counts, chunked output), and a rule (chooser.h) picks among them unless the caller forces one.
//
// Inputs are device columns of 32-bit keys (INT or FLOAT) and optional selections; the output is
// pairs of row ids (or their count). The operators know nothing of queries or plans: the engine
// core binds a query's join to these types. Semantics are the CPU reference's
// (cpu::join_pairs_terms): every term compares values in the total order of gfxq (-0.0 = +0.0,
// NaN = NaN and largest), INT against FLOAT exactly, band terms in double arithmetic.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gfxq/result.h"
#include "gfxq/table.h"
#include "vk/device.h"

namespace gfxq::vk {

//! The physical join algorithms.
enum class JoinAlgorithm {
  Auto,             //!< the chooser's pick (chooser.h)
  NestedLoop,       //!< blocked nested loop through shared memory: any condition
  IndexedLoop,      //!< a CSS-tree over the sorted inner keys, two searches per probe: any condition
  SortMerge,        //!< both sides sorted, merge-path sorted search: an equi term needed
  HashPartitioned,  //!< radix (hash) partitions, shared-memory tables: an equi term needed
  HashGlobal,       //!< one global hash table of the build keys: an equi term needed
};
//! "auto", "nested-loop", "indexed-loop", "sort-merge", "hash-partitioned", "hash-global".
const char* to_string(JoinAlgorithm a) noexcept;
//! Parses the names to_string gives; Error(InvalidQuery) otherwise.
JoinAlgorithm parse_join_algorithm(const std::string& name);

//! How a term compares a left key with a right key.
enum class JoinOp : uint32_t {
  Eq,    //!< left = right
  Lt,    //!< left < right
  Le,    //!< left <= right
  Gt,    //!< left > right
  Ge,    //!< left >= right
  Band,  //!< left + lo <= right <= left + hi (double arithmetic)
};

//! One term of a join condition (the condition is the conjunction of its terms).
struct JoinTerm {
  uint32_t left = 0;       //!< index into the left side's keys
  uint32_t right = 0;      //!< index into the right side's keys
  JoinOp op = JoinOp::Eq;  //!< the comparison
  double lo = 0, hi = 0;   //!< Band offsets
};

//! One key column on the device: raw 32-bit values (int32 or float32 bits), one per row.
struct JoinKey {
  const Buffer* buffer = nullptr;  //!< the values (at least `rows` of them)
  Type type = Type::Int32;         //!< Int32 or Float32 (later also dictionary codes and dates: int32)
};

struct DeviceColumn;  // vk/relational/select.h

//! The JoinKey of a device column (its buffer and type).
JoinKey join_key(const DeviceColumn& column);

//! One side of a join.
struct JoinSide {
  std::vector<JoinKey> keys;  //!< key columns the terms name (at most JOIN_MAX_COLUMNS)
  uint64_t rows = 0;          //!< rows of each key column
  //! Ascending uint32 row ids (each below `rows`) that take part; nullptr: every row.
  const Buffer* selection = nullptr;
  uint64_t selected = 0;  //!< row ids in `selection`
  //! Rows that take part.
  uint64_t count() const noexcept { return selection ? selected : rows; }
};

//! What a join produces.
enum class JoinOutputMode {
  Pairs,  //!< (left row id, right row id) pairs
  Count,  //!< only their number (COUNT(*) over the join): no pair is written
};

//! One chunk of pairs: elements [0, count) of `left` and `right` are the pairs at positions
//! first .. first + count - 1 of the join's output.
struct JoinChunk {
  const Buffer* left = nullptr;   //!< left row ids (uint32)
  const Buffer* right = nullptr;  //!< right row ids (uint32)
  uint64_t first = 0;             //!< position of the chunk's first pair
  uint64_t count = 0;             //!< pairs in the chunk
};

//! Optional knowledge about the keys (e.g. from the host table) the chooser may use.
struct JoinKeyStats {
  std::optional<int64_t> right_min, right_max;  //!< range of the right side's first equi key (INT)
  std::optional<int64_t> left_min, left_max;    //!< the same for the left side
  bool right_unique = false;                    //!< the right side's first equi key holds no value twice
  bool left_unique = false;                     //!< the same for the left side
};

//! How a join runs. Knobs for tests and benchmarks are here, never in environment variables.
struct JoinOptions {
  JoinAlgorithm algorithm = JoinAlgorithm::Auto;  //!< Auto, or force one (Unsupported if it cannot)
  JoinOutputMode output = JoinOutputMode::Pairs;  //!< pairs or count
  //! Pairs ordered by (left row, right row), the result order of a plain join; else in the
  //! algorithm's order (documented per algorithm in docs/COMPUTE.md).
  bool ordered = false;
  //! Most pairs in one chunk; 0: as many as one storage binding and one allocation hold.
  uint64_t chunk_pairs = 0;
  //! Receives each chunk of pairs (in output order) and may read its buffers until it returns. Without
  //! it the pairs must fit one chunk (Error(ResultTooLarge) otherwise) and stay in the JoinResult.
  std::function<void(const JoinChunk&)> consume;
  JoinKeyStats stats;  //!< optional key ranges for the chooser
  //! Tests: build rows of one partitioned hash work item (0: from the device's shared memory);
  //! small values force the split of oversized partitions.
  uint32_t hash_build_rows = 0;
  //! Tests: partitions of the partitioned hash join (0: from the build size; a power of two).
  uint32_t hash_partitions = 0;
  //! Tests: build rows per nested-loop workgroup (0: JOIN_NINLJ_BLOCK; a multiple of JOIN_WG).
  uint32_t nested_block = 0;
  //! Tests: the global hash join probes prepared keys (join_prepare, then the load-balanced output
  //! routine) even where it would probe the key column by tiles (join_probe_tiles).
  bool no_tile_probe = false;
  //! Tests: the global hash join's build claims slots by 32-bit atomics (key word, then row word)
  //! even where the device has 64-bit buffer atomics.
  bool no_int64_atomics = false;
};

//! The answer of a join, with the report of how it was computed.
struct JoinResult {
  uint64_t count = 0;  //!< pairs (64-bit)
  //! The pairs when they fit one chunk (also handed to JoinOptions::consume when given); else empty.
  Buffer left, right;
  bool ordered = false;                           //!< the pairs are in (left row, right row) order
  JoinAlgorithm algorithm = JoinAlgorithm::Auto;  //!< what ran
  std::string algorithm_text;                     //!< e.g. "hash-partitioned join (4096 partitions ...)"
  std::string reason;                             //!< why this algorithm (the chooser's rule, or forced)
  std::vector<PassRecord> passes;                 //!< every stage: kind, detail, items, passed, times
  uint64_t chunks = 0;                            //!< chunks the pairs were written in
};

//! Joins `left` with `right` on `terms` (a conjunction; at least one term). Error(InvalidQuery)
//! for a malformed condition, Error(Unsupported) naming what and why for what the device or a forced
//! algorithm cannot run (band terms need shaderFloat64; equi-only algorithms need an Eq term),
//! Error(ResultTooLarge) naming the size when the pairs exceed one chunk without
//! JoinOptions::consume. Inputs are never modified.
JoinResult run_join(Device& device, const JoinSide& left, const JoinSide& right, const std::vector<JoinTerm>& terms,
                    const JoinOptions& options = {});

}  // namespace gfxq::vk
