#version 450
// fill_u32: out[i] = in[i] * mul + add for i < count.
// Bindings: 0 = in (uint[]), 1 = out (uint[]). Push constants: count, mul, add.
#include "gfxq_constants.h"
layout(local_size_x = GFXQ_WORKGROUP_SIZE) in;
layout(std430, binding = 0) readonly buffer In { uint src[]; };
layout(std430, binding = 1) writeonly buffer Out { uint dst[]; };
layout(push_constant) uniform Params { uint count; uint mul; uint add; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.count) dst[i] = src[i] * pc.mul + pc.add;
}
