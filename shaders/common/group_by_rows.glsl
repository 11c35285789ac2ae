// Row input of the GROUP BY table kernels: four rows at a time, as order keys and raw value bits,
// straight from the columns (uvec4 loads) or through a list of ascending row ids. Needs
// group_by_common.glsl and these bindings of the including kernel:
//   2 = key 0, 3 = key 1 (bound to key 0 without a second key column), 4..7 = value bindings 0..3
//   (bound to key 0 when unused), 8 = row ids (bound to key 0 without a selection),
// each as a uvec4[] view NAME_v and a uint[] view NAME_s.
#ifndef GFXQ_GROUP_BY_ROWS_GLSL
#define GFXQ_GROUP_BY_ROWS_GLSL

layout(std430, binding = 2) readonly buffer Key0V { uvec4 key0_v[]; };
layout(std430, binding = 2) readonly buffer Key0S { uint key0_s[]; };
layout(std430, binding = 3) readonly buffer Key1V { uvec4 key1_v[]; };
layout(std430, binding = 3) readonly buffer Key1S { uint key1_s[]; };
layout(std430, binding = 4) readonly buffer Val0V { uvec4 val0_v[]; };
layout(std430, binding = 4) readonly buffer Val0S { uint val0_s[]; };
layout(std430, binding = 5) readonly buffer Val1V { uvec4 val1_v[]; };
layout(std430, binding = 5) readonly buffer Val1S { uint val1_s[]; };
layout(std430, binding = 6) readonly buffer Val2V { uvec4 val2_v[]; };
layout(std430, binding = 6) readonly buffer Val2S { uint val2_s[]; };
layout(std430, binding = 7) readonly buffer Val3V { uvec4 val3_v[]; };
layout(std430, binding = 7) readonly buffer Val3S { uint val3_s[]; };
layout(std430, binding = 8) readonly buffer RowsV { uvec4 rows_v[]; };
layout(std430, binding = 8) readonly buffer RowsS { uint rows_s[]; };

// Whether some state reads value binding c.
bool gb_binding_used(uint c) {
  bool used = false;
  for (uint i = 0u; i < GB_MAX_STATES; ++i) used = used || (gb_kind(i) != GB_STATE_NONE && gb_binding(i) == c);
  return used;
}

WG_DEFINE_LOAD(gb_load_key0, key0_v, key0_s)
WG_DEFINE_LOAD(gb_load_key1, key1_v, key1_s)
WG_DEFINE_LOAD(gb_load_val0, val0_v, val0_s)
WG_DEFINE_LOAD(gb_load_val1, val1_v, val1_s)
WG_DEFINE_LOAD(gb_load_val2, val2_v, val2_s)
WG_DEFINE_LOAD(gb_load_val3, val3_v, val3_s)
WG_DEFINE_LOAD(gb_load_rows, rows_v, rows_s)

// Selected row `row`'s key and used value bits into component j (a selection's rows are gathered).
void gb_gather(uint row, uint j, inout uvec4 raw0, inout uvec4 raw1, inout uvec4 v[GB_MAX_VALUE_BINDINGS]) {
  raw0[j] = key0_s[row];
  if (GB_TWO_KEYS) raw1[j] = key1_s[row];
  if (gb_binding_used(0u)) v[0][j] = val0_s[row];
  if (gb_binding_used(1u)) v[1][j] = val1_s[row];
  if (gb_binding_used(2u)) v[2][j] = val2_s[row];
  if (gb_binding_used(3u)) v[3][j] = val3_s[row];
}

// The order keys of four rows' raw key bits (k1 = 0 with one key column).
void gb_keys4(uvec4 raw0, uvec4 raw1, out uvec4 k0, out uvec4 k1) {
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    k0[j] = gb_key0(raw0[j]);
    k1[j] = GB_TWO_KEYS ? gb_key1(raw1[j]) : 0u;
  }
}

// The 4 rows at positions 4q..4q+3 of [0, count): `valid` marks those below count; k0, k1 their
// order keys (k1 = 0 with one key column); v[c] the raw bits of value binding c.
void gb_load4(uint q, uint count, out uvec4 k0, out uvec4 k1, out uvec4 v[GB_MAX_VALUE_BINDINGS], out bvec4 valid) {
  valid = lessThan(uvec4(q * 4u) + uvec4(0u, 1u, 2u, 3u), uvec4(count));
  uvec4 raw0 = uvec4(0u), raw1 = uvec4(0u);
  [[unroll]] for (uint c = 0u; c < GB_MAX_VALUE_BINDINGS; ++c) v[c] = uvec4(0u);
  if (GB_SELECTION) {
    const uvec4 row = gb_load_rows(q, count, uvec4(0u));
    [[unroll]] for (uint j = 0u; j < 4u; ++j)
      if (valid[j]) gb_gather(row[j], j, raw0, raw1, v);
  } else {
    raw0 = gb_load_key0(q, count, uvec4(0u));
    if (GB_TWO_KEYS) raw1 = gb_load_key1(q, count, uvec4(0u));
    if (gb_binding_used(0u)) v[0] = gb_load_val0(q, count, uvec4(0u));
    if (gb_binding_used(1u)) v[1] = gb_load_val1(q, count, uvec4(0u));
    if (gb_binding_used(2u)) v[2] = gb_load_val2(q, count, uvec4(0u));
    if (gb_binding_used(3u)) v[3] = gb_load_val3(q, count, uvec4(0u));
  }
  gb_keys4(raw0, raw1, k0, k1);
}

// gb_load4 of 4 rows that all lie below the count: no guards (the kernels' full steps).
void gb_load4_full(uint q, out uvec4 k0, out uvec4 k1, out uvec4 v[GB_MAX_VALUE_BINDINGS]) {
  uvec4 raw0, raw1 = uvec4(0u);
  [[unroll]] for (uint c = 0u; c < GB_MAX_VALUE_BINDINGS; ++c) v[c] = uvec4(0u);
  if (GB_SELECTION) {
    const uvec4 row = rows_v[q];
    [[unroll]] for (uint j = 0u; j < 4u; ++j) gb_gather(row[j], j, raw0, raw1, v);
  } else {
    raw0 = key0_v[q];
    if (GB_TWO_KEYS) raw1 = key1_v[q];
    if (gb_binding_used(0u)) v[0] = val0_v[q];
    if (gb_binding_used(1u)) v[1] = val1_v[q];
    if (gb_binding_used(2u)) v[2] = val2_v[q];
    if (gb_binding_used(3u)) v[3] = val3_v[q];
  }
  gb_keys4(raw0, raw1, k0, k1);
}

#endif
