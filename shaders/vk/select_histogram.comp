#version 450
// select_histogram: one scan of radix select (digit levels in select_config.glsl).
// SELECT_FIRST (scan 0): counts the level-0 digit (bits 31..20 of the sort key) of every key into
//   state[SELECT_HIST + digit].
// Otherwise (scan `pass` = 1, 2): reads the candidates' source (state[SELECT_SRC]: 0 = the keys,
//   1 = the candidate regions scan 1 filled), keeps the keys whose bits under state[SELECT_MASK]
//   equal state[SELECT_PREFIX] and counts their level-`pass` digit into
//   state[SELECT_HIST + pass * SELECT_BINS + digit]; when state[SELECT_DST] is 1 (scan 1 only) it
//   also copies their sort keys into the candidate regions.
// Keys are read grid-stride over SELECT_TILE-key tiles by at most SELECT_MAX_GROUPS workgroups,
// as uvec4 (the last partial tile as single keys); each invocation loads the next tile's
// SELECT_KPT keys before counting this tile's, so loads stay in flight behind the atomics.
// Counting (default): one workgroup histogram in shared memory. Each invocation keeps a run
// (digit, count) in registers and adds it with one atomic when the digit changes, so all-equal,
// sorted and narrow-range keys do not serialise on one shared address.
// Candidate regions (default): invocation t of workgroup g owns entries list[g * T * SELECT_TILE +
// e * SELECT_WG + t] for e < T * SELECT_KPT, room for every key it reads (T = tiles per
// workgroup); it appends there (no atomics, no subgroup operations, no barriers) and writes its
// count to counts[g * SELECT_WG + t]. Scan 2 reads each region with the invocation of the same
// index (entry e of neighbouring invocations are neighbours: coalesced).
//
// Variants (radix_select.cpp picks one pipeline per scan from GFXQ_SELECT_VARIANT):
//   SELECT_COPIES = C (2, 3): C interleaved shared histograms (bin d of copy c at d * C + c),
//     invocation i counting into copy i % C of its subgroup: lanes of one subgroup with equal
//     digits hit C different words in C different banks (fewer serialised shared atomics).
//     With SELECT_COPY_BY_SUBGROUP, subgroup s counts into copy s % C instead (fewer subgroups
//     contending for one word; lanes of one subgroup still share it).
//   SELECT_MATCH (SELECT_FIRST only): per key, the invocations of a subgroup with equal digits are
//     found (1: subgroupPartitionNV; 2: 13 ballots, one per bit of the digit and the take flag)
//     and the lowest of them adds their number with one shared atomic (no run).
//   SELECT_COMPACT (not SELECT_FIRST): the candidates go contiguously into one region per
//     workgroup (g * T * SELECT_TILE, the same room as the default's regions), its count in
//     counts[g]: each subgroup ranks its candidates (subgroup prefix sums) and reserves room with
//     one shared atomic per round. 1: each invocation stores its own candidates; 2: a subgroup
//     first gathers its candidates in shared memory (SELECT_STAGE_KEYS keys per invocation per
//     round) and then stores them with consecutive invocations on consecutive words. Scan 2 reads
//     the region with the whole workgroup, SELECT_WG entries apart.
//   SELECT_SPLIT (not SELECT_FIRST): a scan that copies counts nothing; a follow-up dispatch
//     (pass | SELECT_FOLLOWUP) counts the level-`pass` digits of the copied candidates from the
//     list (and does nothing when nothing was copied).
// Bindings: 0 = keys (uint[], raw, read), 1 = state (uint[], read and atomically updated),
//   not SELECT_FIRST: 2 = list (uint[], the regions), 3 = counts (uint[], per invocation).
// Push constants: n, key_type, descending, pass.
// Over binding windows (radix_select.h) there is one dispatch per window: `keys`, `list` and
// `counts` are that window's, n its key count; every window adds into the same state histograms.
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#if defined(SELECT_MATCH) && SELECT_MATCH == 1
#extension GL_NV_shader_subgroup_partitioned : require
#endif
#include "sort_config.glsl"
#include "sort_keys.glsl"
#include "select_config.glsl"

