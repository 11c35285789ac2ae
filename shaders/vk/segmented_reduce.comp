#version 450
// segmented_heads / segmented_reduce[_a64]: the segmented reduction (Red Fox's skeleton) of n rows
// sorted by up to SEG_MAX_KEYS key columns; a segment is a maximal run of rows whose keys are
// equal in the order-key sense (sort_key: FLOAT -0.0 = +0.0, every NaN one key).
//  - segmented_heads (SEG_HEADS): chunk c's subgroup counts the segment heads (rows that differ
//    from the row before; row 0) among its SEG_CHUNK rows into chunk_counts[c].
//  - segmented_reduce (SEG_REDUCE): from the exclusive scan of those counts, each row's segment
//    number; per reduction a segmented inclusive scan over the subgroup (log steps of shuffles),
//    whose run-end lanes apply their run's result to the segment's output by one atomic (INT sums
//    by 64-bit atomics with _a64, else two 32-bit ones with the carry), so a segment spanning
//    chunks or subgroups is combined exactly. FLOAT sums are added per row into the segment's
//    fixed point (exact in any order). Head rows write the segment's first row and order keys.
//    The outputs must hold their identities before (the host fills them).
// Specialization constants: SEG_OPS (constant 0: reductions and value types), SEG_CONFIG
// (constant 1: key columns, key types, outputs): segmented_config.glsl.
// Bindings (heads): 0..3 = key columns, 4 = chunk counts.
// Bindings (reduce): 0..3 = key columns, 4..7 = values, 8..11 = outputs (uint[], uint64_t[]),
//   12 = counts, 13 = first rows, 14..17 = segment keys, 18 = chunk offsets (exclusive scan).
//   Unused input bindings repeat binding 0, unused outputs a scratch region.
// Push constants: n, group_offset.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#ifdef SEG_ATOMIC64
#extension GL_EXT_shader_atomic_int64 : require
#endif
#include "segmented_config.glsl"
#include "sort_config.glsl"
#include "sort_keys.glsl"
layout(local_size_x = SEG_WG) in;
layout(constant_id = 0) const uint SEG_OPS = 0u;
layout(constant_id = 1) const uint SEG_CONFIG = 1u;
layout(std430, binding = 0) readonly buffer Key0 { uint key0[]; };
layout(std430, binding = 1) readonly buffer Key1 { uint key1[]; };
layout(std430, binding = 2) readonly buffer Key2 { uint key2[]; };
layout(std430, binding = 3) readonly buffer Key3 { uint key3[]; };
layout(push_constant) uniform Push { uint n; uint group_offset; } pc;

const uint SEG_KEYS = SEG_CONFIG & 7u;
uint key_type(uint c) { return (SEG_CONFIG >> (SEG_CFG_TYPE_SHIFT + 2u * c)) & 3u; }

// The order keys of row i's key columns.
uvec4 keys_of(uint i) {
  uvec4 k = uvec4(0u);
  k.x = sort_key(key0[i], key_type(0u), 0u);
  if (SEG_KEYS > 1u) k.y = sort_key(key1[i], key_type(1u), 0u);
  if (SEG_KEYS > 2u) k.z = sort_key(key2[i], key_type(2u), 0u);
  if (SEG_KEYS > 3u) k.w = sort_key(key3[i], key_type(3u), 0u);
  return k;
}

// The chunk of this subgroup and its first row.
uint chunk_of() { return (gl_WorkGroupID.x + pc.group_offset) * gl_NumSubgroups + gl_SubgroupID; }

#if defined(SEG_HEADS)

layout(std430, binding = 4) writeonly buffer ChunkCounts { uint chunk_counts[]; };

void main() {
  const uint chunk = chunk_of();
  const uint first = chunk * SEG_CHUNK;
  if (first >= pc.n) return;
  uint heads = 0u;
  for (uint step = 0u; step < SEG_CHUNK; step += gl_SubgroupSize) {
    const uint i = first + step + gl_SubgroupInvocationID;
    const bool head = i < pc.n && (i == 0u || keys_of(i) != keys_of(i - 1u));
    heads += subgroupAdd(head ? 1u : 0u);
  }
  if (subgroupElect()) chunk_counts[chunk] = heads;
}

#elif defined(SEG_REDUCE)

