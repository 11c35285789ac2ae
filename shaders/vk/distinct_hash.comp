#version 450
// distinct_hash: DISTINCT of whole rows by a hash table of row ids (open addressing, linear probing).
// DISTINCT_INSERT: row i (ids[i] with has_ids, else i) hashes its key planes (row_key.comp's keys of
//   row order: equal rows have equal planes) to a slot; an empty slot takes its id by compare-and-swap;
//   a slot holding an equal row gets the smaller id (atomicMin), so each distinct row ends with its
//   first appearance; other slots are passed by. An insert that probes DISTINCT_HASH_MAX_PROBES slots
//   sets status[0] (the host then runs the sort-based DISTINCT instead).
// DISTINCT_MARK: flags[table[s]] = 1 for every occupied slot s (flags zeroed before).
// Bindings: 0..3 = key planes (uint per row; planes past `planes` bound to plane 0), 4 = ids,
//           5 = table (2^k slots), 6 = flags (DISTINCT_MARK) or status (DISTINCT_INSERT).
// Push constants: n (rows, or slots for DISTINCT_MARK), planes, mask (slots - 1), has_ids,
//                 group_offset.
#include "hash.glsl"
#include "skeleton_config.glsl"
layout(local_size_x = SKELETON_WG) in;
layout(std430, binding = 0) readonly buffer P0 { uint p0[]; };
layout(std430, binding = 1) readonly buffer P1 { uint p1[]; };
layout(std430, binding = 2) readonly buffer P2 { uint p2[]; };
layout(std430, binding = 3) readonly buffer P3 { uint p3[]; };
layout(std430, binding = 4) readonly buffer Ids { uint ids[]; };
layout(std430, binding = 5) buffer Table { uint table_slots[]; };
layout(std430, binding = 6) buffer Out { uint out_words[]; };
layout(push_constant) uniform Push {
  uint n;
  uint planes;
  uint mask;
  uint has_ids;
  uint group_offset;
} pc;

uint plane(uint p, uint row) {
  return p == 0u ? p0[row] : p == 1u ? p1[row] : p == 2u ? p2[row] : p3[row];
}

void main() {
  const uint i = (gl_WorkGroupID.x + pc.group_offset) * SKELETON_WG + gl_LocalInvocationIndex;
  if (i >= pc.n) return;
#ifdef DISTINCT_INSERT
  const uint row = pc.has_ids != 0u ? ids[i] : i;
  uint key[DISTINCT_HASH_PLANES];
  uint h = 0x9e3779b9u;
  for (uint p = 0u; p < DISTINCT_HASH_PLANES; ++p) {
    key[p] = p < pc.planes ? plane(p, row) : 0u;
    h = hash_fmix32(h ^ key[p]);
  }
  uint slot = h & pc.mask;
  for (uint probe = 0u; probe < DISTINCT_HASH_MAX_PROBES; ++probe) {
    uint cur = table_slots[slot];
    if (cur == DISTINCT_HASH_EMPTY) {
      cur = atomicCompSwap(table_slots[slot], DISTINCT_HASH_EMPTY, row);
      if (cur == DISTINCT_HASH_EMPTY) return;
    }
    bool equal = true;
    for (uint p = 0u; p < pc.planes; ++p) equal = equal && plane(p, cur) == key[p];
    if (equal) {
      atomicMin(table_slots[slot], row);
      return;
    }
    slot = (slot + 1u) & pc.mask;
  }
  out_words[0] = 1u;
#else
  const uint v = table_slots[i];
  if (v != DISTINCT_HASH_EMPTY) out_words[v] = 1u;
#endif
}