#if defined(SELECT_MATCH) && !defined(SELECT_FIRST)
#error SELECT_MATCH is for the first scan only
#endif
#if defined(SELECT_COMPACT) && defined(SELECT_FIRST)
#error SELECT_COMPACT is for the later scans only
#endif
#ifndef SELECT_COPIES
#define SELECT_COPIES 1
#endif
#define SELECT_STAGE_KEYS 8

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

shared uint s_hist[SELECT_BINS * SELECT_COPIES];
#ifdef SELECT_COMPACT
shared uint s_fill;  // candidates this workgroup has reserved room for
#if SELECT_COMPACT == 2
shared uint s_stage[SELECT_WG * SELECT_STAGE_KEYS];  // one slice per subgroup
#endif
#endif

uint run_digit = 0xffffffffu, run_count = 0u;

// This invocation's word of bin d.
uint bin(uint d) {
#if SELECT_COPIES == 1
  return d;
#else
#ifdef SELECT_COPY_BY_SUBGROUP
  return d * SELECT_COPIES + gl_SubgroupID % SELECT_COPIES;
#else
  return d * SELECT_COPIES + gl_SubgroupInvocationID % SELECT_COPIES;
#endif
#endif
}

void count_key(uint d) {
  if (d == run_digit) {
    ++run_count;
    return;
  }
  if (run_count != 0u) atomicAdd(s_hist[bin(run_digit)], run_count);
  run_digit = d;
  run_count = 1u;
}

#ifdef SELECT_MATCH
// Counts digit d of the invocations with `take`: one shared atomic per distinct digit of the
// subgroup. Called by every invocation of the subgroup together (uniform control flow).
void count_match(bool take, uint d) {
  const uint v = take ? d : SELECT_BINS;  // outside every digit: groups the idle invocations
#if SELECT_MATCH == 1
  const uvec4 same = subgroupPartitionNV(v);
#else
  uvec4 same = subgroupBallot(true);
  [[unroll]] for (uint b = 0u; b < 13u; ++b) {
    const bool one = ((v >> b) & 1u) != 0u;
    const uvec4 ones = subgroupBallot(one);
    same &= one ? ones : ~ones;
  }
#endif
  if (take && subgroupBallotFindLSB(same) == gl_SubgroupInvocationID)
    atomicAdd(s_hist[d], subgroupBallotBitCount(same));
}
#endif

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
#ifdef SELECT_FIRST
  const uint level = 0u, shift = 20u, bins = SELECT_BINS, prefix = 0u, mask = 0u;
  const bool from_list = false, append = false, counts_keys = true;
#else
#ifdef SELECT_SPLIT
  const bool followup = (pc.pass & SELECT_FOLLOWUP) != 0u;
  if (followup && state[SELECT_DST] == 0u) return;  // nothing was copied (uniform)
  const uint level = pc.pass & ~SELECT_FOLLOWUP;
  const bool from_list = followup || state[SELECT_SRC] != 0u, append = !followup && state[SELECT_DST] != 0u;
  const bool counts_keys = !append;
#else
  const uint level = pc.pass;
  const bool from_list = state[SELECT_SRC] != 0u, append = state[SELECT_DST] != 0u;
  const bool counts_keys = true;
#endif
  const uint shift = level == 1u ? 8u : 0u, bins = level == 1u ? SELECT_BINS : 256u;
  const uint prefix = state[SELECT_PREFIX], mask = state[SELECT_MASK];
#endif
  const uint digit_mask = bins - 1u;
  const uint tiles = (pc.n + SELECT_TILE - 1u) / SELECT_TILE;
  const uint groups = gl_NumWorkGroups.x, group = gl_WorkGroupID.x;
  for (uint e = tid; e < bins * SELECT_COPIES; e += SELECT_WG) s_hist[e] = 0u;
#ifdef SELECT_COMPACT
  if (tid == 0u) s_fill = 0u;
#endif
  barrier();
