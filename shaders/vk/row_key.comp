#version 450
// row_key: one key plane of the rows in the order `perm` (ROW_KEYS: keys[i] = key(perm[i])), or the
// heads of runs of equal rows in that order (ROW_HEADS: heads[i] = 1 when row perm[i] differs from
// row perm[i - 1] in this plane, OR-ed into what earlier planes found; `first` starts the heads with
// row 0 alone), or the plane's range (ROW_RANGE: out[2 first] = min and out[2 first + 1] = max of the
// keys, atomically into words filled with 0xffffffff and 0 before; ROW_RANGE_ROWS positions per
// invocation), or one term of the rows' packed
// keys (ROW_PACK: out[i] = (first ? 0 : out[i]) + (key - lo) * stride, the planes' keys as digits of a
// mixed radix number below 2^32, most significant plane first, so equal rows, and only they, have
// equal packed keys, in the rows' order), or the last one or two planes' terms and the dense insert
// of the packed key (ROW_INSERT, set_dense.comp's table: row perm[i] lowers first[key] to its id by
// atomicMin, so every key's word ends with the first row that has it; for INTERSECT and EXCEPT (op) only the left rows
// do, a right row sets seen[key] = 1; a subgroup whose rows all have one key and all go to `first`
// makes one atomicMin, and a row whose word is already at or below its id makes none, as words only
// fall); only rows whose packed key lies in [slice_lo, slice_hi) insert, so that the table can be
// filled one key slice per pass, each slice's words staying in the cache: the first slice's pass
// stores every row's whole packed key in `out` (key_io ROW_INSERT_KEYS_STORE) and the later ones read
// it from there (ROW_INSERT_KEYS_READ: no plane is read). With `identity` the order is 0, 1, ...
// (perm is not read).
// A row id below left_n reads the left columns, others the right ones at id - left_n
// (set operations sort both operands as one relation). The key of a NULL cell is 0 in its value
// planes (all NULLs equal); its ROW_KEY_NULL plane orders it. `descending` inverts the key.
// Bindings: 0 = perm (uint[]), 1 = left word 0, 2 = left word 1 (high word of 64-bit types; else
//           unused), 3 = left NULL flags (uint per row; unused without has_nulls), 4, 5, 6 = the
//           same for the right rows, 7 = keys out or heads in/out (uint[]); ROW_INSERT: 7 = the
//           packed keys of the planes before (read unless `first`; the whole packed keys with
//           key_io), 8 = first, 9 = seen (uint[]),
//           10..15 = a second plane's words as 1..6 (read with `two`).
// Push constants: n, left_n, kind (ROW_KEY_*), descending, has_nulls, first, identity, lo, stride, op
//                 (ROW_INSERT: SET_OP_DISTINCT for DISTINCT and UNION, SET_OP_INTERSECT, SET_OP_EXCEPT),
//                 two (ROW_INSERT: a second plane follows, so the last two planes' terms are added in
//                 one pass), kind2, has_nulls2, lo2, stride2 (the second plane's), key_io
//                 (ROW_INSERT_KEYS_*), slice_lo, slice_hi (ROW_INSERT's key slice), group_offset.
#extension GL_ARB_gpu_shader_int64 : require
#if defined(ROW_RANGE) || defined(ROW_INSERT)
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#include "skeleton_config.glsl"
layout(local_size_x = SKELETON_WG) in;
layout(std430, binding = 0) readonly buffer Perm { uint perm[]; };
layout(std430, binding = 1) readonly buffer L0 { uint l0[]; };
layout(std430, binding = 2) readonly buffer L1 { uint l1[]; };
layout(std430, binding = 3) readonly buffer LN { uint lnull[]; };
layout(std430, binding = 4) readonly buffer R0 { uint r0[]; };
layout(std430, binding = 5) readonly buffer R1 { uint r1[]; };
layout(std430, binding = 6) readonly buffer RN { uint rnull[]; };
#if defined(ROW_INSERT)
layout(std430, binding = 7) buffer Out { uint out_words[]; };
layout(std430, binding = 8) buffer First { uint first_row[]; };
layout(std430, binding = 9) buffer Seen { uint seen[]; };
layout(std430, binding = 10) readonly buffer L0B { uint l0b[]; };
layout(std430, binding = 11) readonly buffer L1B { uint l1b[]; };
layout(std430, binding = 12) readonly buffer LNB { uint lnullb[]; };
layout(std430, binding = 13) readonly buffer R0B { uint r0b[]; };
layout(std430, binding = 14) readonly buffer R1B { uint r1b[]; };
layout(std430, binding = 15) readonly buffer RNB { uint rnullb[]; };
#elif defined(ROW_HEADS) || defined(ROW_RANGE) || defined(ROW_PACK)
layout(std430, binding = 7) buffer Out { uint out_words[]; };
#else
layout(std430, binding = 7) writeonly buffer Out { uint out_words[]; };
#endif
layout(push_constant) uniform Push {
  uint n;
  uint left_n;
  uint kind;
  uint descending;
  uint has_nulls;
  uint first;
  uint identity;
  uint lo;
  uint stride;
  uint op;
  uint two;
  uint kind2;
  uint has_nulls2;
  uint lo2;
  uint stride2;
  uint key_io;
  uint slice_lo;
  uint slice_hi;
  uint group_offset;
} pc;

