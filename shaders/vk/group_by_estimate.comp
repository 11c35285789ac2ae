#version 450
// The optimizer's estimate of the group count (src/vk/operators/group_by/optimizer.h):
//  - group_by_sample (GB_SAMPLE_INSERT): the keys of pc.samples rows, one at a hashed position in
//    each stratum [floor(i * count / samples), floor((i + 1) * count / samples)), counted in a
//    table of pc.cap slots of 4 words
//    (fingerprint low, high, count, unused). A key is known by a 64-bit fingerprint of its order
//    keys (two Murmur3 finalizers, each word forced odd so that no fingerprint word is the empty
//    word 0) claimed word by word by compare-and-swap; the fingerprints of different keys collide
//    with probability about 2^-62 per pair, which only an estimate tolerates.
//  - group_by_sample_stats (GB_SAMPLE_STATS): over that table, the distinct fingerprints and
//    those seen once (f1) and twice (f2), added into ctrl[GB_SAMPLE_*], and the largest count of
//    one key (ctrl[GB_SAMPLE_TOP], atomicMax).
//  - group_by_hll (GB_HLL): a HyperLogLog sketch of all rows' keys: per workgroup
//    GB_HLL_REGISTERS registers in shared memory (register: the fingerprint's high word's top
//    GB_HLL_BITS bits; rank: leading zeros of its low word + 1), merged into `registers` by
//    atomicMax. Workgroup g takes rows [g * pc.rows_per_group, ...).
// Specialization constants: GB_STATES (unused), GB_CONFIG (keys, key types, selection).
// Bindings: 0 = sample table / registers (uint[]), 1 = ctrl (uint[]), 2..8 = rows
//           (group_by_rows.glsl; values unused).
// Push constants: count (rows or row ids), samples, cap, rows_per_group, group_offset.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_memory_scope_semantics : require
#include "group_by_config.glsl"
#include "wg_tile.glsl"
#include "group_by_common.glsl"
layout(local_size_x = GB_WG) in;
layout(std430, binding = 0) buffer Table { uint table[]; };
layout(std430, binding = 1) buffer Ctrl { uint ctrl[]; };
layout(push_constant) uniform Push {
  uint count;
  uint samples;
  uint cap;
  uint rows_per_group;
  uint group_offset;
} pc;
#include "group_by_rows.glsl"

// The fingerprint of a key: two independent 32-bit hashes of its order keys, each made odd.
uvec2 fingerprint(uint k0, uint k1) {
  const uint a = hash_fmix64_lo(k0, k1);
  const uint b = hash_fmix64_lo(k1 ^ GB_HASH_SEED_HLL, k0 + GB_HASH_SEED_HLL);
  return uvec2(a | 1u, b | 1u);
}

#if defined(GB_SAMPLE_INSERT)

void main() {
  const uint i = (gl_WorkGroupID.x + pc.group_offset) * GB_WG + gl_LocalInvocationIndex;
  if (i >= pc.samples) return;
  // One row at a hashed place in each of pc.samples equal strata: evenly spaced rows would see
  // periodic input in step (keys sorted twice over: every key sampled twice, the count 32x low).
  const uint64_t lo = uint64_t(i) * uint64_t(pc.count) / uint64_t(pc.samples);
  const uint64_t hi = uint64_t(i + 1u) * uint64_t(pc.count) / uint64_t(pc.samples);
  const uint position = uint(lo) + (hash_fmix32(i ^ GB_HASH_SEED_HLL) % max(uint(hi - lo), 1u));
  const uint row = GB_SELECTION ? rows_s[position] : position;
  const uint k0 = gb_key0(key0_s[row]);
  const uint k1 = GB_TWO_KEYS ? gb_key1(key1_s[row]) : 0u;
  const uvec2 f = fingerprint(k0, k1);
  uint s = gb_home(f.x, pc.cap);
  // A word read that is set is final (claimed once): the compare-and-swap only where it reads
  // empty, so that the rows of a frequent key do not all write its slot's words.
  for (uint probe = 0u; probe < pc.cap; ++probe) {
    uint seen = atomicLoad(table[4u * s], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    if (seen == 0u) seen = atomicCompSwap(table[4u * s], 0u, f.x);
    if (seen == 0u || seen == f.x) {
      seen = atomicLoad(table[4u * s + 1u], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
      if (seen == 0u) seen = atomicCompSwap(table[4u * s + 1u], 0u, f.y);
      if (seen == 0u || seen == f.y) {
        atomicAdd(table[4u * s + 2u], 1u);
        return;
      }
    }
    s = s + 1u == pc.cap ? 0u : s + 1u;
  }
}

#elif defined(GB_SAMPLE_STATS)

void main() {
  const uint s = (gl_WorkGroupID.x + pc.group_offset) * GB_WG + gl_LocalInvocationIndex;
  const uint c = s < pc.cap ? table[4u * s + 2u] : 0u;
  const uint distinct = subgroupAdd(c != 0u ? 1u : 0u);
  const uint once = subgroupAdd(c == 1u ? 1u : 0u);
  const uint twice = subgroupAdd(c == 2u ? 1u : 0u);
  const uint top = subgroupMax(c);
  if (subgroupElect()) {
    if (top != 0u) atomicMax(ctrl[GB_SAMPLE_TOP], top);
    if (distinct != 0u) atomicAdd(ctrl[GB_SAMPLE_DISTINCT], distinct);
    if (once != 0u) atomicAdd(ctrl[GB_SAMPLE_F1], once);
    if (twice != 0u) atomicAdd(ctrl[GB_SAMPLE_F2], twice);
  }
}

#elif defined(GB_HLL)

shared uint s_registers[GB_HLL_REGISTERS];

void main() {
  for (uint r = gl_LocalInvocationIndex; r < GB_HLL_REGISTERS; r += GB_WG) s_registers[r] = 0u;
  barrier();
  const uint group = gl_WorkGroupID.x + pc.group_offset;
  const uint first = group * pc.rows_per_group;
  const uint last = min(first + pc.rows_per_group, pc.count);
  for (uint step = first; step < last; step += GB_STEP) {
    uvec4 k0, k1, v[GB_MAX_VALUE_BINDINGS];
    bvec4 valid;
    gb_load4(step / 4u + gl_LocalInvocationIndex, last, k0, k1, v, valid);
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
      if (!valid[j]) continue;
      const uvec2 f = fingerprint(k0[j], k1[j]);
      // The low word is odd: at most 31 leading zeros, rank 1..32.
      atomicMax(s_registers[f.x >> (32u - GB_HLL_BITS)], 32u - uint(findMSB(f.y)));
    }
  }
  barrier();
  for (uint r = gl_LocalInvocationIndex; r < GB_HLL_REGISTERS; r += GB_WG)
    if (s_registers[r] != 0u) atomicMax(table[r], s_registers[r]);
}

#endif
