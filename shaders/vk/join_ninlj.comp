#version 450
// join_ninlj: blocked nested-loop join (GDB's NINLJ), any condition. Workgroup g takes probe rows
// [t * JOIN_WG, (t + 1) * JOIN_WG), one per invocation (t = g / blocks), and build block
// b = g % blocks (build rows [b * block_rows, (b + 1) * block_rows)), which it streams through shared
// memory JOIN_WG rows at a time: each build row's total-order key per term (join_k64) is computed
// once per workgroup, each probe row's accepted interval per term once per invocation, so a pair
// costs two 64-bit compares per term. Slot s = probe row * blocks + block; slots ascend with the
// probe row, then the block, and each writes its build rows ascending: the pairs come out in
// (probe row, build row) order.
// Modes (JOIN_SLOT_*): COUNT writes counts[s]; WRITE writes slot s's pairs at offsets[s] + i, those
// inside the chunk window [c0, c1) to out[p - c0].
// Bindings: 0 = a_rid (uint[m_a]), 1 = b_rid (uint[m_b]), 2 = counts (uint[]), 3 = offsets
//   (uint64_t[]), 4 = out_a, 5 = out_b (uint[]), 6 = join_terms (uint[]), 7..10 = a_col0..3,
//   11..14 = b_col0..3 (uint[]).
// Push constants: m_a, m_b, blocks, block_rows, nterms, mode, c0 (lo, hi), c1 (lo, hi), group_offset.
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "join_config.glsl"
#include "join_keys.glsl"
layout(local_size_x = JOIN_WG) in;
layout(std430, binding = 0) readonly buffer ARid { uint a_rid[]; };
layout(std430, binding = 1) readonly buffer BRid { uint b_rid[]; };
layout(std430, binding = 2) buffer Counts { uint counts[]; };
layout(std430, binding = 3) readonly buffer Offsets { uint64_t offsets[]; };
layout(std430, binding = 4) writeonly buffer OutA { uint out_a[]; };
layout(std430, binding = 5) writeonly buffer OutB { uint out_b[]; };
layout(std430, binding = 6) readonly buffer Terms { uint join_terms[]; };
layout(std430, binding = 7) readonly buffer A0 { uint a_col0[]; };
layout(std430, binding = 8) readonly buffer A1 { uint a_col1[]; };
layout(std430, binding = 9) readonly buffer A2 { uint a_col2[]; };
layout(std430, binding = 10) readonly buffer A3 { uint a_col3[]; };
layout(std430, binding = 11) readonly buffer B0 { uint b_col0[]; };
layout(std430, binding = 12) readonly buffer B1 { uint b_col1[]; };
layout(std430, binding = 13) readonly buffer B2 { uint b_col2[]; };
layout(std430, binding = 14) readonly buffer B3 { uint b_col3[]; };
layout(push_constant) uniform Push {
  uint m_a, m_b, blocks, block_rows, nterms, mode, c0_lo, c0_hi, c1_lo, c1_hi, group_offset;
} pc;
#include "join_terms.glsl"

shared uint64_t s_key[JOIN_MAX_TERMS][JOIN_WG];
shared uint s_rid[JOIN_WG];

void main() {
  const uint g = gl_WorkGroupID.x + pc.group_offset;
  const uint block = g % pc.blocks;
  const uint i = (g / pc.blocks) * JOIN_WG + gl_LocalInvocationIndex;
  const uint inv = gl_LocalInvocationIndex;
  const uint64_t c0 = uint64_t(pc.c0_lo) | (uint64_t(pc.c0_hi) << 32);
  const uint64_t c1 = uint64_t(pc.c1_lo) | (uint64_t(pc.c1_hi) << 32);
  const uint slot = i * pc.blocks + block;
  bool live = i < pc.m_a;
  uint64_t pos = 0ul;
  if (live && pc.mode == JOIN_SLOT_WRITE) {
    pos = offsets[slot];
    live = pos < c1 && pos + counts[slot] > c0;
  }
  uint a_row = 0u;
  uint64_t lo[JOIN_MAX_TERMS], hi[JOIN_MAX_TERMS];
  if (live) {
    a_row = a_rid[i];
    [[unroll]] for (uint t = 0u; t < JOIN_MAX_TERMS; ++t)
      if (t < pc.nterms) join_term_interval(t, join_a_value(join_terms[t * JOIN_TERM_WORDS], a_row), lo[t], hi[t]);
  }
  uint count = 0u;
  const uint first = block * pc.block_rows;
  const uint last = min(first + pc.block_rows, pc.m_b);
  for (uint base = first; base < last; base += JOIN_WG) {
    if (base + inv < last) {
      const uint b_row = b_rid[base + inv];
      s_rid[inv] = b_row;
      [[unroll]] for (uint t = 0u; t < JOIN_MAX_TERMS; ++t) {
        if (t < pc.nterms) {
          const uint w = t * JOIN_TERM_WORDS;
          s_key[t][inv] = join_k64(join_dbits(join_b_value(join_terms[w + 1u], b_row), join_terms[w + 3u] >> 8));
        }
      }
    }
    barrier();
    if (live) {
      const uint rows = min(uint(JOIN_WG), last - base);
      for (uint j = 0u; j < rows; ++j) {
        bool pass = true;
        [[unroll]] for (uint t = 0u; t < JOIN_MAX_TERMS; ++t)
          if (t < pc.nterms) pass = pass && s_key[t][j] >= lo[t] && s_key[t][j] <= hi[t];
        if (pass) {
          if (pc.mode == JOIN_SLOT_WRITE && pos >= c0 && pos < c1) {
            out_a[uint(pos - c0)] = a_row;
            out_b[uint(pos - c0)] = s_rid[j];
          }
          ++pos;
          ++count;
        }
      }
    }
    barrier();
  }
  if (pc.mode == JOIN_SLOT_COUNT && i < pc.m_a) counts[slot] = count;
}
