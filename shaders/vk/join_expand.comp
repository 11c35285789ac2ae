#version 450
// join_expand: the write phase of the output routine for algorithms whose matches are runs (INLJ,
// sort-merge, global hash): unit u pairs probe row unit_rid[u] with the build rows
// build_rid[unit_start[u] .. + counts[u]); offsets[u] is the exclusive scan of counts, so the
// candidates are positions 0 .. total - 1, candidate p belonging to the last unit with offsets[u] <= p.
// Each workgroup takes JOIN_EXPAND_TILE consecutive positions, each invocation JOIN_EXPAND_ITEMS of them
// (in wg_rank order), and finds their units by binary search within the tile's unit range: the work
// per position is the same however the matches are spread over the units (a load-balanced search;
// one probe key holding most matches costs no more than uniform keys), and no loop runs long.
// Modes (JOIN_EXPAND_*):
//   WRITE: every candidate is a pair: positions c0 .. c1 - 1 (tile t from c0 + t * TILE) to out[p - c0];
//   COUNT: tile t of the candidates: tile_counts[t] = candidates passing terms [0, nterms);
//   PACK:  tile t of the candidates: its passing ones, in order, at output position tile_offsets[t] +
//          rank, those inside [c0, c1) to out[q - c0] (tiles wholly outside return at once);
//   UNITS: every candidate is a pair and runs are short (at most JOIN_UNIT_RUNS, the host checked):
//          invocation u writes unit u's run, its positions inside [c0, c1), with no search.
// Bindings: 0 = offsets (uint64_t[units]), 1 = counts (uint[units]), 2 = unit_rid (uint[units]),
//   3 = unit_start (uint[units]), 4 = build_rid (uint[]), 5 = out_a (uint[]), 6 = out_b (uint[]),
//   7 = tile_counts (uint[]), 8 = tile_offsets (uint64_t[]), 9 = join_terms (uint[]),
//   10..13 = a_col0..3, 14..17 = b_col0..3 (uint[]: raw key columns of probe and build sides).
// Push constants: units, mode, nterms, c0 (lo, hi), c1 (lo, hi), total (lo, hi), group_offset (last).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "join_config.glsl"
#include "join_keys.glsl"
#include "wg_tile.glsl"
#include "wg_scan.glsl"
layout(local_size_x = JOIN_WG) in;
layout(std430, binding = 0) readonly buffer Offsets { uint64_t offsets[]; };
layout(std430, binding = 1) readonly buffer Counts { uint counts[]; };
layout(std430, binding = 2) readonly buffer UnitRid { uint unit_rid[]; };
layout(std430, binding = 3) readonly buffer UnitStart { uint unit_start[]; };
layout(std430, binding = 4) readonly buffer BuildRid { uint build_rid[]; };
layout(std430, binding = 5) writeonly buffer OutA { uint out_a[]; };
layout(std430, binding = 6) writeonly buffer OutB { uint out_b[]; };
layout(std430, binding = 7) buffer TileCounts { uint tile_counts[]; };
layout(std430, binding = 8) readonly buffer TileOffsets { uint64_t tile_offsets[]; };
layout(std430, binding = 9) readonly buffer Terms { uint join_terms[]; };
layout(std430, binding = 10) readonly buffer A0 { uint a_col0[]; };
layout(std430, binding = 11) readonly buffer A1 { uint a_col1[]; };
layout(std430, binding = 12) readonly buffer A2 { uint a_col2[]; };
layout(std430, binding = 13) readonly buffer A3 { uint a_col3[]; };
layout(std430, binding = 14) readonly buffer B0 { uint b_col0[]; };
layout(std430, binding = 15) readonly buffer B1 { uint b_col1[]; };
layout(std430, binding = 16) readonly buffer B2 { uint b_col2[]; };
layout(std430, binding = 17) readonly buffer B3 { uint b_col3[]; };
layout(push_constant) uniform Push {
  uint units, mode, nterms, c0_lo, c0_hi, c1_lo, c1_hi, total_lo, total_hi, group_offset;
} pc;
#include "join_terms.glsl"

shared uint s_units[2];

