#version 450
// select_histogram: one scan of radix select (digit levels in select_config.glsl).
// SELECT_FIRST (scan 0): counts the level-0 digit (bits 31..20 of the sort key) of every key into
//   state[SELECT_HIST + digit].
// Otherwise (scan `pass` = 1, 2): reads the candidates' source (state[SELECT_SRC]: 0 = the keys,
//   1 = the candidate regions scan 1 filled) and keeps the keys whose bits under state[SELECT_MASK]
//   equal state[SELECT_PREFIX]. When state[SELECT_DST] is 1 (scan 1 only) it copies their sort
//   keys into the candidate regions and counts nothing; a follow-up dispatch (pass |
//   SELECT_FOLLOWUP) then counts the level-`pass` digits of the copied candidates from the regions
//   (and does nothing when nothing was copied). Otherwise it counts their level-`pass` digit into
//   state[SELECT_HIST + pass * SELECT_BINS + digit].
// Keys are read grid-stride over SELECT_TILE-key tiles by at most SELECT_MAX_GROUPS workgroups,
// as uvec4 (the last partial tile as single keys); each invocation loads the next tile's
// SELECT_KPT keys before counting this tile's, so loads stay in flight behind the atomics.
// Counting: one workgroup histogram in shared memory. Each invocation keeps a run (digit, count) in
// registers and adds it with one atomic when the digit changes, so all-equal, sorted and
// narrow-range keys do not serialise on one shared address.
// Candidate regions: invocation t of workgroup g owns entries list[g * T * SELECT_TILE + e *
// SELECT_WG + t] for e < T * SELECT_KPT, room for every key it reads (T = tiles per workgroup);
// it appends there (no atomics, no subgroup operations, no barriers) and writes its count to
// counts[g * SELECT_WG + t]. The follow-up and scan 2 read each region with the invocation of the
// same index (entry e of neighbouring invocations are neighbours: coalesced).
// The sampled select (radix_select.h) runs the non-first variant at levels 0, 1 and 2 over the
// candidate regions its scan filled (state[SELECT_SRC] = 1, nothing appended), with pass |
// SELECT_GATE_CANDIDATES, and the whole select with pass | SELECT_GATE_FALLBACK: a gated dispatch
// returns at once unless state[SELECT_PATH] names its path.
// Bindings: 0 = keys (uint[], raw, read), 1 = state (uint[], read and atomically updated),
//   not SELECT_FIRST: 2 = list (uint[], the regions), 3 = counts (uint[], per invocation).
// Push constants: n, key_type, descending, pass (level | SELECT_FOLLOWUP | SELECT_GATE_*).
// Over binding windows (radix_select.h) there is one dispatch per window: `keys`, `list` and
// `counts` are that window's, n its key count; every window adds into the same state histograms.
#extension GL_EXT_control_flow_attributes : require
#include "sort_config.glsl"
#include "sort_keys.glsl"
#include "select_config.glsl"

#define VEC_PER_THREAD (SELECT_KPT / 4)

layout(local_size_x = SELECT_WG) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 0) readonly buffer Keys4 { uvec4 keys4[]; };
layout(std430, binding = 1) buffer State { uint state[]; };
#ifndef SELECT_FIRST
layout(std430, binding = 2) buffer List { uint list[]; };
layout(std430, binding = 3) buffer Counts { uint counts[]; };
#endif
layout(push_constant) uniform Params { uint n, key_type, descending, pass; } pc;

shared uint s_hist[SELECT_BINS];

uint run_digit = 0xffffffffu, run_count = 0u;

void count_key(uint d) {
  if (d == run_digit) {
    ++run_count;
    return;
  }
  if (run_count != 0u) atomicAdd(s_hist[run_digit], run_count);
  run_digit = d;
  run_count = 1u;
}

// The sort keys of tile `tile` for this invocation: key j * 4 + i is key (j * SELECT_WG + tid) * 4
// + i of the tile (a partial tile clamps its indices: no divergent loads).
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
  [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j) u[j] = sort_key(u[j], pc.key_type, pc.descending);
}

