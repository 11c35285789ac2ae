#pragma once
// The rule that picks a join algorithm (He et al. 2008 pick by sizes and selectivity; Karnagel et
// al.'s optimizer by estimated groups): from the rows taking part, the condition's terms, the key
// range when the caller knows it, the band width, the device's shared memory and the wanted
// output. It also orients the join: which side is probed and which is built / indexed.

#include <cstdint>
#include <string>
#include <vector>

#include "vk/operators/join/join.h"

namespace gfxq::vk {

//! What the chooser looks at.
struct JoinShape {
  uint64_t left_rows = 0;        //!< left rows taking part (after the selection)
  uint64_t right_rows = 0;       //!< right rows taking part
  std::vector<JoinTerm> terms;   //!< the condition
  JoinKeyStats stats;            //!< key ranges the caller knows
  bool ordered = false;          //!< pairs wanted in (left row, right row) order
  bool count_only = false;       //!< only COUNT(*) is wanted
  uint32_t hash_build_rows = 0;  //!< build rows a partitioned hash work item holds on the device (0: none)
};

//! The chooser's decision.
struct JoinChoice {
  JoinAlgorithm algorithm = JoinAlgorithm::NestedLoop;  //!< what runs
  bool swap = false;                                    //!< probe the right side and build / index the left
  std::string reason;                                   //!< the rule that decided, with its numbers
};

//! Inputs of at most this many row pairs run the nested loop (one count and one write dispatch).
inline constexpr uint64_t kNestedLoopPairs = uint64_t(1) << 20;
//! Build sides of at most this many rows use one global hash table (its slot arrays, about 20 bytes
//! per slot at half load, stay within a GPU's L2 cache: 40 MiB at 2^20 rows; the H200 has 50 MiB).
inline constexpr uint64_t kGlobalHashRows = uint64_t(1) << 20;
//! Build sides known to hold each key once (JoinKeyStats) of at most this many rows use the global
//! hash table: on the H200 (ninth session) its one (key, row) entry per key took 1.89 ms at
//! 2^24 x 2^24 and 16.2 ms at 2^27 x 2^27, sort-merge 2.25 and 16.2 ms.
inline constexpr uint64_t kGlobalUniqueRows = uint64_t(1) << 27;
//! Build sides of at least this many rows (keys not dense) are joined by sort-merge: on the H200 it
//! took 2.75 ms at 2^24 x 2^24 and 19.5 ms at 2^27 x 2^27, the partitioned hash join 3.39 and 27.1 ms.
inline constexpr uint64_t kSortMergeRows = uint64_t(1) << 24;

//! The algorithm for `shape`: `forced` when not Auto (Error(Unsupported) when it cannot run the
//! condition: sort-merge and hash joins need an equi term), else the rule:
//!  1. at most kNestedLoopPairs row pairs: nested loop;
//!  2. no equi term: indexed nested loop (a CSS-tree over the inner keys; band and range terms by two
//!     searches per probe);
//!  3. equi terms and pairs wanted in order: indexed nested loop (its pairs come in that order; the
//!     others would sort them twice);
//!  4. a build side (the smaller) of at most kGlobalHashRows rows, dense known keys (range at most
//!     twice its rows), or keys known to be distinct on at most kGlobalUniqueRows rows: global hash
//!     table;
//!  5. shared memory for a partitioned work item: radix-partitioned hash join; else sort-merge.
//! Orientation: the smaller side is built / indexed unless a band term fixes the sides, the nested
//! loop keeps the left side as probes, and ordered pairs keep it for the indexed loop.
JoinChoice choose_join(const JoinShape& shape, JoinAlgorithm forced);

}  // namespace gfxq::vk
