#version 450
// select_histogram: one scan of radix select (digit levels in select_config.glsl), grid-stride
// over SELECT_TILE-key tiles; each invocation loads its SELECT_KPT keys of a tile before counting
// any (loads in flight).
// SELECT_FIRST (scan 0): counts the level-0 digit (bits 31..20 of the sort key) of every key into
//   state[SELECT_HIST + digit].
// Otherwise (scan `pass` = 1, 2): reads the candidates' source (state[SELECT_SRC]: 0 = the keys,
//   1 = the candidate list of sort keys, state[SELECT_SRC_COUNT] entries), keeps the keys whose
//   bits under state[SELECT_MASK] equal state[SELECT_PREFIX], counts their level-`pass` digit
//   into state[SELECT_HIST + pass * SELECT_BINS + digit] and, when state[SELECT_DST] is 1,
//   appends their sort keys to the list (in any order; state[SELECT_APPENDED] counts them; one
//   global atomic per workgroup and tile).
// Counting: a workgroup histogram in shared memory; in each subgroup the lanes sharing the digit
// of the first counting lane are added by that lane with one atomic, the others add 1 each, so
// all-equal and sorted keys do not serialise on one address. At the end each workgroup adds its
// non-zero bins to the state with global atomics.
// Bindings: 0 = keys (uint[], raw, read), 1 = state (uint[], read and atomically updated),
//   not SELECT_FIRST: 2 = list (uint[], read or written).
// Push constants: n, key_type, descending, pass.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#include "sort_config.glsl"
#include "sort_keys.glsl"
#include "select_config.glsl"

layout(local_size_x = SELECT_WG) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) buffer State { uint state[]; };
#ifndef SELECT_FIRST
layout(std430, binding = 2) buffer List { uint list[]; };
#endif
layout(push_constant) uniform Params { uint n, key_type, descending, pass; } pc;

shared uint s_hist[SELECT_BINS];
#ifndef SELECT_FIRST
shared uint s_warp[SELECT_WG];  // per-subgroup candidate counts, then their offsets
shared uint s_base;
#endif

// Adds `take` to bin d of the shared histogram with few same-address atomics (see the top).
// Call from subgroup-uniform control flow.
void count_digit(uint d, bool take) {
  const uvec4 takers = subgroupBallot(take);
  if (subgroupBallotBitCount(takers) == 0u) return;
  const uint first = subgroupBallotFindLSB(takers);
  const bool with_first = take && d == subgroupShuffle(d, first);
  const uint together = subgroupBallotBitCount(subgroupBallot(with_first));
  if (gl_SubgroupInvocationID == first)
    atomicAdd(s_hist[d], together);
  else if (take && !with_first)
    atomicAdd(s_hist[d], 1u);
}

void main() {
  const uint tid = gl_LocalInvocationIndex;
#ifdef SELECT_FIRST
  const uint total = pc.n, level = 0u, shift = 20u, bins = SELECT_BINS;
  const uint prefix = 0u, mask = 0u;
  const bool from_list = false, append = false;
#else
  const uint level = pc.pass;
  const uint shift = level == 1u ? 8u : 0u, bins = level == 1u ? SELECT_BINS : 256u;
  const uint prefix = state[SELECT_PREFIX], mask = state[SELECT_MASK];
  const bool from_list = state[SELECT_SRC] != 0u, append = state[SELECT_DST] != 0u;
  const uint total = from_list ? state[SELECT_SRC_COUNT] : pc.n;
#endif
  for (uint e = tid; e < bins; e += SELECT_WG) s_hist[e] = 0u;
  barrier();
  for (uint tile = gl_WorkGroupID.x; tile * SELECT_TILE < total; tile += gl_NumWorkGroups.x) {
    const uint first = tile * SELECT_TILE;
    const bool full = total - first >= SELECT_TILE;
    uint u[SELECT_KPT];
    [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j) {
      const uint i = first + j * SELECT_WG + tid;
      uint raw = 0u;
#ifndef SELECT_FIRST
      if (from_list) {
        raw = full || i < total ? list[i] : 0u;
      } else
#endif
      {
        raw = full || i < total ? keys[i] : 0u;
      }
      u[j] = from_list ? raw : sort_key(raw, pc.key_type, pc.descending);
    }
    uint matches = 0u;
    [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j) {
      const bool take = (full || first + j * SELECT_WG + tid < total) && (u[j] & mask) == prefix;
      count_digit((u[j] >> shift) & (bins - 1u), take);
      matches += take ? 1u : 0u;
    }
#ifndef SELECT_FIRST
    if (append) {
      // This invocation's candidates go to list[s_base + (candidates of earlier invocations)].
      const uint before = subgroupExclusiveAdd(matches);
      if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) s_warp[gl_SubgroupID] = before + matches;
      barrier();
      if (tid == 0u) {
        uint sum = 0u;
        for (uint s = 0u; s < gl_NumSubgroups; ++s) {
          const uint c = s_warp[s];
          s_warp[s] = sum;
          sum += c;
        }
        s_base = sum != 0u ? atomicAdd(state[SELECT_APPENDED], sum) : 0u;
      }
      barrier();
      uint at = s_base + s_warp[gl_SubgroupID] + before;
      [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j)
        if ((full || first + j * SELECT_WG + tid < total) && (u[j] & mask) == prefix) list[at++] = u[j];
      barrier();
    }
#endif
  }
  barrier();
  for (uint e = tid; e < bins; e += SELECT_WG)
    if (s_hist[e] != 0u) atomicAdd(state[SELECT_HIST + level * SELECT_BINS + e], s_hist[e]);
}