void main() {
  const uint tid = gl_LocalInvocationIndex;
  // A dispatch of the sampled select runs only on its path (uniform).
  const uint gate = pc.pass & (SELECT_GATE_CANDIDATES | SELECT_GATE_FALLBACK);
  if (gate == SELECT_GATE_CANDIDATES && state[SELECT_PATH] != SELECT_PATH_CANDIDATES) return;
  if (gate == SELECT_GATE_FALLBACK && state[SELECT_PATH] != SELECT_PATH_FALLBACK) return;
#ifdef SELECT_FIRST
  const uint level = 0u, shift = 20u, bins = SELECT_BINS, prefix = 0u, mask = 0u;
  const bool from_list = false, append = false;
#else
  const bool followup = (pc.pass & SELECT_FOLLOWUP) != 0u;
  if (followup && state[SELECT_DST] == 0u) return;  // nothing was copied (uniform)
  const uint level = pc.pass & SELECT_LEVEL_MASK;
  const uint shift = level == 0u ? 20u : (level == 1u ? 8u : 0u), bins = level == 2u ? 256u : SELECT_BINS;
  const uint prefix = state[SELECT_PREFIX], mask = state[SELECT_MASK];
  const bool from_list = followup || state[SELECT_SRC] != 0u, append = !followup && state[SELECT_DST] != 0u;
#endif
  const uint digit_mask = bins - 1u;
  const uint tiles = (pc.n + SELECT_TILE - 1u) / SELECT_TILE;
  const uint groups = gl_NumWorkGroups.x, group = gl_WorkGroupID.x;
  for (uint e = tid; e < bins; e += SELECT_WG) s_hist[e] = 0u;
  barrier();
#ifndef SELECT_FIRST
  // This invocation's candidate region.
  const uint region = group * ((tiles + groups - 1u) / groups) * SELECT_TILE + tid;
#endif
  if (!from_list) {
    uint appended = 0u;
    uint u[SELECT_KPT], next[SELECT_KPT];
    if (group < tiles) load_tile(group, tid, u);
    for (uint tile = group; tile < tiles; tile += groups) {
      if (tile + groups < tiles) load_tile(tile + groups, tid, next);
      const uint base = tile * SELECT_TILE + tid * 4u;
      bool take[SELECT_KPT];
      [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j)
        take[j] = base + (j / 4u) * (SELECT_WG * 4u) + j % 4u < pc.n && (u[j] & mask) == prefix;
#ifndef SELECT_FIRST
      if (append)
        [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j)
          if (take[j]) list[region + SELECT_WG * appended++] = u[j];
#endif
      if (!append)
        [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j)
          if (take[j]) count_key((u[j] >> shift) & digit_mask);
      u = next;
    }
#ifndef SELECT_FIRST
    if (append) counts[group * SELECT_WG + tid] = appended;
#endif
  }
#ifndef SELECT_FIRST
  else {
    // The follow-up or scan 2 over the regions: each invocation reads its own, four entries at a
    // time.
    const uint count = counts[group * SELECT_WG + tid];
    for (uint e = 0u; e < count; e += 4u) {
      uint u[4];
      [[unroll]] for (uint j = 0u; j < 4u; ++j) u[j] = list[region + SELECT_WG * min(e + j, count - 1u)];
      [[unroll]] for (uint j = 0u; j < 4u; ++j)
        if (e + j < count && (u[j] & mask) == prefix) count_key((u[j] >> shift) & digit_mask);
    }
  }
#endif
  if (run_count != 0u) atomicAdd(s_hist[run_digit], run_count);
  barrier();
  for (uint e = tid; e < bins; e += SELECT_WG)
    if (s_hist[e] != 0u) atomicAdd(state[SELECT_HIST + level * SELECT_BINS + e], s_hist[e]);
}
