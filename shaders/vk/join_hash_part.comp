#version 450
// join_hash_part: the probe phase of the radix-partitioned hash join. Both sides were split by the
// same hash partition function (vk/primitives/split.h); the host cut every partition into work items
// of at most CAP build rows and JOIN_HASH_PROBE_CHUNK probe rows (an oversized partition, a skewed
// key, becomes several items: GDB's split of large partitions). Workgroup g takes item g: it loads
// the item's build rows into a shared-memory hash table (2 CAP buckets of chains: bucket heads by
// atomicExchange, keys, row ids, next links), then each invocation probes its rows, following one
// chain per row. Slot s = g * JOIN_WG + invocation counts, then writes, its pairs (residual terms
// tested per pair). The work per item is bounded (at most JOIN_HASH_PROBE_CHUNK / JOIN_WG probes per
// invocation, each chain at most CAP long), so a key holding most rows costs time in proportion to
// its pairs, spread over as many workgroups as it has items.
// Modes (JOIN_SLOT_*): COUNT writes counts[s]; WRITE writes slot s's pairs at offsets[s] + i, those
// inside the chunk window [c0, c1) to out[p - c0].
// Bindings: 0 = items (uint[JOIN_HASH_ITEM_WORDS * items]: build start, build rows, probe start,
//   probe rows), 1 = a_key, 2 = a_rid, 3 = b_key, 4 = b_rid (uint[], partitioned), 5 = counts
//   (uint[]), 6 = offsets (uint64_t[]), 7 = out_a, 8 = out_b (uint[]), 9 = join_terms (uint[]),
//   10..13 = a_col0..3, 14..17 = b_col0..3 (uint[]).
// Push constants: items, mode, nterms, c0 (lo, hi), c1 (lo, hi), group_offset (last).
// Specialization constant 0: CAP, build rows per item (a power of two; 5 CAP words of shared memory).
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "join_config.glsl"
#include "hash.glsl"
#include "join_keys.glsl"
layout(local_size_x = JOIN_WG) in;
layout(constant_id = 0) const uint CAP = 1024u;
layout(std430, binding = 0) readonly buffer Items { uint items[]; };
layout(std430, binding = 1) readonly buffer AKey { uint a_key[]; };
layout(std430, binding = 2) readonly buffer ARid { uint a_rid[]; };
layout(std430, binding = 3) readonly buffer BKey { uint b_key[]; };
layout(std430, binding = 4) readonly buffer BRid { uint b_rid[]; };
layout(std430, binding = 5) buffer Counts { uint counts[]; };
layout(std430, binding = 6) readonly buffer Offsets { uint64_t offsets[]; };
layout(std430, binding = 7) writeonly buffer OutA { uint out_a[]; };
layout(std430, binding = 8) writeonly buffer OutB { uint out_b[]; };
layout(std430, binding = 9) readonly buffer Terms { uint join_terms[]; };
layout(std430, binding = 10) readonly buffer A0 { uint a_col0[]; };
layout(std430, binding = 11) readonly buffer A1 { uint a_col1[]; };
layout(std430, binding = 12) readonly buffer A2 { uint a_col2[]; };
layout(std430, binding = 13) readonly buffer A3 { uint a_col3[]; };
layout(std430, binding = 14) readonly buffer B0 { uint b_col0[]; };
layout(std430, binding = 15) readonly buffer B1 { uint b_col1[]; };
layout(std430, binding = 16) readonly buffer B2 { uint b_col2[]; };
layout(std430, binding = 17) readonly buffer B3 { uint b_col3[]; };
layout(push_constant) uniform Push { uint items, mode, nterms, c0_lo, c0_hi, c1_lo, c1_hi, group_offset; } pc;
#include "join_terms.glsl"

shared uint s_head[2u * CAP];
shared uint s_key[CAP];
shared uint s_rid[CAP];
shared uint s_next[CAP];

void main() {
  const uint g = gl_WorkGroupID.x + pc.group_offset;
  const uint inv = gl_LocalInvocationIndex;
  const uint b_start = items[g * JOIN_HASH_ITEM_WORDS], b_rows = items[g * JOIN_HASH_ITEM_WORDS + 1u];
  const uint a_start = items[g * JOIN_HASH_ITEM_WORDS + 2u], a_rows = items[g * JOIN_HASH_ITEM_WORDS + 3u];
  const uint mask = 2u * CAP - 1u;
  for (uint j = inv; j < 2u * CAP; j += JOIN_WG) s_head[j] = JOIN_EMPTY;
  barrier();
  for (uint j = inv; j < b_rows; j += JOIN_WG) {
    const uint k = b_key[b_start + j];
    s_key[j] = k;
    s_rid[j] = b_rid[b_start + j];
    s_next[j] = atomicExchange(s_head[hash_fmix32(k) & mask], j);
  }
  barrier();
  const uint slot = g * JOIN_WG + inv;
  const uint64_t c0 = uint64_t(pc.c0_lo) | (uint64_t(pc.c0_hi) << 32);
  const uint64_t c1 = uint64_t(pc.c1_lo) | (uint64_t(pc.c1_hi) << 32);
  uint64_t pos = 0ul;
  if (pc.mode == JOIN_SLOT_WRITE) {
    // Only the offset is read here: the counts buffer is the scan's input and need not hold the
    // counts any more (on NVIDIA it did not: chunks after the first lost pairs).
    pos = offsets[slot];
    if (pos >= c1) return;
  }
  uint count = 0u;
  for (uint i = inv; i < a_rows; i += JOIN_WG) {
    const uint k = a_key[a_start + i];
    const uint a_row = a_rid[a_start + i];
    for (uint j = s_head[hash_fmix32(k) & mask]; j != JOIN_EMPTY; j = s_next[j]) {
      if (s_key[j] != k || (pc.nterms != 0u && !join_pair_passes(pc.nterms, a_row, s_rid[j]))) continue;
      if (pc.mode == JOIN_SLOT_WRITE && pos >= c0 && pos < c1) {
        out_a[uint(pos - c0)] = a_row;
        out_b[uint(pos - c0)] = s_rid[j];
      }
      ++pos;
      ++count;
    }
  }
  if (pc.mode == JOIN_SLOT_COUNT) counts[slot] = count;
}
