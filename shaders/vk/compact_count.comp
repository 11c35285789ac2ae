#version 450
// compact_count: pass 1 of compact_bits (the caller's bitmap instead of a predicate). Workgroup g
// of a chunk counts the set bits of tiles [g * tiles_per_group, (g + 1) * tiles_per_group) of the
// chunk's bitmap (GFXQ_PRIM_TILE_WORDS words per tile, bits past the chunk's count are 0) and writes
// partials[partial_base + g] = (set, set).
// Bindings: 0 = bits (uint[]), 1 = partials (u64vec2[]).
// Push constants: count, tiles_per_group, partial_base.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "wg_tile.glsl"
#include "wg_reduce.glsl"
layout(local_size_x = GFXQ_PRIM_WG_SIZE) in;
layout(std430, binding = 0) readonly buffer Bits { uint bits[]; };
layout(std430, binding = 1) writeonly buffer Partials { u64vec2 partials[]; };
layout(push_constant) uniform Push {
  uint count;
  uint tiles_per_group;
  uint partial_base;
} pc;

void main() {
  const uint rank = wg_rank();
  const uint tiles = (pc.count + GFXQ_PRIM_TILE - 1u) / GFXQ_PRIM_TILE;
  const uint first = gl_WorkGroupID.x * pc.tiles_per_group;
  const uint last = min(first + pc.tiles_per_group, tiles);
  uint set = 0u;
  // Steps uniform in the workgroup (every lane leaves the loop together before wg_add_u64's
  // subgroup sums); the lanes past the range add nothing.
  const uint end = last * GFXQ_PRIM_TILE_WORDS;
  for (uint w0 = first * GFXQ_PRIM_TILE_WORDS; w0 < end; w0 += GFXQ_PRIM_WG_SIZE) {
    const uint w = w0 + rank;
    set += w < end ? bitCount(bits[min(w, end - 1u)]) : 0u;
  }
  const uint64_t total = wg_add_u64(uint64_t(set));
  if (rank == 0u) partials[pc.partial_base + gl_WorkGroupID.x] = u64vec2(total, total);
}
