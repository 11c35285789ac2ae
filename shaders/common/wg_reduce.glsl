// Workgroup reductions: subgroup operations, then the subgroups' results through shared memory.
// Every invocation calls them from uniform control flow; each returns the result to every
// invocation and ends with a barrier, so calls may follow one another.
// Requires GL_KHR_shader_subgroup_basic, GL_KHR_shader_subgroup_arithmetic and
// GL_EXT_shader_explicit_arithmetic_types_int64; workgroups of GFXQ_PRIM_WG_SIZE invocations.
#ifndef GFXQ_WG_REDUCE_GLSL
#define GFXQ_WG_REDUCE_GLSL
#include "wg_constants.glsl"

shared uint64_t wg_reduce_slots[GFXQ_PRIM_WG_SIZE];  // one per subgroup

// Exact subgroup sum modulo 2^64 from 32-bit subgroup adds of 24-, 24- and 16-bit limbs, so no
// 64-bit subgroup operation (shaderSubgroupExtendedTypes) is needed; exact for subgroups of up to
// 256 invocations.
uint64_t sg_add_u64(uint64_t v) {
  const uint lo = uint(v) & 0xFFFFFFu, mid = uint(v >> 24) & 0xFFFFFFu, hi = uint(v >> 48);
  return uint64_t(subgroupAdd(lo)) + (uint64_t(subgroupAdd(mid)) << 24) + (uint64_t(subgroupAdd(hi)) << 48);
}

// The sum of v over the workgroup, modulo 2^64 (int64 sums alike, in two's complement).
uint64_t wg_add_u64(uint64_t v) {
  const uint64_t s = sg_add_u64(v);
  if (subgroupElect()) wg_reduce_slots[gl_SubgroupID] = s;
  barrier();
  uint64_t total = 0;
  for (uint i = 0; i < gl_NumSubgroups; ++i) total += wg_reduce_slots[i];
  barrier();
  return total;
}

// The smallest v of the workgroup.
uint wg_min_u32(uint v) {
  const uint s = subgroupMin(v);
  if (subgroupElect()) wg_reduce_slots[gl_SubgroupID] = s;
  barrier();
  uint m = 0xFFFFFFFFu;
  for (uint i = 0; i < gl_NumSubgroups; ++i) m = min(m, uint(wg_reduce_slots[i]));
  barrier();
  return m;
}

// The largest v of the workgroup.
uint wg_max_u32(uint v) {
  const uint s = subgroupMax(v);
  if (subgroupElect()) wg_reduce_slots[gl_SubgroupID] = s;
  barrier();
  uint m = 0u;
  for (uint i = 0; i < gl_NumSubgroups; ++i) m = max(m, uint(wg_reduce_slots[i]));
  barrier();
  return m;
}

#endif
