#version 450
// select_histogram: one scan of radix select (digit levels in select_config.glsl).
// SELECT_FIRST (scan 0): counts the level-0 digit (bits 31..20 of the sort key) of every key into
//   state[SELECT_HIST + digit].
// Otherwise (scan `pass` = 1, 2): reads the candidates' source (state[SELECT_SRC]: 0 = the keys,
//   1 = the candidate regions scan 1 filled), keeps the keys whose bits under state[SELECT_MASK]
//   equal state[SELECT_PREFIX] and counts their level-`pass` digit into
//   state[SELECT_HIST + pass * SELECT_BINS + digit]; when state[SELECT_DST] is 1 (scan 1 only) it
//   also copies their sort keys into the candidate regions.
// Keys are read grid-stride over SELECT_TILE-key tiles, as uvec4 (the last partial tile as single
// keys); each invocation loads the next tile's SELECT_KPT keys before counting this tile's, so
// loads stay in flight behind the atomics.
// Counting: SELECT_COPIES workgroup histograms in shared memory, each taken by SELECT_WG /
// SELECT_COPIES invocations (whole subgroups), so keys of one hot digit (the exponent buckets of
// floats) spread over several addresses. One copy: 32-bit counters. Several: the 4096-bin levels
// pack two 16-bit counters per word (bins d and d + 2048), flushed to the state every `period`
// tiles, before any counter can pass 65535; the 256-bin level keeps 32-bit counters.
// SELECT_MODE picks how a key reaches its copy: SELECT_MODE_RUN keeps a run (digit, count) per
// invocation and adds it with one atomic when the digit changes (all-equal, sorted and narrow
// keys do not serialise on one address); SELECT_MODE_VOTE adds a whole subgroup's keys with one
// atomic when they share a digit, else one atomic per key; SELECT_MODE_PLAIN one atomic per key.
// Candidate regions: column c (c = subgroup-major invocation index) of workgroup g owns entries
// list[g * T * SELECT_TILE + e * SELECT_WG + c] for e < T * SELECT_KPT, room for every key the
// invocation reads (T = tiles per workgroup), and counts[g * SELECT_WG + c] says how many it holds.
// Without SELECT_COMPACT each invocation appends to its own column (no atomics, no subgroup
// operations); with it a subgroup appends its candidates to its columns in turn by ballots, after
// a barrier per tile that reconverges it (entry m of the subgroup in row m / S, column m % S,
// S = subgroup size), so a store writes whole rows. Scan 2
// reads each column with the invocation of the same index (neighbouring columns: coalesced).
// Bindings: 0 = keys (uint[], raw, read), 1 = state (uint[], read and atomically updated),
//   not SELECT_FIRST: 2 = list (uint[], the regions), 3 = counts (uint[], per column).
// Push constants: n, key_type, descending, pass.
// Over binding windows (radix_select.h) there is one dispatch per window: `keys`, `list` and
// `counts` are that window's, n its key count; every window adds into the same state histograms.
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "sort_config.glsl"
#include "sort_keys.glsl"
#include "select_config.glsl"

#define SELECT_MODE_RUN 0
#define SELECT_MODE_VOTE 1
#define SELECT_MODE_PLAIN 2
#ifndef SELECT_COPIES
#define SELECT_COPIES 1
#endif
#ifndef SELECT_MODE
#define SELECT_MODE SELECT_MODE_RUN
#endif
// Words of one histogram copy.
#if SELECT_COPIES == 1
#define COPY_WORDS SELECT_BINS
#else
#define COPY_WORDS (SELECT_BINS / 2)
#endif
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

shared uint s_hist[SELECT_COPIES * COPY_WORDS];

// This invocation's copy (first word) and whether the level's counters are packed 16-bit pairs.
uint copy_base = 0u;
bool packed = false;

void add(uint d, uint c) {
  if (packed)
    atomicAdd(s_hist[copy_base + (d & (COPY_WORDS - 1u))], c << ((d / COPY_WORDS) * 16u));
  else
    atomicAdd(s_hist[copy_base + d], c);
}

uint run_digit = 0xffffffffu, run_count = 0u;

void end_run() {
  if (run_count != 0u) add(run_digit, run_count);
  run_count = 0u;
}

// Counts digit d when `take`.
void count_key(bool take, uint d) {
#if SELECT_MODE == SELECT_MODE_RUN
  if (!take) return;
  if (d == run_digit) {
    ++run_count;
    return;
  }
  end_run();
  run_digit = d;
  run_count = 1u;
#elif SELECT_MODE == SELECT_MODE_VOTE
  // Counts the invocations that vote together: right also where a subgroup has not reconverged
  // after a divergent branch (Vulkan does not promise it; NVIDIA does not).
  const uint v = take ? d : 0xffffffffu;
  if (subgroupAllEqual(v)) {
    const uint together = subgroupBallotBitCount(subgroupBallot(true));
    const bool first = subgroupElect();
    if (take && first) add(d, together);
  } else if (take) {
    add(d, 1u);
  }
#else
  if (take) add(d, 1u);
#endif
}

