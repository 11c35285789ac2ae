#version 450
// radix_scan: one workgroup per digit d turns row d of the block histograms into exclusive
// prefix sums (block_hist[d * nblocks + b] = keys of digit d in blocks before b) and writes the
// digit's total to totals[d]. Dispatched with mask + 1 workgroups.
// Bindings: 0 = block_hist (uint[], read and written), 1 = totals (uint[], written).
// Push constants: nblocks.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#include "sort_config.glsl"

layout(local_size_x = SORT_WG) in;
layout(std430, binding = 0) buffer BlockHist { uint block_hist[]; };
layout(std430, binding = 1) writeonly buffer Totals { uint totals[]; };
layout(push_constant) uniform Params { uint nblocks; } pc;

#include "sort_workgroup.glsl"

void main() {
  const uint tid = sort_tid();
  const uint row = gl_WorkGroupID.x * pc.nblocks;
  uint carry = 0u;
  for (uint start = 0u; start < pc.nblocks; start += SORT_WG * 4u) {
    const uint first = start + tid * 4u;
    uint v[4];
    uint sum = 0u;
    for (uint q = 0u; q < 4u; ++q) {
      v[q] = first + q < pc.nblocks ? block_hist[row + first + q] : 0u;
      sum += v[q];
    }
    uint total;
    uint run = carry + wg_exclusive_scan(sum, total);
    for (uint q = 0u; q < 4u; ++q) {
      if (first + q < pc.nblocks) block_hist[row + first + q] = run;
      run += v[q];
    }
    carry += total;
  }
  if (tid == 0u) totals[gl_WorkGroupID.x] = carry;
}
