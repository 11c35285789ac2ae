#version 450
// star: the kernels of the star aggregate (src/vk/operators/star/star.h), one per define.
// STAR_FILL:    one dimension's direct-address table: for each selected dimension row,
//               table[key - kmin] = its group code, the sum over its group columns of
//               (value - min) * stride (slots of unselected keys keep STAR_EMPTY); it also
//               narrows the dimension's bounds to the smallest and largest slot it filled.
// STAR_FILL_CNF: STAR_FILL over every dimension row, four per invocation, with the dimension's
//               condition evaluated on their uvec4 words first (cnf_eval.glsl): no selection pass.
// STAR_PROBE:   each fact row taking part (four per invocation, each dimension's keys and the
//               values read as uvec4 / ivec4 words, unless a selection names the rows) looks its
//               key up in every dimension's table (a key outside
//               the dimension's filled bounds misses without reading the table); a row that
//               finds all of them belongs to the group whose index is the sum of their codes, and
//               adds 1 to the group's count and each aggregate's value (an int64 x, x + y, x - y or
//               x * y of int32 operands) to the group's sums. A value v is added as its low word
//               (unsigned) and its high word (signed) to two 64-bit sums, so that with fewer than
//               2^32 rows neither sum can wrap and the host adds them exactly as high * 2^32 + low.
//               Each row adds with its own atomics (no subgroup operations: see group_of); with
//               one group (domain 1) every lane
//               sums its rows privately and the workgroup reduces them once.
// STAR_CNF:     STAR_PROBE over every fact row, four per invocation, with the fact's condition
//               evaluated on their uvec4 words first (cnf_eval.glsl): no selection pass; the key
//               column probed first is read as uvec4 words with them and its bounds tested with
//               the condition, and the value columns as ivec4 words for four rows at once.
// STAR_FOLD:    the copies of the group words (pc.copies of them) added into the first.
// STAR_COLLECT: the groups whose count is not zero, appended (in any order) to a list of group
//               indices with a copy of their words.
// Bounds (binding Counts): counts[d] = selected rows of dimension d, counts[4 + d] and counts[8 + d]
//              = the smallest and largest slot (key - kmin) filled (0xffffffff and 0 when none).
// Group words (in each copy: the probe adds into copy gl_WorkGroupID.x % copies, domain * stride words
//              apart): acc[g * stride] = count, then per aggregate a: acc[.. + 1 + 2a] = sum of low words,
//              acc[.. + 2 + 2a] = sum of high words (as uint64, two's complement).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_control_flow_attributes : require
#include "star_config.glsl"

layout(local_size_x = STAR_WG) in;

