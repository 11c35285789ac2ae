#version 450
// merge_path: partitions of the merge of two ascending key sequences a[0..n) and b[0..m): for
// diagonal t (0 <= t < parts), d = min(t * step, n + m) and out[t] = the number of a's elements
// among the first d elements of the merge. Ties: MERGE_TIES_A_FIRST puts a's element before an
// equal b (a stable merge of a, then b); MERGE_TIES_B_FIRST puts b's first. One invocation per
// diagonal, a binary search over i in [max(0, d - m), min(d, n)] (Green, McColl, Bader 2012).
// Bindings: 0 = a (uint[n]), 1 = b (uint[m]), 2 = out (uint[parts]).
// Push constants: n, m, step, parts, key_type (SORT_KEY_*), ties, group_offset (last, set by dispatch).
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "join_config.glsl"
#include "sort_config.glsl"
#include "sort_keys.glsl"
layout(local_size_x = MERGE_PATH_WG) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) writeonly buffer Out { uint partitions[]; };
layout(push_constant) uniform Push { uint n, m, step, parts, key_type, ties, group_offset; } pc;

void main() {
  const uint t = (gl_WorkGroupID.x + pc.group_offset) * MERGE_PATH_WG + gl_LocalInvocationID.x;
  if (t >= pc.parts) return;
  const uint64_t total = uint64_t(pc.n) + pc.m;
  const uint d = uint(min(uint64_t(t) * pc.step, total));
  uint lo = d > pc.m ? d - pc.m : 0u;
  uint hi = min(d, pc.n);
  while (lo < hi) {  // at most 32 steps
    const uint mid = (lo + hi) >> 1;
    const uint ka = sort_key(a[mid], pc.key_type, 0u);
    const uint kb = sort_key(b[d - 1u - mid], pc.key_type, 0u);
    // a[mid] is among the first d when it is merged before b[d - 1 - mid].
    const bool before = pc.ties == MERGE_TIES_A_FIRST ? ka <= kb : ka < kb;
    if (before) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  partitions[t] = lo;
}
