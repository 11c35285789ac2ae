#version 450
// set_dense: DISTINCT and the set operations without ALL over rows whose packed keys (row_key.comp's
// ROW_PACK: equal rows, and only they, have equal keys) are below `slots`: a table of one word per
// possible key instead of a hash table.
// DENSE_INSERT: row i (ids[i] with has_ids, else i; key keys[i]) lowers first[key] to its id by
//   atomicMin, so every key's word ends with the first row that has it; for INTERSECT and EXCEPT only
//   the left rows (ids below left_n) do, a right row sets seen[key] = 1. A subgroup whose rows all
//   have one key and all go to `first` makes one atomicMin; a row whose word is already at or below
//   its id makes none (words only fall).
// DENSE_MARK: for each slot s whose first[s] holds a row and whose rule holds (DISTINCT, UNION: any;
//   INTERSECT: seen[s] set; EXCEPT: seen[s] clear), bit first[s] of the bitmap is set (atomicOr), so
//   compacting the bitmap gives the kept rows in row order, left rows first.
// first is filled with DISTINCT_HASH_EMPTY, seen and bits with 0 before.
// Bindings: 0 = ids, 1 = keys, 2 = first, 3 = seen, 4 = bits; all uint[].
// Push constants: n (rows, or slots for DENSE_MARK), left_n, op (SET_OP_DISTINCT for DISTINCT and
//                 UNION, SET_OP_INTERSECT, SET_OP_EXCEPT), has_ids, group_offset.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "skeleton_config.glsl"
layout(local_size_x = SKELETON_WG) in;
layout(std430, binding = 0) readonly buffer Ids { uint ids[]; };
layout(std430, binding = 1) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) buffer First { uint first[]; };
layout(std430, binding = 3) buffer Seen { uint seen[]; };
layout(std430, binding = 4) buffer Bits { uint bits[]; };
layout(push_constant) uniform Push {
  uint n;
  uint left_n;
  uint op;
  uint has_ids;
  uint group_offset;
} pc;

void main() {
  const uint i = (gl_WorkGroupID.x + pc.group_offset) * SKELETON_WG + gl_LocalInvocationIndex;
  if (i >= pc.n) return;
#ifdef DENSE_INSERT
  const uint row = pc.has_ids != 0u ? ids[i] : i;
  const uint key = keys[i];
  const bool to_first = pc.op == SET_OP_DISTINCT || row < pc.left_n;
  if (subgroupAllEqual(key) && subgroupAll(to_first)) {
    const uint m = subgroupMin(row);
    if (subgroupElect() && first[key] > m) atomicMin(first[key], m);
    return;
  }
  if (!to_first) {
    seen[key] = 1u;
  } else if (first[key] > row) {
    atomicMin(first[key], row);
  }
#else
  const uint v = first[i];
  if (v == DISTINCT_HASH_EMPTY) return;
  if (pc.op == SET_OP_INTERSECT && seen[i] == 0u) return;
  if (pc.op == SET_OP_EXCEPT && seen[i] != 0u) return;
  atomicOr(bits[v >> 5u], 1u << (v & 31u));
#endif
}
