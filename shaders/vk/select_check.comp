#version 450
// select_check: one invocation places rank k against the sampled select's bracket from the scan's
// counts (select_sample_scan.comp) and sets state[SELECT_PATH]:
// - k <= below, or k > below + at_lo + inside + at_hi: SELECT_PATH_FALLBACK (the bracket missed;
//   the whole select over the keys runs);
// - k among the keys equal to lo (or to hi): SELECT_PATH_BOUND, and it writes result = {lo, below,
//   at_lo} (or {hi, below + at_lo + inside, at_hi});
// - otherwise SELECT_PATH_CANDIDATES: the k-th key is strictly inside (lo, hi), as is every key
//   equal to it; the select over the candidate regions starts from rank k - below - at_lo with
//   below + at_lo keys less (state[SELECT_K], state[SELECT_LESS]) and reads the regions
//   (state[SELECT_SRC] = 1).
// Bindings: 0 = state (uint[], read and written), 1 = result (uint[3], written).
// Push constants: k, key_type, descending.
#include "sort_config.glsl"
#include "sort_keys.glsl"
#include "select_config.glsl"

layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer State { uint state[]; };
layout(std430, binding = 1) writeonly buffer Result { uint result[]; };
layout(push_constant) uniform Params { uint k, key_type, descending; } pc;

void main() {
  const uint below = state[SELECT_BELOW], at_lo = state[SELECT_AT_LO], inside = state[SELECT_INSIDE];
  const uint at_hi = state[SELECT_AT_HI];
  const uint k = pc.k;
  uint path = SELECT_PATH_FALLBACK;
  if (k > below && k - below <= at_lo) {
    path = SELECT_PATH_BOUND;
    result[0] = key_from_sort_key(state[SELECT_LO], pc.key_type, pc.descending);
    result[1] = below;
    result[2] = at_lo;
  } else if (k > below + at_lo && k - below - at_lo <= inside) {
    path = SELECT_PATH_CANDIDATES;
    state[SELECT_K] = k - below - at_lo;
    state[SELECT_LESS] = below + at_lo;
    state[SELECT_SRC] = 1u;
  } else if (k > below + at_lo + inside && k - below - at_lo - inside <= at_hi) {
    path = SELECT_PATH_BOUND;
    result[0] = key_from_sort_key(state[SELECT_HI], pc.key_type, pc.descending);
    result[1] = below + at_lo + inside;
    result[2] = at_hi;
  }
  state[SELECT_PATH] = path;
}
