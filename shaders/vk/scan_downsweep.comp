#version 450
// scan_downsweep_<kind>_<width>: pass 3 of scan. Workgroup g of a chunk scans tiles
// [g * tiles_per_group, (g + 1) * tiles_per_group) of its `count` uint32 values, starting from
// carries[partial_base + g] (the sum of everything before its first tile), tile by tile.
// Defines: INCLUSIVE (0: exclusive, 1: inclusive), OUT_U64 (0: uint32 output modulo 2^32, 1: uint64).
// Bindings: 0 = in (uint[] and uvec4[] views), 1 = carries (uint64_t[]),
//           2 = out (uint[] and uvec4[] views; with OUT_U64 uint64_t[] and u64vec2[] views).
// Push constants: count, tiles_per_group, partial_base.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "wg_tile.glsl"
#include "wg_scan.glsl"
layout(local_size_x = GFXQ_PRIM_WG_SIZE) in;
layout(std430, binding = 0) readonly buffer InV { uvec4 in_v[]; };
layout(std430, binding = 0) readonly buffer InS { uint in_s[]; };
layout(std430, binding = 1) readonly buffer Carries { uint64_t carries[]; };
#if OUT_U64
layout(std430, binding = 2) writeonly buffer OutV { u64vec2 out_v[]; };
layout(std430, binding = 2) writeonly buffer OutS { uint64_t out_s[]; };
#define OUT_T uint64_t
#define OUT_VEC u64vec4
#else
layout(std430, binding = 2) writeonly buffer OutV { uvec4 out_v[]; };
layout(std430, binding = 2) writeonly buffer OutS { uint out_s[]; };
#define OUT_T uint
#define OUT_VEC uvec4
#endif
layout(push_constant) uniform Push { uint count; uint tiles_per_group; uint partial_base; } pc;
WG_DEFINE_LOAD(load_in, in_v, in_s)

// Stores the prefix sums of uvec4 number q (elements below pc.count only).
void store_out(uint q, OUT_VEC s) {
  const uint e = q * 4u;
#if OUT_U64
  if (e + 4u <= pc.count) {
    out_v[2u * q] = s.xy;
    out_v[2u * q + 1u] = s.zw;
    return;
  }
#else
  if (e + 4u <= pc.count) {
    out_v[q] = s;
    return;
  }
#endif
  if (e < pc.count) out_s[e] = s.x;
  if (e + 1u < pc.count) out_s[e + 1u] = s.y;
  if (e + 2u < pc.count) out_s[e + 2u] = s.z;
}

void main() {
  const uint rank = wg_rank();
  const uint tiles = (pc.count + GFXQ_PRIM_TILE - 1u) / GFXQ_PRIM_TILE;
  const uint first = gl_WorkGroupID.x * pc.tiles_per_group;
  const uint last = min(first + pc.tiles_per_group, tiles);
  OUT_T carry = OUT_T(carries[pc.partial_base + gl_WorkGroupID.x]);
  for (uint tile = first; tile < last; ++tile) {
    const uint q0 = tile * (GFXQ_PRIM_TILE / 4) + rank;
    uvec4 v[GFXQ_PRIM_ROWS];
    if ((tile + 1u) * GFXQ_PRIM_TILE <= pc.count) {
      [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) v[j] = in_v[q0 + j * GFXQ_PRIM_WG_SIZE];
    } else {
      [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) v[j] = load_in(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count, uvec4(0u));
    }
    // Row j of the tile is scanned as component j: one workgroup scan for the whole tile.
    OUT_VEC row_sums;
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j)
      row_sums[j] = OUT_T(v[j].x) + OUT_T(v[j].y) + OUT_T(v[j].z) + OUT_T(v[j].w);
    OUT_VEC row_totals;
#if OUT_U64
    const OUT_VEC prefix = wg_exclusive_add_u64x4(row_sums, row_totals);
#else
    const OUT_VEC prefix = wg_exclusive_add_u32x4(row_sums, row_totals);
#endif
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
      const OUT_T b = carry + prefix[j];
      const OUT_T x = OUT_T(v[j].x), y = OUT_T(v[j].y), z = OUT_T(v[j].z), w = OUT_T(v[j].w);
#if INCLUSIVE
      store_out(q0 + j * GFXQ_PRIM_WG_SIZE, OUT_VEC(b + x, b + x + y, b + x + y + z, b + x + y + z + w));
#else
      store_out(q0 + j * GFXQ_PRIM_WG_SIZE, OUT_VEC(b, b + x, b + x + y, b + x + y + z));
#endif
      carry += row_totals[j];
    }
  }
}