#if defined(STAR_FILL) || defined(STAR_FILL_CNF)
// Bindings: 0 = selected row ids of the dimension (any buffer when not selected), 1 = key column,
// 2 = table, 3..6 = group columns (unused ones bound to any buffer), 7 = the bounds (counts[pc.dim]
// grows by the rows this pass fills, its slot bounds narrow to them); STAR_FILL_CNF: 8 = the dimension
// condition's term table, 9..16 = its slot columns (uvec4[]); then (8, STAR_FILL_CNF 17) the bitmaps
// of the dimensions' filled slots (pc.bits: this dimension's first word, STAR_EMPTY: none).
layout(std430, binding = 0) readonly buffer Sel { uint sel[]; };
layout(std430, binding = 1) readonly buffer Key { int key[]; };
layout(std430, binding = 2) writeonly buffer Table { uint table[]; };
layout(std430, binding = 3) readonly buffer G0 { int g0[]; };
layout(std430, binding = 4) readonly buffer G1 { int g1[]; };
layout(std430, binding = 5) readonly buffer G2 { int g2[]; };
layout(std430, binding = 6) readonly buffer G3 { int g3[]; };
layout(std430, binding = 7) buffer Counts { uint counts[]; };
#if defined(STAR_FILL_CNF)
#ifndef SLOTS
#define SLOTS 8
#endif
layout(std430, binding = 8) readonly buffer Program { uint program[]; };
layout(std430, binding = 9) readonly buffer Slot0 { uvec4 slot0[]; };
layout(std430, binding = 10) readonly buffer Slot1 { uvec4 slot1[]; };
layout(std430, binding = 11) readonly buffer Slot2 { uvec4 slot2[]; };
layout(std430, binding = 12) readonly buffer Slot3 { uvec4 slot3[]; };
layout(std430, binding = 13) readonly buffer Slot4 { uvec4 slot4[]; };
layout(std430, binding = 14) readonly buffer Slot5 { uvec4 slot5[]; };
layout(std430, binding = 15) readonly buffer Slot6 { uvec4 slot6[]; };
layout(std430, binding = 16) readonly buffer Slot7 { uvec4 slot7[]; };
layout(std430, binding = 17) buffer Bits { uint bits[]; };
#else
layout(std430, binding = 8) buffer Bits { uint bits[]; };
#endif
layout(push_constant) uniform Push {
  uint count;     // rows taking part (STAR_FILL_CNF: every row of the dimension)
  uint selected;  // 1: row i is sel[i]
  int kmin;       // smallest key of the column
  uint columns;   // group columns (0..4)
  int mins[4];    // smallest value of each group column
  uint strides[4];
  // STAR_FILL_CNF: the dimension's condition (cnf_eval.glsl; intervals: 0, or its raw-bit interval tests).
  uint terms;
  uint float_slots;
  uint slot_count;
  uint intervals;
  uint dim;   // this dimension's index in counts
  uint bits;  // its bitmap's first word in Bits, or STAR_EMPTY
} pc;
#if defined(STAR_FILL_CNF)
#include "cnf_eval.glsl"
#endif

int group_value(uint c, uint row) {
  switch (c) {
    case 0u: return g0[row];
    case 1u: return g1[row];
    case 2u: return g2[row];
    default: return g3[row];
  }
}

// This invocation's smallest and largest slot filled, and the workgroup's.
uint low = 0xffffffffu, high = 0u;
shared uint s_low, s_high;

void fill(uint row) {
  uint code = 0u;
  for (uint c = 0u; c < pc.columns; ++c) code += uint(group_value(c, row) - pc.mins[c]) * pc.strides[c];
  const uint slot = uint(key[row]) - uint(pc.kmin);
  table[slot] = code;
  if (pc.bits != STAR_EMPTY) atomicOr(bits[pc.bits + (slot >> 5)], 1u << (slot & 31u));
  low = min(low, slot);
  high = max(high, slot);
}

void main() {
  const uint step = gl_NumWorkGroups.x * STAR_WG;
  uint filled = 0u;
  if (gl_LocalInvocationIndex == 0u) {
    s_low = 0xffffffffu;
    s_high = 0u;
  }
  barrier();
#if defined(STAR_FILL_CNF)
  // Four rows per invocation: the condition on their slot columns' uvec4 words, then the rows that pass.
  cnf_load_intervals();
  const uint quads = (pc.count + 3u) / 4u;
  for (uint q = gl_GlobalInvocationID.x; q < quads; q += step) {
    const uint first = 4u * q;
    const bvec4 valid = bvec4(first < pc.count, first + 1u < pc.count, first + 2u < pc.count, first + 3u < pc.count);
    uvec4 raw[SLOTS];
    for (uint s = 0u; s < SLOTS; ++s) raw[s] = s < pc.slot_count ? load_slot(s, q) : uvec4(0u);
    const bvec4 pass = cnf_test(raw, valid);
    for (uint r = 0u; r < 4u; ++r)
      if (pass[r]) {
        fill(first + r);
        ++filled;
      }
  }
#else
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += step) {
    fill(pc.selected != 0u ? sel[i] : i);
    ++filled;
  }
#endif
  if (filled != 0u) atomicAdd(counts[pc.dim], filled);
  // The bounds: the workgroup's in shared memory, then one atomic each.
  if (low <= high) {
    atomicMin(s_low, low);
    atomicMax(s_high, high);
  }
  barrier();
  if (gl_LocalInvocationIndex == 0u && s_low <= s_high) {
    atomicMin(counts[4u + pc.dim], s_low);
    atomicMax(counts[8u + pc.dim], s_high);
  }
}
#endif

