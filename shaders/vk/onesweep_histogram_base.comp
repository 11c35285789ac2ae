#version 450
// onesweep_histogram_base: onesweep_histogram with scalar loads (GFXQ_ONESWEEP_VARIANT=base). The four 8-bit digit histograms of the onesweep radix sort in one read of
// the keys. Workgroup g counts tiles g, g + G, ... (G workgroups) in shared memory and adds its
// counts to ctrl[ONESWEEP_HIST + 256 p + d] (keys whose digit p, bits 8p..8p+7 of the sort key,
// is d). The ctrl words must be zero before.
// Bindings: 0 = keys (uint[], read), 1 = ctrl (uint[], atomically added).
// Push constants: n, ntiles, key_type, descending.
#include "sort_config.glsl"
#include "sort_keys.glsl"

layout(local_size_x = SORT_WG) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) buffer Ctrl { uint ctrl[]; };
layout(push_constant) uniform Params { uint n, ntiles, key_type, descending; } pc;

shared uint s_hist[ONESWEEP_PASSES * SORT_BINS];

void main() {
  const uint tid = gl_LocalInvocationIndex;
  for (uint d = tid; d < ONESWEEP_PASSES * SORT_BINS; d += SORT_WG) s_hist[d] = 0u;
  barrier();
  for (uint tile = gl_WorkGroupID.x; tile < pc.ntiles; tile += gl_NumWorkGroups.x) {
    const uint base = tile * SORT_TILE;
    uint key[SORT_KPT];
    for (uint j = 0u; j < SORT_KPT; ++j) {
      const uint i = base + j * SORT_WG + tid;
      key[j] = i < pc.n ? keys[i] : 0u;
    }
    for (uint j = 0u; j < SORT_KPT; ++j) {
      if (base + j * SORT_WG + tid >= pc.n) break;
      const uint k = sort_key(key[j], pc.key_type, pc.descending);
      atomicAdd(s_hist[k & 255u], 1u);
      atomicAdd(s_hist[SORT_BINS + ((k >> 8) & 255u)], 1u);
      atomicAdd(s_hist[2u * SORT_BINS + ((k >> 16) & 255u)], 1u);
      atomicAdd(s_hist[3u * SORT_BINS + (k >> 24)], 1u);
    }
  }
  barrier();
  for (uint d = tid; d < ONESWEEP_PASSES * SORT_BINS; d += SORT_WG)
    if (s_hist[d] != 0u) atomicAdd(ctrl[ONESWEEP_HIST + d], s_hist[d]);
}