// The 64-bit order key of a double's bits: -0.0 as +0.0, every NaN as the positive quiet NaN.
uint64_t double_key(uint64_t b) {
  if ((b & 0x7fffffffffffffffUL) > 0x7ff0000000000000UL) b = 0x7ff8000000000000UL;
  if (b == 0x8000000000000000UL) b = 0UL;
  return (b >> 63) != 0UL ? ~b : (b | 0x8000000000000000UL);
}

// DEFINE_PLANE_KEY(NAME, L0, L1, LN, R0, R1, RN, KIND, HAS_NULLS) defines  uint NAME(uint row): the
// plane KIND's key of `row` from the column words L0, L1, LN (left rows) and R0, R1, RN (right rows).
#define DEFINE_PLANE_KEY(NAME, L0, L1, LN, R0, R1, RN, KIND, HAS_NULLS)                 \
  uint NAME(uint row) {                                                                 \
    const bool right = row >= pc.left_n;                                                \
    const uint r = right ? row - pc.left_n : row;                                       \
    const uint w0 = right ? R0[r] : L0[r];                                              \
    uint k;                                                                             \
    if (KIND == ROW_KEY_NULL) {                                                         \
      k = w0 != 0u ? 0u : 1u;                                                           \
    } else {                                                                            \
      if (HAS_NULLS != 0u && (right ? RN[r] : LN[r]) != 0u) return 0u;                  \
      if (KIND == ROW_KEY_I32) {                                                        \
        k = w0 ^ 0x80000000u;                                                           \
      } else if (KIND == ROW_KEY_F32) {                                                 \
        uint b = w0;                                                                    \
        if ((b & 0x7fffffffu) > 0x7f800000u) b = 0x7fc00000u;                           \
        if (b == 0x80000000u) b = 0u;                                                   \
        k = (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);                           \
      } else if (KIND == ROW_KEY_I64_LO) {                                              \
        k = w0;                                                                         \
      } else if (KIND == ROW_KEY_I64_HI) {                                              \
        k = (right ? R1[r] : L1[r]) ^ 0x80000000u;                                      \
      } else {                                                                          \
        const uint w1 = right ? R1[r] : L1[r];                                          \
        const uvec2 key = unpackUint2x32(double_key(packUint2x32(uvec2(w0, w1))));      \
        k = KIND == ROW_KEY_F64_LO ? key.x : key.y;                                     \
      }                                                                                 \
    }                                                                                   \
    return pc.descending != 0u ? ~k : k;                                                \
  }

DEFINE_PLANE_KEY(plane_key, l0, l1, lnull, r0, r1, rnull, pc.kind, pc.has_nulls)
#ifdef ROW_INSERT
DEFINE_PLANE_KEY(plane_key2, l0b, l1b, lnullb, r0b, r1b, rnullb, pc.kind2, pc.has_nulls2)
#endif

