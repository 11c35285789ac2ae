// The terms of a join condition tested on one pair (probe row a, build row b), exactly: each term
// becomes the interval of 64-bit total-order keys (join_k64) of build values it accepts for the
// probe's value, and the build value's key is compared against it. Band terms add the offsets in
// double arithmetic (the CPU reference's `a + lo`), so kernels that test them are compiled with
// JOIN_BAND and need shaderFloat64; the double sum of two non-denormal operands never is a
// denormal (the host makes denormal offsets +-DBL_MIN, which pairs the same rows), so no device's
// denormal flushing changes it.
// The includer declares `join_terms` (uint[]: JOIN_TERM_WORDS per term) and the key columns
// `a_col0..3`, `b_col0..3` (uint[]). Needs join_keys.glsl.
#ifndef GFXQ_JOIN_TERMS_GLSL
#define GFXQ_JOIN_TERMS_GLSL

uint join_a_value(uint c, uint row) {
  switch (c) {
    case 0u: return a_col0[row];
    case 1u: return a_col1[row];
    case 2u: return a_col2[row];
    default: return a_col3[row];
  }
}

uint join_b_value(uint c, uint row) {
  switch (c) {
    case 0u: return b_col0[row];
    case 1u: return b_col1[row];
    case 2u: return b_col2[row];
    default: return b_col3[row];
  }
}

// The interval [lo, hi] of build keys (join_k64) that term `t` accepts for probe value `a_raw`.
void join_term_interval(uint t, uint a_raw, out uint64_t lo, out uint64_t hi) {
  const uint base = t * JOIN_TERM_WORDS;
  const uint op = join_terms[base + 2u];
  const uint64_t da = join_dbits(a_raw, join_terms[base + 3u] & 0xFFu);
  const uint64_t ka = join_k64(da);
  lo = 0ul;
  hi = 0xFFFFFFFFFFFFFFFFul;
  if (op == JOIN_OP_EQ) {
    lo = ka;
    hi = ka;
  } else if (op == JOIN_OP_LT) {  // a < b
    lo = ka + 1ul;
  } else if (op == JOIN_OP_LE) {
    lo = ka;
  } else if (op == JOIN_OP_GT) {  // a > b
    hi = ka - 1ul;
  } else if (op == JOIN_OP_GE) {
    hi = ka;
  } else {
#ifdef JOIN_BAND
    const double a = uint64BitsToDouble(da);
    const double off_lo = uint64BitsToDouble(uint64_t(join_terms[base + 4u]) | (uint64_t(join_terms[base + 5u]) << 32));
    const double off_hi = uint64BitsToDouble(uint64_t(join_terms[base + 6u]) | (uint64_t(join_terms[base + 7u]) << 32));
    precise double from = a + off_lo;
    precise double to = a + off_hi;
    lo = join_k64(doubleBitsToUint64(from));
    hi = join_k64(doubleBitsToUint64(to));
#else
    hi = 0ul;  // never: the host runs band terms through the JOIN_BAND kernels only
    lo = 1ul;
#endif
  }
}

// Whether pair (a_row, b_row) passes terms [0, count).
bool join_pair_passes(uint count, uint a_row, uint b_row) {
  for (uint t = 0u; t < count; ++t) {
    const uint base = t * JOIN_TERM_WORDS;
    uint64_t lo, hi;
    join_term_interval(t, join_a_value(join_terms[base], a_row), lo, hi);
    const uint64_t kb = join_k64(join_dbits(join_b_value(join_terms[base + 1u], b_row), join_terms[base + 3u] >> 8));
    if (kb < lo || kb > hi) return false;
  }
  return true;
}

#endif
