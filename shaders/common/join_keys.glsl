// Exact key arithmetic of the join kernels, in integer operations only (no float compare or
// conversion, which a driver may flush to zero on denormals: lavapipe does):
// - join_key32: the 32-bit order key of an INT or FLOAT value (int_key / float_key of order_key.h);
// - join_dbits: the exact double of an INT or FLOAT value, as its IEEE bits;
// - join_k64: the 64-bit total-order key of a double (-0.0 = +0.0, every NaN equal and largest), so
//   INT against FLOAT compares exactly as the CPU's compare_total of doubles;
// - join_lower_key / join_upper_key: the interval of build-side 32-bit keys whose values are >= or
//   <= a double (core/key_compare.h's literal translation, on the device);
// - join_int_of_float: a FLOAT's value as an int32 when it is one (equi-joins of INT with FLOAT).
// Needs join_config.glsl and GL_EXT_shader_explicit_arithmetic_types_int64.
#ifndef GFXQ_JOIN_KEYS_GLSL
#define GFXQ_JOIN_KEYS_GLSL

const uint64_t JOIN_MANTISSA = 0x000FFFFFFFFFFFFFul;
const uint64_t JOIN_ABS = 0x7FFFFFFFFFFFFFFFul;
const uint64_t JOIN_INF64 = 0x7FF0000000000000ul;
const uint64_t JOIN_NAN64 = 0x7FF8000000000000ul;
const uint64_t JOIN_SIGN64 = 0x8000000000000000ul;

// The 32-bit order key of a raw value: INT sign bit flipped; FLOAT float_key (canonical NaN, +0.0).
uint join_key32(uint raw, uint type) {
  if (type == JOIN_TYPE_INT) return raw ^ 0x80000000u;
  uint b = raw;
  if ((b & 0x7fffffffu) > 0x7f800000u) b = 0x7fc00000u;
  if (b == 0x80000000u) b = 0u;
  return (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);
}

// The bits of the double equal to int32 `raw`.
uint64_t join_dbits_int(uint raw) {
  if (raw == 0u) return 0ul;
  const uint64_t sign = (raw & 0x80000000u) != 0u ? JOIN_SIGN64 : 0ul;
  const uint m = (raw & 0x80000000u) != 0u ? (~raw + 1u) : raw;  // |value|; 2^31 for INT_MIN
  const int e = findMSB(m);
  return sign | (uint64_t(e + 1023) << 52) | ((uint64_t(m) << (52 - e)) & JOIN_MANTISSA);
}

// The bits of the double equal to float32 `raw` (NaN: the canonical quiet NaN; denormals are
// normal doubles).
uint64_t join_dbits_float(uint raw) {
  const uint64_t sign = uint64_t(raw >> 31) << 63;
  const uint e8 = (raw >> 23) & 0xFFu, m = raw & 0x7FFFFFu;
  if (e8 == 255u) return m == 0u ? (sign | JOIN_INF64) : JOIN_NAN64;
  if (e8 == 0u) {
    if (m == 0u) return sign;
    const int e = findMSB(m);  // value = m * 2^-149 = 1.f * 2^(e - 149)
    return sign | (uint64_t(e - 149 + 1023) << 52) | ((uint64_t(m) << (52 - e)) & JOIN_MANTISSA);
  }
  return sign | (uint64_t(e8 - 127u + 1023u) << 52) | (uint64_t(m) << 29);
}

uint64_t join_dbits(uint raw, uint type) {
  return type == JOIN_TYPE_FLOAT ? join_dbits_float(raw) : join_dbits_int(raw);
}

// The total-order key of double bits d.
uint64_t join_k64(uint64_t d) {
  if ((d & JOIN_ABS) > JOIN_INF64) d = JOIN_NAN64;
  if (d == JOIN_SIGN64) d = 0ul;
  return (d & JOIN_SIGN64) != 0ul ? ~d : (d | JOIN_SIGN64);
}

// The floats next to double d: down <= d <= up (float bits), equal when d is a float; NaN for NaN.
void join_float_bracket(uint64_t d, out uint down, out uint up) {
  if ((d & JOIN_ABS) > JOIN_INF64) {
    down = 0x7fc00000u;
    up = 0x7fc00000u;
    return;
  }
  const uint s = uint(d >> 63);
  const uint e11 = uint(d >> 52) & 0x7FFu;
  const uint64_t m = d & JOIN_MANTISSA;
  uint t = 0u;  // |d| truncated to a float
  bool exact = true;
  if (e11 == 0x7FFu) {
    t = 0x7f800000u;
  } else if (e11 == 0u) {
    exact = m == 0ul;  // zero, or a double denormal: below every nonzero float
  } else {
    const int e = int(e11) - 1023;
    if (e > 127) {
      t = 0x7f7fffffu;
      exact = false;
    } else if (e >= -126) {
      t = (uint(e + 127) << 23) | uint(m >> 29);
      exact = (m & 0x1FFFFFFFul) == 0ul;
    } else if (e >= -149) {
      const uint64_t full = m | (1ul << 52);
      const int sh = -97 - e;  // value in units of 2^-149 = full >> sh, sh in 30..52
      t = uint(full >> sh);
      exact = (full & ((1ul << sh) - 1ul)) == 0ul;
    } else {
      exact = false;
    }
  }
  t |= s << 31;
  if (exact) {
    down = t;
    up = t;
  } else if (s == 0u) {  // d lies strictly between t and the next float away from zero
    down = t;
    up = t + 1u;
  } else {
    down = t + 1u;
    up = t;
  }
}

