#version 450
// select_choose: one workgroup decides radix select's level-`pass` digit after scan `pass`
// (select_histogram.comp). Pass 0 starts from all n keys and rank k. The decision fixes the digit
// bucket that holds rank k among the candidates, subtracts the keys of smaller buckets from k
// (adding them to `less`) and leaves that bucket's keys as the candidates. Then it sets where the
// next scan reads (the keys, or the candidate list once a scan filled it) and whether it appends
// the candidates into the candidate regions: only scan 1 does, when they are at most `cap` (0: the
// device has no room for the regions) and fewer than n, so an adversarial input (every key in one
// bucket) takes three scans of the keys and stays exact.
// After level 2 all 32 bits are decided: result = {key, less, equal}.
// Bindings: 0 = state (uint[], read and written; layout in select_config.glsl), 1 = result
// (uint[3], written).
// Push constants: n, k, key_type, descending, pass (level | SELECT_GATE_*), cap (most candidates
// worth copying).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "sort_config.glsl"
#include "sort_keys.glsl"
#include "select_config.glsl"

#define PER_THREAD (SELECT_BINS / SELECT_WG)

layout(local_size_x = SELECT_WG) in;
layout(std430, binding = 0) buffer State { uint state[]; };
layout(std430, binding = 1) writeonly buffer Result { uint result[]; };
layout(push_constant) uniform Params { uint n, k, key_type, descending, pass, cap; } pc;

shared uint s_sums[SELECT_WG];
shared uint s_bucket, s_before, s_count;

void main() {
  // A choice of the sampled select runs only on its path (uniform). Over the candidates, level 0
  // starts from the rank and the keys less that select_check.comp left in the state, and every
  // level reads the candidate regions.
  const uint gate = pc.pass & (SELECT_GATE_CANDIDATES | SELECT_GATE_FALLBACK);
  if (gate == SELECT_GATE_CANDIDATES && state[SELECT_PATH] != SELECT_PATH_CANDIDATES) return;
  if (gate == SELECT_GATE_FALLBACK && state[SELECT_PATH] != SELECT_PATH_FALLBACK) return;
  const bool candidates = gate == SELECT_GATE_CANDIDATES;
  // Invocations in subgroup-major order: t takes bins t * per .. t * per + per - 1.
  const uint t = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
  const uint level = pc.pass & SELECT_LEVEL_MASK;
  const uint shift = level == 0u ? 20u : (level == 1u ? 8u : 0u);
  const uint bins = level == 2u ? 256u : SELECT_BINS;
  const uint per = bins / SELECT_WG;
  const uint hist = SELECT_HIST + level * SELECT_BINS;
  uint h[PER_THREAD];
  uint sum = 0u;
  for (uint q = 0u; q < PER_THREAD; ++q) {
    h[q] = q < per ? state[hist + t * per + q] : 0u;
    sum += h[q];
  }
  // Exclusive prefix of the per-invocation sums in t order.
  const uint inner = subgroupExclusiveAdd(sum);
  if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) s_sums[gl_SubgroupID] = inner + sum;
  barrier();
  uint before = inner;
  for (uint s = 0u; s < gl_SubgroupID; ++s) before += s_sums[s];
  const uint k = level == 0u && !candidates ? pc.k : state[SELECT_K];
  if (before < k && k <= before + sum) {
    for (uint q = 0u; q < per; ++q) {
      if (k <= before + h[q]) {
        s_bucket = t * per + q;
        s_before = before;
        s_count = h[q];
        break;
      }
      before += h[q];
    }
  }
  barrier();
  if (gl_LocalInvocationIndex != 0u) return;
  const uint prefix = (level == 0u ? 0u : state[SELECT_PREFIX]) | (s_bucket << shift);
  const uint mask = (level == 0u ? 0u : state[SELECT_MASK]) | ((bins - 1u) << shift);
  const uint less = (level == 0u && !candidates ? 0u : state[SELECT_LESS]) + s_before;
  state[SELECT_PREFIX] = prefix;
  state[SELECT_MASK] = mask;
  state[SELECT_K] = k - s_before;
  state[SELECT_LESS] = less;
  state[SELECT_COUNT] = s_count;
  if (level == 0u) {
    // Over the candidates the source stays the regions and nothing is copied again.
    if (!candidates) state[SELECT_SRC] = 0u;
    state[SELECT_DST] = !candidates && s_count <= pc.cap && s_count < pc.n ? 1u : 0u;
  } else if (level == 1u) {
    state[SELECT_SRC] = state[SELECT_SRC] | state[SELECT_DST];
    state[SELECT_DST] = 0u;
  } else {
    result[0] = key_from_sort_key(prefix, pc.key_type, pc.descending);
    result[1] = less;
    result[2] = s_count;
  }
}
