#version 450
// product: the pairs of a PRODUCT (CROSS JOIN) in (left row, right row) order, the chunk of output
// positions [first, first + count): position p is the pair (p / right_n, p % right_n).
// PRODUCT_IDS:    out0[i] = left id, out1[i] = right id (through the sides' selections when
//                 has_left_sel / has_right_sel: the position in the side indexes its selected ids).
// PRODUCT_GATHER: out0[i] = src[side id] for one column word plane of one side (`side`: 0 left,
//                 1 right): an output column written directly.
// Bindings: 0 = left selection (or the source plane, PRODUCT_GATHER), 1 = right selection (or the
//           side's selection), 2 = out0, 3 = out1 (uvec4[]: padded to whole vectors; out1 unused by
//           PRODUCT_GATHER).
// Push constants: count, l0, r0 (the chunk's first pair: first = l0 * right_n + r0), right_n, flags
//                 (bit 0: left selection, bit 1: right selection, bit 2: side is right), step_l,
//                 step_r (STEP = 4 * SKELETON_WG positions as pairs: STEP / right_n, STEP % right_n),
//                 group_offset.
// Layout (as copy_u32x4's PER_THREAD): workgroup w writes the vectors [VECS * WG * w, VECS * WG *
// (w + 1)) of 4 positions, invocation t the vectors VECS * WG * w + WG * k + t (k < VECS), each as one
// uvec4 store (component stores in a partial last vector). Only an invocation's first position is
// divided (a 32-bit division while r0 + i < 2^32, a 64-bit one past it); it steps to its next
// vectors by (step_l, step_r) and along a vector by one, wrapping at right_n: no division per pair,
// whatever the sides' sizes (a right side of one row wraps at every position).
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_control_flow_attributes : require
#include "skeleton_config.glsl"
#define VECS PRODUCT_VECS
layout(local_size_x = SKELETON_WG) in;
layout(std430, binding = 0) readonly buffer B0 { uint b0[]; };
layout(std430, binding = 1) readonly buffer B1 { uint b1[]; };
layout(std430, binding = 2) writeonly buffer Out0 { uvec4 out0[]; };
layout(std430, binding = 3) writeonly buffer Out1 { uvec4 out1[]; };
layout(push_constant) uniform Push {
  uint count;
  uint l0;
  uint r0;
  uint right_n;
  uint flags;
  uint step_l;
  uint step_r;
  uint group_offset;
} pc;

// The pair after (l, r): r + 1, or the next left row's first.
void next_pair(inout uint l, inout uint r) {
  if (r + 1u == pc.right_n) {
    r = 0u;
    ++l;
  } else {
    ++r;
  }
}

// The vector of positions i .. i + 3 from the pair (l, r) of position i: `a` (out0) and `b` (out1,
// PRODUCT_IDS). With `check` (a constant at both call sites: only a partial last vector), pairs past
// count are not stepped to, so no side is read past its rows.
void vector_of(uint l, uint r, uint i, bool check, out uvec4 a, out uvec4 b) {
  const bool left_sel = (pc.flags & 1u) != 0u, right_sel = (pc.flags & 2u) != 0u;
  b = uvec4(0u);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
#ifdef PRODUCT_IDS
    a[j] = left_sel ? b0[l] : l;
    b[j] = right_sel ? b1[r] : r;
#else
    const bool right = (pc.flags & 4u) != 0u;
    const uint pos = right ? r : l;
    a[j] = b0[(right ? right_sel : left_sel) ? b1[pos] : pos];
#endif
    if (j < 3u && (!check || i + j + 1u < pc.count)) next_pair(l, r);
  }
}

void main() {
  const uint lid = gl_LocalInvocationIndex;
  const uint first_vec = (gl_WorkGroupID.x + pc.group_offset) * (VECS * SKELETON_WG) + lid;
  const uint i0 = 4u * first_vec;  // < count + 4 * VECS * WG <= 2^30: no overflow
  if (i0 >= pc.count) return;
  const uint64_t t = uint64_t(pc.r0) + uint64_t(i0);
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
  [[unroll]] for (uint k = 0u; k < VECS; ++k) {
    const uint v = first_vec + k * SKELETON_WG;
    const uint i = 4u * v;
    if (i >= pc.count) break;
    uvec4 a, b;
    if (i + 4u <= pc.count) {
      vector_of(l, r, i, false, a, b);
      out0[v] = a;
#ifdef PRODUCT_IDS
      out1[v] = b;
#endif
    } else {
      vector_of(l, r, i, true, a, b);
      for (uint j = 0u; i + j < pc.count; ++j) {
        out0[v][j] = a[j];
#ifdef PRODUCT_IDS
        out1[v][j] = b[j];
#endif
      }
    }
    // The next vector of this invocation: STEP positions on, as (step_l, step_r).
    l += pc.step_l;
    if (r >= pc.right_n - pc.step_r) {
      r -= pc.right_n - pc.step_r;
      ++l;
    } else {
      r += pc.step_r;
    }
  }
}
