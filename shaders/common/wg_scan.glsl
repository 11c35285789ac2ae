// Workgroup exclusive prefix sums in rank order (wg_tile.glsl: wg_rank()): a subgroup scan, then
// each invocation adds the totals of the subgroups before its own, read from shared memory.
// Every invocation calls them from uniform control flow; each ends with a barrier, so calls may
// follow one another. The x4 forms scan four independent rows at once (one per component).
// Requires GL_KHR_shader_subgroup_basic, GL_KHR_shader_subgroup_arithmetic and
// GL_EXT_shader_explicit_arithmetic_types_int64; workgroups of GFXQ_PRIM_WG_SIZE invocations.
#ifndef GFXQ_WG_SCAN_GLSL
#define GFXQ_WG_SCAN_GLSL
#include "wg_constants.glsl"

// Per component: the sum over invocations of lower rank, modulo 2^32; `total`: over all.
shared uvec4 wg_scan_u32x4_slots[GFXQ_PRIM_WG_SIZE];  // one per subgroup
uvec4 wg_exclusive_add_u32x4(uvec4 v, out uvec4 total) {
  const uvec4 prefix = subgroupExclusiveAdd(v);
  const uvec4 sg_total = subgroupAdd(v);
  if (subgroupElect()) wg_scan_u32x4_slots[gl_SubgroupID] = sg_total;
  barrier();
  uvec4 before = uvec4(0u);
  total = uvec4(0u);
  for (uint i = 0; i < gl_NumSubgroups; ++i) {
    if (i == gl_SubgroupID) before = total;
    total += wg_scan_u32x4_slots[i];
  }
  barrier();
  return before + prefix;
}

// Exact 64-bit subgroup exclusive sums from 32-bit scans of 24-, 24- and 16-bit limbs (see
// sg_add_u64 in wg_reduce.glsl).
u64vec4 sg_exclusive_add_u64x4(u64vec4 v) {
  const uvec4 lo = uvec4(v) & 0xFFFFFFu, mid = uvec4(v >> 24) & 0xFFFFFFu, hi = uvec4(v >> 48);
  return u64vec4(subgroupExclusiveAdd(lo)) + (u64vec4(subgroupExclusiveAdd(mid)) << 24) +
         (u64vec4(subgroupExclusiveAdd(hi)) << 48);
}
u64vec4 sg_add_u64x4(u64vec4 v) {
  const uvec4 lo = uvec4(v) & 0xFFFFFFu, mid = uvec4(v >> 24) & 0xFFFFFFu, hi = uvec4(v >> 48);
  return u64vec4(subgroupAdd(lo)) + (u64vec4(subgroupAdd(mid)) << 24) + (u64vec4(subgroupAdd(hi)) << 48);
}

// Per component: the sum over invocations of lower rank, exact modulo 2^64; `total`: over all.
shared u64vec4 wg_scan_u64x4_slots[GFXQ_PRIM_WG_SIZE];  // one per subgroup
u64vec4 wg_exclusive_add_u64x4(u64vec4 v, out u64vec4 total) {
  const u64vec4 prefix = sg_exclusive_add_u64x4(v);
  const u64vec4 sg_total = sg_add_u64x4(v);
  if (subgroupElect()) wg_scan_u64x4_slots[gl_SubgroupID] = sg_total;
  barrier();
  u64vec4 before = u64vec4(0);
  total = u64vec4(0);
  for (uint i = 0; i < gl_NumSubgroups; ++i) {
    if (i == gl_SubgroupID) before = total;
    total += wg_scan_u64x4_slots[i];
  }
  barrier();
  return before + prefix;
}

#endif
