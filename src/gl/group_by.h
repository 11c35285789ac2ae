#pragma once
// GROUP BY on the raster path by blending (docs/RASTER.md "GROUP BY"), in the spirit of
// Govindaraju et al. (SIGMOD 2004): every selected record is drawn as a point into a group target
// whose pixel g is group g, and blending aggregates the points landing on a pixel:
//   1. group ids, dense and ascending with the key tuple: directly from the keys,
//      sum_i (key_i - lo_i) * stride_i (order keys, mixed radix), when the key ranges' product fits
//      the group target; else the rank of the record's key tuple, from the raster sort (gl/sort.h,
//      one stable sort per key column, last column first) and ranked on the host, uploaded as an
//      id texture;
//   2. channels: COUNT (1.0 per record), the bit planes of SUM/AVG (an INT column's bits above its
//      minimum; a FLOAT column's exact fixed-point planes and non-finite kinds, as gl/aggregate.h),
//      and MIN/MAX as the order key's high 24 bits, then in a second round its low 8 bits among the
//      records whose high bits equal the group's result; 4 channels per RGBA32F attachment, up to
//      8 attachments per pass, each with its blend equation (GL_FUNC_ADD for counts, GL_MIN,
//      GL_MAX for key parts);
//   3. exactness: every value blended is an integer below 2^24 (exact in float32); additive
//      passes draw at most 2^24 records per chunk (RasterOptions::group_chunk_rows), so no pixel
//      exceeds 2^24 and every sum of 1.0s is exact; after each chunk the targets are read back and
//      added on the host in 64 bits; min/max blending returns one of its operands exactly;
//   4. the WHERE: a kept stencil (select.h, WhereOutput::Keep) sampled per record in the vertex
//      shader (GL_STENCIL_INDEX texturing), or given row ids.
// Groups beyond the group target's pixels are Error(Unsupported) with the reason.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gfxq/query.h"
#include "gfxq/result.h"
#include "gl/raster_input.h"

namespace gfxq::gl {

class Context;

//! One aggregate of a raster GROUP BY.
struct GroupAggregate {
  AggKind kind = AggKind::Count;  //!< Count, Sum, Avg, Min or Max (others are Error(Unsupported))
  std::optional<size_t> slot;     //!< the input slot of its column; empty only for COUNT(*)
  std::string name;               //!< e.g. "SUM(b)", for the report and errors
};

//! The rows a GROUP BY reads: every row (both empty), the qualifying records of a kept stencil
//! (select.h, WhereOutput::Keep, over the same input), or row ids (ascending).
struct GroupSelection {
  const KeptStencil* stencil = nullptr;         //!< a WHERE's kept stencil
  const std::vector<uint64_t>* rows = nullptr;  //!< or the selected row ids
};

//! The groups of a GROUP BY, ascending by key tuple, with their aggregates' exact state.
struct GroupByOutput {
  std::vector<std::vector<uint32_t>> keys;      //!< [key column][group]: order keys (core/order_key.h)
  std::vector<uint64_t> counts;                 //!< [group]: its records (> 0)
  std::vector<AggKind> kinds;                   //!< [aggregate]: its kind
  std::vector<std::string> names;               //!< [aggregate]: its name
  std::vector<Type> types;                      //!< [aggregate]: its column's type (Int32 for COUNT(*))
  std::vector<std::vector<__int128>> sums;      //!< [aggregate][group]: SUM/AVG of INT, the exact sum
  std::vector<std::vector<double>> float_sums;  //!< [aggregate][group]: SUM/AVG of FLOAT, rounded once
  std::vector<std::vector<uint32_t>> extremes;  //!< [aggregate][group]: MIN/MAX, the order key
  GroupIds ids = GroupIds::Direct;              //!< how the ids were made
  std::string algorithm;                        //!< what ran, for the report
  std::vector<PassRecord> passes;               //!< the sorts' and blending passes, for the report

  //! Number of groups.
  size_t groups() const noexcept { return counts.size(); }
  //! The SQL value of aggregate `a` of group `g` (docs/SQL.md, as the CPU engine): COUNT Int64;
  //! SUM of INT Int64 (Error(Overflow) naming the aggregate past int64), of FLOAT Float64; AVG
  //! Float64; MIN/MAX the column's type.
  Value value(size_t a, size_t g) const;
};

//! Error(Unsupported) naming the first of `aggregates` the raster GROUP BY cannot run (MEDIAN,
//! QUANTILE, KTH_LARGEST) and why.
void check_group_aggregates(const std::vector<GroupAggregate>& aggregates);

//! Groups the rows `selection` names of `input` by the key columns in `key_slots` (1 or more
//! input slots, compared as a tuple of order keys) and computes `aggregates` per group by
//! blending. The groups come ascending by key tuple. Error(Unsupported) naming the reason for
//! MEDIAN/QUANTILE/KTH_LARGEST, for more groups than the group target's pixels, and where the host
//! would hold more than 2^31 plane counts. The GL state is reset on return and on error.
GroupByOutput group_by(Context& context, const RasterInput& input, const std::vector<size_t>& key_slots,
                       const std::vector<GroupAggregate>& aggregates, const GroupSelection& selection,
                       const RasterOptions& options);

}  // namespace gfxq::gl
