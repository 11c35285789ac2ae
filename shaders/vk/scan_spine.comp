#version 450
// scan_spine: one workgroup scans the `partial_count` partials of a tiled pass (their first
// component, a uint64) into carries[i] = partials[0].x + ... + partials[i - 1].x (exclusive,
// exact modulo 2^64) and writes the sum of all to carries[partial_count] and to total[0].
// Bindings: 0 = partials (u64vec2[]), 1 = carries (uint64_t[partial_count + 1]), 2 = total (uint64_t[1]).
// Push constants: partial_count.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "wg_tile.glsl"
#include "wg_scan.glsl"
layout(local_size_x = GFXQ_PRIM_WG_SIZE) in;
layout(std430, binding = 0) readonly buffer Partials { u64vec2 partials[]; };
layout(std430, binding = 1) writeonly buffer Carries { uint64_t carries[]; };
layout(std430, binding = 2) writeonly buffer Total { uint64_t total[]; };
layout(push_constant) uniform Push { uint partial_count; } pc;

// Partials per invocation per round: a round covers GFXQ_PRIM_WG_SIZE * ITEMS partials.
#define ITEMS 16u

void main() {
  const uint rank = wg_rank();
  uint64_t carry = 0;
  for (uint base = 0; base < pc.partial_count; base += GFXQ_PRIM_WG_SIZE * ITEMS) {
    const uint first = base + rank * ITEMS;
    uint64_t v[ITEMS];
    uint64_t sum = 0;
    [[unroll]] for (uint k = 0; k < ITEMS; ++k) {
      v[k] = first + k < pc.partial_count ? partials[first + k].x : 0;
      sum += v[k];
    }
    u64vec4 round_total;
    uint64_t run = carry + wg_exclusive_add_u64x4(u64vec4(sum, 0, 0, 0), round_total).x;
    [[unroll]] for (uint k = 0; k < ITEMS; ++k) {
      if (first + k < pc.partial_count) carries[first + k] = run;
      run += v[k];
    }
    carry += round_total.x;
  }
  if (rank == 0u) {
    carries[pc.partial_count] = carry;
    total[0] = carry;
  }
}