layout(std430, binding = 4) readonly buffer Val0 { uint val0[]; };
layout(std430, binding = 5) readonly buffer Val1 { uint val1[]; };
layout(std430, binding = 6) readonly buffer Val2 { uint val2[]; };
layout(std430, binding = 7) readonly buffer Val3 { uint val3[]; };
layout(std430, binding = 8) buffer Out0 { uint out0[]; };
layout(std430, binding = 9) buffer Out1 { uint out1[]; };
layout(std430, binding = 10) buffer Out2 { uint out2[]; };
layout(std430, binding = 11) buffer Out3 { uint out3[]; };
#ifdef SEG_ATOMIC64
layout(std430, binding = 8) buffer Out0L { uint64_t out0l[]; };
layout(std430, binding = 9) buffer Out1L { uint64_t out1l[]; };
layout(std430, binding = 10) buffer Out2L { uint64_t out2l[]; };
layout(std430, binding = 11) buffer Out3L { uint64_t out3l[]; };
#endif
layout(std430, binding = 12) buffer Counts { uint counts[]; };
layout(std430, binding = 13) writeonly buffer Firsts { uint firsts[]; };
layout(std430, binding = 14) writeonly buffer SegKey0 { uint seg_key0[]; };
layout(std430, binding = 15) writeonly buffer SegKey1 { uint seg_key1[]; };
layout(std430, binding = 16) writeonly buffer SegKey2 { uint seg_key2[]; };
layout(std430, binding = 17) writeonly buffer SegKey3 { uint seg_key3[]; };
layout(std430, binding = 18) readonly buffer ChunkOffsets { uint chunk_offsets[]; };

uint op_of(uint r) { return (SEG_OPS >> (3u * r)) & 7u; }
uint type_of(uint r) { return (SEG_OPS >> (SEG_TYPE_SHIFT + 2u * r)) & 3u; }

uint value_of(uint r, uint i) {
  if (r == 0u) return val0[i];
  if (r == 1u) return val1[i];
  if (r == 2u) return val2[i];
  return val3[i];
}

// atomicAdd / Min / Max / add-with-carry on word `at` of output r.
uint out_add(uint r, uint at, uint x) {
  if (r == 0u) return atomicAdd(out0[at], x);
  if (r == 1u) return atomicAdd(out1[at], x);
  if (r == 2u) return atomicAdd(out2[at], x);
  return atomicAdd(out3[at], x);
}
void out_min(uint r, uint at, uint x) {
  if (r == 0u) atomicMin(out0[at], x);
  else if (r == 1u) atomicMin(out1[at], x);
  else if (r == 2u) atomicMin(out2[at], x);
  else atomicMin(out3[at], x);
}
void out_max(uint r, uint at, uint x) {
  if (r == 0u) atomicMax(out0[at], x);
  else if (r == 1u) atomicMax(out1[at], x);
  else if (r == 2u) atomicMax(out2[at], x);
  else atomicMax(out3[at], x);
}
void out_or(uint r, uint at, uint x) {
  if (r == 0u) atomicOr(out0[at], x);
  else if (r == 1u) atomicOr(out1[at], x);
  else if (r == 2u) atomicOr(out2[at], x);
  else atomicOr(out3[at], x);
}
// The int64 x into the two words of segment s of output r.
void out_add64(uint r, uint s, int64_t x) {
#ifdef SEG_ATOMIC64
  const uint64_t u = uint64_t(x);
  if (r == 0u) atomicAdd(out0l[s], u);
  else if (r == 1u) atomicAdd(out1l[s], u);
  else if (r == 2u) atomicAdd(out2l[s], u);
  else atomicAdd(out3l[s], u);
#else
  const uvec2 w = unpack32(uint64_t(x));
  const uint old = out_add(r, 2u * s, w.x);
  const uint up = w.y + (old + w.x < old ? 1u : 0u);
  if (up != 0u) out_add(r, 2u * s + 1u, up);
#endif
}
// Adds the unsigned word x at word w of the fixed point at `at` of output r, carrying upward.
void out_f320_add_word(uint r, uint at, uint w, uint x) {
  for (; x != 0u && w < SEG_SUM_FLOAT_WORDS - 1u; ++w) {
    const uint old = out_add(r, at + w, x);
    x = old + x < old ? 1u : 0u;
  }
}
// Adds one float (raw bits) to the exact sum at word `at` of output r (see group_by_common.glsl's
// gb_float_addend for the decomposition).
void out_add_float(uint r, uint at, uint b) {
  const uint e = (b >> 23) & 0xffu;
  const uint f = b & 0x7fffffu;
  const bool negative = (b & 0x80000000u) != 0u;
  if (e == 0xffu) {
    out_or(r, at + SEG_SUM_FLOAT_WORDS - 1u, f != 0u ? 1u : (negative ? 4u : 2u));
    return;
  }
  const uint m = e == 0u ? f : (f | 0x800000u);
  if (m == 0u) return;
  const uint shift = e == 0u ? 0u : e - 1u;
  uint w = shift >> 5u;
  const uint lo = m << (shift & 31u);
  const uint hi = (shift & 31u) == 0u ? 0u : m >> (32u - (shift & 31u));
  if (!negative) {
    const uint old = out_add(r, at + w, lo);
    out_f320_add_word(r, at, w + 1u, hi + (old + lo < old ? 1u : 0u));
    return;
  }
  uint old = out_add(r, at + w, 0u - lo);
  uint borrow = hi + (old < lo ? 1u : 0u);
  for (++w; borrow != 0u && w < SEG_SUM_FLOAT_WORDS - 1u; ++w) {
    old = out_add(r, at + w, 0u - borrow);
    borrow = old < borrow ? 1u : 0u;
  }
}

