// Row-wise CNF evaluation of the fused WHERE kernels (cnf_scan.comp, cnf_select.comp): the
// raw-bit interval test, order keys and the term loop over the term table (encoding:
// src/vk/relational/cnf_program.h), with exact int32 vs float32 comparisons.
// The includer defines SLOTS (1, 2, 4 or 8) and declares first `readonly buffer { uint program[]; }`,
// the slot columns slot0 .. slot7 (uvec4[]; slot1..7 only when SLOTS > 1) and a push-constant
// block `pc` with the fields terms, float_slots, slot_count and intervals; it calls
// cnf_load_intervals() once, then cnf_test() for each four rows.
// Requires GL_EXT_shader_explicit_arithmetic_types_int64 and GL_EXT_control_flow_attributes.
// CNF_UNIFORM_EXIT (defined by an includer that runs subgroup operations after cnf_test, with
// GL_KHR_shader_subgroup_vote): the term loop and the no-row return are left only when the whole
// subgroup leaves them, so every lane comes out of cnf_test together (COMPUTE.md, "Subgroup
// operations"); otherwise each lane leaves as soon as its rows are decided.
#ifndef GFXQ_CNF_EVAL_GLSL
#define GFXQ_CNF_EVAL_GLSL
#if defined(CNF_UNIFORM_EXIT)
#define CNF_ALL(c) subgroupAll(c)
#else
#define CNF_ALL(c) (c)
#endif
#include "cnf_interval_config.glsl"

// Single-column programs of literal comparisons only accept a union of at most 4 intervals of the
// column's raw bits (taken modulo 2^32), written after the terms (program[2 * terms + 2i] = first
// pattern, + 1 = last - first; vk::detail::raw_intervals): the test is then one subtraction and
// one unsigned comparison per interval on the loaded bits, with no order-key transform.
uint iv_lo[4], iv_width[4];
#if defined(CNF_INTERVALS_ONLY)
// The interval kernels of a FLOAT column may compare floats instead (cnf_interval_config.glsl,
// vk::detail::float_test): CNF_FLOAT_TEST is set when the pipeline is created, so only its
// compares are compiled.
layout(constant_id = 0) const uint CNF_FLOAT_TEST = CNF_FLOAT_RAW;
float fb_lo, fb_hi;
#endif

// Reads the intervals (pc.intervals: 0, or 1..4 after the pc.terms terms) and the float bounds.
// Kernels of several slots read each slot's intervals where they test them (cnf_in_slot_intervals).
void cnf_load_intervals() {
#if SLOTS == 1
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    iv_lo[i] = i < pc.intervals ? program[2u * pc.terms + 2u * i] : 0u;
    iv_width[i] = i < pc.intervals ? program[2u * pc.terms + 2u * i + 1u] : 0u;
  }
#if defined(CNF_INTERVALS_ONLY)
  if (CNF_FLOAT_TEST != CNF_FLOAT_RAW) {
    fb_lo = uintBitsToFloat(program[2u * pc.terms + 2u * pc.intervals]);
    fb_hi = uintBitsToFloat(program[2u * pc.terms + 2u * pc.intervals + 1u]);
  }
#endif
#endif
}

// Whether each of four rows' raw bits lies in one of the intervals (pc.intervals != 0). The
// float tests are IEEE compares: ordered ones are false for NaN, the negated one true.
bvec4 cnf_in_intervals(uvec4 raw) {
#if defined(CNF_INTERVALS_ONLY)
  const vec4 x = uintBitsToFloat(raw);
  if (CNF_FLOAT_TEST == CNF_FLOAT_LE) return lessThanEqual(x, vec4(fb_hi));
  if (CNF_FLOAT_TEST == CNF_FLOAT_GE) return greaterThanEqual(x, vec4(fb_lo));
  if (CNF_FLOAT_TEST == CNF_FLOAT_RANGE)
    return bvec4(uvec4(greaterThanEqual(x, vec4(fb_lo))) & uvec4(lessThanEqual(x, vec4(fb_hi))));
  if (CNF_FLOAT_TEST == CNF_FLOAT_GE_NAN) return not(lessThan(x, vec4(fb_lo)));
#endif
  uvec4 hit = uvec4(lessThanEqual(raw - iv_lo[0], uvec4(iv_width[0])));
  [[unroll]] for (uint i = 1u; i < 4u; ++i)
    if (i < pc.intervals) hit |= uvec4(lessThanEqual(raw - iv_lo[i], uvec4(iv_width[i])));
  return bvec4(hit);
}

