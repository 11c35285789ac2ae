#version 450
// group_by_quantile: one MEDIAN / QUANTILE / KTH_LARGEST per group of the sort-based GROUP BY.
// The rows are sorted by (group key, value), so group g's values lie ascending at
// [firsts[g], firsts[g] + counts[g]); its result is the order key of the value of rank r there:
// QUANTILE r = ceil(q * n) computed exactly as quantile_rank() does (q = m * 2^-shift with m a
// 53-bit integer: the 85-bit product m * n in two 64-bit words), KTH_LARGEST r = n - k + 1 (the
// host gives NULL where k > n; what is written there is meaningless).
// Bindings: 0 = counts, 1 = first rows, 2 = sorted values (raw bits), 3 = out (order keys).
// Push constants: groups, kth (0: QUANTILE), m_lo, m_hi, shift, k_lo, k_hi, value type
//                 (SORT_KEY_*), group_offset.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "group_by_config.glsl"
#include "sort_config.glsl"
#include "sort_keys.glsl"
layout(local_size_x = GB_WG) in;
layout(std430, binding = 0) readonly buffer Counts { uint counts[]; };
layout(std430, binding = 1) readonly buffer Firsts { uint firsts[]; };
layout(std430, binding = 2) readonly buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer Out { uint out_keys[]; };
layout(push_constant) uniform Push {
  uint groups;
  uint kth;
  uint m_lo;
  uint m_hi;
  uint shift;
  uint k_lo;
  uint k_hi;
  uint type;
  uint group_offset;
} pc;

// ceil(m * n / 2^shift) for m = m_hi * 2^32 + m_lo < 2^53, 52 <= shift.
uint64_t quantile_rank(uint n) {
  if (pc.shift >= 128u) return 1ul;
  const uint64_t low = uint64_t(pc.m_lo) * n;   // < 2^64
  const uint64_t high = uint64_t(pc.m_hi) * n;  // < 2^53, at bit 32
  uint64_t lo = low + (high << 32);
  uint64_t hi = (high >> 32) + (lo < low ? 1ul : 0ul);
  // + 2^shift - 1, then >> shift.
  const uint64_t add_lo = pc.shift >= 64u ? ~0ul : (1ul << pc.shift) - 1ul;
  const uint64_t add_hi = pc.shift >= 64u ? (1ul << (pc.shift - 64u)) - 1ul : 0ul;
  const uint64_t sum_lo = lo + add_lo;
  hi += add_hi + (sum_lo < lo ? 1ul : 0ul);
  lo = sum_lo;
  return pc.shift >= 64u ? hi >> (pc.shift - 64u) : (lo >> pc.shift) | (hi << (64u - pc.shift));
}

void main() {
  const uint g = (gl_WorkGroupID.x + pc.group_offset) * GB_WG + gl_LocalInvocationIndex;
  if (g >= pc.groups) return;
  const uint n = counts[g];
  uint64_t rank;
  if (pc.kth != 0u) {
    const uint64_t k = pack64(uvec2(pc.k_lo, pc.k_hi));
    if (k > uint64_t(n)) {
      out_keys[g] = 0u;
      return;
    }
    rank = uint64_t(n) - k + 1ul;
  } else {
    rank = quantile_rank(n);
  }
  out_keys[g] = sort_key(values[firsts[g] + uint(rank) - 1u], pc.type, 0u);
}
