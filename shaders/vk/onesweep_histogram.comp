#version 450
#extension GL_EXT_control_flow_attributes : require
// onesweep_histogram: the four 8-bit digit histograms of the onesweep radix sort in one read of
// the keys. Workgroup g counts tiles g, g + G, ... (G = ONESWEEP_HIST_GROUPS workgroups) of
// ONESWEEP_HIST_TILE keys, HIST_VECS uvec4 loads per invocation, in shared memory, and adds its
// counts to ctrl[ONESWEEP_HIST + 256 p + d] (keys whose digit p, bits 8p..8p+7 of the sort key, is
// d). The ctrl words must be zero before.
// Shared counters: 8 copies laid out so that the 32 invocations of an aligned run of 32 (one
// subgroup on NVIDIA) never hit the same bank in one atomicAdd, whatever the digits: with
// lane = tid % 32, copy c = lane % 8 and group g = lane / 8, the j-th atomic of a key counts digit
// p = (j + g) % 4 in word 32 d + 8 p + c (bank 8 p + c). Correct for any subgroup size. On the
// H200 at 2^28 keys: 0.41 ms against 0.49 with one copy of the counters and 256 x 4 uvec4 tiles
// (BENCHMARKS.md, sixth round).
// Bindings: 0 = keys (uvec4[], read; the whole uvec4s of the keys), 1 = ctrl (uint[], atomically
// added), 2 = the same keys as uint[] (the last partial uvec4's keys).
// Push constants: n, ntiles, key_flip (sort_key_flip). Defines: SORT_KEY_TYPE (one kernel per key
// type, as onesweep_pass).
#include "sort_config.glsl"
#include "sort_keys.glsl"

#define HIST_VECS (ONESWEEP_HIST_TILE / (4 * ONESWEEP_HIST_WG))
#define HIST_WORDS (8 * ONESWEEP_PASSES * SORT_BINS)

layout(local_size_x = ONESWEEP_HIST_WG) in;
layout(std430, binding = 0) readonly buffer Keys4 { uvec4 keys4[]; };
layout(std430, binding = 1) buffer Ctrl { uint ctrl[]; };
layout(std430, binding = 2) readonly buffer Keys { uint keys[]; };
layout(push_constant) uniform Params { uint n, ntiles, key_flip; } pc;

shared uint s_hist[HIST_WORDS];

// Counts one key: rotated right by 8 g bits, its byte j is digit (j + g) % 4.
void count(uint raw, uint lane) {
  const uint k = sort_key_flip(raw, SORT_KEY_TYPE, pc.key_flip);
  const uint sh = (lane >> 3) * 8u;
  const uint kr = (k >> sh) | (k << ((32u - sh) & 31u));
  atomicAdd(s_hist[(kr & 255u) * 32u + lane], 1u);
  atomicAdd(s_hist[((kr >> 8) & 255u) * 32u + ((lane + 8u) & 31u)], 1u);
  atomicAdd(s_hist[((kr >> 16) & 255u) * 32u + ((lane + 16u) & 31u)], 1u);
  atomicAdd(s_hist[(kr >> 24) * 32u + ((lane + 24u) & 31u)], 1u);
}

void main() {
  const uint tid = gl_LocalInvocationIndex, lane = tid & 31u;
  for (uint w = tid; w < HIST_WORDS; w += ONESWEEP_HIST_WG) s_hist[w] = 0u;
  barrier();
  const uint whole = pc.n / 4u;  // whole uvec4s
  for (uint tile = gl_WorkGroupID.x; tile < pc.ntiles; tile += gl_NumWorkGroups.x) {
    const uint base = tile * (ONESWEEP_HIST_TILE / 4u);
    uvec4 key[HIST_VECS];
    [[unroll]] for (uint j = 0u; j < HIST_VECS; ++j) {
      const uint i = base + j * ONESWEEP_HIST_WG + tid;
      key[j] = i < whole ? keys4[i] : uvec4(0u);
    }
    [[unroll]] for (uint j = 0u; j < HIST_VECS; ++j) {
      const uint i = base + j * ONESWEEP_HIST_WG + tid;
      if (i < whole) {
        count(key[j].x, lane);
        count(key[j].y, lane);
        count(key[j].z, lane);
        count(key[j].w, lane);
      } else if (i == whole) {
        for (uint e = 4u * whole; e < pc.n; ++e) count(keys[e], lane);
      }
    }
  }
  barrier();
  // Item (d, p) sums the 8 copies of digit d of pass p, read rotated by d so that the 32 reads of
  // one step hit 32 banks.
  for (uint it = tid; it < ONESWEEP_PASSES * SORT_BINS; it += ONESWEEP_HIST_WG) {
    const uint d = it >> 2, p = it & 3u;
    uint sum = 0u;
    [[unroll]] for (uint c = 0u; c < 8u; ++c) sum += s_hist[d * 32u + p * 8u + ((c + d) & 7u)];
    if (sum != 0u) atomicAdd(ctrl[ONESWEEP_HIST + p * SORT_BINS + d], sum);
  }
}