// The last unit u in [lo, hi) with offsets[u] <= p (offsets[lo] <= p).
uint find_unit(uint64_t p, uint lo, uint hi) {
  while (hi - lo > 1u) {
    const uint mid = lo + ((hi - lo) >> 1);
    if (offsets[mid] <= p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

void main() {
  const uint tile = gl_WorkGroupID.x + pc.group_offset;
  const uint64_t c0 = uint64_t(pc.c0_lo) | (uint64_t(pc.c0_hi) << 32);
  if (pc.mode == JOIN_EXPAND_UNITS) {  // uniform: no barrier below is reached
    const uint u = tile * JOIN_WG + gl_LocalInvocationIndex;
    if (u >= pc.units) return;
    const uint n = min(counts[u], JOIN_UNIT_RUNS);
    const uint64_t at = offsets[u];
    const uint64_t c1u = uint64_t(pc.c1_lo) | (uint64_t(pc.c1_hi) << 32);
    if (n == 0u || at >= c1u || at + n <= c0) return;
    const uint a = unit_rid[u], start = unit_start[u];
    for (uint j = 0u; j < n; ++j) {
      const uint64_t p = at + j;
      if (p >= c0 && p < c1u) {
        out_a[uint(p - c0)] = a;
        out_b[uint(p - c0)] = build_rid[start + j];
      }
    }
    return;
  }
  const uint64_t c1 = uint64_t(pc.c1_lo) | (uint64_t(pc.c1_hi) << 32);
  const uint64_t total = uint64_t(pc.total_lo) | (uint64_t(pc.total_hi) << 32);
  // The tile's positions [first, end) in candidate space.
  const uint64_t base = pc.mode == JOIN_EXPAND_WRITE ? c0 : 0ul;
  const uint64_t limit = pc.mode == JOIN_EXPAND_WRITE ? c1 : total;
  const uint64_t first = base + uint64_t(tile) * JOIN_EXPAND_TILE;
  const uint64_t end = min(first + JOIN_EXPAND_TILE, limit);
  uint64_t out_first = 0ul;
  if (pc.mode == JOIN_EXPAND_PACK) {
    out_first = tile_offsets[tile];
    if (out_first >= c1 || out_first + tile_counts[tile] <= c0) return;  // uniform
  }
  if (gl_LocalInvocationIndex < 2u) s_units[gl_LocalInvocationIndex] =
      find_unit(gl_LocalInvocationIndex == 0u ? first : end - 1ul, 0u, pc.units) + gl_LocalInvocationIndex;
  barrier();
  const uint lo = s_units[0], hi = s_units[1];

  const uint64_t p0 = first + uint64_t(wg_rank()) * JOIN_EXPAND_ITEMS;
  uint a_rows[JOIN_EXPAND_ITEMS], b_rows[JOIN_EXPAND_ITEMS];
  uint passing = 0u;
  uint u = lo;
  uint64_t unit_end = 0ul;  // first position past unit u (0: not found yet)
  [[unroll]] for (uint k = 0u; k < JOIN_EXPAND_ITEMS; ++k) {
    const uint64_t p = p0 + k;
    a_rows[k] = JOIN_EMPTY;
    if (p < end) {
      if (p >= unit_end) {
        // The next unit starts at unit_end <= p; it holds p unless the one after it starts by p
        // too (one load where every unit has a pair, as with unique keys), else search.
        if (unit_end != 0ul && (u + 2u >= hi || offsets[u + 2u] > p)) {
          u += 1u;
        } else {
          u = find_unit(p, unit_end == 0ul ? lo : u + 1u, hi);
        }
        unit_end = offsets[u] + counts[u];
      }
      a_rows[k] = unit_rid[u];
      b_rows[k] = build_rid[unit_start[u] + uint(p - offsets[u])];
      if (pc.mode == JOIN_EXPAND_WRITE) {
        out_a[uint(p - c0)] = a_rows[k];
        out_b[uint(p - c0)] = b_rows[k];
      } else if (!join_pair_passes(pc.nterms, a_rows[k], b_rows[k])) {
        a_rows[k] = JOIN_EMPTY;
      } else {
        ++passing;
      }
    }
  }
  if (pc.mode == JOIN_EXPAND_WRITE) return;
  // find_unit's search and the pair terms leave their loops lane by lane: the barrier brings the
  // subgroups back together before the scan's subgroup operations (COMPUTE.md, "Subgroup
  // operations").
  barrier();
  uvec4 sum;
  const uint before = wg_exclusive_add_u32x4(uvec4(passing, 0u, 0u, 0u), sum).x;
  if (pc.mode == JOIN_EXPAND_COUNT) {
    if (gl_LocalInvocationIndex == 0u) tile_counts[tile] = sum.x;
    return;
  }
  uint64_t q = out_first + before;
  [[unroll]] for (uint k = 0u; k < JOIN_EXPAND_ITEMS; ++k) {
    if (a_rows[k] != JOIN_EMPTY) {
      if (q >= c0 && q < c1) {
        out_a[uint(q - c0)] = a_rows[k];
        out_b[uint(q - c0)] = b_rows[k];
      }
      ++q;
    }
  }
}
