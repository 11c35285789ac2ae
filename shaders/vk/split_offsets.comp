#version 450
// split_offsets: partition offsets of a one-pass split from the pass's digit totals:
// offsets[p] = keys of partitions before p for p < fanout, offsets[fanout] = n (fanout <= bins <= 256).
// Bindings: 0 = totals (uint[], read), 1 = offsets (uint[fanout + 1], written).
// Push constants: n, bins, fanout.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#include "sort_config.glsl"

layout(local_size_x = SORT_WG) in;
layout(std430, binding = 0) readonly buffer Totals { uint totals[]; };
layout(std430, binding = 1) writeonly buffer Offsets { uint offsets[]; };
layout(push_constant) uniform Params { uint n, bins, fanout; } pc;

#include "sort_workgroup.glsl"

void main() {
  const uint tid = sort_tid();
  uint sum;
  const uint before = wg_exclusive_scan(tid < pc.bins ? totals[tid] : 0u, sum);
  if (tid < pc.fanout) offsets[tid] = before;
  if (tid == 0u) offsets[pc.fanout] = pc.n;
}
