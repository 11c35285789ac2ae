#pragma once
// Aggregates on the raster path, after Govindaraju et al. (SIGMOD 2004), over the selection a
// WHERE leaves in the stencil buffer (evaluate_where with WhereOutput::Keep): every pass below
// runs under the stencil test `stencil & mask == state`, so only selected records count.
//   - SUM / AVG of INT columns by bit planes: per bit b of the two's-complement value one pass
//     keeps the fragments whose bit b is set (raster_bitplane.frag), counted by occlusion queries;
//     SUM = sum_{b<31} 2^b count_b - 2^31 count_31 in __int128, then int_sum_result; AVG by
//     int_average over n = COUNT of the selection.
//   - SUM / AVG of FLOAT columns exactly: a finite float is +-M * 2^s units of 2^-149 (M < 2^24,
//     s = max(biased exponent, 1) - 1); per sign and per bit position q of X = M << s that the
//     column uses (FloatBits, scanned at upload) one pass keeps the selected fragments of that sign
//     with bit q set (raster_float_plane.frag); sum = sum_q 2^(q-149) (pos_q - neg_q), added exactly
//     and rounded once (core/exact_sum.h). NaN / +-inf are counted by key >= candidate passes and
//     give what IEEE addition gives. AVG = sum / n.
//   - MIN, MAX, KTH_LARGEST, MEDIAN, QUANTILE by bitwise search on the 32-bit order key: the
//     answer is built MSB first, one count per bit of "selected keys >= candidate"
//     (raster_key_ge.frag), each bit decided on the host. KTH_LARGEST(k) is the largest x with
//     count(key >= x) >= k; QUANTILE's rank r is KTH_LARGEST(n - r + 1); MIN k = n, MAX k = 1.

#include "core/bind.h"
#include "gfxq/result.h"
#include "gl/raster_input.h"

namespace gfxq::gl {

//! Runs the bound aggregate query `bq` (no GROUP BY, no join; items are aggregates) on the raster
//! path. COUNT items are the selection's count. The GL state is reset on return and on error.
Result execute_aggregates(Context& context, const BoundQuery& bq, const RasterOptions& options);

}  // namespace gfxq::gl
