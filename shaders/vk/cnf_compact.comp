#version 450
// cnf_compact: writes the rows marked in a cnf_scan mask (MODE_FLAGS), in row order: their row ids
// and/or the order keys of a value column. Same geometry as cnf_scan's MODE_FLAGS: tiles of 4096
// rows (4 sub-rounds of 1024), workgroup g takes tiles g, g + G, ...; in sub-round u (counted from
// the chunk's start) invocation t takes rows 1024u + 4t .. 1024u + 4t + 3, whose bits are (t & 31)
// of mask words u * 32 + j * 8 + (t >> 5), j = 0..3. The k-th marked row overall (k =
// offsets[tile_base + tile] + its rank in the tile) goes to output position k; only positions
// below `limit` are written, at index k - out_base of the bound output ranges. A tile's rows are
// ranked and staged in shared memory, then written to consecutive positions.
// Variants (defines): WRITE_IDS (row ids), WRITE_KEYS (keys of the value column), both for pairs.
// Bindings: 0 = mask (uint[], from the chunk's start), 1 = offsets (uint[]: exclusive prefix sums of
//   the per-tile counts, all chunks); WRITE_IDS alone: 2 = ids (uint[]); WRITE_KEYS: 2 = value
//   column (uint[], raw int32/float32 bits from the chunk's start), 3 = keys (uint[]), and with
//   WRITE_IDS 4 = ids.
// Push constants: rows (in this chunk), tile_base, first_row (row id of the chunk's row 0), limit,
//   out_base, value_float (1: the value column is FLOAT).
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_EXT_control_flow_attributes : require
#include "gfxq_constants.h"

#if GFXQ_WORKGROUP_SIZE != 256
#error "cnf_compact's mask layout assumes 256 invocations per workgroup"
#endif
#define WG 256u
#define SUB 1024u
#define VEC 4u
#define ROUND (SUB * VEC)

layout(local_size_x = GFXQ_WORKGROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer Mask { uint mask[]; };
layout(std430, binding = 1) readonly buffer Offsets { uint offsets[]; };
#if defined(WRITE_KEYS)
layout(std430, binding = 2) readonly buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer Keys { uint keys[]; };
#if defined(WRITE_IDS)
layout(std430, binding = 4) writeonly buffer Ids { uint ids[]; };
#endif
#else
layout(std430, binding = 2) writeonly buffer Ids { uint ids[]; };
#endif

layout(push_constant) uniform Params {
  uint rows;
  uint tile_base;
  uint first_row;
  uint limit;
  uint out_base;
  uint value_float;
} pc;

shared uvec4 s_scan[WG];
shared uvec4 s_total;
shared uint s_rows[ROUND];  // offsets in the tile of its marked rows, in row order

uint to_key(uint raw) {
  if (pc.value_float == 0u) return raw ^ 0x80000000u;
  uint b = raw;
  if ((b & 0x7fffffffu) > 0x7f800000u) b = 0x7fc00000u;
  if ((b & 0x7fffffffu) == 0u) b = 0u;
  return (b >> 31) != 0u ? ~b : (b | 0x80000000u);
}

// Exclusive prefix sums of `v` (4 sub-rounds at once) over the workgroup in invocation order;
// s_total gets the sums. `linear`: subgroups hold consecutive invocations.
uvec4 workgroup_exclusive(uvec4 v, uint lid, bool linear) {
  uvec4 prefix;
  if (linear) {
    // Scan within each subgroup, then add the totals of the subgroups before it.
    const uvec4 inner = subgroupExclusiveAdd(v);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) s_scan[gl_SubgroupID] = inner + v;
    barrier();
    uvec4 before = uvec4(0u);
    for (uint s = 0u; s < gl_SubgroupID; ++s) before += s_scan[s];
    prefix = before + inner;
    if (lid == WG - 1u) s_total = prefix + v;
  } else {
    // Any other mapping: Hillis-Steele over shared memory.
    s_scan[lid] = v;
    barrier();
    for (uint off = 1u; off < WG; off *= 2u) {
      const uvec4 add = lid >= off ? s_scan[lid - off] : uvec4(0u);
      barrier();
      s_scan[lid] += add;
      barrier();
    }
    prefix = s_scan[lid] - v;
    if (lid == WG - 1u) s_total = s_scan[lid];
  }
  barrier();
  return prefix;
}

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint tiles = (pc.rows + ROUND - 1u) / ROUND;
  const bool linear = subgroupAll(lid == gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID);
  for (uint tile = gl_WorkGroupID.x; tile < tiles; tile += gl_NumWorkGroups.x) {
    const uint next = offsets[pc.tile_base + tile];
    if (next >= pc.limit) continue;  // the same for the whole workgroup
    const uint base = tile * ROUND;
    // The 4 bits of each sub-round (sub-rounds past the chunk's rows have no mask words).
    uvec4 bits = uvec4(0u);
    [[unroll]] for (uint v = 0u; v < VEC; ++v) {
      if (base + v * SUB >= pc.rows) continue;
      const uint word = (base / SUB + v) * 32u + (lid >> 5);
      [[unroll]] for (uint j = 0u; j < 4u; ++j) bits[v] |= ((mask[word + j * 8u] >> (lid & 31u)) & 1u) << j;
    }
    // Rank the tile's marked rows, stage their offsets in the tile in row order, then write them
    // out in consecutive positions (coalesced stores).
    const uvec4 prefix = workgroup_exclusive(bitCount(bits), lid, linear);
    const uvec4 total = s_total;
    uint before = 0u;
    [[unroll]] for (uint v = 0u; v < VEC; ++v) {
      uint pos = before + prefix[v];
      [[unroll]] for (uint j = 0u; j < 4u; ++j)
        if (((bits[v] >> j) & 1u) != 0u) s_rows[pos++] = v * SUB + 4u * lid + j;
      before += total[v];
    }
    barrier();
    const uint count = min(before, pc.limit - next);
    for (uint e = lid; e < count; e += WG) {
      const uint row = base + s_rows[e];
#if defined(WRITE_IDS)
      ids[next + e - pc.out_base] = pc.first_row + row;
#endif
#if defined(WRITE_KEYS)
      keys[next + e - pc.out_base] = to_key(values[row]);
#endif
    }
    barrier();  // s_rows, s_total and s_scan are reused by the next tile
  }
}