#if defined(STAR_PROBE) || defined(STAR_CNF)
// Bindings: 0 = selected fact row ids (any buffer when not selected), 1..4 = the fact's key column
// of each dimension, 5..8 = each dimension's table, 9..12 = value columns (unused ones bound to any
// buffer), 13 = group words, 14 = the dimensions' bounds (star_fill's counts); STAR_PROBE: 15 = the
// dimensions' bitmaps (star_fill's Bits).
layout(std430, binding = 0) readonly buffer Sel { uint sel[]; };
layout(std430, binding = 1) readonly buffer K0 { uint k0[]; };
layout(std430, binding = 2) readonly buffer K1 { uint k1[]; };
layout(std430, binding = 3) readonly buffer K2 { uint k2[]; };
layout(std430, binding = 4) readonly buffer K3 { uint k3[]; };
layout(std430, binding = 5) readonly buffer T0 { uint t0[]; };
layout(std430, binding = 6) readonly buffer T1 { uint t1[]; };
layout(std430, binding = 7) readonly buffer T2 { uint t2[]; };
layout(std430, binding = 8) readonly buffer T3 { uint t3[]; };
layout(std430, binding = 9) readonly buffer V0 { int v0[]; };
layout(std430, binding = 10) readonly buffer V1 { int v1[]; };
layout(std430, binding = 11) readonly buffer V2 { int v2[]; };
layout(std430, binding = 12) readonly buffer V3 { int v3[]; };
layout(std430, binding = 13) buffer Acc { uint64_t acc[]; };
layout(std430, binding = 14) readonly buffer Counts { uint counts[]; };
#if defined(STAR_PROBE)
// 16..19 = bindings 1..4 again, as uvec4 words, 20..23 = bindings 9..12 again, as ivec4 words.
layout(std430, binding = 15) readonly buffer Bits { uint bits[]; };
layout(std430, binding = 16) readonly buffer KQ0 { uvec4 kq0[]; };
layout(std430, binding = 17) readonly buffer KQ1 { uvec4 kq1[]; };
layout(std430, binding = 18) readonly buffer KQ2 { uvec4 kq2[]; };
layout(std430, binding = 19) readonly buffer KQ3 { uvec4 kq3[]; };
layout(std430, binding = 20) readonly buffer VQ0 { ivec4 vq0[]; };
layout(std430, binding = 21) readonly buffer VQ1 { ivec4 vq1[]; };
layout(std430, binding = 22) readonly buffer VQ2 { ivec4 vq2[]; };
layout(std430, binding = 23) readonly buffer VQ3 { ivec4 vq3[]; };
#endif
#if defined(STAR_CNF)
// 15 = the fact condition's term table, 16..23 = its slot columns (uvec4[]; unused ones any buffer),
// 24..27 = bindings 1..4 again, as uvec4 words, 28..31 = bindings 9..12 again, as ivec4 words.
#ifndef SLOTS
#define SLOTS 8
#endif
layout(std430, binding = 15) readonly buffer Program { uint program[]; };
layout(std430, binding = 16) readonly buffer Slot0 { uvec4 slot0[]; };
layout(std430, binding = 17) readonly buffer Slot1 { uvec4 slot1[]; };
layout(std430, binding = 18) readonly buffer Slot2 { uvec4 slot2[]; };
layout(std430, binding = 19) readonly buffer Slot3 { uvec4 slot3[]; };
layout(std430, binding = 20) readonly buffer Slot4 { uvec4 slot4[]; };
layout(std430, binding = 21) readonly buffer Slot5 { uvec4 slot5[]; };
layout(std430, binding = 22) readonly buffer Slot6 { uvec4 slot6[]; };
layout(std430, binding = 23) readonly buffer Slot7 { uvec4 slot7[]; };
layout(std430, binding = 24) readonly buffer KQ0 { uvec4 kq0[]; };
layout(std430, binding = 25) readonly buffer KQ1 { uvec4 kq1[]; };
layout(std430, binding = 26) readonly buffer KQ2 { uvec4 kq2[]; };
layout(std430, binding = 27) readonly buffer KQ3 { uvec4 kq3[]; };
layout(std430, binding = 28) readonly buffer VQ0 { ivec4 vq0[]; };
layout(std430, binding = 29) readonly buffer VQ1 { ivec4 vq1[]; };
layout(std430, binding = 30) readonly buffer VQ2 { ivec4 vq2[]; };
layout(std430, binding = 31) readonly buffer VQ3 { ivec4 vq3[]; };
#endif
layout(push_constant) uniform Push {
  uint rows;      // fact rows taking part (STAR_CNF: every fact row)
  uint selected;  // 1: row i is sel[i]
  uint dims;      // dimensions (1..4)
  uint aggs;      // aggregates with a value (0..4)
  uint stride;    // words per group: 1 + 2 * aggs
  uint domain;    // groups
  uint kmin[4];   // each dimension's smallest key (as uint)
  uint code[4];   // each aggregate: op | x operand << 4 | y operand << 8
  int literal[4];
  // STAR_CNF: the fact's condition (cnf_eval.glsl; intervals: 0, or its raw-bit interval tests).
  uint terms;
  uint float_slots;
  uint slot_count;
  uint intervals;
  uint drows[4];  // each dimension's rows (its selected share orders the probes)
  uint values;    // value columns bound (0..4)
  uint bits[4];   // STAR_PROBE: each dimension's bitmap's first word in Bits, or STAR_EMPTY
  uint copies;    // copies of the group words (1 or STAR_ACC_COPIES)
} pc;

