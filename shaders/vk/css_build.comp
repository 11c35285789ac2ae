#version 450
// css_build: one directory level of a CSS-tree (Rao & Ross 1999) over sorted 32-bit keys: entry j
// of level k is the largest key of node j of level k - 1 (its last entry), for j < len. Level 0 is
// the sorted keys themselves. The padding of every level up to whole nodes of CSS_NODE_KEYS
// entries (0xFFFFFFFF, above every key a search looks for) is filled by the host's commands.
// Bindings: 0 = level k - 1 (uint[below_len]), 1 = level k (uint[len]).
// Push constants: below_len, len, group_offset (last, set by dispatch).
#include "join_config.glsl"
layout(local_size_x = JOIN_WG) in;
layout(std430, binding = 0) readonly buffer Below { uint below[]; };
layout(std430, binding = 1) writeonly buffer Level { uint level[]; };
layout(push_constant) uniform Push { uint below_len, len, group_offset; } pc;

void main() {
  const uint j = (gl_WorkGroupID.x + pc.group_offset) * JOIN_WG + gl_LocalInvocationID.x;
  if (j < pc.len) level[j] = below[min((j + 1u) * CSS_NODE_KEYS, pc.below_len) - 1u];
}
