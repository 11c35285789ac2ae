#version 450
// select_sample_scan: the sampled select's one scan of the keys (radix_select.h). With the bracket
// lo <= hi (state[SELECT_LO], state[SELECT_HI]; a side whose `bounds` bit is clear is open) it
// counts the keys below lo, equal to lo and equal to hi (hi != lo) into state[SELECT_BELOW],
// state[SELECT_AT_LO], state[SELECT_AT_HI], and copies the sort keys strictly between them into
// the candidate regions, counting them into state[SELECT_INSIDE]. The regions, their layout and
// the per-invocation counts are those scan 1 of the unsampled select fills (select_histogram.comp:
// invocation t of workgroup g appends at list[g * T * SELECT_TILE + e * SELECT_WG + t] and writes
// its count to counts[g * SELECT_WG + t]; no atomics, no barriers), so select_pass reads them back
// unchanged.
// Keys are read as in select_histogram.comp: grid-stride over SELECT_TILE-key tiles, uvec4, the
// next tile loaded before this one is used. Each subgroup adds its counts with one atomic each.
// Bindings: 0 = keys (uint[], raw, read), 1 = state (uint[], read and atomically updated),
//   2 = list (uint[], the regions), 3 = counts (uint[], per invocation).
// Push constants: n, key_flip (sort_key_flip), bounds (bit 0: lo bounds the bracket, bit 1: hi
// does). Defines: SORT_KEY_TYPE (one kernel per key type, as the onesweep sort's). Full tiles (all
// but the last) run a copy of the tile's code without key index checks.
// Over binding windows there is one dispatch per window (that window's keys, regions, counts and
// key count), every window adding into the same state words.
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "sort_config.glsl"
#include "sort_keys.glsl"
#include "select_config.glsl"

#define VEC_PER_THREAD (SELECT_KPT / 4)

layout(local_size_x = SELECT_WG) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 0) readonly buffer Keys4 { uvec4 keys4[]; };
layout(std430, binding = 1) buffer State { uint state[]; };
layout(std430, binding = 2) writeonly buffer List { uint list[]; };
layout(std430, binding = 3) writeonly buffer Counts { uint counts[]; };
layout(push_constant) uniform Params { uint n, key_flip, bounds; } pc;

// The raw keys of tile `tile` for this invocation: key j * 4 + i is key (j * SELECT_WG + tid) * 4
// + i of the tile (a partial tile clamps its indices).
void load_tile(uint tile, uint tid, out uint u[SELECT_KPT]) {
  if ((tile + 1u) * SELECT_TILE <= pc.n) {
    [[unroll]] for (uint j = 0u; j < VEC_PER_THREAD; ++j) {
      const uvec4 v = keys4[tile * (SELECT_TILE / 4u) + j * SELECT_WG + tid];
      [[unroll]] for (uint i = 0u; i < 4u; ++i) u[j * 4u + i] = v[i];
    }
  } else {
    [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j)
      u[j] = keys[min(tile * SELECT_TILE + ((j / 4u) * SELECT_WG + tid) * 4u + j % 4u, pc.n - 1u)];
  }
}

void add(uint word, uint count) {
  const uint total = subgroupAdd(count);
  if (subgroupElect() && total != 0u) atomicAdd(state[word], total);
}

// Counts and copies this invocation's keys of one tile (from key `base`); `full` (a constant at
// each call site): every key of the tile is below n.
void scan_tile(const uint raw[SELECT_KPT], uint base, const bool full, bool has_lo, bool has_hi, bool split_hi,
               uint lo, uint hi, uint region, inout uint below, inout uint at_lo, inout uint at_hi,
               inout uint appended) {
  [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j) {
    const uint u = sort_key_flip(raw[j], SORT_KEY_TYPE, pc.key_flip);
    if (full || base + (j / 4u) * (SELECT_WG * 4u) + j % 4u < pc.n) {
      below += has_lo && u < lo ? 1u : 0u;
      at_lo += has_lo && u == lo ? 1u : 0u;
      at_hi += split_hi && u == hi ? 1u : 0u;
      if ((!has_lo || u > lo) && (!has_hi || u < hi)) list[region + SELECT_WG * appended++] = u;
    }
  }
}

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint tiles = (pc.n + SELECT_TILE - 1u) / SELECT_TILE;
  const uint groups = gl_NumWorkGroups.x, group = gl_WorkGroupID.x;
  const bool has_lo = (pc.bounds & 1u) != 0u, has_hi = (pc.bounds & 2u) != 0u;
  const uint lo = state[SELECT_LO], hi = state[SELECT_HI];
  // Keys equal to hi count as at_lo when lo == hi.
  const bool split_hi = has_hi && !(has_lo && lo == hi);
  const uint region = group * ((tiles + groups - 1u) / groups) * SELECT_TILE + tid;
  uint below = 0u, at_lo = 0u, at_hi = 0u, appended = 0u;
  uint raw[SELECT_KPT], next[SELECT_KPT];
  if (group < tiles) load_tile(group, tid, raw);
  for (uint tile = group; tile < tiles; tile += groups) {
    if (tile + groups < tiles) load_tile(tile + groups, tid, next);
    const uint base = tile * SELECT_TILE + tid * 4u;
    if ((tile + 1u) * SELECT_TILE <= pc.n) {
      scan_tile(raw, base, true, has_lo, has_hi, split_hi, lo, hi, region, below, at_lo, at_hi, appended);
    } else {
      scan_tile(raw, base, false, has_lo, has_hi, split_hi, lo, hi, region, below, at_lo, at_hi, appended);
    }
    raw = next;
  }
  counts[group * SELECT_WG + tid] = appended;
  add(SELECT_BELOW, below);
  add(SELECT_AT_LO, at_lo);
  add(SELECT_AT_HI, at_hi);
  add(SELECT_INSIDE, appended);
}