// Adds the shared histograms into the state's level histogram and clears them (the whole
// workgroup, in uniform control flow).
void flush(uint hist, uint bins, uint tid) {
#if SELECT_MODE == SELECT_MODE_RUN
  end_run();
#endif
  barrier();
  if (packed) {
    for (uint w = tid; w < COPY_WORDS; w += SELECT_WG) {
      uint lo = 0u, hi = 0u;
      [[unroll]] for (uint c = 0u; c < SELECT_COPIES; ++c) {
        const uint v = s_hist[c * COPY_WORDS + w];
        lo += v & 0xffffu;
        hi += v >> 16u;
        s_hist[c * COPY_WORDS + w] = 0u;
      }
      if (lo != 0u) atomicAdd(state[hist + w], lo);
      if (hi != 0u) atomicAdd(state[hist + w + COPY_WORDS], hi);
    }
  } else {
    for (uint e = tid; e < bins; e += SELECT_WG) {
      uint sum = 0u;
      [[unroll]] for (uint c = 0u; c < SELECT_COPIES; ++c) {
        sum += s_hist[c * COPY_WORDS + e];
        s_hist[c * COPY_WORDS + e] = 0u;
      }
      if (sum != 0u) atomicAdd(state[hist + e], sum);
    }
  }
  barrier();
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
  // Subgroup-major index: a subgroup's invocations are neighbours (its columns and its copy).
  const uint t = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#ifdef SELECT_FIRST
  const uint level = 0u, shift = 20u, bins = SELECT_BINS, prefix = 0u, mask = 0u;
  const bool from_list = false, append = false;
#else
  const uint level = pc.pass;
  const uint shift = level == 1u ? 8u : 0u, bins = level == 1u ? SELECT_BINS : 256u;
  const uint prefix = state[SELECT_PREFIX], mask = state[SELECT_MASK];
  const bool from_list = state[SELECT_SRC] != 0u, append = state[SELECT_DST] != 0u;
#endif
  const uint hist = SELECT_HIST + level * SELECT_BINS;
  const uint digit_mask = bins - 1u;
  const uint tiles = (pc.n + SELECT_TILE - 1u) / SELECT_TILE;
  const uint groups = gl_NumWorkGroups.x, group = gl_WorkGroupID.x;
  copy_base = (t / (SELECT_WG / SELECT_COPIES)) * COPY_WORDS;
  packed = SELECT_COPIES > 1 && bins == SELECT_BINS;
  // Tiles between flushes: a copy's packed counters stay below 2^16.
  const uint period = packed ? 65535u / ((SELECT_WG / SELECT_COPIES) * SELECT_KPT) : 0xffffffffu;
  for (uint e = tid; e < SELECT_COPIES * COPY_WORDS; e += SELECT_WG) s_hist[e] = 0u;
  barrier();
#ifndef SELECT_FIRST
  // This invocation's column of the candidate regions.
  const uint region = group * ((tiles + groups - 1u) / groups) * SELECT_TILE + t;
#endif
  if (!from_list) {
    uint appended = 0u;
    uint u[SELECT_KPT], next[SELECT_KPT];
    if (group < tiles) load_tile(group, tid, u);
    uint since_flush = 0u;
    for (uint tile = group; tile < tiles; tile += groups) {
      if (tile + groups < tiles) load_tile(tile + groups, tid, next);
      const uint base = tile * SELECT_TILE + tid * 4u;
      bool take[SELECT_KPT];
      [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j)
        take[j] = base + (j / 4u) * (SELECT_WG * 4u) + j % 4u < pc.n && (u[j] & mask) == prefix;
#ifndef SELECT_FIRST
      if (append) {
#ifdef SELECT_COMPACT
        // The subgroup's m-th candidate goes to row m / S, column m % S of its columns. The
        // barrier reconverges the subgroups after the divergent counting of the last tile; the
        // ballots come before any divergent store.
        barrier();
        const uint first_column = region - gl_SubgroupInvocationID;
        uint at[SELECT_KPT];
        [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j) {
          const uvec4 b = subgroupBallot(take[j]);
          const uint m = appended + subgroupBallotExclusiveBitCount(b);
          at[j] = first_column + (m / gl_SubgroupSize) * SELECT_WG + m % gl_SubgroupSize;
          appended += subgroupBallotBitCount(b);
        }
        [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j)
          if (take[j]) list[at[j]] = u[j];
#else
        [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j)
          if (take[j]) list[region + SELECT_WG * appended++] = u[j];
#endif
      }
#endif
      [[unroll]] for (uint j = 0u; j < SELECT_KPT; ++j) count_key(take[j], (u[j] >> shift) & digit_mask);
      u = next;
      if (++since_flush == period) {
        flush(hist, bins, tid);
        since_flush = 0u;
      }
    }
#ifndef SELECT_FIRST
#ifdef SELECT_COMPACT
    // Of the subgroup's `appended` entries, column i holds those with m % S == i.
    const uint lane = gl_SubgroupInvocationID;
    if (append)
      counts[group * SELECT_WG + t] = appended > lane ? (appended - lane + gl_SubgroupSize - 1u) / gl_SubgroupSize : 0u;
#else
    if (append) counts[group * SELECT_WG + t] = appended;
#endif
#endif
  }
#ifndef SELECT_FIRST
  else {
    // Scan 2 over the regions: each invocation reads its own column, four entries at a time.
    const uint count = counts[group * SELECT_WG + t];
    for (uint e = 0u; e < count; e += 4u) {
      uint u[4];
      [[unroll]] for (uint j = 0u; j < 4u; ++j) u[j] = list[region + SELECT_WG * min(e + j, count - 1u)];
      [[unroll]] for (uint j = 0u; j < 4u; ++j)
        count_key(e + j < count && (u[j] & mask) == prefix, (u[j] >> shift) & digit_mask);
    }
  }
#endif
  flush(hist, bins, tid);
}
