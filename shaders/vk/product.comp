#version 450
// product: the pairs of a PRODUCT (CROSS JOIN) in (left row, right row) order, the chunk of output
// positions [first, first + count): position p is the pair (p / right_n, p % right_n).
// PRODUCT_IDS:    out0[i] = left id, out1[i] = right id (through the sides' selections when
//                 has_left_sel / has_right_sel: the position in the side indexes its selected ids).
// PRODUCT_GATHER: out0[i] = src[side id] for one column word plane of one side (`side`: 0 left,
//                 1 right): an output column written directly.
// Bindings: 0 = left selection (or the source plane, PRODUCT_GATHER), 1 = right selection (or the
//           side's selection), 2 = out0, 3 = out1 (uint[]; out1 unused by PRODUCT_GATHER).
// Push constants: count, l0, r0 (the chunk's first pair: first = l0 * right_n + r0), right_n, flags
//                 (bit 0: left selection, bit 1: right selection, bit 2: side is right), group_offset.
// Position first + i is r0 + i pairs after (l0, 0): a 32-bit division while r0 + i < 2^32 (a 64-bit
// division, slow on GPUs, only past it).
#extension GL_ARB_gpu_shader_int64 : require
#include "skeleton_config.glsl"
layout(local_size_x = SKELETON_WG) in;
layout(std430, binding = 0) readonly buffer B0 { uint b0[]; };
layout(std430, binding = 1) readonly buffer B1 { uint b1[]; };
layout(std430, binding = 2) writeonly buffer Out0 { uint out0[]; };
layout(std430, binding = 3) writeonly buffer Out1 { uint out1[]; };
layout(push_constant) uniform Push {
  uint count;
  uint l0;
  uint r0;
  uint right_n;
  uint flags;
  uint group_offset;
} pc;

void main() {
  const uint i = (gl_WorkGroupID.x + pc.group_offset) * SKELETON_WG + gl_LocalInvocationIndex;
  if (i >= pc.count) return;
  const uint64_t t = uint64_t(pc.r0) + uint64_t(i);
  uint l, r;
  if (t < 0x100000000ul) {
    const uint t32 = uint(t);
    l = pc.l0 + t32 / pc.right_n;
    r = t32 % pc.right_n;
  } else {
    const uint64_t q = t / uint64_t(pc.right_n);
    l = pc.l0 + uint(q);
    r = uint(t - q * uint64_t(pc.right_n));
  }
#ifdef PRODUCT_IDS
  out0[i] = (pc.flags & 1u) != 0u ? b0[l] : l;
  out1[i] = (pc.flags & 2u) != 0u ? b1[r] : r;
#else
  const bool right = (pc.flags & 4u) != 0u;
  const uint pos = right ? r : l;
  const bool selected = (pc.flags & (right ? 2u : 1u)) != 0u;
  out0[i] = b0[selected ? b1[pos] : pos];
#endif
}
