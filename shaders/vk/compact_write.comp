#version 450
// compact_write_<outputs>: pass 3 of compact. Workgroup g of a chunk rereads the bits of tiles
// [g * tiles_per_group, (g + 1) * tiles_per_group), scans the per-invocation counts and writes
// its selected elements e, in order, from output position carries[partial_base + g] on:
// ids[pos] = id_base + e and values_out[pos] = values_in[e]. Only positions in the bound output
// window [window_base, window_base + window_count) are written (at pos - window_base); a
// workgroup whose positions all miss the window returns at once.
// Defines: WRITE_IDS, WRITE_VALUES (at least one).
// Bindings: 0 = bits (uint[]), 1 = carries (uint64_t[]; entry partial_base + g + 1 ends g's
//           positions), then with WRITE_VALUES 2 = values_in (uint[] and uvec4[] views) and
//           3 = values_out (uint[]), then with WRITE_IDS the next binding = ids (uint[]).
// Push constants: window_base (uint64), window_count, count, tiles_per_group, partial_base,
//                 id_base (row id of the chunk's first element), reserved.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "wg_tile.glsl"
#include "wg_scan.glsl"
layout(local_size_x = GFXQ_PRIM_WG_SIZE) in;
layout(std430, binding = 0) readonly buffer Bits { uint bits[]; };
layout(std430, binding = 1) readonly buffer Carries { uint64_t carries[]; };
#if defined(WRITE_VALUES)
layout(std430, binding = 2) readonly buffer ValuesV { uvec4 values_v[]; };
layout(std430, binding = 2) readonly buffer ValuesS { uint values_s[]; };
layout(std430, binding = 3) writeonly buffer ValuesOut { uint values_out[]; };
#define IDS_BINDING 4
#else
#define IDS_BINDING 2
#endif
#if defined(WRITE_IDS)
layout(std430, binding = IDS_BINDING) writeonly buffer Ids { uint ids[]; };
#endif
layout(push_constant) uniform Push {
  uint64_t window_base;
  uint window_count;
  uint count;
  uint tiles_per_group;
  uint partial_base;
  uint id_base;
  uint reserved;
} pc;

void main() {
  uint64_t pos = carries[pc.partial_base + gl_WorkGroupID.x];
  const uint64_t end = carries[pc.partial_base + gl_WorkGroupID.x + 1u];
  if (end <= pc.window_base || pos >= pc.window_base + pc.window_count) return;
  const uint rank = wg_rank();
  const uint tiles = (pc.count + GFXQ_PRIM_TILE - 1u) / GFXQ_PRIM_TILE;
  const uint first = gl_WorkGroupID.x * pc.tiles_per_group;
  const uint last = min(first + pc.tiles_per_group, tiles);
  for (uint tile = first; tile < last; ++tile) {
    const uint q0 = tile * (GFXQ_PRIM_TILE / 4) + rank;
    uvec4 nibbles, counts;
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
      const uint q = q0 + j * GFXQ_PRIM_WG_SIZE;
      nibbles[j] = (bits[q >> 3] >> ((q & 7u) * 4u)) & 0xFu;
      counts[j] = bitCount(nibbles[j]);
    }
    uvec4 row_totals;
    const uvec4 prefix = wg_exclusive_add_u32x4(counts, row_totals);
    [[unroll]] for (uint j = 0; j < GFXQ_PRIM_ROWS; ++j) {
      if (nibbles[j] != 0u) {
        const uint q = q0 + j * GFXQ_PRIM_WG_SIZE;
#if defined(WRITE_VALUES)
        uvec4 v = uvec4(0u);
        if (q * 4u + 4u <= pc.count) {
          v = values_v[q];
        } else {  // bits past count are 0: read only the selected elements
          for (uint k = 0; k < 4u; ++k)
            if ((nibbles[j] & (1u << k)) != 0u) v[k] = values_s[q * 4u + k];
        }
#endif
        uint64_t rel = pos + prefix[j] - pc.window_base;  // wraps past the window when before it
        for (uint k = 0; k < 4u; ++k) {
          if ((nibbles[j] & (1u << k)) == 0u) continue;
          if (rel < uint64_t(pc.window_count)) {
#if defined(WRITE_IDS)
            ids[uint(rel)] = pc.id_base + q * 4u + k;
#endif
#if defined(WRITE_VALUES)
            values_out[uint(rel)] = v[k];
#endif
          }
          ++rel;
        }
      }
      pos += row_totals[j];
    }
  }
}
