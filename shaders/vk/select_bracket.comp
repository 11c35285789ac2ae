#version 450
// select_bracket: one workgroup sorts the sampled select's SELECT_SAMPLE sample sort keys
// (select_sample.comp) by a bitonic network and writes the bracket state[SELECT_LO] =
// sample[lo_rank], state[SELECT_HI] = sample[hi_rank] (ranks in the sorted sample, chosen by the
// host around rank k's place; the scan ignores a side the host left open).
// Invocation t holds sample positions 16t .. 16t + 15 in registers: the network's steps of stride
// below 16 run there with no barrier; the wider ones run in shared memory, each invocation taking
// compare pairs (a barrier per step). On the H200 a network run wholly in shared memory, one
// position per invocation and step, took about 0.09 ms, a third of a scan of 2^28 keys.
// Bindings: 0 = state (uint[], read and written).
// Push constants: lo_rank, hi_rank (each < SELECT_SAMPLE).
#extension GL_EXT_control_flow_attributes : require
#include "select_config.glsl"

layout(local_size_x = SELECT_SAMPLE_WG) in;
layout(std430, binding = 0) buffer State { uint state[]; };
layout(push_constant) uniform Params { uint lo_rank, hi_rank; } pc;

#define BRACKET_KPT (SELECT_SAMPLE / SELECT_SAMPLE_WG)
#if BRACKET_KPT != 16
#error "select_bracket's register steps assume 16 sample keys per invocation"
#endif

shared uint s_keys[SELECT_SAMPLE];
uint v[BRACKET_KPT];  // sample positions base .. base + 15

// One step of stride `stride` < 16 of the merge of size `size` over the registers.
void register_step(uint base, uint stride, uint size) {
  if (stride >= size) return;
  [[unroll]] for (uint k = 0u; k < BRACKET_KPT; ++k) {
    if ((k & stride) == 0u) {
      const uint a = v[k], b = v[k + stride];
      const bool swap = (a > b) == (((base + k) & size) == 0u);
      v[k] = swap ? b : a;
      v[k + stride] = swap ? a : b;
    }
  }
}

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint base = tid * BRACKET_KPT;
  [[unroll]] for (uint k = 0u; k < BRACKET_KPT; ++k) v[k] = state[SELECT_SAMPLE_AT + base + k];
  for (uint size = 2u; size <= SELECT_SAMPLE; size <<= 1u) {
    if (size > BRACKET_KPT) {
      [[unroll]] for (uint k = 0u; k < BRACKET_KPT; ++k) s_keys[base + k] = v[k];
      barrier();
      for (uint stride = size >> 1u; stride >= BRACKET_KPT; stride >>= 1u) {
        // Pair p compares positions i and i + stride, i = p with a zero bit inserted at `stride`.
        for (uint p = tid; p < SELECT_SAMPLE / 2u; p += SELECT_SAMPLE_WG) {
          const uint i = 2u * p - (p & (stride - 1u)), l = i + stride;
          const uint a = s_keys[i], b = s_keys[l];
          if ((a > b) == ((i & size) == 0u)) {
            s_keys[i] = b;
            s_keys[l] = a;
          }
        }
        barrier();
      }
      // Each invocation reads back (and later writes) only its own positions: no barrier needed.
      [[unroll]] for (uint k = 0u; k < BRACKET_KPT; ++k) v[k] = s_keys[base + k];
    }
    register_step(base, 8u, size);
    register_step(base, 4u, size);
    register_step(base, 2u, size);
    register_step(base, 1u, size);
  }
  [[unroll]] for (uint k = 0u; k < BRACKET_KPT; ++k) s_keys[base + k] = v[k];
  barrier();
  if (tid == 0u) {
    state[SELECT_LO] = s_keys[pc.lo_rank];
    state[SELECT_HI] = s_keys[pc.hi_rank];
  }
}
