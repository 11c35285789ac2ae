#pragma once
// Aggregates without GROUP BY on the compute backend.
//
// COUNT, SUM, AVG, MIN and MAX of one column run in one pass fused with the WHERE
// (cnf_agg_int / cnf_agg_float in shaders/vk/cnf_scan.comp): each workgroup writes a partial
// {count, min key, max key, sum}, and agg_combine (shaders/vk/agg_combine.comp), recorded in the
// same pass after a barrier, adds the partials up exactly on the device; the host reads one
// AggDeviceTotal (280 bytes) instead of one 144-byte partial per workgroup (thousands at 2^24 rows
// and more). Where the driver's shader loop limit is too small for the number of partials, the host
// reads them all and combine_partials() adds them (the same exact sums, named in the report):
// - COUNT: 32-bit counts per workgroup, added in 64 bits.
// - MIN/MAX: min/max of the order keys (the total order), converted back: canonical results.
// - SUM(INT): int64 per workgroup (|sum| < 2^31 * rows per workgroup), added in 128 bits, then
//   int_sum_result() (Error(Overflow) beyond int64).
// - SUM(FLOAT): EXACT. Each float is an integer multiple of 2^-149; the kernel adds it into one of
//   16 int64 fixed-point bins (bin b in units of 2^(16b - 149)) without rounding, the bins are added
//   in 128 bits (|bin| < 2^63 per workgroup, < 2^71 in all) and the host rounds the exact sum once
//   to the nearest double (ties to even). NaN and
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

//! The partials added up on the device by agg_combine (std430 layout of Total in
//! agg_combine.comp): each bin a 128-bit two's complement number.
struct AggDeviceTotal {
  uint64_t count = 0;             //!< rows that passed
  uint32_t min_key = UINT32_MAX;  //!< smallest key (meaningful when count > 0)
  uint32_t max_key = 0;           //!< largest key (meaningful when count > 0)
  uint32_t special = 0;           //!< OR of the FLOAT flags
  uint32_t reserved = 0;          //!< zero
  uint64_t bin_low[16] = {};      //!< low 64 bits of each bin sum
  int64_t bin_high[16] = {};      //!< high 64 bits of each bin sum
};
static_assert(sizeof(AggDeviceTotal) == 280, "AggDeviceTotal must match the std430 block of agg_combine.comp");

//! The AggTotals of a device total.
AggTotals totals_of(const AggDeviceTotal& total);

//! Whether agg_combine adds `partials` partials on `device` within its shader loop limit
//! (VkCapabilities::shader_loop_limit; about partials / 16 iterations per invocation).
bool agg_combine_fits(const Device& device, uint64_t partials);

//! Records agg_combine: the first `bins` bins (1 or 16) and the other fields of `count` partials of
//! `partials` (AggPartial[]) added up into `total` (one AggDeviceTotal; bins past `bins` zero). The
//! caller owes a barrier between the writes of the partials and this; Error(InvalidInput) for other
//! `bins` or when !agg_combine_fits(device, count).
void record_agg_combine(Device& device, VkCommandBuffer cmd, const Buffer& partials, uint32_t count, uint32_t bins,
                        const Buffer& total);

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
//! included; LIMIT 0 gives no row). `algorithm` receives its description. `limits`: the binding
//! window of the quantiles' radix select and whether it is sampled (tests shrink the one and force
//! the other).
Table run_aggregates(QueryContext& ctx, std::string& algorithm, const SortLimits& limits = {});

}  // namespace gfxq::vk