shared uint64_t s_red[STAR_WG];
// Each dimension's filled slot bounds: s_bounds[d] smallest, s_bounds[4 + d] largest.
shared uint s_bounds[8];
#if defined(STAR_CNF)
#include "cnf_eval.glsl"
#endif

uint fact_key(uint d, uint row) {
  switch (d) {
    case 0u: return k0[row];
    case 1u: return k1[row];
    case 2u: return k2[row];
    default: return k3[row];
  }
}

#if defined(STAR_CNF) || defined(STAR_PROBE)
uvec4 fact_key4(uint d, uint q) {
  switch (d) {
    case 0u: return kq0[q];
    case 1u: return kq1[q];
    case 2u: return kq2[q];
    default: return kq3[q];
  }
}
#endif

uint table_at(uint d, uint slot) {
  switch (d) {
    case 0u: return t0[slot];
    case 1u: return t1[slot];
    case 2u: return t2[slot];
    default: return t3[slot];
  }
}

int64_t operand(uint which, uint row, int literal) {
  switch (which) {
    case 0u: return int64_t(v0[row]);
    case 1u: return int64_t(v1[row]);
    case 2u: return int64_t(v2[row]);
    case 3u: return int64_t(v3[row]);
    default: return int64_t(literal);
  }
}

// x + y, x - y or x * y by the binary op (STAR_OP_ADD, _SUB, _MUL).
int64_t combine(uint op, int64_t x, int64_t y) {
  if (op == STAR_OP_ADD) return x + y;
  if (op == STAR_OP_SUB) return x - y;
  return x * y;
}

int64_t value_of(uint a, uint row) {
  const uint c = pc.code[a];
  const int64_t x = operand((c >> 4) & 15u, row, pc.literal[a]);
  const uint op = c & 15u;
  if (op == STAR_OP_X) return x;
  return combine(op, x, operand((c >> 8) & 15u, row, pc.literal[a]));
}

// Sum over the workgroup of every lane's `v` (uniform control flow; lane 0 reads the result).
uint64_t workgroup_sum(uint64_t v) {
  const uint lane = gl_LocalInvocationIndex;
  s_red[lane] = v;
  barrier();
  for (uint half_ = STAR_WG / 2u; half_ > 0u; half_ >>= 1u) {
    if (lane < half_) s_red[lane] += s_red[lane + half_];
    barrier();
  }
  const uint64_t total = s_red[0];
  barrier();
  return total;
}

