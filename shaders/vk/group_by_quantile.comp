#version 450
// group_by_quantile: one MEDIAN / QUANTILE / KTH_LARGEST per group of the sort-based GROUP BY.
// The rows are sorted by (group key, value), so group g's values lie ascending at
// [firsts[g], firsts[g] + n_g); its result is the order key of the value of rank ranks[g] there
// (1-based; computed on the host by quantile_rank() or as n_g - k + 1, so the GPU follows the one
// definition; 0 where the result is NULL, KTH_LARGEST with k > n_g, which writes 0).
// Bindings: 0 = ranks, 1 = first rows, 2 = sorted values (raw bits), 3 = out (order keys).
// Push constants: groups, type (SORT_KEY_*), group_offset.
#include "group_by_config.glsl"
#include "sort_config.glsl"
#include "sort_keys.glsl"
layout(local_size_x = GB_WG) in;
layout(std430, binding = 0) readonly buffer Ranks { uint ranks[]; };
layout(std430, binding = 1) readonly buffer Firsts { uint firsts[]; };
layout(std430, binding = 2) readonly buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer Out { uint out_keys[]; };
layout(push_constant) uniform Push {
  uint groups;
  uint type;
  uint group_offset;
} pc;

void main() {
  const uint g = (gl_WorkGroupID.x + pc.group_offset) * GB_WG + gl_LocalInvocationIndex;
  if (g >= pc.groups) return;
  const uint rank = ranks[g];
  out_keys[g] = rank == 0u ? 0u : sort_key(values[firsts[g] + rank - 1u], pc.type, 0u);
}
