#version 450
// radix_upsweep: per-block digit histograms of one counting pass (radix sort, split). Block b is
// keys [b * SORT_BLOCK, (b + 1) * SORT_BLOCK) of n; block_hist[d * nblocks + block_base + b] = its
// keys whose digit (sort_digit) is d, for every d <= mask. Subgroups aggregate shared digits
// (subgroup_bin_add). A sort over several binding windows dispatches it once per window: `keys` is
// the window, n its keys, block_base the index of its first block among all windows' blocks.
// Bindings: 0 = keys (uint[], read), 1 = block_hist (uint[], written).
// Push constants (shared by radix_upsweep and radix_downsweep): n, nblocks, key_type, descending,
// hash, shift, mask, fanout, seed, flags (unused here), block_base, window_keys (unused here),
// group_offset (last word, set by dispatch).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#include "sort_config.glsl"
#include "sort_keys.glsl"

layout(local_size_x = SORT_WG) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer BlockHist { uint block_hist[]; };
layout(push_constant) uniform Params {
  uint n, nblocks, key_type, descending, hash, shift, mask, fanout, seed, flags, block_base, window_keys, group_offset;
} pc;

#include "sort_workgroup.glsl"

shared uint s_hist[SORT_BINS];

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint block = gl_WorkGroupID.x + pc.group_offset;
  for (uint d = tid; d <= pc.mask; d += SORT_WG) s_hist[d] = 0u;
  barrier();
  for (uint t = 0u; t < SORT_BLOCK_TILES; ++t) {
    const uint tile_base = block * SORT_BLOCK + t * SORT_TILE;
    if (tile_base >= pc.n) break;
    uint key[SORT_KPT];
    for (uint j = 0u; j < SORT_KPT; ++j) {
      const uint i = tile_base + j * SORT_WG + tid;
      key[j] = i < pc.n ? keys[i] : 0u;
    }
    for (uint j = 0u; j < SORT_KPT; ++j) {
      const bool ok = tile_base + j * SORT_WG + tid < pc.n;
      const uint d = sort_digit(key[j], pc.key_type, pc.descending, pc.hash, pc.shift, pc.mask, pc.fanout, pc.seed);
      const uint add = subgroup_bin_add(d, ok);
      if (add != 0u) atomicAdd(s_hist[d], add);
    }
  }
  barrier();
  for (uint d = tid; d <= pc.mask; d += SORT_WG) block_hist[d * pc.nblocks + pc.block_base + block] = s_hist[d];
}
