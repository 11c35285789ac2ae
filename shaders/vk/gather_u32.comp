#version 450
// gather_u32: out[i] = src[idx[i] - src_base] for i < count where src_base <= idx[i] <
// src_base + src_count; other out[i] are left unchanged. One tile per workgroup; its grid may
// exceed maxComputeWorkGroupCount[0]: vk::Device::dispatch splits it.
// Bindings: 0 = idx (uint[] and uvec4[] views), 1 = src (uint[]: the window of the source that
//           starts at src_base), 2 = out (uint[] and uvec4[] views).
// Push constants: count, src_base, src_count, group_offset (last word, set by dispatch).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#include "wg_tile.glsl"
layout(local_size_x = GFXQ_PRIM_WG_SIZE) in;
layout(std430, binding = 0) readonly buffer IdxV { uvec4 idx_v[]; };
layout(std430, binding = 0) readonly buffer IdxS { uint idx_s[]; };
layout(std430, binding = 1) readonly buffer Src { uint src[]; };
layout(std430, binding = 2) writeonly buffer OutV { uvec4 out_v[]; };
layout(std430, binding = 2) writeonly buffer OutS { uint out_s[]; };
layout(push_constant) uniform Push { uint count; uint src_base; uint src_count; uint group_offset; } pc;
WG_DEFINE_LOAD(load_idx, idx_v, idx_s)

void main() {
  const uint tile = gl_WorkGroupID.x + pc.group_offset;
  const uint q0 = tile * (GFXQ_PRIM_TILE / 4) + wg_rank();
  uvec4 rel[GFXQ_PRIM_ROWS], take[GFXQ_PRIM_ROWS];
  if ((tile + 1u) * GFXQ_PRIM_TILE <= pc.count) {
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
      rel[j] = idx_v[q0 + j * GFXQ_PRIM_WG_SIZE] - pc.src_base;
      take[j] = uvec4(1u);
    }
  } else {
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
      rel[j] = load_idx(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count, uvec4(0u)) - pc.src_base;
      take[j] = wg_valid(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count);
    }
  }
  [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
    take[j] &= uvec4(lessThan(rel[j], uvec4(pc.src_count)));  // idx below src_base wraps high
    uvec4 v = uvec4(0u);
    [[unroll]] for (uint k = 0; k < 4u; ++k)
      if (take[j][k] != 0u) v[k] = src[rel[j][k]];
    const uint q = q0 + j * GFXQ_PRIM_WG_SIZE;
    if (all(equal(take[j], uvec4(1u)))) {
      out_v[q] = v;
    } else {
      [[unroll]] for (uint k = 0; k < 4u; ++k)
        if (take[j][k] != 0u) out_s[q * 4u + k] = v[k];
    }
  }
}
