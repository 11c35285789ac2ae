#version 450
// scan_spine: one workgroup scans the `partial_count` partials of a tiled pass (their first
// component, a uint64) into carries[i] = partials[0].x + ... + partials[i - 1].x (exclusive,
// exact modulo 2^64) and writes the sum of all to carries[partial_count] and to total[0].
// Bindings: 0 = partials (u64vec2[]), 1 = carries (uint64_t[partial_count + 1]), 2 = total (uint64_t[1]).
// Push constants: partial_count.
//
// No subgroup operations: invocations hold different numbers of partials, so they branch apart
// around the loads and stores of every round, and Vulkan does not promise that a subgroup
// reconverges after such branches (only SPV_KHR_maximal_reconvergence does). On NVIDIA
// (independent thread scheduling) the subgroup scan that stood here returned totals without the
// partials from the last invocation holding any on, plus garbage in the high bits. A barrier
// waits for every invocation of the workgroup however it got there, so the rounds scan through
// shared memory with barriers only.
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "wg_constants.glsl"
layout(local_size_x = GFXQ_PRIM_WG_SIZE) in;
layout(std430, binding = 0) readonly buffer Partials { u64vec2 partials[]; };
layout(std430, binding = 1) writeonly buffer Carries { uint64_t carries[]; };
layout(std430, binding = 2) writeonly buffer Total { uint64_t total[]; };
layout(push_constant) uniform Push { uint partial_count; } pc;

// Partials per invocation per round: a round covers GFXQ_PRIM_WG_SIZE * ITEMS partials.
#define ITEMS 16u

shared uint64_t spine_sums[GFXQ_PRIM_WG_SIZE];

// The sum of v over invocations of lower index, modulo 2^64 (a Hillis-Steele scan in shared
// memory); `round_total`: over all. Called from uniform control flow; ends with a barrier.
uint64_t spine_exclusive_add(uint64_t v, out uint64_t round_total) {
  const uint i = gl_LocalInvocationIndex;
  spine_sums[i] = v;
  barrier();
  [[unroll]] for (uint d = 1u; d < GFXQ_PRIM_WG_SIZE; d <<= 1u) {
    const uint64_t left = i >= d ? spine_sums[i - d] : 0;
    barrier();
    spine_sums[i] += left;
    barrier();
  }
  round_total = spine_sums[GFXQ_PRIM_WG_SIZE - 1u];
  const uint64_t inclusive = spine_sums[i];
  barrier();  // the next round overwrites spine_sums
  return inclusive - v;
}

void main() {
  const uint index = gl_LocalInvocationIndex;
  uint64_t carry = 0;
  for (uint base = 0; base < pc.partial_count; base += GFXQ_PRIM_WG_SIZE * ITEMS) {
    const uint first = base + index * ITEMS;
    uint64_t v[ITEMS];
    uint64_t sum = 0;
    [[unroll]] for (uint k = 0; k < ITEMS; ++k) {
      v[k] = first + k < pc.partial_count ? partials[first + k].x : 0;
      sum += v[k];
    }
    uint64_t round_total;
    uint64_t run = carry + spine_exclusive_add(sum, round_total);
    [[unroll]] for (uint k = 0; k < ITEMS; ++k) {
      if (first + k < pc.partial_count) carries[first + k] = run;
      run += v[k];
    }
    carry += round_total;
  }
  if (index == 0u) {
    carries[pc.partial_count] = carry;
    total[0] = carry;
  }
}
