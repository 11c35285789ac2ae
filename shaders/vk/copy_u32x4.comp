#version 450
// copy_u32x4: dst[i] = src[i] for i < count, one uvec4 per invocation: the copy-bandwidth ceiling
// of the compute benchmarks (bench/cases_compute.cpp).
// Bindings: 0 = src (uvec4[]), 1 = dst (uvec4[]).
// Push constants: count (uvec4 elements), group_offset (last word, set by vk::Device::dispatch).
#include "gfxq_constants.h"
layout(local_size_x = GFXQ_WORKGROUP_SIZE) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Params { uint count; uint group_offset; } pc;
void main() {
  const uint i = (gl_WorkGroupID.x + pc.group_offset) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i < pc.count) dst[i] = src[i];
}
