#version 450
// map_keys_<f>: out[i] = f(in[i]) for i < count, one tile per workgroup. Its grid may exceed
// maxComputeWorkGroupCount[0]: vk::Device::dispatch splits it.
// Defines: KEYMAP_I32_TO_KEY | KEYMAP_F32_TO_KEY | KEYMAP_KEY_TO_I32 | KEYMAP_KEY_TO_F32.
// Bindings: 0 = in (uint[] and uvec4[] views), 1 = out (uint[] and uvec4[] views; may be in).
// Push constants: count, group_offset (last word, set by dispatch).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#include "wg_tile.glsl"
#include "wg_key.glsl"
layout(local_size_x = GFXQ_PRIM_WG_SIZE) in;
layout(std430, binding = 0) readonly buffer InV { uvec4 in_v[]; };
layout(std430, binding = 0) readonly buffer InS { uint in_s[]; };
layout(std430, binding = 1) writeonly buffer OutV { uvec4 out_v[]; };
layout(std430, binding = 1) writeonly buffer OutS { uint out_s[]; };
layout(push_constant) uniform Push { uint count; uint group_offset; } pc;
WG_DEFINE_LOAD(load_in, in_v, in_s)
WG_DEFINE_STORE(store_out, out_v, out_s)

uvec4 f(uvec4 b) {
#if defined(KEYMAP_I32_TO_KEY)
  return key_i32(b);
#elif defined(KEYMAP_F32_TO_KEY)
  return key_f32(b);
#elif defined(KEYMAP_KEY_TO_I32)
  return i32_from_key(b);
#elif defined(KEYMAP_KEY_TO_F32)
  return f32_from_key(b);
#endif
}

void main() {
  const uint tile = gl_WorkGroupID.x + pc.group_offset;
  const uint q0 = tile * (GFXQ_PRIM_TILE / 4) + wg_rank();
  uvec4 v[GFXQ_PRIM_ROWS];
  if ((tile + 1u) * GFXQ_PRIM_TILE <= pc.count) {
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) v[j] = in_v[q0 + j * GFXQ_PRIM_WG_SIZE];
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) out_v[q0 + j * GFXQ_PRIM_WG_SIZE] = f(v[j]);
  } else {
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) v[j] = load_in(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count, uvec4(0u));
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) store_out(q0 + j * GFXQ_PRIM_WG_SIZE, pc.count, f(v[j]));
  }
}
