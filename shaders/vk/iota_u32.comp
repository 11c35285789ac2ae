#version 450
// iota_u32: dst[i] = start + i for i < count. Its grid may exceed maxComputeWorkGroupCount[0]:
// vk::Device::dispatch splits it and writes each part's first workgroup into group_offset.
// Bindings: 0 = dst (uint[]). Push constants: count, start, group_offset (last word, set by dispatch).
#include "gfxq_constants.h"
layout(local_size_x = GFXQ_WORKGROUP_SIZE) in;
layout(std430, binding = 0) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform Params { uint count; uint start; uint group_offset; } pc;
void main() {
  uint i = (gl_WorkGroupID.x + pc.group_offset) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i < pc.count) dst[i] = pc.start + i;
}
