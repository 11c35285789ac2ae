#version 450
// select_histogram: one scan of radix select (digit levels in sort_keys.glsl), grid-stride over
// SELECT_TILE-key tiles.
// SELECT_FIRST: counts the level-0 and level-1 digits of every key's sort key into
//   state[SELECT_HIST_FIRST + level * SELECT_BINS + digit].
// Otherwise (scan `pass` = 1, 2): returns at once when state[SELECT_LEVEL] = SELECT_LEVELS (all
//   decided); else reads the candidates' source (state[SELECT_SRC]: 0 = the keys, 1 = the list
//   of candidates' sort keys; state[SELECT_SRC_COUNT] entries), keeps those whose bits under
//   state[SELECT_MASK] equal state[SELECT_PREFIX], counts their digit of level
//   state[SELECT_LEVEL] into state[SELECT_HIST_PASS + (pass - 1) * SELECT_BINS + digit] and, when
//   state[SELECT_DST] is 1, appends their sort keys to the list (in any order;
//   state[SELECT_APPENDED] counts them).
// Each subgroup counts the lanes sharing a digit with its first lane with one atomic
// (subgroup_bin_add), so narrow, all-equal and often skewed keys do not serialise on one address.
// Bindings: 0 = keys (uint[], read), 1 = state (uint[], read and atomically updated), not
//   SELECT_FIRST: 2 = list (uint[], read or written).
// Push constants: n, key_type, descending, pass.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "sort_config.glsl"
#include "sort_keys.glsl"

layout(local_size_x = SELECT_WG) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) buffer State { uint state[]; };
#ifndef SELECT_FIRST
layout(std430, binding = 2) buffer List { uint list[]; };
#endif
layout(push_constant) uniform Params { uint n, key_type, descending, pass; } pc;

#include "sort_workgroup.glsl"

#ifdef SELECT_FIRST

shared uint s_hist[2 * SELECT_BINS];

void main() {
  const uint tid = gl_LocalInvocationIndex;
  for (uint e = tid; e < 2u * SELECT_BINS; e += SELECT_WG) s_hist[e] = 0u;
  barrier();
  for (uint tile = gl_WorkGroupID.x; tile * SELECT_TILE < pc.n; tile += gl_NumWorkGroups.x) {
    uint u[SELECT_KPT];
    for (uint j = 0u; j < SELECT_KPT; ++j) {
      const uint i = tile * SELECT_TILE + j * SELECT_WG + tid;
      u[j] = i < pc.n ? sort_key(keys[i], pc.key_type, pc.descending) : 0u;
    }
    for (uint j = 0u; j < SELECT_KPT; ++j) {
      const bool ok = tile * SELECT_TILE + j * SELECT_WG + tid < pc.n;
      const uint top = u[j] >> 21, mid = (u[j] >> 10) & (SELECT_BINS - 1u);
      const uint add_top = subgroup_bin_add(top, ok), add_mid = subgroup_bin_add(mid, ok);
      if (add_top != 0u) atomicAdd(s_hist[top], add_top);
      if (add_mid != 0u) atomicAdd(s_hist[SELECT_BINS + mid], add_mid);
    }
  }
  barrier();
  for (uint e = tid; e < 2u * SELECT_BINS; e += SELECT_WG)
    if (s_hist[e] != 0u) atomicAdd(state[SELECT_HIST_FIRST + e], s_hist[e]);
}

#else

shared uint s_hist[SELECT_BINS];
shared uint s_stage[SELECT_TILE];  // this tile's candidates, appended to the list together
shared uint s_count;
shared uint s_base;

void main() {
  const uint level = state[SELECT_LEVEL];
  if (level >= SELECT_LEVELS) return;
  const uint tid = gl_LocalInvocationIndex;
  const uint prefix = state[SELECT_PREFIX], mask = state[SELECT_MASK];
  const uint shift = select_level_shift(level), bits = select_level_bits(level);
  const uint src = state[SELECT_SRC], dst = state[SELECT_DST];
  const uint total = src == 0u ? pc.n : state[SELECT_SRC_COUNT];
  for (uint e = tid; e < SELECT_BINS; e += SELECT_WG) s_hist[e] = 0u;
  if (tid == 0u) s_count = 0u;
  barrier();
  for (uint tile = gl_WorkGroupID.x; tile * SELECT_TILE < total; tile += gl_NumWorkGroups.x) {
    uint u[SELECT_KPT];
    for (uint j = 0u; j < SELECT_KPT; ++j) {
      const uint i = tile * SELECT_TILE + j * SELECT_WG + tid;
      u[j] = 0u;
      if (i < total) u[j] = src == 0u ? sort_key(keys[i], pc.key_type, pc.descending) : list[i];
    }
    for (uint j = 0u; j < SELECT_KPT; ++j) {
      const bool match = tile * SELECT_TILE + j * SELECT_WG + tid < total && (u[j] & mask) == prefix;
      const uvec4 matches = subgroupBallot(match);
      if (subgroupBallotBitCount(matches) == 0u) continue;
      const uint d = (u[j] >> shift) & ((1u << bits) - 1u);
      const uint add = subgroup_bin_add(d, match);
      if (add != 0u) atomicAdd(s_hist[d], add);
      if (dst != 0u) {
        uint at = 0u;
        if (subgroupElect()) at = atomicAdd(s_count, subgroupBallotBitCount(matches));
        at = subgroupBroadcastFirst(at);
        if (match) s_stage[at + subgroupBallotExclusiveBitCount(matches)] = u[j];
      }
    }
    if (dst != 0u) {
      barrier();
      if (tid == 0u) s_base = atomicAdd(state[SELECT_APPENDED], s_count);
      barrier();
      for (uint e = tid; e < s_count; e += SELECT_WG) list[s_base + e] = s_stage[e];
      barrier();
      if (tid == 0u) s_count = 0u;
      barrier();
    }
  }
  barrier();
  for (uint e = tid; e < SELECT_BINS; e += SELECT_WG)
    if (s_hist[e] != 0u) atomicAdd(state[SELECT_HIST_PASS + (pc.pass - 1u) * SELECT_BINS + e], s_hist[e]);
}

#endif