// The dimensions in the order probed, two bits each (the j-th at bits 2j): the smallest selected
// share first (a row stops at its first miss, so later key columns are read for fewer rows).
uint order = 0u;
#if defined(STAR_PROBE)
// Dimensions whose bitmap is tested before their table (bit d): those with a bitmap that keep at
// most 1/8 of their rows (most fact rows miss them: the bitmap, 1/32 of the table, stays in L1).
uint bitmapped = 0u;
#endif

// The first word of this workgroup's copy of the group words.
uint acc_base = 0u;

// Domain 1: this lane's rows, summed privately.
uint64_t p_count = 0ul;
uint64_t p_lo[STAR_MAX_AGGS];
uint64_t p_hi[STAR_MAX_AGGS];

// Dimension d's code of the key at `slot` (key - kmin), or STAR_EMPTY: a slot outside the
// dimension's filled bounds (or, STAR_PROBE, not in its bitmap when it has one) misses without
// reading the table.
uint dim_code(uint d, uint slot) {
  const bool inside = slot >= s_bounds[d] && slot <= s_bounds[4u + d];
#if defined(STAR_PROBE)
  const bool hit = inside && (bitmapped & (1u << d)) != 0u
                       ? (bits[pc.bits[d] + (slot >> 5)] & (1u << (slot & 31u))) != 0u
                       : inside;
#else
  const bool hit = inside;
#endif
  return hit ? table_at(d, slot) : STAR_EMPTY;
}

#if defined(STAR_PROBE)
// The group of fact row `row` when it finds every dimension (`first_key`: its key in the dimension
// probed first), else STAR_EMPTY. No subgroup operations here or after it: a row's lanes need not
// be converged (on the H200 a ballot loop after this divergent loop lost rows).
uint group_of(uint row, uint first_key) {
  uint g = 0u;
  for (uint j = 0u; j < pc.dims; ++j) {
    const uint d = (order >> (2u * j)) & 3u;
    const uint c = dim_code(d, (j == 0u ? first_key : fact_key(d, row)) - pc.kmin[d]);
    if (c == STAR_EMPTY) return STAR_EMPTY;
    g += c;
  }
  return g;
}
#endif

// Adds aggregate a's value v to group g: its low word (unsigned) and high word (signed) to the two
// sums; with one group (domain 1) to this lane's private sums, else by 64-bit atomics.
void add_value(uint g, uint a, int64_t v) {
  const uint64_t lo = uint64_t(v) & 0xfffffffful, hi = uint64_t(v >> 32);
  if (pc.domain == 1u) {
    p_lo[a] += lo;
    p_hi[a] += hi;
    return;
  }
  const uint at = acc_base + g * pc.stride + 1u + 2u * a;
  if (lo != 0ul) atomicAdd(acc[at], lo);
  if (hi != 0ul) atomicAdd(acc[at + 1u], hi);
}

// Adds 1 to group g's count.
void add_count(uint g) {
  if (pc.domain == 1u)
    p_count += 1ul;
  else
    atomicAdd(acc[acc_base + g * pc.stride], 1ul);
}

ivec4 value_quad(uint c, uint q) {
  switch (c) {
    case 0u: return vq0[q];
    case 1u: return vq1[q];
    case 2u: return vq2[q];
    default: return vq3[q];
  }
}

// An operand of row r of a quad whose value columns are `vals`.
int64_t quad_operand(uint which, uint r, const ivec4 vals[STAR_MAX_VALUES], int literal) {
  return which == 0u ? int64_t(vals[0][r])
       : which == 1u ? int64_t(vals[1][r])
       : which == 2u ? int64_t(vals[2][r])
       : which == 3u ? int64_t(vals[3][r])
                     : int64_t(literal);
}

// Aggregate a's value for row r of the quad.
int64_t quad_value(uint a, uint r, const ivec4 vals[STAR_MAX_VALUES]) {
  const uint c = pc.code[a];
  const int64_t x = quad_operand((c >> 4) & 15u, r, vals, pc.literal[a]);
  const uint op = c & 15u;
  if (op == STAR_OP_X) return x;
  return combine(op, x, quad_operand((c >> 8) & 15u, r, vals, pc.literal[a]));
}

