#version 450
// compact_mark_<type>: pass 1 of compact. Workgroup g of a chunk evaluates `key op constant` over
// tiles [g * tiles_per_group, (g + 1) * tiles_per_group) of its `count` elements, stores one bit
// per element (bit e % 32 of bits[e / 32]; 0 past count, whole tiles written) and writes
// partials[partial_base + g] = (passed, passed).
// The bits come from subgroup ballots: lane l < subgroup size / 8 assembles the word of lanes
// 8l .. 8l + 7 (4 elements each), so subgroups must have 8 to 128 invocations.
// Defines: TYPE_U32 | TYPE_I32 | TYPE_F32 (the column type: which order key to compare).
// Bindings: 0 = in (uint[] and uvec4[] views), 1 = bits (uint[]), 2 = partials (u64vec2[]).
// Push constants: count, tiles_per_group, partial_base, accept (bit 0: <, bit 1: ==, bit 2: >),
//                 key (the constant's order key).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "wg_tile.glsl"
#include "wg_key.glsl"
#include "wg_reduce.glsl"
layout(local_size_x = GFXQ_PRIM_WG_SIZE) in;
layout(std430, binding = 0) readonly buffer InV { uvec4 in_v[]; };
layout(std430, binding = 0) readonly buffer InS { uint in_s[]; };
layout(std430, binding = 1) writeonly buffer Bits { uint bits[]; };
layout(std430, binding = 2) writeonly buffer Partials { u64vec2 partials[]; };
layout(push_constant) uniform Push {
  uint count;
  uint tiles_per_group;
  uint partial_base;
  uint accept;
  uint key;
} pc;
WG_DEFINE_LOAD(load_in, in_v, in_s)

// Bits 0..7 of x moved to bits 0, 4, 8, ..., 28.
uint spread4(uint x) {
  x = (x | (x << 12)) & 0x000F000Fu;
  x = (x | (x << 6)) & 0x03030303u;
  return (x | (x << 3)) & 0x11111111u;
}

// Bits 8l .. 8l + 7 of a subgroup ballot.
uint ballot_byte(uvec4 ballot, uint l) { return (ballot[l >> 2] >> ((l & 3u) * 8u)) & 0xFFu; }

void main() {
  const uint rank = wg_rank();
  const uint tiles = (pc.count + GFXQ_PRIM_TILE - 1u) / GFXQ_PRIM_TILE;
  const uint first = gl_WorkGroupID.x * pc.tiles_per_group;
  const uint last = min(first + pc.tiles_per_group, tiles);
  const uint lane = gl_SubgroupInvocationID;
  uint passed = 0;
  for (uint tile = first; tile < last; ++tile) {
    const uint q0 = tile * (GFXQ_PRIM_TILE / 4) + rank;
    uvec4 v[GFXQ_PRIM_ROWS], valid[GFXQ_PRIM_ROWS];
    if ((tile + 1u) * GFXQ_PRIM_TILE <= pc.count) {
      [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
        v[j] = in_v[q0 + j * GFXQ_PRIM_WG_SIZE];
        valid[j] = uvec4(1u);
      }
    } else {
      [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
        v[j] = load_in(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count, uvec4(0u));
        valid[j] = wg_valid(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count);
      }
    }
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
      const uvec4 p = valid[j] & key_accept(KEY_OF(v[j]), pc.accept, pc.key);
      passed += p.x + p.y + p.z + p.w;
      const uvec4 b0 = subgroupBallot(p.x != 0u), b1 = subgroupBallot(p.y != 0u);
      const uvec4 b2 = subgroupBallot(p.z != 0u), b3 = subgroupBallot(p.w != 0u);
      if (lane < gl_SubgroupSize / 8u) {
        const uint word = spread4(ballot_byte(b0, lane)) | (spread4(ballot_byte(b1, lane)) << 1) |
                          (spread4(ballot_byte(b2, lane)) << 2) | (spread4(ballot_byte(b3, lane)) << 3);
        // This subgroup's uvec4s of row j start at q = j * WG + subgroup * size, i.e. word q / 8.
        bits[tile * GFXQ_PRIM_TILE_WORDS + (j * GFXQ_PRIM_WG_SIZE + gl_SubgroupID * gl_SubgroupSize) / 8u + lane] = word;
      }
    }
  }
  const uint64_t total = wg_add_u64(uint64_t(passed));
  if (rank == 0u) partials[pc.partial_base + gl_WorkGroupID.x] = u64vec2(total, total);
}