#if SLOTS > 1
// Programs whose every clause compares one column with literals: pc.intervals holds each slot's
// interval count (4 bits per slot, 0: the slot is not tested), slot s's intervals are at
// program[2 * pc.terms + 8 * s + 2 * k] (first, last - first; vk::detail::slot_intervals), and a
// row passes when each tested slot's raw bits lie in one of its intervals. The slots and intervals
// are unrolled, so every raw[s] stays in a register and the bounds are uniform loads.
bvec4 cnf_in_slot_intervals(const uvec4 raw[SLOTS]) {
  uvec4 pass = uvec4(1u);
  [[unroll]] for (uint s = 0u; s < SLOTS; ++s) {
    const uint n = (pc.intervals >> (4u * s)) & 15u;
    if (n != 0u) {
      uvec4 hit = uvec4(0u);
      [[unroll]] for (uint k = 0u; k < 4u; ++k)
        if (k < n) {
          const uint at = 2u * pc.terms + 8u * s + 2u * k;
          hit |= uvec4(lessThanEqual(raw[s] - program[at], uvec4(program[at + 1u])));
        }
      pass &= hit;
    }
  }
  return bvec4(pass);
}
#endif

// --- order keys (core/order_key.h): unsigned order = total order; NaN canonical, -0.0 = +0.0
uvec4 to_key(uvec4 raw, bool is_float) {
  if (!is_float) return raw ^ 0x80000000u;
  const uvec4 mag = raw & 0x7fffffffu;
  uvec4 b = mix(raw, uvec4(0x7fc00000u), greaterThan(mag, uvec4(0x7f800000u)));
  b = mix(b, uvec4(0u), equal(mag, uvec4(0u)));
  return mix(b | 0x80000000u, ~b, notEqual(b >> 31, uvec4(0u)));
}

// Raw bits of the canonical value of a key.
uvec4 from_key(uvec4 key, bool is_float) {
  if (!is_float) return key ^ 0x80000000u;
  return mix(~key, key & 0x7fffffffu, notEqual(key >> 31, uvec4(0u)));
}

bvec4 compare(uvec4 a, uvec4 b, uint op) {
  switch (op) {
    case 0u: return lessThan(a, b);
    case 1u: return lessThanEqual(a, b);
    case 2u: return greaterThan(a, b);
    case 3u: return greaterThanEqual(a, b);
    case 4u: return equal(a, b);
    default: return notEqual(a, b);
  }
}

// Exact int32 vs float32 in the total order: -1, 0, 1 as 0, 1, 2 (proof at vk::compare_int_float).
uint compare_int_float(int i, uint bits) {
  const uint e = (bits >> 23) & 0xffu, m = bits & 0x7fffffu;
  const bool neg = (bits >> 31) != 0u;
  if (e == 0xffu) return (m != 0u || !neg) ? 0u : 2u;
  const int64_t mm = int64_t(e != 0u ? (m | 0x800000u) : m);
  const int ex = int(max(e, 1u)) - 150;
  int64_t t = 0;
  bool frac = false;
  if (ex >= 9) {
    t = int64_t(1) << 32;
  } else if (ex >= 0) {
    t = mm << ex;
  } else if (ex > -24) {
    t = mm >> (-ex);
    frac = (mm & ((int64_t(1) << (-ex)) - 1)) != 0;
  } else {
    frac = mm != 0;
  }
  const int64_t f = neg ? -t : t;
  const int64_t ii = int64_t(i);
  if (ii < f) return 0u;
  if (ii > f) return 2u;
  if (!frac) return 1u;
  return neg ? 2u : 0u;
}