// The integers next to double d, clamped: floor_v <= d <= ceil_v as int64 (|v| up to 2^32 + 1);
// `exact`: d is an integer. NaN and infinities are handled by the callers.
void join_int_bracket(uint64_t d, out int64_t floor_v, out int64_t ceil_v, out bool exact) {
  const uint e11 = uint(d >> 52) & 0x7FFu;
  const uint64_t m = d & JOIN_MANTISSA;
  uint64_t t = 0ul;  // trunc(|d|), clamped at 2^32
  bool frac = false;
  if (e11 == 0u) {
    frac = m != 0ul;
  } else {
    const int e = int(e11) - 1023;
    if (e < 0) {
      frac = true;
    } else if (e >= 32) {
      t = 1ul << 32;
    } else {
      const uint64_t full = m | (1ul << 52);
      t = full >> (52 - e);
      frac = (full & ((1ul << (52 - e)) - 1ul)) != 0ul;
    }
  }
  exact = !frac;
  const int64_t ti = int64_t(t), f = frac ? 1l : 0l;
  if ((d & JOIN_SIGN64) == 0ul) {
    floor_v = ti;
    ceil_v = ti + f;
  } else {
    floor_v = -ti - f;
    ceil_v = -ti;
  }
}

// The smallest 32-bit order key of `type` whose value is >= d (`strict`: > d) in the total order;
// false when there is none. Keys between canonical keys are fine as bounds (the build side holds
// canonical keys only).
bool join_lower_key(uint64_t d, uint type, bool strict, out uint key) {
  const bool nan = (d & JOIN_ABS) > JOIN_INF64;
  key = 0u;
  if (type == JOIN_TYPE_FLOAT) {
    uint down, up;
    join_float_bracket(d, down, up);
    key = join_key32(up, JOIN_TYPE_FLOAT);
    if (strict && down == up) {  // d is the float `up`: the next key
      if (nan) return false;
      key += 1u;
    }
    return true;
  }
  if (nan || d == JOIN_INF64) return false;
  if (d == (JOIN_INF64 | JOIN_SIGN64)) return true;  // INT_MIN
  int64_t lo, hi;
  bool exact;
  join_int_bracket(d, lo, hi, exact);
  if (strict && exact) hi += 1l;
  if (hi > 2147483647l) return false;
  key = uint(int(max(hi, -2147483648l))) ^ 0x80000000u;
  return true;
}

// The largest 32-bit order key of `type` whose value is <= d (`strict`: < d); false when none.
bool join_upper_key(uint64_t d, uint type, bool strict, out uint key) {
  const bool nan = (d & JOIN_ABS) > JOIN_INF64;
  key = 0u;
  if (type == JOIN_TYPE_FLOAT) {
    uint down, up;
    join_float_bracket(d, down, up);
    key = join_key32(down, JOIN_TYPE_FLOAT);
    if (strict && down == up) {
      if (down == 0xff800000u) return false;  // nothing below -inf
      key -= 1u;
    }
    return true;
  }
  if (nan || d == JOIN_INF64) {
    key = 0xFFFFFFFFu;  // INT_MAX: every int is below NaN and +inf
    return true;
  }
  if (d == (JOIN_INF64 | JOIN_SIGN64)) return false;
  int64_t lo, hi;
  bool exact;
  join_int_bracket(d, lo, hi, exact);
  if (strict && exact) lo -= 1l;
  if (lo < -2147483648l) return false;
  key = uint(int(min(lo, 2147483647l))) ^ 0x80000000u;
  return true;
}

// The int_key of a FLOAT's value when it is an int32 (so it can equal an INT); false otherwise
// (fractions, NaN, infinities, magnitudes past int32).
bool join_int_of_float(uint raw, out uint key) {
  key = 0u;
  const uint e8 = (raw >> 23) & 0xFFu, m = raw & 0x7FFFFFu;
  const bool neg = (raw & 0x80000000u) != 0u;
  if (e8 == 0u) {
    if (m != 0u) return false;
    key = 0x80000000u;  // +0 and -0
    return true;
  }
  if (e8 == 255u || e8 < 127u) return false;
  const uint e = e8 - 127u;  // value = 1.m * 2^e
  if (e > 31u) return false;
  if (e == 31u) {  // only -2^31 fits
    if (!neg || m != 0u) return false;
    key = 0u;
    return true;
  }
  const uint full = m | 0x800000u;
  uint mag;
  if (e >= 23u) {
    mag = full << (e - 23u);
  } else {
    if ((full & ((1u << (23u - e)) - 1u)) != 0u) return false;
    mag = full >> (23u - e);
  }
  key = (neg ? (~mag + 1u) : mag) ^ 0x80000000u;
  return true;
}

#endif
