#version 450
// agg_combine: the per-workgroup partials of the fused CNF + aggregate pass (cnf_agg_* in
// cnf_scan.comp) added up on the device by one workgroup, exactly, so that the host reads one
// total instead of one partial per workgroup.
//   count: uint64 sum of the 32-bit counts; min_key / max_key: min / max of the keys (the neutral
//   keys of empty workgroups drop out); special: OR of the FLOAT flags; bin b < pc.bins: the sum of
//   the int64 bins as a 128-bit two's complement number (low word, high word). A FLOAT sum's bin
//   may pass 2^63 once added (each workgroup's is below 2^63, fewer than 2^32 rows in all: below
//   2^71), an INT sum never does; 128 bits hold both.
// Layout: bins == 1 (INT sums, MIN/MAX alone): invocation t adds bin 0 of partials t, t + 256, ...;
// bins == 16: invocation t adds bin t & 15 of partials t >> 4, (t >> 4) + 16, ... (16 invocations
// read a partial's 16 bins together). Then a tree in shared memory. Every invocation also adds the
// header fields of partials t, t + 256, ... Loop iterations per invocation: about partials / 16.
//
// Bindings: 0 = partials (AggPartial[], cnf_scan.comp's layout), 1 = total (AggTotal).
// Push constants: partials (how many), bins (1 or 16).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "gfxq_constants.h"

#if GFXQ_WORKGROUP_SIZE != 256
#error "agg_combine assumes 256 invocations per workgroup"
#endif
#define WG 256u
layout(local_size_x = GFXQ_WORKGROUP_SIZE) in;

struct AggPartial {
  uint count;
  uint min_key;
  uint max_key;
  uint special;
  int64_t bins[16];
};
layout(std430, binding = 0) readonly buffer Partials { AggPartial partials[]; };
layout(std430, binding = 1) writeonly buffer Total {
  uint64_t count;
  uint min_key;
  uint max_key;
  uint special;
  uint reserved;
  uint64_t bin_low[16];
  int64_t bin_high[16];
} total;

layout(push_constant) uniform Params {
  uint partials;
  uint bins;
} pc;

shared uint64_t s_count[WG];
shared uint s_min[WG], s_max[WG], s_special[WG];
shared uint64_t s_low[WG];
shared int64_t s_high[WG];

// (low, high) += the sign-extended 64-bit value v.
void add_wide(inout uint64_t low, inout int64_t high, int64_t v) {
  const uint64_t before = low;
  low += uint64_t(v);
  high += (v >> 63) + (low < before ? 1l : 0l);
}

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint n = pc.partials;

  uint64_t count = 0ul;
  uint min_key = 0xffffffffu, max_key = 0u, special = 0u;
  for (uint i = lid; i < n; i += WG) {
    count += uint64_t(partials[i].count);
    min_key = min(min_key, partials[i].min_key);
    max_key = max(max_key, partials[i].max_key);
    special |= partials[i].special;
  }

  // Bins: 256 / bins invocations per bin, each a slice of the partials; four loads in flight.
  const uint bin = lid % pc.bins, stride = WG / pc.bins;
  uint64_t low = 0ul;
  int64_t high = 0l;
  uint i = lid / pc.bins;
  for (; i + 3u * stride < n; i += 4u * stride) {
    const int64_t a = partials[i].bins[bin], b = partials[i + stride].bins[bin];
    const int64_t c = partials[i + 2u * stride].bins[bin], d = partials[i + 3u * stride].bins[bin];
    add_wide(low, high, a);
    add_wide(low, high, b);
    add_wide(low, high, c);
    add_wide(low, high, d);
  }
  for (; i < n; i += stride) add_wide(low, high, partials[i].bins[bin]);

  s_count[lid] = count;
  s_min[lid] = min_key;
  s_max[lid] = max_key;
  s_special[lid] = special;
  s_low[lid] = low;
  s_high[lid] = high;
  barrier();
  for (uint half_size = WG / 2u; half_size > 0u; half_size /= 2u) {
    if (lid < half_size) {
      s_count[lid] += s_count[lid + half_size];
      s_min[lid] = min(s_min[lid], s_min[lid + half_size]);
      s_max[lid] = max(s_max[lid], s_max[lid + half_size]);
      s_special[lid] |= s_special[lid + half_size];
      // Slices of one bin meet while half_size >= bins (both powers of two).
      if (half_size >= pc.bins) {
        const uint64_t before = s_low[lid];
        s_low[lid] += s_low[lid + half_size];
        s_high[lid] += s_high[lid + half_size] + (s_low[lid] < before ? 1l : 0l);
      }
    }
    barrier();
  }
  if (lid == 0u) {
    total.count = s_count[0];
    total.min_key = s_min[0];
    total.max_key = s_max[0];
    total.special = s_special[0];
    total.reserved = 0u;
  }
  if (lid < 16u) {
    total.bin_low[lid] = lid < pc.bins ? s_low[lid] : 0ul;
    total.bin_high[lid] = lid < pc.bins ? s_high[lid] : 0l;
  }
}