// The keys of every slot for the four rows being tested.
uvec4 keys[SLOTS];

uvec4 key_of(uint s) {
#if SLOTS == 1
  return keys[0];
#else
  uvec4 k = keys[0];
  [[unroll]] for (uint i = 1u; i < SLOTS; ++i)
    if (s == i) k = keys[i];
  return k;
#endif
}

uvec4 load_slot(uint s, uint i) {
  switch (s) {
    case 0u: return slot0[i];
#if SLOTS > 1
    case 1u: return slot1[i];
    case 2u: return slot2[i];
    case 3u: return slot3[i];
    case 4u: return slot4[i];
    case 5u: return slot5[i];
    case 6u: return slot6[i];
    default: return slot7[i];
#else
    default: return slot0[i];
#endif
  }
}

// The CNF's terms over the four rows whose keys are in keys[] (`valid`: which rows exist).
bvec4 cnf_evaluate(bvec4 valid) {
  bvec4 pass = valid;
  bvec4 clause = bvec4(false);
  for (uint t = 0u; t < pc.terms; ++t) {
    const uint w = program[2u * t];
    const uint op = w & 7u, kind = (w >> 3) & 3u, lhs = (w >> 8) & 15u, rhs = (w >> 12) & 15u;
    const uvec4 a = key_of(lhs);
    bvec4 r;
    if (kind == 0u) {
      r = compare(a, uvec4(program[2u * t + 1u]), op);
    } else if (kind == 1u) {
      r = compare(a, key_of(rhs), op);
    } else {
      const ivec4 iv = ivec4(from_key(a, false));
      const uvec4 fv = from_key(key_of(rhs), true);
      const uvec4 c = uvec4(compare_int_float(iv.x, fv.x), compare_int_float(iv.y, fv.y),
                            compare_int_float(iv.z, fv.z), compare_int_float(iv.w, fv.w));
      r = compare(c, uvec4(1u), op);
    }
    clause = bvec4(uvec4(clause) | uvec4(r));
    if (((w >> 16) & 1u) != 0u) {
      pass = bvec4(uvec4(pass) & uvec4(clause));
      clause = bvec4(false);
      if (CNF_ALL(!any(pass))) break;
    }
  }
  return pass;
}

// Which of four rows (raw bits of every slot; `valid`: which rows exist) pass: the interval test
// on slot 0's bits (several slots: on each tested slot's bits), else the terms on the order keys of
// every slot. With CNF_INTERVALS_ONLY the
// kernel is the interval variant (the host binds it only when pc.intervals != 0) and holds no term
// code: inlined into every unrolled sub-round, the term loop made cnf_count_s1 a 154 KB binary of
// 127 registers on the H200, against 39 registers for a plain read of the column.
bvec4 cnf_test(const uvec4 raw[SLOTS], bvec4 valid) {
#if defined(CNF_INTERVALS_ONLY)
  return bvec4(uvec4(valid) & uvec4(cnf_in_intervals(raw[0])));
#else
#if SLOTS == 1
  if (pc.intervals != 0u) return bvec4(uvec4(valid) & uvec4(cnf_in_intervals(raw[0])));
#else
  if (pc.intervals != 0u) return bvec4(uvec4(valid) & uvec4(cnf_in_slot_intervals(raw)));
#endif
  if (CNF_ALL(!any(valid))) return valid;
  [[unroll]] for (uint s = 0u; s < SLOTS; ++s)
    keys[s] = s < pc.slot_count ? to_key(raw[s], ((pc.float_slots >> s) & 1u) != 0u) : uvec4(0u);
  return cnf_evaluate(valid);
#endif
}

#endif
