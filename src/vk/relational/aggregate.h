#pragma once
// Aggregates without GROUP BY on the compute backend.
//
// COUNT, SUM, AVG, MIN and MAX of one column run in one pass fused with the WHERE
// (cnf_agg_int / cnf_agg_float in shaders/vk/cnf_scan.comp): each workgroup writes a partial
// {count, min key, max key, sum}, and the host combines the partials exactly:
// - COUNT: 32-bit counts per workgroup, added in 64 bits.
// - MIN/MAX: min/max of the order keys (the total order), converted back: canonical results.
// - SUM(INT): int64 per workgroup (|sum| < 2^31 * rows per workgroup), added in __int128, then
//   int_sum_result() (Error(Overflow) beyond int64).
// - SUM(FLOAT): EXACT. Each float is an integer multiple of 2^-149; the kernel adds it into one of
//   16 int64 fixed-point bins (bin b in units of 2^(16b - 149)) without rounding, the host adds the
//   bins in __int128 and rounds the exact sum once to the nearest double (ties to even). NaN and
//   infinities are flagged and give NaN / +-inf as IEEE addition does. The CPU reference adds in
//   double in row order, whose error is at most (n - 1) * u * sum|x| (u = 2^-53), so
//     |gpu - cpu| <= n * u * sum|x|.
//   AVG(FLOAT) is that sum / n (so within n * u * sum|x| / n + 2u * |avg|). Unlike a double
//   accumulation on the device, the result does not depend on the workgroup layout, and the
//   kernel needs no shaderFloat64 (only 64-bit integers and shared int64 atomics).
// Several columns: one fused pass per column. COUNT(*) alone: the cnf_count pass (select.h).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/bind.h"
#include "vk/relational/select.h"

namespace gfxq::vk {

//! The per-workgroup partial cnf_agg_* writes (std430 layout of AggPartial in cnf_scan.comp).
struct AggPartial {
  uint32_t count = 0;             //!< rows that passed
  uint32_t min_key = UINT32_MAX;  //!< smallest order key among them
  uint32_t max_key = 0;           //!< largest order key among them
  uint32_t special = 0;           //!< FLOAT sums: bit 0 NaN, bit 1 +inf, bit 2 -inf
  int64_t bins[16] = {};          //!< INT: bins[0] is the sum; FLOAT: fixed-point bins
};
static_assert(sizeof(AggPartial) == 144, "AggPartial must match the std430 struct of cnf_scan.comp");

//! The partials of all workgroups added up exactly.
struct AggTotals {
  uint64_t count = 0;               //!< rows that passed
  uint32_t min_key = UINT32_MAX;    //!< smallest key (meaningful when count > 0)
  uint32_t max_key = 0;             //!< largest key (meaningful when count > 0)
  uint32_t special = 0;             //!< OR of the FLOAT flags
  std::array<__int128, 16> bins{};  //!< bin sums (INT: bins[0] is the exact sum)
};

//! Adds up partials (counts in 64 bits, bins in __int128): the first `bins` bins (INT sums use one,
//! FLOAT sums all 16; the others stay zero).
AggTotals combine_partials(const std::vector<AggPartial>& partials, size_t bins = 16);

//! The exact sum of FLOAT values represented by `totals` (bins and flags), rounded once to the
//! nearest double, ties to even: NaN when a NaN was summed or both infinities, else +-inf when one
//! was, else the rounded bin sum (+0.0 when it is zero).
double float_sum(const AggTotals& totals);

//! Which aggregates of a column one fused pass computes (COUNT always).
struct AggWants {
  bool sum = false;  //!< SUM (and so AVG): AggPartial::bins, special
  bool min = true;   //!< MIN: AggPartial::min_key (else left neutral)
  bool max = true;   //!< MAX: AggPartial::max_key (else left neutral)
};

//! Records cnf_agg_int or cnf_agg_float: one AggPartial per workgroup (plan.groups of them in
//! `partials`) over the rows passing the program, of the column in slot `value_slot`, with what
//! `wants` asks for (a FLOAT SUM by the _f64 kernel where the device has shaderFloat64 and
//! `allow_f64`). Returns the kernel's name. Error(Unsupported) for a FLOAT sum without shared
//! int64 atomics, InvalidInput when `wants` asks for nothing.
std::string record_cnf_aggregate(Device& device, VkCommandBuffer cmd, const CnfInput& input, uint32_t value_slot,
                                 AggWants wants, const ScanPlan& plan, const Buffer& partials, bool allow_f64 = true);

//! The one-row result of an aggregate query without GROUP BY (every aggregate, quantiles
//! included; LIMIT 0 gives no row). `algorithm` receives its description. `select_window`: keys
//! per binding window of the quantiles' radix select (RadixSelectArgs::binding_elements; 0: the
//! device's binding; tests shrink it).
Table run_aggregates(QueryContext& ctx, std::string& algorithm, uint64_t select_window = 0);

}  // namespace gfxq::vk
