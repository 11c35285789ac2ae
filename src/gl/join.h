#pragma once
// Joins on the raster path, after Govindaraju et al. (SIGMOD 2004) §3.6: the inner (JOIN) relation's
// keys are sorted on the GPU (gl/sort.h), uploaded in sorted order, and every probe (outer row)
// counts the inner keys in its interval by occlusion queries (docs/RASTER.md "Joins"):
//   1. sort: sort_rows orders the inner rows (after the inner side's WHERE) by key, stable;
//   2. build: the sorted order keys become one R32UI texture per inner tile, with stencil 1 on the
//      records; where their span fits a 24-bit window they are copied into the depth buffer;
//   3. probe: for outer row r the rows pair with inner keys in [r.key + lo, r.key + hi] (double
//      arithmetic, the shared literal translation core/key_compare.h): an inclusive interval
//      [klo, khi] of order keys, empty or a contiguous run of the sorted keys. Per probe:
//        - DepthTest: count(key < klo) and count(key <= khi) by two constant-depth passes with
//          the depth test (GL_GREATER against the stored key - base);
//        - DepthBounds (GL_EXT_depth_bounds_test, window keys, COUNT only): count(klo <= key <= khi)
//          by one pass (pairs need the run's start too: they take DepthTest);
//        - KeyCompare (keys spanning 2^24 or more): count(key >= c) by raster_key_ge.frag's exact
//          integer compare, for c = klo and khi + 1;
//        - Search (the default, RasterOptions::join_search): the counts of a whole batch of probes in
//          one draw, one fragment per count running a bitwise search of the sorted keys (log2 m
//          texel fetches) instead of two passes of m fragments per probe;
//      bounds at or beyond the inner key range are folded on the host (count 0 or all), so a probe
//      whose interval misses the range runs no pass, and probes with equal bounds share one count
//      (RasterOptions::join_share_counts);
//   4. output: the run starts at count(key < klo) and has count(klo <= key <= khi) rows; the
//      pairs are (r, sorted rows of the run) in (left row, right row) order.
// Passes are issued for a batch of probes back to back and their occlusion counts read after
// the batch.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/bind.h"
#include "gfxq/result.h"
#include "gl/raster_input.h"

namespace gfxq::gl {

class Context;

//! How the probe passes count the sorted inner keys.
enum class JoinRoute {
  DepthTest,    //!< constant-depth passes against the keys in a 24-bit depth window
  DepthBounds,  //!< one GL_EXT_depth_bounds_test pass per probe (window keys, COUNT only)
  KeyCompare,   //!< raster_key_ge.frag's integer compare (keys spanning 2^24 or more)
  //! A batch of counts in one draw: one fragment per count runs a bitwise search of the sorted keys
  //! (join_search.frag); RasterOptions::join_search, any key span.
  Search,
};

//! The probe plan of a join, made on the host.
struct JoinPlan {
  JoinRoute route = JoinRoute::DepthTest;  //!< how counts are made
  uint32_t base = 0;                       //!< window routes: depth value = key - base
  std::string algorithm;                   //!< the report's text for the probe phase
  std::vector<PassRecord> passes;          //!< one record per kind of probe pass (kind, GL state)
};

//! The probe plan for sorted inner keys spanning `keys`: Search when options.join_search (the
//! default); otherwise the paper's passes per probe: DepthBounds when only counts are needed
//! (`pairs` false), the driver has the extension (`depth_bounds_test`, and options.depth_bounds)
//! and the span is below 2^24; DepthTest for other spans below 2^24; else KeyCompare. Host only.
JoinPlan plan_join(const KeyRange& keys, bool pairs, const RasterOptions& options, bool depth_bounds_test);

//! The inclusive interval of right-key order keys that a left key `left` pairs with
//! (`left + lo <= right <= left + hi` in double arithmetic, compared in the total order, as the
//! CPU engine), for a right key column of type `right_type`; nullopt when no key qualifies.
std::optional<std::pair<uint32_t, uint32_t>> probe_interval(double left, Type right_type, double lo, double hi);

//! Runs the bound join query `bq` on the raster path: COUNT(*) / COUNT(c) of the pairs or a
//! projection of left and right columns, WHERE clauses that each read one side only, LIMIT.
//! Error(Unsupported) naming the operator for the rest (other aggregates, GROUP BY, ORDER BY, a
//! WHERE clause reading both sides). The GL state is reset on return and on error.
Result execute_join(Context& context, const BoundQuery& bq, const RasterOptions& options);

//! Why the raster join cannot run `bq` (GROUP BY, ORDER BY or aggregates other than COUNT over a
//! join, a WHERE clause reading both tables), or empty when it can.
std::string join_unsupported(const BoundQuery& bq);

}  // namespace gfxq::gl
