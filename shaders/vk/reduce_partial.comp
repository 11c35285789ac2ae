#version 450
// reduce_partial_<op>_<type>: pass 1 of reduce (and the upsweep of scan). Workgroup g of a chunk
// reduces tiles [g * tiles_per_group, (g + 1) * tiles_per_group) of its `count` elements, taking
// the elements that pass `key op constant` and, when `masked`, have a nonzero flag, and writes
// partials[partial_base + g] = (value, count): value is the uint64 sum (OP_SUM; int64 bits for
// TYPE_I32), the min/max order key (OP_MIN/OP_MAX; the identity when none passed) or the count
// (OP_COUNT).
// Defines: OP_COUNT | OP_SUM | OP_MIN | OP_MAX, and TYPE_U32 | TYPE_I32 | TYPE_F32.
// Bindings: 0 = in (uint[] and uvec4[] views), 1 = mask (uint[] and uvec4[] views; bound to `in`
//           when not masked), 2 = partials (u64vec2[]).
// Push constants: count, tiles_per_group, partial_base, accept (bit 0: <, bit 1: ==, bit 2: >),
//                 key (the constant's order key), masked.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "wg_tile.glsl"
#include "wg_key.glsl"
#include "wg_reduce.glsl"
layout(local_size_x = GFXQ_PRIM_WG_SIZE) in;
layout(std430, binding = 0) readonly buffer InV { uvec4 in_v[]; };
layout(std430, binding = 0) readonly buffer InS { uint in_s[]; };
layout(std430, binding = 1) readonly buffer MaskV { uvec4 mask_v[]; };
layout(std430, binding = 1) readonly buffer MaskS { uint mask_s[]; };
layout(std430, binding = 2) writeonly buffer Partials { u64vec2 partials[]; };
layout(push_constant) uniform Push {
  uint count;
  uint tiles_per_group;
  uint partial_base;
  uint accept;
  uint key;
  uint masked;
} pc;
WG_DEFINE_LOAD(load_in, in_v, in_s)
WG_DEFINE_LOAD(load_mask, mask_v, mask_s)

void main() {
  const uint rank = wg_rank();
  const uint tiles = (pc.count + GFXQ_PRIM_TILE - 1u) / GFXQ_PRIM_TILE;
  const uint first = gl_WorkGroupID.x * pc.tiles_per_group;
  const uint last = min(first + pc.tiles_per_group, tiles);
#if defined(OP_SUM)
  uint64_t acc = 0;
#elif defined(OP_MIN)
  uvec4 acc = uvec4(0xFFFFFFFFu);
#elif defined(OP_MAX)
  uvec4 acc = uvec4(0u);
#endif
  uint passed = 0;
  for (uint tile = first; tile < last; ++tile) {
    const uint q0 = tile * (GFXQ_PRIM_TILE / 4) + rank;
    uvec4 v[GFXQ_PRIM_ROWS], take[GFXQ_PRIM_ROWS];
    if ((tile + 1u) * GFXQ_PRIM_TILE <= pc.count) {
      [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) v[j] = in_v[q0 + j * GFXQ_PRIM_WG_SIZE];
      [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) take[j] = uvec4(1u);
      if (pc.masked != 0u) {
        [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j)
          take[j] = uvec4(notEqual(mask_v[q0 + j * GFXQ_PRIM_WG_SIZE], uvec4(0u)));
      }
    } else {
      [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
        v[j] = load_in(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count, uvec4(0u));
        take[j] = wg_valid(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count);
      }
      if (pc.masked != 0u) {
        [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j)
          take[j] &= uvec4(notEqual(load_mask(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count, uvec4(0u)), uvec4(0u)));
      }
    }
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
      const uvec4 k = KEY_OF(v[j]);
      const uvec4 p = take[j] & key_accept(k, pc.accept, pc.key);
      passed += p.x + p.y + p.z + p.w;
#if defined(OP_SUM) && defined(TYPE_I32)
      const ivec4 s = ivec4(v[j] * p);
      acc += uint64_t(int64_t(s.x) + int64_t(s.y) + int64_t(s.z) + int64_t(s.w));
#elif defined(OP_SUM)
      const uvec4 s = v[j] * p;
      acc += uint64_t(s.x) + uint64_t(s.y) + uint64_t(s.z) + uint64_t(s.w);
#elif defined(OP_MIN)
      acc = min(acc, k | (p - 1u));  // a key that did not pass becomes the identity ~0
#elif defined(OP_MAX)
      acc = max(acc, k * p);  // a key that did not pass becomes the identity 0
#endif
    }
  }
  const uint64_t total_passed = wg_add_u64(uint64_t(passed));
#if defined(OP_SUM)
  const uint64_t value = wg_add_u64(acc);
#elif defined(OP_MIN)
  const uint64_t value = uint64_t(wg_min_u32(min(min(acc.x, acc.y), min(acc.z, acc.w))));
#elif defined(OP_MAX)
  const uint64_t value = uint64_t(wg_max_u32(max(max(acc.x, acc.y), max(acc.z, acc.w))));
#else
  const uint64_t value = total_passed;
#endif
  if (rank == 0u) partials[pc.partial_base + gl_WorkGroupID.x] = u64vec2(value, total_passed);
}
