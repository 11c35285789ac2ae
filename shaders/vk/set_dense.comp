#version 450
// set_dense: the marks of DISTINCT and the set operations without ALL over a dense table (one word
// per packed key, row_key.comp's ROW_INSERT: first[s] = the first row with key s, or
// DISTINCT_HASH_EMPTY; seen[s] = 1 when a right row has it, INTERSECT and EXCEPT only): for each
// slot s whose first[s] holds a row and whose rule holds (DISTINCT, UNION: any; INTERSECT: seen[s]
// set; EXCEPT: seen[s] clear), bit first[s] of the bitmap is set (atomicOr; zeroed before), so that
// compacting the bitmap gives the kept rows in row order, left rows first.
// Bindings: 0 = first, 1 = seen (bound to first for DISTINCT and UNION), 2 = bits; all uint[].
// Push constants: slots, op (SET_OP_DISTINCT for DISTINCT and UNION, SET_OP_INTERSECT,
//                 SET_OP_EXCEPT), group_offset.
#include "skeleton_config.glsl"
layout(local_size_x = SKELETON_WG) in;
layout(std430, binding = 0) readonly buffer First { uint first[]; };
layout(std430, binding = 1) readonly buffer Seen { uint seen[]; };
layout(std430, binding = 2) buffer Bits { uint bits[]; };
layout(push_constant) uniform Push {
  uint slots;
  uint op;
  uint group_offset;
} pc;

void main() {
  const uint s = (gl_WorkGroupID.x + pc.group_offset) * SKELETON_WG + gl_LocalInvocationIndex;
  if (s >= pc.slots) return;
  const uint v = first[s];
  if (v == DISTINCT_HASH_EMPTY) return;
  if (pc.op == SET_OP_INTERSECT && seen[s] == 0u) return;
  if (pc.op == SET_OP_EXCEPT && seen[s] != 0u) return;
  atomicOr(bits[v >> 5u], 1u << (v & 31u));
}
