#version 450
// copy_u32x4: dst[i] = src[i] for i < count: the copy-bandwidth ceiling of the compute benchmarks
// (bench/cases_compute.cpp), which times every variant and reports the best.
//   default      one uvec4 per invocation (workgroup w copies elements 256w .. 256w + 255)
//   PER_THREAD=K K uvec4 per invocation, all loaded before the first store: workgroup w copies
//                elements [256Kw, 256K(w + 1)), invocation t elements 256Kw + 256k + t
//   GRID_STRIDE  as PER_THREAD, then the grid steps by its own size (gl_NumWorkGroups blocks)
//   READ_ONLY    reads as above and stores nothing (an XOR of the values decides a store that never
//                happens on real data): the read-only ceiling a scan is compared with
// Bindings: 0 = src (uvec4[]), 1 = dst (uvec4[]).
// Push constants: count (uvec4 elements), group_offset (last word, set by vk::Device::dispatch).
#extension GL_EXT_control_flow_attributes : require
#include "gfxq_constants.h"
layout(local_size_x = GFXQ_WORKGROUP_SIZE) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Params { uint count; uint group_offset; } pc;
#if !defined(PER_THREAD)
#define PER_THREAD 1u
#endif
void main() {
  const uint wg = gl_WorkGroupSize.x;
  const uint block = wg * PER_THREAD;
#if defined(READ_ONLY)
  uvec4 acc = uvec4(0u);
#endif
#if defined(GRID_STRIDE)
  const uint step = gl_NumWorkGroups.x * block;
  for (uint base = gl_WorkGroupID.x * block; base < pc.count; base += step) {
#else
  {
    const uint base = (gl_WorkGroupID.x + pc.group_offset) * block;
#endif
    uvec4 v[PER_THREAD];
    [[unroll]] for (uint k = 0u; k < PER_THREAD; ++k) {
      const uint i = base + k * wg + gl_LocalInvocationID.x;
      v[k] = i < pc.count ? src[i] : uvec4(0u);
    }
#if defined(READ_ONLY)
    [[unroll]] for (uint k = 0u; k < PER_THREAD; ++k) acc ^= v[k];
#else
    [[unroll]] for (uint k = 0u; k < PER_THREAD; ++k) {
      const uint i = base + k * wg + gl_LocalInvocationID.x;
      if (i < pc.count) dst[i] = v[k];
    }
#endif
  }
#if defined(READ_ONLY)
  if (all(equal(acc, uvec4(pc.count + 0x5bd1e995u)))) dst[gl_GlobalInvocationID.x] = acc;
#endif
}
