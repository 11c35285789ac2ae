#version 450
// select_choose: one workgroup decides radix select's next digit(s) after scan `pass`.
// pass 0 (after the first scan): starts from all n keys and rank k; decides the level-0 digit
// from its histogram and, when every key had that digit, the level-1 digit from its (then equally
// conditional) histogram too. pass 1, 2: returns when all levels are decided, else decides the
// digit of level state[SELECT_LEVEL] from that scan's histogram; the candidates are read from the
// list the scan filled, if it filled one. Each decision fixes the digit bucket that holds rank k,
// subtracts the keys of smaller buckets from k (adding them to `less`) and leaves that bucket's
// keys as the candidates. Then chooses where the next scan reads (source: the keys, or the list
// once a scan filled it) and whether it compacts the candidates into the list (when a later scan
// will read them, they fit `cap` and they are fewer than the source: so only scan 1 compacts). Once
// all 32 bits are decided, writes result = {key, less, equal}.
// Bindings: 0 = state (uint[], read and written; layout in sort_config.glsl), 1 = result
// (uint[3], written).
// Push constants: n, k, key_type, descending, pass, cap (entries of the candidate list).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "sort_config.glsl"
#include "sort_keys.glsl"

#define PER_THREAD (SELECT_BINS / SELECT_WG)

layout(local_size_x = SELECT_WG) in;
layout(std430, binding = 0) buffer State { uint state[]; };
layout(std430, binding = 1) writeonly buffer Result { uint result[]; };
layout(push_constant) uniform Params { uint n, k, key_type, descending, pass, cap; } pc;

#include "sort_workgroup.glsl"

shared uint s_bucket, s_before, s_count;

void main() {
  const uint tid = sort_tid();
  uint prefix = 0u, mask = 0u, k = pc.k, less = 0u, count = pc.n, level = 0u, src = 0u, src_count = pc.n;
  if (pc.pass != 0u) {
    level = state[SELECT_LEVEL];
    if (level >= SELECT_LEVELS) return;
    prefix = state[SELECT_PREFIX];
    mask = state[SELECT_MASK];
    k = state[SELECT_K];
    less = state[SELECT_LESS];
    count = state[SELECT_COUNT];
    src = state[SELECT_SRC];
    src_count = state[SELECT_SRC_COUNT];
    if (state[SELECT_DST] != 0u) {
      src = 1u;
      src_count = state[SELECT_APPENDED];
    }
  }
  for (bool more = true; more;) {
    const uint hist = pc.pass == 0u ? SELECT_HIST_FIRST + level * SELECT_BINS
                                    : SELECT_HIST_PASS + (pc.pass - 1u) * SELECT_BINS;
    const uint bins = 1u << select_level_bits(level);
    const uint per = bins / SELECT_WG;
    uint h[PER_THREAD];
    uint sum = 0u;
    for (uint q = 0u; q < PER_THREAD; ++q) {
      h[q] = q < per ? state[hist + tid * per + q] : 0u;
      sum += h[q];
    }
    uint all;
    uint before = wg_exclusive_scan(sum, all);
    if (before < k && k <= before + sum) {
      for (uint q = 0u; q < PER_THREAD; ++q) {
        if (k <= before + h[q]) {
          s_bucket = tid * per + q;
          s_before = before;
          s_count = h[q];
          break;
        }
        before += h[q];
      }
    }
    barrier();
    const bool shared_by_all = s_count == count;
    const uint shift = select_level_shift(level);
    prefix |= s_bucket << shift;
    mask |= (bins - 1u) << shift;
    k -= s_before;
    less += s_before;
    count = s_count;
    barrier();
    ++level;
    more = pc.pass == 0u && level == 1u && shared_by_all;
  }
  if (tid != 0u) return;
  const bool done = level == SELECT_LEVELS;
  state[SELECT_PREFIX] = prefix;
  state[SELECT_MASK] = mask;
  state[SELECT_K] = k;
  state[SELECT_LESS] = less;
  state[SELECT_COUNT] = count;
  state[SELECT_LEVEL] = level;
  state[SELECT_SRC] = src;
  state[SELECT_SRC_COUNT] = src_count;
  // The scan of the last level leaves no candidates to read, so it never compacts.
  const bool compact = level + 1u < SELECT_LEVELS && count <= pc.cap && count < src_count;
  state[SELECT_DST] = compact ? 1u : 0u;
  state[SELECT_APPENDED] = 0u;
  if (done) {
    result[0] = key_from_sort_key(prefix, pc.key_type, pc.descending);
    result[1] = less;
    result[2] = count;
  }
}
