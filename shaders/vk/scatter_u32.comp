#version 450
// scatter_u32: out[idx[i] - dst_base] = in[i] for i < count where dst_base <= idx[i] <
// dst_base + dst_count; other elements are skipped. One tile per workgroup; its grid may exceed
// maxComputeWorkGroupCount[0]: vk::Device::dispatch splits it.
// Bindings: 0 = idx (uint[] and uvec4[] views), 1 = in (uint[] and uvec4[] views),
//           2 = out (uint[]: the window of the destination that starts at dst_base).
// Push constants: count, dst_base, dst_count, group_offset (last word, set by dispatch).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#include "wg_tile.glsl"
layout(local_size_x = GFXQ_PRIM_WG_SIZE) in;
layout(std430, binding = 0) readonly buffer IdxV { uvec4 idx_v[]; };
layout(std430, binding = 0) readonly buffer IdxS { uint idx_s[]; };
layout(std430, binding = 1) readonly buffer InV { uvec4 in_v[]; };
layout(std430, binding = 1) readonly buffer InS { uint in_s[]; };
layout(std430, binding = 2) writeonly buffer Out { uint out_s[]; };
layout(push_constant) uniform Push { uint count; uint dst_base; uint dst_count; uint group_offset; } pc;
WG_DEFINE_LOAD(load_idx, idx_v, idx_s)
WG_DEFINE_LOAD(load_in, in_v, in_s)

void main() {
  const uint tile = gl_WorkGroupID.x + pc.group_offset;
  const uint q0 = tile * (GFXQ_PRIM_TILE / 4) + wg_rank();
  uvec4 rel[GFXQ_PRIM_ROWS], v[GFXQ_PRIM_ROWS], take[GFXQ_PRIM_ROWS];
  if ((tile + 1u) * GFXQ_PRIM_TILE <= pc.count) {
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
      rel[j] = idx_v[q0 + j * GFXQ_PRIM_WG_SIZE] - pc.dst_base;
      v[j] = in_v[q0 + j * GFXQ_PRIM_WG_SIZE];
      take[j] = uvec4(1u);
    }
  } else {
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
      rel[j] = load_idx(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count, uvec4(0u)) - pc.dst_base;
      v[j] = load_in(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count, uvec4(0u));
      take[j] = wg_valid(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count);
    }
  }
  [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
    take[j] &= uvec4(lessThan(rel[j], uvec4(pc.dst_count)));  // idx below dst_base wraps high
    [[unroll]] for (uint k = 0; k < 4u; ++k)
      if (take[j][k] != 0u) out_s[rel[j][k]] = v[j][k];
  }
}
