#version 450
// join_hash_global: the hash join through one global table (no partitioning passes). Slots are
// claimed per distinct build key (join_global_slot.glsl: open addressing, or direct addressing when
// the build keys' range, measured on the device into `range` and read here so the host need not wait
// for it, is at most twice the build rows). Modes (JOIN_GLOBAL_*):
//   INSERT:  build rows: their key's slot, slot_count[slot] += 1;
//   SCATTER: build rows: row ids grouped by slot, build_rid[slot_start[slot] + slot_fill[slot]++]
//            (slot_start: the exclusive scan of slot_count), so each key's rows are one run;
//   PROBE:   probe rows: unit_start[i], counts[i] = their key's run (0 rows when absent).
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
#include "join_global_slot.glsl"

uint find_slot(uint k, bool insert) { return join_global_slot(k, insert, pc.cap, pc.allow_direct != 0u, pc.build); }

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