#if defined(ROW_RANGE)
shared uint wg_lo[SKELETON_WG / 8u], wg_hi[SKELETON_WG / 8u];

// Workgroup g takes the ROW_RANGE_ROWS * SKELETON_WG positions from g * ROW_RANGE_ROWS * SKELETON_WG
// (invocation t those at t, t + SKELETON_WG, ...), reduces them by subgroup and shared memory, and
// one invocation reads the result words and makes an atomic only where it would change them: few
// accesses to the two words, whatever n.
void main() {
  const uint base = (gl_WorkGroupID.x + pc.group_offset) * (SKELETON_WG * ROW_RANGE_ROWS) + gl_LocalInvocationIndex;
  uint lo = 0xffffffffu, hi = 0u;
  // Left by the whole workgroup at once (the subgroup reductions below need every lane); the lanes
  // past n read row n - 1 and keep their values.
  const uint wg_base = base - gl_LocalInvocationIndex;
  for (uint j = 0u; j < ROW_RANGE_ROWS && wg_base + j * SKELETON_WG < pc.n; ++j) {
    const uint i = base + j * SKELETON_WG;
    const uint r = min(i, pc.n - 1u);
    const uint k = plane_key(pc.identity != 0u ? r : perm[r]);
    lo = i < pc.n ? min(lo, k) : lo;
    hi = i < pc.n ? max(hi, k) : hi;
  }
  lo = subgroupMin(lo);
  hi = subgroupMax(hi);
  if (subgroupElect()) {
    wg_lo[gl_SubgroupID] = lo;
    wg_hi[gl_SubgroupID] = hi;
  }
  barrier();
  if (gl_LocalInvocationIndex != 0u) return;
  for (uint s = 0u; s < gl_NumSubgroups; ++s) {
    lo = min(lo, wg_lo[s]);
    hi = max(hi, wg_hi[s]);
  }
  if (lo > hi) return;  // no rows
  if (out_words[2u * pc.first] > lo) atomicMin(out_words[2u * pc.first], lo);
  if (out_words[2u * pc.first + 1u] < hi) atomicMax(out_words[2u * pc.first + 1u], hi);
}
#else
void main() {
  const uint i = (gl_WorkGroupID.x + pc.group_offset) * SKELETON_WG + gl_LocalInvocationIndex;
  if (i >= pc.n) return;
  const uint row = pc.identity != 0u ? i : perm[i];
#if defined(ROW_HEADS)
  uint head = pc.first != 0u ? (i == 0u ? 1u : 0u) : out_words[i];
  if (i > 0u && head == 0u && plane_key(row) != plane_key(pc.identity != 0u ? i - 1u : perm[i - 1u])) head = 1u;
  out_words[i] = head;
#elif defined(ROW_PACK)
  const uint term = (plane_key(row) - pc.lo) * pc.stride;
  out_words[i] = pc.first != 0u ? term : out_words[i] + term;
#elif defined(ROW_INSERT)
  uint key;
  if (pc.key_io == ROW_INSERT_KEYS_READ) {
    key = out_words[i];
  } else {
    key = (pc.first != 0u ? 0u : out_words[i]) + (plane_key(row) - pc.lo) * pc.stride;
    if (pc.two != 0u) key += (plane_key2(row) - pc.lo2) * pc.stride2;
    if (pc.key_io == ROW_INSERT_KEYS_STORE) out_words[i] = key;
  }
  // Outside the slice: no insert (the subgroup operations below are right for any set of lanes:
  // each lane's row reaches the table by its own atomic or by its group's elected one).
  if (key - pc.slice_lo >= pc.slice_hi - pc.slice_lo) return;
  const bool to_first = pc.op == SET_OP_DISTINCT || row < pc.left_n;
  if (subgroupAllEqual(key) && subgroupAll(to_first)) {
    const uint m = subgroupMin(row);
    if (subgroupElect() && first_row[key] > m) atomicMin(first_row[key], m);
    return;
  }
  if (!to_first) {
    seen[key] = 1u;
  } else if (first_row[key] > row) {
    atomicMin(first_row[key], row);
  }
#else
  out_words[i] = plane_key(row);
#endif
}
#endif
