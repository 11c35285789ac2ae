#version 450
// join_inlj: the probe phase of the indexed nested-loop join. Probe row i finds the interval
// [klo, khi] of build keys (32-bit order keys of the build column's type) it pairs with, then two
// searches of the CSS-tree over the sorted build keys give its run [lower_bound(klo),
// upper_bound(khi)): unit_start[i], counts[i]. Modes (JOIN_INLJ_*):
//   KEYED: a_key[i] is already a build-domain key (equi-joins): the interval [a_key[i], a_key[i]];
//   TERM:  a_key[i] is the probe's raw value and the primary term (push constants) gives the interval
//          exactly (join_keys.glsl): =, <, <=, >, >= and, with JOIN_BAND, a + lo <= b <= a + hi.
// Bindings: 0 = a_key (uint[m_a]), 1 = css_keys_v (uvec4[]: sorted build keys, padded to whole
//   nodes), 2 = css_dir_v (uvec4[]: the directory), 3 = unit_start (uint[m_a]), 4 = counts (uint[m_a]).
// Push constants: m_a, n_b, mode, a_type, b_type, op, lo (lo, hi words), hi (lo, hi words), group_offset.
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "join_config.glsl"
#include "join_keys.glsl"
layout(local_size_x = JOIN_WG) in;
layout(std430, binding = 0) readonly buffer AKey { uint a_key[]; };
layout(std430, binding = 1) readonly buffer Keys { uvec4 css_keys_v[]; };
layout(std430, binding = 2) readonly buffer Dir { uvec4 css_dir_v[]; };
layout(std430, binding = 3) writeonly buffer UnitStart { uint unit_start[]; };
layout(std430, binding = 4) writeonly buffer Counts { uint counts[]; };
layout(push_constant) uniform Push {
  uint m_a, n_b, mode, a_type, b_type, op, lo_lo, lo_hi, hi_lo, hi_hi, group_offset;
} pc;
#include "css_tree.glsl"

// The interval of build keys the probe's raw value pairs with through the primary term; false: none.
bool term_interval(uint raw, out uint klo, out uint khi) {
  const uint64_t d = join_dbits(raw, pc.a_type);
  klo = 0u;
  khi = 0xFFFFFFFFu;
  switch (pc.op) {
    case JOIN_OP_EQ: return join_lower_key(d, pc.b_type, false, klo) && join_upper_key(d, pc.b_type, false, khi);
    case JOIN_OP_LT: return join_lower_key(d, pc.b_type, true, klo);    // b > a
    case JOIN_OP_LE: return join_lower_key(d, pc.b_type, false, klo);   // b >= a
    case JOIN_OP_GT: return join_upper_key(d, pc.b_type, true, khi);    // b < a
    case JOIN_OP_GE: return join_upper_key(d, pc.b_type, false, khi);   // b <= a
    default: {
#ifdef JOIN_BAND
      const double a = uint64BitsToDouble(d);
      precise double from = a + uint64BitsToDouble(uint64_t(pc.lo_lo) | (uint64_t(pc.lo_hi) << 32));
      precise double to = a + uint64BitsToDouble(uint64_t(pc.hi_lo) | (uint64_t(pc.hi_hi) << 32));
      return join_lower_key(doubleBitsToUint64(from), pc.b_type, false, klo) &&
             join_upper_key(doubleBitsToUint64(to), pc.b_type, false, khi);
#else
      return false;  // band terms run through the JOIN_BAND kernel only
#endif
    }
  }
}

void main() {
  const uint i = (gl_WorkGroupID.x + pc.group_offset) * JOIN_WG + gl_LocalInvocationIndex;
  if (i >= pc.m_a) return;
  uint klo = a_key[i], khi = klo;
  uint start = 0u, count = 0u;
  if (pc.mode == JOIN_INLJ_KEYED || term_interval(a_key[i], klo, khi)) {
    if (klo <= khi) {
      const CssTree tree = css_tree(pc.n_b);
      start = css_lower_bound(tree, klo);
      count = css_upper_bound(tree, khi) - start;
    }
  }
  unit_start[i] = start;
  counts[i] = count;
}
