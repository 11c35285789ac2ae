#pragma once
// The one output routine of every join algorithm (GDB's lock-free three-phase output):
//   1. count: each slot (a probe row, a probe row and build block, a work item's invocation, a tile
//      of candidates) writes how many pairs it produces (uint32);
//   2. prefix sum: an exclusive scan of the counts into 64-bit offsets and the 64-bit total
//      (vk::scan), read back to size the output;
//   3. write: each slot writes its pairs at its offset, no atomics.
// COUNT(*) stops after phase 2. Pairs beyond one chunk (JoinOptions::chunk_pairs, else one binding
// and one allocation) are written chunk by chunk, each write pass keeping the positions of its
// window, and handed to JoinOptions::consume; without it they are Error(ResultTooLarge) naming the
// size, never truncated. Pairs asked for in (left row, right row) order are sorted (stable radix
// sorts) when the algorithm's write order is not that already.
//
// Algorithms whose matches are runs of a build-side array (INLJ, sort-merge, global hash) hand
// their runs to emit_runs(): the write pass is then join_expand's load-balanced search, and
// residual terms (those the keys do not decide) are tested on the candidates in tiles (count ->
// scan -> pack, the same three phases).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vk/operators/join/common.h"
#include "vk/operators/join/join.h"

namespace gfxq::vk::join {

//! The order a write pass leaves its pairs in, as (probe row, build row).
enum class Natural {
  AB,          //!< by probe row, then build row
  AThenBRuns,  //!< each probe row's pairs together, build rows ascending within (probe rows in any order)
  Unordered,   //!< no order
};

//! Records the write pass of the pairs at positions [c0, c1) of the output into out_a[p - c0]
//! (probe row ids) and out_b[p - c0] (build row ids).
using WritePass =
    std::function<void(VkCommandBuffer cmd, uint64_t c0, uint64_t c1, const Buffer& out_a, const Buffer& out_b)>;

//! Chunk windows for a write pass that must not split some unit of its slots: given the chunk
//! capacity, the ascending bounds 0 = b0 < b1 < ... < bk = total, each window [bi, bi+1) at most the
//! capacity (or Error(Unsupported) naming the unit that does not fit).
using Cuts = std::function<std::vector<uint64_t>(uint64_t chunk)>;

//! A join's output: chunks, ordering, and the JoinResult's count, buffers and chunk count.
class Output {
 public:
  //! The output of a join run with `options`, probe side = the right side when `swapped`.
  Output(Stages& stages, const JoinOptions& options, bool swapped, JoinResult& result);
  //! Whether only the count is wanted.
  bool count_only() const noexcept { return options_.output == JoinOutputMode::Count; }
  //! The stages.
  Stages& stages() noexcept { return stages_; }
  //! Whether the caller receives the pairs chunk by chunk (JoinOptions::consume).
  bool chunked() const noexcept { return bool(options_.consume); }
  //! Most pairs one write pass holds (JoinOptions::chunk_pairs, else one binding and allocation).
  uint64_t chunk_capacity() const;
  //! Count mode: records the total as the result.
  void set_count(uint64_t total);
  //! Writes `total` pairs through `write` (one pass per chunk), delivers them, and orders them when
  //! asked and `natural` is not already the order. `what` names the write stage. Past one chunk,
  //! `cuts` (when given) places the chunks' bounds, else every chunk but the last is full.
  void write(uint64_t total, Natural natural, const std::string& what, const WritePass& write, const Cuts& cuts = {});

 private:
  Stages& stages_;
  const JoinOptions& options_;
  bool swapped_;
  JoinResult& result_;
};

//! Matches as runs: unit u pairs probe row unit_rid[u] with build rows build_rid[unit_start[u] ..
//! + counts[u]).
struct Runs {
  uint64_t units = 0;                  //!< units
  const Buffer* unit_rid = nullptr;    //!< probe row id per unit
  const Buffer* unit_start = nullptr;  //!< first index into build_rid per unit
  const Buffer* counts = nullptr;      //!< run length per unit (uint32)
  const Buffer* build_rid = nullptr;   //!< build row ids in run order
  std::string what;                    //!< names the runs in stage details
};

//! The output of `runs` (candidates; `residual`: oriented terms each candidate must pass) through
//! the three phases: scan of the run lengths, then (with residual terms) a count and a scan of the
//! passing candidates per tile, then join_expand's write passes. `natural` is the runs' order.
void emit_runs(Output& out, const Oriented& o, const Runs& runs, const std::vector<JoinTerm>& residual,
               Natural natural);

//! What an algorithm runs with: its stages, the output routine, the oriented condition and the
//! options; it sets `text`, the description the result's algorithm_text gets.
struct Context {
  Stages& stages;              //!< the stages
  Output& out;                 //!< the output routine
  const Oriented& o;           //!< the condition, probe side a, build side b
  const JoinOptions& options;  //!< the caller's options
  std::string text;            //!< what ran, e.g. "nested-loop join (...)"
};

//! Pipeline name of a kernel that tests `terms`: `base`, or `base` + "_band" when a term is a band.
std::string terms_pipeline(const std::string& base, const std::vector<JoinTerm>& terms);

}  // namespace gfxq::vk::join
