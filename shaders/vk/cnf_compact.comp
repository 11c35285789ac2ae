#version 450
// cnf_compact: writes the rows marked in a cnf_scan mask (MODE_FLAGS), in row order: their row ids
// and/or the order keys of a value column. Blocks of 128 rows: in sub-round u of 1024 rows (counted
// from the chunk's start) the 32 invocations 32w .. 32w + 31 hold block 8u + w, invocation t's rows
// 1024u + 4t .. 1024u + 4t + 3, whose bits are (t & 31) of mask words u * 32 + j * 8 + w, j =
// 0..3. The k-th marked row overall (k = offsets[block_base + block] + its rank in the block) goes
// to output position k; only positions below `limit` are written, at index k - out_base of the
// bound output ranges. Each invocation ranks its own rows from the block's four mask words (the
// marked rows of lower invocations of the block, then its own before each): no shared memory, no
// subgroup operations, no barriers; the workgroups take 4096-row tiles in turn like cnf_scan.
// Variants (defines): WRITE_IDS (row ids), WRITE_KEYS (keys of the value column), both for pairs.
// Bindings: 0 = mask (uint[], from the chunk's start), 1 = offsets (uint[]: exclusive prefix sums of
//   the per-block counts, all chunks); WRITE_IDS alone: 2 = ids (uint[]); WRITE_KEYS: 2 = value
//   column (uint[], raw int32/float32 bits from the chunk's start), 3 = keys (uint[]), and with
//   WRITE_IDS 4 = ids.
// Push constants: rows (in this chunk), block_base (index of the chunk's first block), first_row
//   (row id of the chunk's row 0), limit, out_base, value_float (1: the value column is FLOAT).
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
  uint block_base;
  uint first_row;
  uint limit;
  uint out_base;
  uint value_float;
} pc;

uint to_key(uint raw) {
  if (pc.value_float == 0u) return raw ^ 0x80000000u;
  uint b = raw;
  if ((b & 0x7fffffffu) > 0x7f800000u) b = 0x7fc00000u;
  if ((b & 0x7fffffffu) == 0u) b = 0u;
  return (b >> 31) != 0u ? ~b : (b | 0x80000000u);
}

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint w = lid >> 5, lane = lid & 31u;
  const uint below = (1u << lane) - 1u;  // lanes before this one (lane 0: none)
  const uint tiles = (pc.rows + ROUND - 1u) / ROUND;
  for (uint tile = gl_WorkGroupID.x; tile < tiles; tile += gl_NumWorkGroups.x) {
    // Every load of the tile first (four offsets, sixteen mask words), then the writes.
    uint first[VEC];
    uvec4 m[VEC];
    [[unroll]] for (uint v = 0u; v < VEC; ++v) {
      const uint u = tile * VEC + v;
      const bool rows_here = u * SUB < pc.rows;
      first[v] = rows_here ? offsets[pc.block_base + u * 8u + w] : pc.limit;
      [[unroll]] for (uint j = 0u; j < 4u; ++j) m[v][j] = rows_here ? mask[u * 32u + j * 8u + w] : 0u;
    }
    [[unroll]] for (uint v = 0u; v < VEC; ++v) {
      const uint u = tile * VEC + v;
      uint pos = first[v] + bitCount(m[v].x & below) + bitCount(m[v].y & below) + bitCount(m[v].z & below) +
                 bitCount(m[v].w & below);
      const uint row = u * SUB + 4u * lid;
      [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        if (((m[v][j] >> lane) & 1u) == 0u) continue;
        if (pos < pc.limit) {
#if defined(WRITE_IDS)
          ids[pos - pc.out_base] = pc.first_row + row + j;
#endif
#if defined(WRITE_KEYS)
          keys[pos - pc.out_base] = to_key(values[row + j]);
#endif
        }
        ++pos;
      }
    }
  }
}
