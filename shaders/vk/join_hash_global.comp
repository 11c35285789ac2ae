#version 450
// join_hash_global: the build of the global-table hash join (no partitioning passes) and the probe of
// a prepared probe side. The table (join_global_slot.glsl): one 64-bit (key, row id) entry per
// distinct build key, directly addressed when the build keys' range, measured on the device into
// `range` and read here so the host need not wait for it, is at most twice the build rows. Build
// rows come from prepared keys and row ids, or (`column`) straight from the build side's key column
// (row i has id i, its key the value normalised by key_norm). Modes (JOIN_GLOBAL_*):
//   INSERT:  build rows claim their key's slot with their row id: one 64-bit compare-and-swap of the
//            free entry (JOIN_ATOMIC64), else a 32-bit one of the key word (of the row word where the
//            key is not compared: direct slots, and slot cap for the key 0xFFFFFFFF) and the row word
//            stored after it (read by later dispatches only). A row whose key holds a slot already is
//            not inserted and sets flags[0] (duplicate build keys: the host then groups the rows);
//   COUNT:   (duplicate keys) build rows: slot_count[their key's slot] += 1;
//   SCATTER: (duplicate keys) build rows: row ids grouped by slot, build_rid[slot_start[slot] +
//            slot_fill[slot]++] (slot_start: the exclusive scan of slot_count), so each key's rows are
//            one run;
//   PROBE:   probe rows: the run of their key: grouped, unit_start[i], counts[i] = slot_start and
//            slot_count of their key's slot (0 rows when absent); else (unique build keys) counts[i]
//            = 1 and match[i] = the entry's row id when the key is there (else 0), unit_start[i] = i.
// Bindings: 0 = keys (uint[n]: prepared, or the raw key column), 1 = rids (uint[n]), 2 = table
//   (uint64_t[cap + 1], also as uint[2 cap + 2]), 3 = slot_count (uint[cap + 1]), 4 = slot_start
//   (uint64_t[cap + 1]), 5 = slot_fill (uint[cap + 1]), 6 = build_rid (uint[]), 7 = unit_start
//   (uint[n]), 8 = counts (uint[n]), 9 = range (two ReduceResults of the build keys, read with
//   range_norm: join_global_range), 10 = match (uint[n]), 11 = flags (uint[]: 0 = duplicate build
//   keys).
// Push constants: n, cap (a power of two, at least twice the build rows), mode, allow_direct, build
// (build rows), grouped, column, key_norm (JOIN_NORM_* of keys[]), range_norm, group_offset (last,
// set by dispatch).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#ifdef JOIN_ATOMIC64
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_memory_scope_semantics : require
#endif
#include "join_config.glsl"
#include "hash.glsl"
#include "join_keys.glsl"
layout(local_size_x = JOIN_WG) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) readonly buffer Rids { uint rids[]; };
layout(std430, binding = 2) buffer Table { uint64_t table64[]; };
layout(std430, binding = 2) buffer TableWords { uint table_words[]; };
layout(std430, binding = 3) buffer SlotCount { uint slot_count[]; };
layout(std430, binding = 4) readonly buffer SlotStart { uint64_t slot_start[]; };
layout(std430, binding = 5) buffer SlotFill { uint slot_fill[]; };
layout(std430, binding = 6) writeonly buffer BuildRid { uint build_rid[]; };
layout(std430, binding = 7) writeonly buffer UnitStart { uint unit_start[]; };
layout(std430, binding = 8) writeonly buffer Counts { uint counts[]; };
layout(std430, binding = 9) readonly buffer Range { uint range_words[]; };
layout(std430, binding = 10) writeonly buffer Match { uint match[]; };
layout(std430, binding = 11) buffer Flags { uint flags[]; };
layout(push_constant) uniform Push {
  uint n, cap, mode, allow_direct, build, grouped, column, key_norm, range_norm, group_offset;
} pc;
#include "join_global_slot.glsl"

// Claims a slot for build row `rid` with key k; true when k holds a slot already (a duplicate key:
// the row is not inserted). Two rows of one key start their walks at the same slot and slots are
// claimed once, so the later walk meets the earlier row's entry: every duplicate is seen.
bool insert(uint k, uint rid, bool direct, uint kmin) {
  if (direct) {
    const uint s = k - kmin;
#ifdef JOIN_ATOMIC64
    return atomicCompSwap(table64[s], JOIN_EMPTY_ENTRY, pack64(uvec2(k, rid))) != JOIN_EMPTY_ENTRY;
#else
    return atomicCompSwap(table_words[2u * s + 1u], JOIN_EMPTY, rid) != JOIN_EMPTY;
#endif
  }
#ifndef JOIN_ATOMIC64
  if (k == JOIN_EMPTY) return atomicCompSwap(table_words[2u * pc.cap + 1u], JOIN_EMPTY, rid) != JOIN_EMPTY;
#endif
  uint h = hash_fmix32(k) & (pc.cap - 1u);
  for (uint step = 0u; step < pc.cap; ++step) {
#ifdef JOIN_ATOMIC64
    // An atomic load: an entry is seen whole (its claim wrote both words at once) or free.
    uint64_t seen = atomicLoad(table64[h], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    if (seen == JOIN_EMPTY_ENTRY) {
      seen = atomicCompSwap(table64[h], JOIN_EMPTY_ENTRY, pack64(uvec2(k, rid)));
      if (seen == JOIN_EMPTY_ENTRY) return false;
    }
    if (unpack32(seen).x == k) return true;
#else
    uint seen = table_words[2u * h];
    if (seen == JOIN_EMPTY) {
      seen = atomicCompSwap(table_words[2u * h], JOIN_EMPTY, k);
      if (seen == JOIN_EMPTY) {
        table_words[2u * h + 1u] = rid;
        return false;
      }
    }
    if (seen == k) return true;
#endif
    h = (h + 1u) & (pc.cap - 1u);
  }
  return false;
}

void main() {
  const uint i = (gl_WorkGroupID.x + pc.group_offset) * JOIN_WG + gl_LocalInvocationIndex;
  if (i >= pc.n) return;
  const uint raw = keys[i];
  const uint k = pc.key_norm == JOIN_NORM_RAW ? raw
                 : join_key32(raw, pc.key_norm == JOIN_NORM_ORDER_FLOAT ? JOIN_TYPE_FLOAT : JOIN_TYPE_INT);
  uint kmin, kmax;
  join_global_range(pc.range_norm, kmin, kmax);
  const bool direct = join_global_direct(pc.allow_direct != 0u, pc.build, kmin, kmax);
  if (pc.mode == JOIN_GLOBAL_INSERT) {
    // Every writer stores the same 1; the read keeps a heavy key's rows from queueing atomics.
    if (insert(k, pc.column != 0u ? i : rids[i], direct, kmin) && flags[0] == 0u) atomicMax(flags[0], 1u);
    return;
  }
  uint s, rid;
  const bool found = join_global_find(k, pc.cap, direct, kmin, kmax, s, rid);
  if (pc.mode == JOIN_GLOBAL_COUNT) {
    atomicAdd(slot_count[s], 1u);
  } else if (pc.mode == JOIN_GLOBAL_SCATTER) {
    build_rid[uint(slot_start[s]) + atomicAdd(slot_fill[s], 1u)] = pc.column != 0u ? i : rids[i];
  } else if (pc.grouped != 0u) {
    unit_start[i] = found ? uint(slot_start[s]) : 0u;
    counts[i] = found ? slot_count[s] : 0u;
  } else {
    unit_start[i] = i;
    counts[i] = found ? 1u : 0u;
    match[i] = found ? rid : 0u;
  }
}