// The quad's rows that are found in every dimension and their values added (`alive`: the rows
// still taking part, `keys`: their keys in the dimension probed first). Each dimension's key column
// is read as one uvec4 while a row of the quad is left, and the four rows' table lookups are issued
// together, so that a warp waits for each dimension once per four rows rather than once per row.
void add_quad(uint q, bvec4 alive, uvec4 keys) {
  uvec4 groups = uvec4(0u);
  for (uint j = 0u; j < pc.dims; ++j) {
    if (!any(alive)) return;
    const uint d = (order >> (2u * j)) & 3u;
    const uvec4 slots = (j == 0u ? keys : fact_key4(d, q)) - pc.kmin[d];
    [[unroll]] for (uint r = 0u; r < 4u; ++r) {
      const uint c = alive[r] ? dim_code(d, slots[r]) : STAR_EMPTY;
      alive[r] = c != STAR_EMPTY;
      groups[r] += c;
    }
  }
  if (!any(alive)) return;
  ivec4 vals[STAR_MAX_VALUES];
  [[unroll]] for (uint c = 0u; c < STAR_MAX_VALUES; ++c) vals[c] = c < pc.values ? value_quad(c, q) : ivec4(0);
  [[unroll]] for (uint r = 0u; r < 4u; ++r) {
    if (!alive[r]) continue;
    add_count(groups[r]);
    [[unroll]] for (uint a = 0u; a < STAR_MAX_AGGS; ++a)
      if (a < pc.aggs) add_value(groups[r], a, quad_value(a, r, vals));
  }
}

