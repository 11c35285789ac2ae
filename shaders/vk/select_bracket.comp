#version 450
// select_bracket: one workgroup sorts the sampled select's SELECT_SAMPLE sample sort keys
// (select_sample.comp) in shared memory by a bitonic network and writes the bracket
// state[SELECT_LO] = sample[lo_rank], state[SELECT_HI] = sample[hi_rank] (ranks in the sorted
// sample, chosen by the host around rank k's place; the scan ignores a side the host left open).
// Bindings: 0 = state (uint[], read and written).
// Push constants: lo_rank, hi_rank (each < SELECT_SAMPLE).
#include "select_config.glsl"

layout(local_size_x = SELECT_SAMPLE_WG) in;
layout(std430, binding = 0) buffer State { uint state[]; };
layout(push_constant) uniform Params { uint lo_rank, hi_rank; } pc;

shared uint s_keys[SELECT_SAMPLE];

void main() {
  const uint tid = gl_LocalInvocationIndex;
  for (uint i = tid; i < SELECT_SAMPLE; i += SELECT_SAMPLE_WG) s_keys[i] = state[SELECT_SAMPLE_AT + i];
  barrier();
  for (uint size = 2u; size <= SELECT_SAMPLE; size <<= 1u)
    for (uint stride = size >> 1u; stride > 0u; stride >>= 1u) {
      for (uint i = tid; i < SELECT_SAMPLE; i += SELECT_SAMPLE_WG) {
        const uint l = i ^ stride;
        if (l > i) {
          const uint a = s_keys[i], b = s_keys[l];
          if ((a > b) == ((i & size) == 0u)) {
            s_keys[i] = b;
            s_keys[l] = a;
          }
        }
      }
      barrier();
    }
  if (tid == 0u) {
    state[SELECT_LO] = s_keys[pc.lo_rank];
    state[SELECT_HI] = s_keys[pc.hi_rank];
  }
}
