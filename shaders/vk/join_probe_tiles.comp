#version 450
// join_probe_tiles: the probe of the global-table hash join (join_hash_global.comp built the table)
// for a probe side keyed by one column, straight from the column (no prepared keys and row ids), by
// tiles of JOIN_PROBE_TILE rows, JOIN_PROBE_ITEMS consecutive rows per invocation (in wg_rank order,
// so a workgroup scan ranks the pairs in row order). Row i of the side is row sel[i] (or i without a
// selection), its key the column's value normalised by `norm` (JOIN_NORM_RAW, _ORDER_INT or
// _ORDER_FLOAT). Two layouts of the table's matches:
//   unique build keys (grouped = 0): a key's match is its entry's row id. COUNT looks every row up
//     (one random entry read) and, with `store`, writes match[i] = the row id or JOIN_EMPTY; WRITE
//     reads match[] back (sequential: no second random read) and compacts;
//   duplicate build keys (grouped = 1): a key's matches are the run of build_rid from slot_start of
//     its slot, slot_count long; WRITE looks every row up again.
// Modes (JOIN_PROBE_*):
//   COUNT: tile_counts[tile] = the tile's pairs, each row's run capped at JOIN_UNIT_RUNS + 1 (so the
//          sum fits 32 bits); stats[0] = the longest run (atomic maximum);
//   WRITE: (runs of at most JOIN_UNIT_RUNS) each row's pairs at tile_offsets[tile] + its rank in the
//          tile, the positions of the window [c0, c1) only.
// So pairs come in probe row order, each row's build rows in the table's run order.
// Bindings: 0 = selection (uint[]), 1 = key column (uint[]), 2 = table (uint64_t[cap + 1]), 3 =
//   slot_count (uint[cap + 1]), 4 = slot_start (uint64_t[cap + 1]), 5 = build_rid (uint[]), 6 = range
//   (as in join_hash_global, read with range_norm), 7 = tile_counts (uint[tiles]), 8 = tile_offsets (uint64_t[tiles],
//   exclusive scan of the counts), 9 = out_a (uint[]), 10 = out_b (uint[]), 11 = stats (uint[]), 12 =
//   match (uint[n]).
// Push constants: n, has_selection, norm, cap, allow_direct, build, mode, grouped, store, range_norm,
// c0 (low, high), c1 (low, high), group_offset (last, set by dispatch).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "join_config.glsl"
#include "hash.glsl"
#include "join_keys.glsl"
#include "wg_tile.glsl"
#include "wg_scan.glsl"
layout(local_size_x = JOIN_WG) in;
layout(std430, binding = 0) readonly buffer Sel { uint sel[]; };
layout(std430, binding = 1) readonly buffer Col { uint col[]; };
layout(std430, binding = 2) readonly buffer Table { uint64_t table64[]; };
layout(std430, binding = 3) readonly buffer SlotCount { uint slot_count[]; };
layout(std430, binding = 4) readonly buffer SlotStart { uint64_t slot_start[]; };
layout(std430, binding = 5) readonly buffer BuildRid { uint build_rid[]; };
layout(std430, binding = 6) readonly buffer Range { uint range_words[]; };
layout(std430, binding = 7) writeonly buffer TileCounts { uint tile_counts[]; };
layout(std430, binding = 8) readonly buffer TileOffsets { uint64_t tile_offsets[]; };
layout(std430, binding = 9) writeonly buffer OutA { uint out_a[]; };
layout(std430, binding = 10) writeonly buffer OutB { uint out_b[]; };
layout(std430, binding = 11) buffer Stats { uint stats[]; };
layout(std430, binding = 12) buffer Match { uint match[]; };
layout(push_constant) uniform Push {
  uint n, has_selection, norm, cap, allow_direct, build, mode, grouped, store, range_norm, c0_lo, c0_hi, c1_lo, c1_hi,
      group_offset;
} pc;
#include "join_global_slot.glsl"

void main() {
  const uint tile = gl_WorkGroupID.x + pc.group_offset;
  const uint first = tile * JOIN_PROBE_TILE + wg_rank() * JOIN_PROBE_ITEMS;
  uint kmin, kmax;
  join_global_range(pc.range_norm, kmin, kmax);
  const bool direct = join_global_direct(pc.allow_direct != 0u, pc.build, kmin, kmax);
  const bool grouped = pc.grouped != 0u;
  // Per row: its id, its slot and its match (the entry's row id; grouped: slot_start of the slot).
  uint rows[JOIN_PROBE_ITEMS], slots[JOIN_PROBE_ITEMS], matches[JOIN_PROBE_ITEMS], runs[JOIN_PROBE_ITEMS];
  uint pairs = 0u, longest = 0u;
  [[unroll]] for (uint k = 0u; k < JOIN_PROBE_ITEMS; ++k) {
    const uint i = first + k;
    rows[k] = 0u;
    slots[k] = JOIN_EMPTY;
    matches[k] = JOIN_EMPTY;
    runs[k] = 0u;
    if (i < pc.n) {
      rows[k] = pc.has_selection != 0u ? sel[i] : i;
      if (!grouped && pc.mode == JOIN_PROBE_WRITE) {
        matches[k] = match[i];
        runs[k] = matches[k] != JOIN_EMPTY ? 1u : 0u;
      } else {
        const uint raw = col[rows[k]];
        const uint key = pc.norm == JOIN_NORM_ORDER_INT     ? join_key32(raw, JOIN_TYPE_INT)
                         : pc.norm == JOIN_NORM_ORDER_FLOAT ? join_key32(raw, JOIN_TYPE_FLOAT)
                                                            : raw;
        if (join_global_find(key, pc.cap, direct, kmin, kmax, slots[k], matches[k]))
          runs[k] = grouped ? slot_count[slots[k]] : 1u;
        if (!grouped && pc.store != 0u) match[i] = matches[k];
      }
    }
    pairs += min(runs[k], JOIN_UNIT_RUNS + 1u);
    longest = max(longest, runs[k]);
  }
  // The probes above leave their loops lane by lane: the barrier brings the subgroups back
  // together before the scan's subgroup operations (COMPUTE.md, "Subgroup operations").
  barrier();
  uvec4 total;
  const uint before = wg_exclusive_add_u32x4(uvec4(pairs, 0u, 0u, 0u), total).x;
  if (pc.mode == JOIN_PROBE_COUNT) {
    longest = subgroupMax(longest);  // before any branch
    if (gl_LocalInvocationIndex == 0u) tile_counts[tile] = total.x;
    if (subgroupElect() && longest != 0u) atomicMax(stats[0], longest);
    return;
  }
  const uint64_t c0 = pack64(uvec2(pc.c0_lo, pc.c0_hi)), c1 = pack64(uvec2(pc.c1_lo, pc.c1_hi));
  uint64_t pos = tile_offsets[tile] + uint64_t(before);
  [[unroll]] for (uint k = 0u; k < JOIN_PROBE_ITEMS; ++k) {
    if (runs[k] == 0u) continue;
    const uint start = grouped ? uint(slot_start[slots[k]]) : 0u;
    for (uint j = 0u; j < runs[k]; ++j, ++pos) {
      if (pos < c0 || pos >= c1) continue;
      const uint at = uint(pos - c0);
      out_a[at] = rows[k];
      out_b[at] = grouped ? build_rid[start + j] : matches[k];
    }
  }
}