#ifndef SELECT_FIRST
  // This workgroup's room in the list (the default: this invocation's candidate region).
  const uint room = group * ((tiles + groups - 1u) / groups) * SELECT_TILE;
  const uint region = room + tid;
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
#if defined(SELECT_COMPACT) && SELECT_COMPACT == 1
      if (append) {
        uint count = 0u;
        [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j) count += take[j] ? 1u : 0u;
        const uint before = subgroupExclusiveAdd(count), total = subgroupAdd(count);
        uint at = 0u;
        if (subgroupElect() && total != 0u) at = atomicAdd(s_fill, total);
        at = room + subgroupBroadcastFirst(at) + before;
        [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j)
          if (take[j]) list[at++] = u[j];
      }
#elif defined(SELECT_COMPACT) && SELECT_COMPACT == 2
      if (append) {
        const uint slice = gl_SubgroupID * gl_SubgroupSize * SELECT_STAGE_KEYS;
        [[unroll]] for (uint h = 0u; h < SELECT_KPT; h += SELECT_STAGE_KEYS) {
          uint count = 0u;
          [[unroll]] for (uint j = h; j < h + SELECT_STAGE_KEYS; ++j) count += take[j] ? 1u : 0u;
          uint at = slice + subgroupExclusiveAdd(count);
          const uint total = subgroupAdd(count);
          [[unroll]] for (uint j = h; j < h + SELECT_STAGE_KEYS; ++j)
            if (take[j]) s_stage[at++] = u[j];
          uint dst = 0u;
          if (subgroupElect() && total != 0u) dst = atomicAdd(s_fill, total);
          dst = room + subgroupBroadcastFirst(dst);
          subgroupBarrier();  // the slice is written
          for (uint i = gl_SubgroupInvocationID; i < total; i += gl_SubgroupSize) list[dst + i] = s_stage[slice + i];
          subgroupBarrier();  // the slice is read: the next round may overwrite it
        }
      }
#elif !defined(SELECT_FIRST)
      if (append)
        [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j)
          if (take[j]) list[region + SELECT_WG * appended++] = u[j];
#endif
#ifdef SELECT_MATCH
      [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j) count_match(take[j], (u[j] >> shift) & digit_mask);
#else
      if (counts_keys)
        [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j)
          if (take[j]) count_key((u[j] >> shift) & digit_mask);
#endif
      u = next;
    }
#if !defined(SELECT_FIRST) && !defined(SELECT_COMPACT)
    if (append) counts[group * SELECT_WG + tid] = appended;
#endif
  }
#ifndef SELECT_FIRST
  else {
#ifdef SELECT_COMPACT
    // Scan 2 over this workgroup's region: entries SELECT_WG apart, four per round.
    const uint count = counts[group];
    for (uint e = tid; e < count; e += 4u * SELECT_WG) {
      uint u[4];
      [[unroll]] for (uint j = 0u; j < 4u; ++j) u[j] = list[room + min(e + j * SELECT_WG, count - 1u)];
      [[unroll]] for (uint j = 0u; j < 4u; ++j)
        if (e + j * SELECT_WG < count && (u[j] & mask) == prefix) count_key((u[j] >> shift) & digit_mask);
    }
#else
    // Scan 2 over the regions: each invocation reads its own, four entries at a time.
    const uint count = counts[group * SELECT_WG + tid];
    for (uint e = 0u; e < count; e += 4u) {
      uint u[4];
      [[unroll]] for (uint j = 0u; j < 4u; ++j) u[j] = list[region + SELECT_WG * min(e + j, count - 1u)];
      [[unroll]] for (uint j = 0u; j < 4u; ++j)
        if (e + j < count && (u[j] & mask) == prefix) count_key((u[j] >> shift) & digit_mask);
    }
#endif
  }
#endif
  if (run_count != 0u) atomicAdd(s_hist[bin(run_digit)], run_count);
  barrier();
#ifdef SELECT_COMPACT
  if (append && tid == 0u) counts[group] = s_fill;
#endif
  for (uint e = tid; e < bins; e += SELECT_WG) {
    uint sum = 0u;
    [[unroll]] for (uint c = 0u; c < SELECT_COPIES; ++c) sum += s_hist[e * SELECT_COPIES + c];
    if (sum != 0u) atomicAdd(state[SELECT_HIST + level * SELECT_BINS + e], sum);
  }
}
