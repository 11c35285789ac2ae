#version 450
// join_hash_global: the hash join through one global table (no partitioning passes). Slots are
// claimed per distinct build key by open addressing with linear probing (hash_fmix32, compare-and-
// swap on the key word, JOIN_EMPTY free; the key 0xFFFFFFFF has slot `cap` of its own), or, when
// `allow_direct` and the build keys' range (measured on the device into `range`, read here so the host
// need not wait for it) is at most twice the build rows, slot = key - kmin. Modes (JOIN_GLOBAL_*):
//   INSERT:  build rows: their key's slot, slot_count[slot] += 1;
//   SCATTER: build rows: row ids grouped by slot, build_rid[slot_start[slot] + slot_fill[slot]++]
//            (slot_start: the exclusive scan of slot_count), so each key's rows are one run;
//   PROBE:   probe rows: unit_start[i], counts[i] = their key's run (0 rows when absent).
// A probe walks at most `cap` slots: the table holds at most half as many keys as slots.
// Bindings: 0 = keys (uint[n]), 1 = rids (uint[n]), 2 = table (uint[cap]), 3 = slot_count
//   (uint[cap + 1]), 4 = slot_start (uint64_t[cap + 1]), 5 = slot_fill (uint[cap + 1]), 6 = build_rid
//   (uint[]), 7 = unit_start (uint[n]), 8 = counts (uint[n]), 9 = range (two ReduceResults of the
//   build keys: the smallest at word 0, the largest at word 64).
// Push constants: n, cap (a power of two, at least twice the build rows), mode, allow_direct, build
// (build rows), group_offset (last, set by dispatch).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "join_config.glsl"
#include "hash.glsl"
layout(local_size_x = JOIN_WG) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) readonly buffer Rids { uint rids[]; };
layout(std430, binding = 2) buffer Table { uint table[]; };
layout(std430, binding = 3) buffer SlotCount { uint slot_count[]; };
layout(std430, binding = 4) readonly buffer SlotStart { uint64_t slot_start[]; };
layout(std430, binding = 5) buffer SlotFill { uint slot_fill[]; };
layout(std430, binding = 6) writeonly buffer BuildRid { uint build_rid[]; };
layout(std430, binding = 7) writeonly buffer UnitStart { uint unit_start[]; };
layout(std430, binding = 8) writeonly buffer Counts { uint counts[]; };
layout(std430, binding = 9) readonly buffer Range { uint range_words[]; };
layout(push_constant) uniform Push { uint n, cap, mode, allow_direct, build, group_offset; } pc;

// The slot of key k (claimed when `insert`), or JOIN_EMPTY when a probe finds no slot.
uint find_slot(uint k, bool insert) {
  const uint kmin = range_words[0];
  const uint64_t span = uint64_t(range_words[64] - kmin) + 1ul;
  if (pc.allow_direct != 0u && span <= 2ul * uint64_t(pc.build)) {
    const uint s = k - kmin;
    return uint64_t(s) < span ? s : JOIN_EMPTY;
  }
  if (k == JOIN_EMPTY) return pc.cap;
  uint h = hash_fmix32(k) & (pc.cap - 1u);
  for (uint step = 0u; step < pc.cap; ++step) {
    uint cur = table[h];
    if (cur == JOIN_EMPTY && insert) cur = atomicCompSwap(table[h], JOIN_EMPTY, k);
    if (cur == k || (cur == JOIN_EMPTY && insert)) return h;
    if (cur == JOIN_EMPTY) return JOIN_EMPTY;
    h = (h + 1u) & (pc.cap - 1u);
  }
  return JOIN_EMPTY;
}

void main() {
  const uint i = (gl_WorkGroupID.x + pc.group_offset) * JOIN_WG + gl_LocalInvocationIndex;
  if (i >= pc.n) return;
  const uint k = keys[i];
  if (pc.mode == JOIN_GLOBAL_INSERT) {
    atomicAdd(slot_count[find_slot(k, true)], 1u);
  } else if (pc.mode == JOIN_GLOBAL_SCATTER) {
    const uint s = find_slot(k, false);
    build_rid[uint(slot_start[s]) + atomicAdd(slot_fill[s], 1u)] = rids[i];
  } else {
    const uint s = find_slot(k, false);
    const bool found = s != JOIN_EMPTY;
    unit_start[i] = found ? uint(slot_start[s]) : 0u;
    counts[i] = found ? slot_count[s] : 0u;
  }
}
