#version 450
// split_bounds: partition offsets of a split result from its keys, which are grouped by partition
// p in ascending order: invocation q (0..fanout) binary-searches the first position whose
// partition is >= q and writes it to offsets[q] (n when there is none). A search, not a loop over
// partitions, so no invocation runs long (lavapipe caps a loop at 65535 iterations).
// Bindings: 0 = keys (uint[n], read), 1 = offsets (uint[fanout + 1], written).
// Push constants: n, fanout, key_type, hash, shift, mask, seed, group_offset (last word, set by
// dispatch); p = sort_digit(key, key_type, ascending, hash, shift, mask, fanout, seed).
#include "sort_config.glsl"
#include "sort_keys.glsl"

layout(local_size_x = SORT_WG) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Offsets { uint offsets[]; };
layout(push_constant) uniform Params { uint n, fanout, key_type, hash, shift, mask, seed, group_offset; } pc;

uint partition_of(uint raw) { return sort_digit(raw, pc.key_type, 0u, pc.hash, pc.shift, pc.mask, pc.fanout, pc.seed); }

void main() {
  const uint q = (gl_WorkGroupID.x + pc.group_offset) * SORT_WG + gl_LocalInvocationIndex;
  if (q > pc.fanout) return;
  uint lo = 0u, hi = pc.n;
  while (lo < hi) {
    const uint mid = lo + (hi - lo) / 2u;
    if (partition_of(keys[mid]) < q)
      lo = mid + 1u;
    else
      hi = mid;
  }
  offsets[q] = lo;
}
