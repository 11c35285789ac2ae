#version 450
// join_search: the sorted search of the sort-merge join. Both sides' keys are sorted; merge-path
// partitions (vk/primitives/merge_path.h) cut the merge of a (probe keys) and b (build keys) into
// tiles of `step` elements: tile t holds a[a0 .. a1) and b[b0 .. b1). With probe-first ties every
// probe key of the tile has exactly b[0 .. b0) below it and b[b1] (if any) not below it, so its
// lower bound lies in [b0, b1] and is found by a binary search of the tile's build keys in shared
// memory; with build-first ties the same holds for its upper bound (first key above it).
// Modes (JOIN_SEARCH_*): LOWER writes unit_start[i] = lower bound; UPPER writes
// counts[i] = upper bound - unit_start[i] (the probe's run of equal build keys).
// Bindings: 0 = a (uint[m_a], sorted), 1 = b (uint[m_b], sorted), 2 = partitions (uint[tiles + 1]),
//   3 = unit_start (uint[m_a]), 4 = counts (uint[m_a]).
// Push constants: m_a, m_b, step, mode, group_offset (last, set by dispatch).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "join_config.glsl"
layout(local_size_x = JOIN_WG) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) readonly buffer Partitions { uint partitions[]; };
layout(std430, binding = 3) buffer UnitStart { uint unit_start[]; };
layout(std430, binding = 4) writeonly buffer Counts { uint counts[]; };
layout(push_constant) uniform Push { uint m_a, m_b, step, mode, group_offset; } pc;

shared uint s_b[JOIN_SEARCH_TILE];

void main() {
  const uint t = gl_WorkGroupID.x + pc.group_offset;
  const uint64_t total = uint64_t(pc.m_a) + pc.m_b;
  const uint d0 = uint(min(uint64_t(t) * pc.step, total));
  const uint d1 = uint(min(uint64_t(t + 1u) * pc.step, total));
  const uint a0 = partitions[t], a1 = partitions[t + 1u];
  const uint b0 = d0 - a0, nb = (d1 - a1) - b0;
  for (uint j = gl_LocalInvocationIndex; j < nb; j += JOIN_WG) s_b[j] = b[b0 + j];
  barrier();
  const bool upper = pc.mode == JOIN_SEARCH_UPPER;
  for (uint i = a0 + gl_LocalInvocationIndex; i < a1; i += JOIN_WG) {
    const uint key = a[i];
    uint lo = 0u, hi = nb;  // first j with s_b[j] >= key (LOWER) or > key (UPPER)
    while (lo < hi) {
      const uint mid = (lo + hi) >> 1;
      if (upper ? s_b[mid] <= key : s_b[mid] < key) {
        lo = mid + 1u;
      } else {
        hi = mid;
      }
    }
    if (upper) {
      counts[i] = b0 + lo - unit_start[i];
    } else {
      unit_start[i] = b0 + lo;
    }
  }
}
