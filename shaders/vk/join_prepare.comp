#version 450
// join_prepare: one side of a join made ready for an algorithm: row i of the side (row id sel[i],
// or i without a selection) gets its key (JOIN_NORM_* per key column; one column its normalised
// value, several the hash of their normalised values, through hash_fmix32). A row whose key column
// cannot equal the other side's (JOIN_NORM_INT_OF_FLOAT of a FLOAT that is no int32) is dropped.
// Tiles of JOIN_PREPARE_TILE rows, JOIN_PREPARE_ITEMS consecutive rows per invocation (in wg_rank
// order, so a workgroup scan ranks kept rows in row order). Modes (JOIN_PREPARE_*):
//   COUNT: counts[tile] = rows the tile keeps;
//   WRITE: every row kept: rid[i], key[i] at position i;
//   PACK:  kept rows at offsets[tile] + their rank in the tile.
// Bindings: 0 = selection (uint[]), 1..4 = key columns (uint[]), 5 = rid (uint[], out),
//           6 = key (uint[], out), 7 = counts (uint[]), 8 = offsets (uint64_t[], exclusive scan of counts).
// Push constants: n, has_selection, mode, columns, norms (8 bits per column), write_key,
//                 group_offset (last, set by dispatch).
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
layout(std430, binding = 1) readonly buffer C0 { uint col0[]; };
layout(std430, binding = 2) readonly buffer C1 { uint col1[]; };
layout(std430, binding = 3) readonly buffer C2 { uint col2[]; };
layout(std430, binding = 4) readonly buffer C3 { uint col3[]; };
layout(std430, binding = 5) writeonly buffer Rid { uint rid_out[]; };
layout(std430, binding = 6) writeonly buffer Key { uint key_out[]; };
layout(std430, binding = 7) buffer Counts { uint counts[]; };
layout(std430, binding = 8) readonly buffer Offsets { uint64_t offsets[]; };
layout(push_constant) uniform Push { uint n, has_selection, mode, columns, norms, write_key, group_offset; } pc;

uint column_value(uint c, uint row) {
  switch (c) {
    case 0u: return col0[row];
    case 1u: return col1[row];
    case 2u: return col2[row];
    default: return col3[row];
  }
}

// The key of `row`; false when the row is dropped.
bool row_key(uint row, out uint key) {
  key = 0u;
  if (pc.columns == 0u) return true;
  uint h = 0x2545F491u;
  bool ok = true;
  for (uint c = 0u; c < pc.columns; ++c) {
    const uint raw = column_value(c, row);
    const uint norm = (pc.norms >> (8u * c)) & 0xFFu;
    uint k = raw;
    if (norm == JOIN_NORM_ORDER_INT) {
      k = join_key32(raw, JOIN_TYPE_INT);
    } else if (norm == JOIN_NORM_ORDER_FLOAT) {
      k = join_key32(raw, JOIN_TYPE_FLOAT);
    } else if (norm == JOIN_NORM_INT_OF_FLOAT) {
      ok = join_int_of_float(raw, k) && ok;
    }
    key = k;
    h = hash_fmix32((h * 0x9E3779B1u) ^ k);
  }
  if (pc.columns > 1u) key = h;
  return ok;
}

void main() {
  const uint tile = gl_WorkGroupID.x + pc.group_offset;
  const uint first = tile * JOIN_PREPARE_TILE + wg_rank() * JOIN_PREPARE_ITEMS;
  uint rows[JOIN_PREPARE_ITEMS], keys[JOIN_PREPARE_ITEMS];
  bool keep[JOIN_PREPARE_ITEMS];
  uint kept = 0u;
  [[unroll]] for (uint k = 0u; k < JOIN_PREPARE_ITEMS; ++k) {
    const uint i = first + k;
    keep[k] = false;
    rows[k] = 0u;
    keys[k] = 0u;
    if (i < pc.n) {
      rows[k] = pc.has_selection != 0u ? sel[i] : i;
      keep[k] = row_key(rows[k], keys[k]);
    }
    kept += keep[k] ? 1u : 0u;
  }
  if (pc.mode == JOIN_PREPARE_WRITE) {
    [[unroll]] for (uint k = 0u; k < JOIN_PREPARE_ITEMS; ++k) {
      if (first + k < pc.n) {
        rid_out[first + k] = rows[k];
        if (pc.write_key != 0u) key_out[first + k] = keys[k];
      }
    }
    return;
  }
  uvec4 total;
  const uint before = wg_exclusive_add_u32x4(uvec4(kept, 0u, 0u, 0u), total).x;
  if (pc.mode == JOIN_PREPARE_COUNT) {
    if (gl_LocalInvocationIndex == 0u) counts[tile] = total.x;
    return;
  }
  uint pos = uint(offsets[tile]) + before;
  [[unroll]] for (uint k = 0u; k < JOIN_PREPARE_ITEMS; ++k) {
    if (keep[k]) {
      rid_out[pos] = rows[k];
      if (pc.write_key != 0u) key_out[pos] = keys[k];
      ++pos;
    }
  }
}