void main() {
  const uint lane = gl_LocalInvocationIndex;
  acc_base = (gl_WorkGroupID.x % pc.copies) * pc.domain * pc.stride;
  for (uint a = 0u; a < STAR_MAX_AGGS; ++a) p_lo[a] = p_hi[a] = 0ul;
  // Each dimension's rank by selected share counts[d] / drows[d] (cross-multiplied; ties by index).
  [[unroll]] for (uint d = 0u; d < STAR_MAX_DIMS; ++d) {
    uint rank = 0u;
    [[unroll]] for (uint e = 0u; e < STAR_MAX_DIMS; ++e) {
      const uint64_t se = uint64_t(counts[e]) * pc.drows[d], sd = uint64_t(counts[d]) * pc.drows[e];
      if (d < pc.dims && e < pc.dims && (se < sd || (se == sd && e < d))) ++rank;
    }
    if (d < pc.dims) order |= d << (2u * rank);
#if defined(STAR_PROBE)
    if (d < pc.dims && pc.bits[d] != STAR_EMPTY && uint64_t(counts[d]) * 8ul <= uint64_t(pc.drows[d]))
      bitmapped |= 1u << d;
#endif
  }
  if (lane < 8u) s_bounds[lane] = counts[4u + lane];
  barrier();
  const uint first_dim = order & 3u;
#if defined(STAR_CNF)
  // Four rows per lane: the fact's condition on their slot columns' uvec4 words, then each row.
  cnf_load_intervals();
  const uint quads = (pc.rows + 3u) / 4u;
  for (uint base = gl_WorkGroupID.x * STAR_WG; base < quads; base += gl_NumWorkGroups.x * STAR_WG) {
    const uint q = base + lane;
    const uint first = 4u * q;
    const bvec4 valid = bvec4(first < pc.rows, first + 1u < pc.rows, first + 2u < pc.rows, first + 3u < pc.rows);
    // The condition's columns and the first dimension's keys in flight together; a row passes the
    // condition and that dimension's bounds.
    uvec4 raw[SLOTS];
    for (uint s = 0u; s < SLOTS; ++s) raw[s] = q < quads && s < pc.slot_count ? load_slot(s, q) : uvec4(0u);
    const uvec4 keys = q < quads ? fact_key4(first_dim, q) : uvec4(0u);
    const uvec4 slots = keys - pc.kmin[first_dim];
    const bvec4 in_bounds = bvec4(uvec4(greaterThanEqual(slots, uvec4(s_bounds[first_dim]))) &
                                  uvec4(lessThanEqual(slots, uvec4(s_bounds[4u + first_dim]))));
    const bvec4 pass = q < quads ? bvec4(uvec4(cnf_test(raw, valid)) & uvec4(in_bounds)) : bvec4(false);
    add_quad(q, pass, keys);
  }
#else
  if (pc.selected == 0u) {
    // Four rows per lane, each dimension's keys and the values read as uvec4 / ivec4 words.
    const uint quads = (pc.rows + 3u) / 4u;
    for (uint q = gl_GlobalInvocationID.x; q < quads; q += gl_NumWorkGroups.x * STAR_WG) {
      const uint first = 4u * q;
      add_quad(q, bvec4(first < pc.rows, first + 1u < pc.rows, first + 2u < pc.rows, first + 3u < pc.rows),
               fact_key4(first_dim, q));
    }
  } else {
    for (uint base = gl_WorkGroupID.x * STAR_WG; base < pc.rows; base += gl_NumWorkGroups.x * STAR_WG) {
      const uint i = base + lane;
      if (i >= pc.rows) break;
      const uint row = sel[i];
      const uint g = group_of(row, fact_key(first_dim, row));
      if (g == STAR_EMPTY) continue;
      add_count(g);
      [[unroll]] for (uint a = 0u; a < STAR_MAX_AGGS; ++a)
        if (a < pc.aggs) add_value(g, a, value_of(a, row));
    }
  }
#endif
  if (pc.domain == 1u) {
    const uint64_t n = workgroup_sum(p_count);
    uint64_t s_lo[STAR_MAX_AGGS], s_hi[STAR_MAX_AGGS];
    for (uint a = 0u; a < STAR_MAX_AGGS; ++a) {
      s_lo[a] = a < pc.aggs ? workgroup_sum(p_lo[a]) : 0ul;
      s_hi[a] = a < pc.aggs ? workgroup_sum(p_hi[a]) : 0ul;
    }
    if (lane == 0u && n != 0ul) {
      atomicAdd(acc[0], n);
      for (uint a = 0u; a < pc.aggs; ++a) {
        atomicAdd(acc[1u + 2u * a], s_lo[a]);
        atomicAdd(acc[2u + 2u * a], s_hi[a]);
      }
    }
  }
}
#endif

#if defined(STAR_FOLD)
// Bindings: 0 = group words, `copies` copies of `words` words each.
layout(std430, binding = 0) buffer Acc { uint64_t acc[]; };
layout(push_constant) uniform Push {
  uint words;
  uint copies;
} pc;

void main() {
  const uint step = gl_NumWorkGroups.x * STAR_WG;
  for (uint w = gl_GlobalInvocationID.x; w < pc.words; w += step) {
    uint64_t sum = 0ul;
    for (uint c = 1u; c < pc.copies; ++c) sum += acc[c * pc.words + w];
    if (sum != 0ul) acc[w] += sum;
  }
}
#endif

#if defined(STAR_COLLECT)
// Bindings: 0 = group words, 1 = the list: word 0 counts the groups, word 1 + j is group j's index,
// 2 = the groups' words in list order (stride words each).
layout(std430, binding = 0) readonly buffer Acc { uint64_t acc[]; };
layout(std430, binding = 1) buffer List { uint list[]; };
layout(std430, binding = 2) writeonly buffer Words { uint64_t words[]; };
layout(push_constant) uniform Push {
  uint domain;
  uint stride;
} pc;

void main() {
  const uint step = gl_NumWorkGroups.x * STAR_WG;
  for (uint g = gl_GlobalInvocationID.x; g < pc.domain; g += step) {
    const uint at = g * pc.stride;
    if (acc[at] == 0ul) continue;
    const uint j = atomicAdd(list[0], 1u);
    list[1u + j] = g;
    for (uint w = 0u; w < pc.stride; ++w) words[j * pc.stride + w] = acc[at + w];
  }
}
#endif