// Segmented inclusive scans over the subgroup: lanes of equal `seg` are contiguous (seg never
// decreases with the lane), so after the steps lane l holds the reduction of its run's lanes up
// to l.
int64_t scan_add(int64_t x, uint seg) {
  for (uint d = 1u; d < gl_SubgroupSize; d <<= 1u) {
    const uvec2 w = unpack32(uint64_t(x));
    const int64_t other = int64_t(pack64(uvec2(subgroupShuffleUp(w.x, d), subgroupShuffleUp(w.y, d))));
    const uint other_seg = subgroupShuffleUp(seg, d);
    if (gl_SubgroupInvocationID >= d && other_seg == seg) x += other;
  }
  return x;
}
uint scan_min(uint x, uint seg) {
  for (uint d = 1u; d < gl_SubgroupSize; d <<= 1u) {
    const uint other = subgroupShuffleUp(x, d);
    const uint other_seg = subgroupShuffleUp(seg, d);
    if (gl_SubgroupInvocationID >= d && other_seg == seg) x = min(x, other);
  }
  return x;
}
uint scan_max(uint x, uint seg) {
  for (uint d = 1u; d < gl_SubgroupSize; d <<= 1u) {
    const uint other = subgroupShuffleUp(x, d);
    const uint other_seg = subgroupShuffleUp(seg, d);
    if (gl_SubgroupInvocationID >= d && other_seg == seg) x = max(x, other);
  }
  return x;
}

void main() {
  const uint chunk = chunk_of();
  const uint first = chunk * SEG_CHUNK;
  if (first >= pc.n) return;
  // Segment of the row before the chunk's first head: heads before the chunk, less one.
  uint seg_base = chunk_offsets[chunk] - 1u;
  for (uint step = 0u; step < SEG_CHUNK; step += gl_SubgroupSize) {
    const uint i = first + step + gl_SubgroupInvocationID;
    const bool valid = i < pc.n;
    const uvec4 keys = valid ? keys_of(i) : uvec4(0u);
    const bool head = valid && (i == 0u || keys != keys_of(i - 1u));
    const uint heads = subgroupInclusiveAdd(head ? 1u : 0u);
    // Invalid lanes (past n, at the end of the last chunk) take a segment of their own.
    const uint seg = valid ? seg_base + heads : 0xffffffffu;
    seg_base += subgroupAdd(head ? 1u : 0u);
    const uint next_seg = subgroupShuffleDown(seg, 1u);
    const bool run_end = valid && (gl_SubgroupInvocationID + 1u == gl_SubgroupSize || next_seg != seg);
    if (head) {
      if ((SEG_CONFIG & SEG_CFG_FIRSTS) != 0u) firsts[seg] = i;
      if ((SEG_CONFIG & SEG_CFG_KEYS) != 0u) {
        seg_key0[seg] = keys.x;
        if (SEG_KEYS > 1u) seg_key1[seg] = keys.y;
        if (SEG_KEYS > 2u) seg_key2[seg] = keys.z;
        if (SEG_KEYS > 3u) seg_key3[seg] = keys.w;
      }
    }
    if ((SEG_CONFIG & SEG_CFG_COUNTS) != 0u) {
      const int64_t run = scan_add(valid ? 1l : 0l, seg);
      if (run_end) atomicAdd(counts[seg], uint(run));
    }
    [[unroll]] for (uint r = 0u; r < SEG_MAX_REDUCTIONS; ++r) {
      const uint op = op_of(r);
      if (op == SEG_OP_NONE) continue;
      const uint raw = valid ? value_of(r, i) : 0u;
      if (op == SEG_OP_SUM_INT) {
        const int64_t sum = scan_add(int64_t(int(raw)), seg);
        if (run_end && sum != 0l) out_add64(r, seg, sum);
      } else if (op == SEG_OP_MIN) {
        const uint m = scan_min(valid ? sort_key(raw, type_of(r), 0u) : 0xffffffffu, seg);
        if (run_end) out_min(r, seg, m);
      } else if (op == SEG_OP_MAX) {
        const uint m = scan_max(valid ? sort_key(raw, type_of(r), 0u) : 0u, seg);
        if (run_end) out_max(r, seg, m);
      } else if (op == SEG_OP_SUM_FLOAT) {
        if (valid) out_add_float(r, SEG_SUM_FLOAT_WORDS * seg, raw);
      }
    }
  }
}

#endif
