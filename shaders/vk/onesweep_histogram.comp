#version 450
// onesweep_histogram: the four 8-bit digit histograms of the onesweep radix sort in one read of
// the keys. Workgroup g counts tiles g, g + G, ... (G = ONESWEEP_HIST_GROUPS workgroups) of
// SORT_TILE keys in shared memory, loading 4 keys at once (uvec4), into one copy of the counters
// (8 interleaved copies measured slower on the H200 at 2^28 keys: 0.70 ms against 0.50), and adds
// its counts to ctrl[ONESWEEP_HIST + 256 p + d] (keys whose digit p, bits 8p..8p+7 of the sort
// key, is d). The ctrl words must be zero before.
// Bindings: 0 = keys (uvec4[], read; the whole uvec4s of the keys), 1 = ctrl (uint[], atomically
// added), 2 = the same keys as uint[] (the last partial uvec4's keys).
// Push constants: n, ntiles, key_type, descending.
#include "sort_config.glsl"
#include "sort_keys.glsl"

layout(local_size_x = SORT_WG) in;
layout(std430, binding = 0) readonly buffer Keys4 { uvec4 keys4[]; };
layout(std430, binding = 1) buffer Ctrl { uint ctrl[]; };
layout(std430, binding = 2) readonly buffer Keys { uint keys[]; };
layout(push_constant) uniform Params { uint n, ntiles, key_type, descending; } pc;

shared uint s_hist[ONESWEEP_PASSES * SORT_BINS];

const uint VECS = SORT_KPT / 4u;  // uvec4 loads per invocation and tile

void count(uint raw) {
  const uint k = sort_key(raw, pc.key_type, pc.descending);
  atomicAdd(s_hist[k & 255u], 1u);
  atomicAdd(s_hist[SORT_BINS + ((k >> 8) & 255u)], 1u);
  atomicAdd(s_hist[2u * SORT_BINS + ((k >> 16) & 255u)], 1u);
  atomicAdd(s_hist[3u * SORT_BINS + (k >> 24)], 1u);
}

void main() {
  const uint tid = gl_LocalInvocationIndex;
  for (uint d = tid; d < ONESWEEP_PASSES * SORT_BINS; d += SORT_WG) s_hist[d] = 0u;
  barrier();
  const uint whole = pc.n / 4u;  // whole uvec4s
  for (uint tile = gl_WorkGroupID.x; tile < pc.ntiles; tile += gl_NumWorkGroups.x) {
    const uint base = tile * (SORT_TILE / 4u);
    uvec4 key[VECS];
    for (uint j = 0u; j < VECS; ++j) {
      const uint i = base + j * SORT_WG + tid;
      key[j] = i < whole ? keys4[i] : uvec4(0u);
    }
    for (uint j = 0u; j < VECS; ++j) {
      const uint i = base + j * SORT_WG + tid;
      if (i < whole) {
        count(key[j].x);
        count(key[j].y);
        count(key[j].z);
        count(key[j].w);
      } else if (i == whole) {
        for (uint e = 4u * whole; e < pc.n; ++e) count(keys[e]);
      }
    }
  }
  barrier();
  for (uint d = tid; d < ONESWEEP_PASSES * SORT_BINS; d += SORT_WG)
    if (s_hist[d] != 0u) atomicAdd(ctrl[ONESWEEP_HIST + d], s_hist[d]);
}
