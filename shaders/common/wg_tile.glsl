// Tile access of the primitive kernels: the invocation rank and uvec4 loads/stores with a
// full-tile path (a kernel indexes the uvec4 view directly, unguarded) and a guarded
// partial-tile path (the functions below). A tile is GFXQ_PRIM_ROWS rows of GFXQ_PRIM_WG_SIZE
// uvec4: invocation r handles uvec4 number  tile * GFXQ_PRIM_TILE / 4 + row * GFXQ_PRIM_WG_SIZE + r.
// Requires GL_KHR_shader_subgroup_basic; workgroups of GFXQ_PRIM_WG_SIZE x 1 x 1.
#ifndef GFXQ_WG_TILE_GLSL
#define GFXQ_WG_TILE_GLSL
#include "wg_constants.glsl"

// The invocation's place in the data layout: subgroup by subgroup, lane by lane, which is the
// order in which the subgroup scans of wg_scan.glsl combine values. Subgroups must be full
// (the workgroup size is a multiple of the subgroup size on every device gfxq targets).
uint wg_rank() { return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID; }

// 1 for each component of uvec4 number q whose element index is below `count`.
uvec4 wg_valid(uint q, uint count) {
  return uvec4(lessThan(uvec4(q * 4u) + uvec4(0u, 1u, 2u, 3u), uvec4(count)));
}

// WG_DEFINE_LOAD(NAME, VEC, SCALAR) defines  uvec4 NAME(uint q, uint count, uvec4 fill):
// uvec4 number q of a binding viewed as uvec4[] VEC and as uint[] SCALAR, of which only the
// first `count` elements exist. A whole uvec4 loads as a vector; in a partial one, the
// components at or past `count` come from `fill`, without reading memory.
#define WG_DEFINE_LOAD(NAME, VEC, SCALAR)           \
  uvec4 NAME(uint q, uint count, uvec4 fill) {      \
    const uint e = q * 4u;                          \
    if (e + 4u <= count) return VEC[q];             \
    uvec4 r = fill;                                 \
    if (e < count) r.x = SCALAR[e];                 \
    if (e + 1u < count) r.y = SCALAR[e + 1u];       \
    if (e + 2u < count) r.z = SCALAR[e + 2u];       \
    return r;                                       \
  }

// WG_DEFINE_STORE(NAME, VEC, SCALAR) defines  void NAME(uint q, uint count, uvec4 v): stores
// uvec4 number q into a binding viewed as uvec4[] VEC and uint[] SCALAR, only the elements below
// `count`.
#define WG_DEFINE_STORE(NAME, VEC, SCALAR)          \
  void NAME(uint q, uint count, uvec4 v) {          \
    const uint e = q * 4u;                          \
    if (e + 4u <= count) {                          \
      VEC[q] = v;                                   \
      return;                                       \
    }                                               \
    if (e < count) SCALAR[e] = v.x;                 \
    if (e + 1u < count) SCALAR[e + 1u] = v.y;       \
    if (e + 2u < count) SCALAR[e + 2u] = v.z;       \
  }

#endif
