#version 450
// select_sample: gathers the sampled select's sample (radix_select.h). Invocation j < SELECT_SAMPLE
// reads key ((2j + 1) n) / (2 SELECT_SAMPLE) of all n keys (evenly strided, always < n) when it
// lies in this dispatch's binding window, and stores its sort key at state[SELECT_SAMPLE_AT + j].
// One dispatch of SELECT_SAMPLE / SELECT_SAMPLE_WG workgroups per window.
// Bindings: 0 = keys (uint[], raw, this window's, read), 1 = state (uint[], written).
// Push constants: n (all keys), base (index of the window's first key), window_n (its keys),
// key_type, descending.
#include "sort_config.glsl"
#include "sort_keys.glsl"
#include "select_config.glsl"

layout(local_size_x = SELECT_SAMPLE_WG) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer State { uint state[]; };
layout(push_constant) uniform Params { uint n, base, window_n, key_type, descending; } pc;

void main() {
  const uint j = gl_GlobalInvocationID.x;
  // (2j + 1) n < 2^45: the 64-bit product shifted right by log2(2 SELECT_SAMPLE) = 13.
  uint hi, lo;
  umulExtended(2u * j + 1u, pc.n, hi, lo);
  const uint at = (hi << 19) | (lo >> 13);
  if (at >= pc.base && at - pc.base < pc.window_n)
    state[SELECT_SAMPLE_AT + j] = sort_key(keys[at - pc.base], pc.key_type, pc.descending);
}
