#version 450
// expression_eval: one compiled expression program (src/vk/relational/expression.h) evaluated for
// every row, EXPR_ROWS_PER_THREAD rows per invocation, EXPR_WG invocations per workgroup. The program
// is a postfix instruction list over a stack of 64-bit values (shaders/common/expression_config.glsl);
// integer arithmetic is int64 with overflow, division by zero and DATE range recorded per instruction
// (the smallest row of each in `errors`). FLOAT and DOUBLE values stay IEEE bits and their arithmetic
// and conversions are integer operations that round each result once to nearest even, denormals
// kept (fp_* below): the kernel executes no float instruction, so the device's denormal and rounding
// modes never apply; the EXPR_RTE variants alone run FLOAT + - * / by float instructions where
// that is exact (f32_* below). Row i of the evaluated order is selection[i] when `selected`, else i.
// Defines: EXPR_F64 compiles the DOUBLE instructions (kept out of the plain interpreter, which most
//          programs run, to keep it small). EXPR_RTE: the fast FLOAT path, with the RoundingModeRTE
//          execution mode for 32-bit floats. EXPR_BINARY: the variant for programs of one integer
//          operator on two INT columns (SUM(a * b), lo_revenue - lo_supplycost), its operator in
//          specialization constants (below).
// Bindings: 0 = program (code words, then constants as (low, high) word pairs from const_base),
//           1 = selection (uint row ids; any buffer when not selected), 2..7 = input columns
//           (uint[]; unused ones bound to any buffer), 8 = out0, 9 = out1 (uint[]), 10 = errors.
// Push constants: count (rows to evaluate), code_len, const_base, mode (EXPR_MODE_*), selected,
//                 by_row (write values at the row id instead of at i), group_offset (last).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require
#if defined(EXPR_RTE)
#extension GL_EXT_spirv_intrinsics : require
#endif
#include "expression_config.glsl"

layout(local_size_x = EXPR_WG) in;
#if defined(EXPR_RTE)
// FLOAT instructions round to nearest even (f32_add below).
spirv_execution_mode(capabilities = [4467], 4462, 32);  // capability RoundingModeRTE; RoundingModeRTE 32
#endif
layout(std430, binding = EXPR_BIND_PROGRAM) readonly buffer Program { uint program[]; };
layout(std430, binding = EXPR_BIND_SELECTION) readonly buffer Selection { uint selection[]; };
layout(std430, binding = EXPR_BIND_COLUMN0 + 0) readonly buffer Col0 { uint col0[]; };
layout(std430, binding = EXPR_BIND_COLUMN0 + 1) readonly buffer Col1 { uint col1[]; };
layout(std430, binding = EXPR_BIND_COLUMN0 + 2) readonly buffer Col2 { uint col2[]; };
layout(std430, binding = EXPR_BIND_COLUMN0 + 3) readonly buffer Col3 { uint col3[]; };
layout(std430, binding = EXPR_BIND_COLUMN0 + 4) readonly buffer Col4 { uint col4[]; };
layout(std430, binding = EXPR_BIND_COLUMN0 + 5) readonly buffer Col5 { uint col5[]; };
layout(std430, binding = EXPR_BIND_OUT0) writeonly buffer Out0 { uint out0[]; };
layout(std430, binding = EXPR_BIND_OUT1) writeonly buffer Out1 { uint out1[]; };
layout(std430, binding = EXPR_BIND_ERRORS) buffer Errors { uint errors[]; };
layout(push_constant) uniform Push {
  uint count;
  uint code_len;
  uint const_base;
  uint mode;
  uint selected;
  uint by_row;
  uint group_offset;
} pc;

shared uint64_t s_lo[EXPR_WG];
shared int64_t s_hi[EXPR_WG];
shared int64_t s_min[EXPR_WG];
shared int64_t s_max[EXPR_WG];
shared uint64_t s_kept[EXPR_WG];

const int64_t kMin64 = int64_t(0x8000000000000000ul);
const int64_t kMax64 = int64_t(0x7FFFFFFFFFFFFFFFul);

uint column_word(uint slot, uint row) {
  switch (slot) {
    case 0u: return col0[row];
    case 1u: return col1[row];
    case 2u: return col2[row];
    case 3u: return col3[row];
    case 4u: return col4[row];
    default: return col5[row];
  }
}

void fail(uint at, uint kind, uint i) {
  atomicMin(errors[at * EXPR_ERR_WORDS + kind], i);
}

// The position of the highest set bit of m (m != 0).
uint msb64(uint64_t m) {
  const uint hi = uint(m >> 32);
  return hi != 0u ? 32u + uint(findMSB(hi)) : uint(findMSB(uint(m)));
}

// FLOAT and DOUBLE values as their IEEE bits, computed by integer operations only: no float
// instruction or conversion runs, so a driver's denormal flushing and rounding modes never apply
// (the H200's FLOAT arithmetic flushed float32 denormals). Format `f`: 0 float32, 1 double. A value
// is finite and nonzero as m * 2^e with m an integer of P bits (P = 24 or 53) once normalized.
uint fmt_p(uint f) { return f == 0u ? 24u : 53u; }
int fmt_qmin(uint f) { return f == 0u ? -149 : -1074; }  // exponent of the smallest denormal
uint64_t fmt_sign(uint f) { return f == 0u ? 0x80000000ul : 0x8000000000000000ul; }
uint64_t fmt_inf(uint f) { return f == 0u ? 0x7F800000ul : 0x7FF0000000000000ul; }
uint64_t fmt_quiet(uint f) { return f == 0u ? 0x00400000ul : 0x0008000000000000ul; }  // a NaN's quiet bit
// The NaN of an invalid operation (inf - inf, 0 * inf): x86's default NaN, sign set, which is what
// the CPU engine computes on x86 hosts.
uint64_t fmt_invalid(uint f) { return fmt_sign(f) | fmt_inf(f) | fmt_quiet(f); }

// The NaN an operation on NaN `a` or `b` gives: the first NaN operand, quieted (IEEE 754's advice;
// x86's float instructions too, so projections keep a NaN column's payload as on the CPU engine).
uint64_t fp_nan(uint f, uint64_t a, uint64_t b) {
  return ((a & ~fmt_sign(f)) > fmt_inf(f) ? a : b) | fmt_quiet(f);
}

// The finite nonzero magnitude `mag` (bits without the sign) as m * 2^e, m in [2^(P-1), 2^P).
void fp_decode(uint f, uint64_t mag, out uint64_t m, out int e) {
  const uint frac_bits = fmt_p(f) - 1u;
  const uint64_t frac = mag & ((uint64_t(1) << frac_bits) - 1ul);
  const int field = int(mag >> frac_bits);
  if (field == 0) {  // a denormal: frac * 2^qmin, normalized
    const uint s = frac_bits - msb64(frac);
    m = frac << s;
    e = fmt_qmin(f) - int(s);
  } else {
    m = frac | (uint64_t(1) << frac_bits);
    e = field - 1 + fmt_qmin(f);
  }
}

// `sign` | m * 2^e rounded once to format f, nearest even: denormals kept, overflow to infinity.
// m != 0; m < 2^63 where the result is below the smallest denormal (its rounding shift reaches 64).
uint64_t fp_round(uint f, uint64_t sign, uint64_t m, int e) {
  const uint p = fmt_p(f);
  const int qmin = fmt_qmin(f);
  // Bits to drop: those below P significant ones, and at least those below 2^qmin.
  const int shift = max(int(msb64(m)) + 1 - int(p), qmin - e);
  uint64_t q;
  if (shift <= 0) {
    q = m << uint(-shift);
  } else if (shift >= 64) {
    q = 0ul;  // below half the smallest denormal
  } else {
    q = m >> uint(shift);
    const uint64_t rest = m & ((uint64_t(1) << uint(shift)) - 1ul);
    const uint64_t midpoint = uint64_t(1) << uint(shift - 1);
    if (rest > midpoint || (rest == midpoint && (q & 1ul) != 0ul)) q += 1ul;
  }
  // q * 2^(e + shift) with q < 2^P (q = 2^P after a carry) or a denormal's q at 2^qmin: the
  // exponent field is (e + shift - qmin) plus what q carries past bit P - 1.
  const int field = e + shift - qmin;
  const uint64_t inf = fmt_inf(f);
  if (field >= int(inf >> (p - 1u))) return sign | inf;
  return sign | min((uint64_t(field) << (p - 1u)) + q, inf);
}

// a + b in format f.
uint64_t fp_add(uint f, uint64_t a, uint64_t b) {
  const uint64_t sign = fmt_sign(f), inf = fmt_inf(f);
  const uint64_t xa = a & ~sign, xb = b & ~sign;
  if (xa > inf || xb > inf) return fp_nan(f, a, b);
  if (xa == inf) return xb == inf && a != b ? fmt_invalid(f) : a;  // inf - inf
  if (xb == inf) return b;
  if (xb == 0ul) return xa == 0ul ? a & b : a;  // x + 0 = x; -0 + -0 = -0, else +0
  if (xa == 0ul) return b;
  // The larger magnitude first (the bits of magnitudes order as their values).
  const bool swap = xb > xa;
  const uint64_t sa = (swap ? b : a) & sign;
  uint64_t ma, mb;
  int ea, eb;
  fp_decode(f, swap ? xb : xa, ma, ea);
  fp_decode(f, swap ? xa : xb, mb, eb);
  // Both significands moved up to bit 61; the smaller one shifted right by the exponent difference
  // with a sticky bit for what falls off (none falls off where the difference is 0 or 1, the only
  // cases where the subtraction cancels more than one bit).
  const uint guard = 62u - fmt_p(f);
  const uint64_t big = ma << guard;
  uint64_t small = mb << guard;
  const uint d = uint(ea - eb);
  if (d >= 63u)
    small = 1ul;
  else if (d > 0u)
    small = (small >> d) | ((small & ((uint64_t(1) << d) - 1ul)) != 0ul ? 1ul : 0ul);
  const uint64_t sum = ((a ^ b) & sign) == 0ul ? big + small : big - small;
  if (sum == 0ul) return 0ul;  // x - x = +0
  return fp_round(f, sa, sum, ea - int(guard));
}

// a - b in format f: a + (-b) exactly, zeros' signs included (a NaN b keeps its sign).
uint64_t fp_sub(uint f, uint64_t a, uint64_t b) {
  const uint64_t sign = fmt_sign(f), inf = fmt_inf(f);
  if ((a & ~sign) > inf || (b & ~sign) > inf) return fp_nan(f, a, b);
  return fp_add(f, a, b ^ sign);
}

// a * b in format f.
uint64_t fp_mul(uint f, uint64_t a, uint64_t b) {
  const uint64_t sign = fmt_sign(f), inf = fmt_inf(f);
  const uint64_t s = (a ^ b) & sign;
  const uint64_t xa = a & ~sign, xb = b & ~sign;
  if (xa > inf || xb > inf) return fp_nan(f, a, b);
  if (xa == inf || xb == inf) return xa == 0ul || xb == 0ul ? fmt_invalid(f) : s | inf;  // inf * 0
  if (xa == 0ul || xb == 0ul) return s;
  uint64_t ma, mb;
  int ea, eb;
  fp_decode(f, xa, ma, ea);
  fp_decode(f, xb, mb, eb);
  if (f == 0u) return fp_round(f, s, ma * mb, ea + eb);  // a 48-bit product
  // The 106-bit product of two 53-bit significands from 32-bit halves, then its top 62 bits with a
  // sticky bit for the 44 below them (the product lies in [2^104, 2^106)).
  const uint64_t a1 = ma >> 32, a0 = ma & 0xFFFFFFFFul, b1 = mb >> 32, b0 = mb & 0xFFFFFFFFul;
  const uint64_t low = a0 * b0, mid = a0 * b1 + a1 * b0;
  const uint64_t lo = low + (mid << 32);
  const uint64_t hi = a1 * b1 + (mid >> 32) + (lo < low ? 1ul : 0ul);
  const uint64_t top = (hi << 20) | (lo >> 44) | ((lo & 0xFFFFFFFFFFFul) != 0ul ? 1ul : 0ul);
  return fp_round(f, s, top, ea + eb + 44);
}

// a / b in format f.
uint64_t fp_div(uint f, uint64_t a, uint64_t b) {
  const uint64_t sign = fmt_sign(f), inf = fmt_inf(f);
  const uint64_t s = (a ^ b) & sign;
  const uint64_t xa = a & ~sign, xb = b & ~sign;
  if (xa > inf || xb > inf) return fp_nan(f, a, b);
  if (xa == inf) return xb == inf ? fmt_invalid(f) : s | inf;  // inf / inf
  if (xb == inf) return s;
  if (xb == 0ul) return xa == 0ul ? fmt_invalid(f) : s | inf;  // 0 / 0; x / 0 is infinite
  if (xa == 0ul) return s;
  uint64_t ma, mb;
  int ea, eb;
  fp_decode(f, xa, ma, ea);
  fp_decode(f, xb, mb, eb);
  // The quotient of the significands moved up by K bits, so that it has at least P + 2 bits (ma / mb
  // lies in (1/2, 2)), its lowest bit made sticky for a nonzero remainder: fp_round drops at least
  // two bits, so the sticky bit only tells whether the rest lies exactly on the midpoint or on zero.
  if (f == 0u) {  // K = 39: one 64-bit division
    const uint64_t n = ma << 39;
    const uint64_t q = n / mb;
    return fp_round(f, s, q | (n != q * mb ? 1ul : 0ul), ea - eb - 39);
  }
  // DOUBLE, K = 55: restoring long division, one quotient bit per step; r stays below 2 * mb.
  uint64_t q = 0ul, r = ma;
  for (uint k = 0u; k <= 55u; ++k) {
    q <<= 1;
    if (r >= mb) {
      r -= mb;
      q |= 1ul;
    }
    r <<= 1;
  }
  return fp_round(f, s, q | (r != 0ul ? 1ul : 0ul), ea - eb - 55);
}

// FLOAT operations as the interpreter runs them. In the EXPR_RTE variants, where both operands are
// normal and the exact result is certainly a normal number or zero (decided from the operands'
// exponent fields alone), a float instruction computes it; otherwise, and in the other variants,
// fp_* above. A float instruction thus never sees or makes a denormal, an infinity or a NaN: no
// denormal flushing (the H200 flushes) or "no NaN or infinity" assumption of the driver applies,
// and a result past FLT_MAX, which Vulkan lets a device return as FLT_MAX, never occurs. Vulkan's
// precision table makes OpFAdd, OpFSub and OpFMul correctly rounded, to one of the two neighbours
// unless a rounding mode is declared: these variants declare RoundingModeRTE for 32-bit floats
// (above; the device reports shaderRoundingModeRTEFloat32), so they round to nearest even, as x86
// does. `precise` (NoContraction): no FMA contraction.
uint f32_field(uint64_t a) {
  return uint(a >> 23) & 0xFFu;
}

#if defined(EXPR_RTE)
// Exponent fields in [24, 253]: a nonzero sum is at least 2^(24 - 150) = the smallest normal, and at
// most 2 * (2^127 - 2^103) = FLT_MAX. An exact zero (x + (-x)) is +0 under RTE; kept +0 explicitly.
bool f32_add_fast(uint64_t a, uint64_t b) {
  return f32_field(a) - 24u <= 229u && f32_field(b) - 24u <= 229u;
}
#endif

uint64_t f32_add(uint64_t a, uint64_t b) {
#if defined(EXPR_RTE)
  if (f32_add_fast(a, b)) {
    precise const float r = uintBitsToFloat(uint(a)) + uintBitsToFloat(uint(b));
    const uint bits = floatBitsToUint(r);
    return uint64_t((bits & 0x7FFFFFFFu) == 0u ? 0u : bits);
  }
#endif
  return fp_add(0u, a, b);
}

uint64_t f32_sub(uint64_t a, uint64_t b) {
#if defined(EXPR_RTE)
  if (f32_add_fast(a, b)) {
    precise const float r = uintBitsToFloat(uint(a)) - uintBitsToFloat(uint(b));
    const uint bits = floatBitsToUint(r);
    return uint64_t((bits & 0x7FFFFFFFu) == 0u ? 0u : bits);
  }
#endif
  return fp_sub(0u, a, b);
}

uint64_t f32_mul(uint64_t a, uint64_t b) {
#if defined(EXPR_RTE)
  // Fields fa, fb in [1, 254] with fa + fb in [128, 380]: the product of the significands lies in
  // [1, 4 - 2^-21], so the exact product lies in [2^-126, (4 - 2^-21) * 2^126] below FLT_MAX.
  const uint fa = f32_field(a), fb = f32_field(b);
  if (fa - 1u <= 253u && fb - 1u <= 253u && fa + fb - 128u <= 252u) {
    precise const float r = uintBitsToFloat(uint(a)) * uintBitsToFloat(uint(b));
    return uint64_t(floatBitsToUint(r));
  }
#endif
  return fp_mul(0u, a, b);
}

// Division: Vulkan requires only 2.5 ULP of OpFDiv, so a float division only estimates the quotient
// of the significands, and integer arithmetic corrects and checks it (exact whatever the rounding
// mode; in the _rte variants only, so the others run no float instruction at all). Fields in
// [1, 254] with fa - fb in [-125, 126]: the exact quotient and its rounding are normal numbers.
uint64_t f32_div(uint64_t a, uint64_t b) {
#if defined(EXPR_RTE)
  const uint fa = f32_field(a), fb = f32_field(b);
  if (fa - 1u <= 253u && fb - 1u <= 253u && fa - fb + 125u <= 251u) {
    const uint ma = (uint(a) & 0x7FFFFFu) | 0x800000u, mb = (uint(b) & 0x7FFFFFu) | 0x800000u;
    // c = ma * 2^k / mb rounded to an integer in [2^23, 2^24]: 24 significant bits.
    const uint k = ma >= mb ? 23u : 24u;
    // The estimate: the significands as floats in [1, 2), the dividend times the divisor's reciprocal
    // (two roundings: a unit or two off, which the correction below sees on every device), scaled by
    // 2^k exactly and truncated.
    precise const float inverse = 1.0 / uintBitsToFloat(0x3F800000u | (mb & 0x7FFFFFu));
    precise const float estimate = uintBitsToFloat(0x3F800000u | (ma & 0x7FFFFFu)) * inverse;
    uint c = uint(estimate * (k == 23u ? 8388608.0 : 16777216.0));
    // r = ma * 2^k - c * mb; c is the nearest integer to the quotient exactly where |2r| < mb (a
    // quotient of 24-bit significands is never halfway between two integers at 24 bits: no ties).
    const int64_t m = int64_t(mb);
    int64_t r = int64_t(uint64_t(ma) << k) - int64_t(c) * m;
    [[unroll]] for (uint step = 0u; step < 3u; ++step) {
      if (2l * r > m) {
        c += 1u;
        r -= m;
      } else if (2l * r < -m) {
        c -= 1u;
        r += m;
      }
    }
    if (2l * r < m && 2l * r > -m)
      return ((a ^ b) & 0x80000000ul) | ((uint64_t(fa - fb + 150u - k) << 23) + uint64_t(c - 0x800000u));
  }
#endif
  return fp_div(0u, a, b);
}

// int64 x rounded once to format f.
uint64_t fp_of_int(uint f, int64_t x) {
  if (x == 0l) return 0ul;
  return fp_round(f, x < 0l ? fmt_sign(f) : 0ul, x < 0l ? uint64_t(0) - uint64_t(x) : uint64_t(x), 0);
}

// A float32's bits widened to the double of the same value (a NaN keeps its sign and payload, quieted).
uint64_t fp_widen(uint64_t a) {
  const uint64_t s = (a & 0x80000000ul) << 32, mag = a & 0x7FFFFFFFul;
  if (mag > 0x7F800000ul) return s | fmt_inf(1u) | fmt_quiet(1u) | ((mag & 0x7FFFFFul) << 29);
  if (mag == 0x7F800000ul) return s | fmt_inf(1u);
  if (mag == 0ul) return s;
  uint64_t m;
  int e;
  fp_decode(0u, mag, m, e);
  return fp_round(1u, s, m, e);  // exact: 24 bits, well inside the double range
}

// The order key of format-f bits x in gfxq's total order: -0.0 = +0.0, every NaN one value above +inf.
uint64_t fp_key(uint f, uint64_t x) {
  const uint64_t sign = fmt_sign(f), mag = x & ~sign;
  if (mag > fmt_inf(f)) return ~uint64_t(0);
  return (x & sign) != 0ul ? sign - mag : sign + mag;
}

int three_way(uint64_t ka, uint64_t kb) {
  return ka < kb ? -1 : (ka > kb ? 1 : 0);
}

int three_way_i(int64_t a, int64_t b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// int64 i against the format-f value x, exactly (the CPU engine's compare_int_double): with
// T = trunc(|x|) and F = +-T, i != F orders as against F; i = F is equal when x has no fraction, else
// x's sign decides. NaN is above every number.
int cmp_int_fp(uint f, int64_t i, uint64_t x) {
  const uint64_t mag = x & ~fmt_sign(f);
  const bool neg = (x & fmt_sign(f)) != 0ul;
  if (mag > fmt_inf(f)) return -1;
  if (mag == fmt_inf(f)) return neg ? 1 : -1;
  uint64_t t = 0ul;
  bool frac = false;
  if (mag != 0ul) {
    uint64_t m;
    int e;
    fp_decode(f, mag, m, e);
    const int top = int(msb64(m)) + e;  // |x| in [2^top, 2^(top + 1))
    if (top >= 63) {
      // |x| >= 2^63: above every int64, or at most -2^63 (equal to INT64_MIN when exactly -2^63).
      if (!neg) return -1;
      return top == 63 && m == (uint64_t(1) << msb64(m)) && i == kMin64 ? 0 : 1;
    }
    if (e >= 0) {
      t = m << uint(e);
    } else if (e <= -64) {
      frac = true;
    } else {
      t = m >> uint(-e);
      frac = (m & ((uint64_t(1) << uint(-e)) - 1ul)) != 0ul;
    }
  }
  const int64_t whole = neg ? -int64_t(t) : int64_t(t);
  if (i != whole) return i < whole ? -1 : 1;
  if (!frac) return 0;
  return neg ? 1 : -1;
}

// EXPR_OP_CMP with operand `arg` on a (below) and b.
uint64_t compare(uint arg, uint64_t a, uint64_t b) {
  const uint how = arg >> 4;
  int c;
  if (how == EXPR_CMP_INT)
    c = three_way_i(int64_t(a), int64_t(b));
  else if (how == EXPR_CMP_F32 || how == EXPR_CMP_F64)
    c = three_way(fp_key(how - 1u, a), fp_key(how - 1u, b));
  else if (how == EXPR_CMP_INT_F32 || how == EXPR_CMP_INT_F64)
    c = cmp_int_fp(how - EXPR_CMP_INT_F32, int64_t(a), b);
  else
    c = -cmp_int_fp(how - EXPR_CMP_F32_INT, int64_t(b), a);
  const uint op = arg & 15u;  // CmpOp: Lt Le Gt Ge Eq Ne
  const bool holds = op == 0u ? c < 0 : op == 1u ? c <= 0 : op == 2u ? c > 0 : op == 3u ? c >= 0 : op == 4u ? c == 0 : c != 0;
  return holds ? 1ul : 0ul;
}

// EXTRACT of a day number (core/table.cpp civil_from_date).
int64_t civil_part(int64_t days, uint op) {
  const int64_t z = days + 719468l;
  const int64_t era = (z >= 0l ? z : z - 146096l) / 146097l;
  const int64_t doe = z - era * 146097l;
  const int64_t yoe = (doe - doe / 1460l + doe / 36524l - doe / 146096l) / 365l;
  const int64_t doy = doe - (365l * yoe + yoe / 4l - yoe / 100l);
  const int64_t mp = (5l * doy + 2l) / 153l;
  const int64_t day = doy - (153l * mp + 2l) / 5l + 1l;
  const int64_t month = mp < 10l ? mp + 3l : mp - 9l;
  if (op == EXPR_OP_DAY) return day;
  if (op == EXPR_OP_MONTH) return month;
  return yoe + era * 400l + (month <= 2l ? 1l : 0l);
}

// Integer operator `op` of instruction `at` (operand `arg`: EXPR_FLAG_DATE) on row position i, its
// errors recorded.
int64_t int_op(uint op, uint arg, int64_t a, int64_t b, uint at, uint i) {
  int64_t z = 0l;
  bool bad = false;
  if (op == EXPR_OP_I64_ADD) {
    z = a + b;
    bad = ((a ^ z) & (b ^ z)) < 0l;
  } else if (op == EXPR_OP_I64_SUB) {
    z = a - b;
    bad = ((a ^ b) & (a ^ z)) < 0l;
  } else if (op == EXPR_OP_I64_MUL) {
    z = a * b;  // wraps; checked below
    if (a != int64_t(int(a)) || b != int64_t(int(b))) {
      // Beyond the int32 x int32 fast path: -1 and the minimum first, then the quotient test.
      if (a == -1l || b == -1l)
        bad = a == kMin64 || b == kMin64;
      else if (b != 0l)
        bad = z / b != a;
    }
  } else {
    if (b == 0l) {
      fail(at, EXPR_ERR_DIV_ZERO, i);
    } else if (a == kMin64 && b == -1l) {
      bad = true;
    } else {
      z = a / b;
    }
  }
  if (bad)
    fail(at, EXPR_ERR_OVERFLOW, i);
  else if (arg == EXPR_FLAG_DATE && z != int64_t(int(z)))
    fail(at, EXPR_ERR_DATE, i);
  return z;
}

#if defined(EXPR_BINARY)
// The program LOAD_INT 0, LOAD_INT b, <op> with the operator, slot b and flag folded in by the driver:
// no interpreter loop. Specialization constant 0: the opcode; 1: 1 + b + (flag << 4).
layout(constant_id = 0) const uint BINARY_OP = EXPR_OP_I64_ADD;
layout(constant_id = 1) const uint BINARY_ARGS = 1u;

uint64_t value(uint row, uint i, inout bool kept) {
  const int64_t a = int64_t(int(col0[row]));
  const int64_t b = int64_t(int(column_word((BINARY_ARGS & 15u) - 1u, row)));
  return uint64_t(int_op(BINARY_OP, BINARY_ARGS >> 4, a, b, 2u, i));
}
#else
// The program's value at row `row`, the `i`-th row evaluated; `kept` false once EXPR_OP_KEEP drops
// the row (the value is then meaningless).
uint64_t value(uint row, uint i, inout bool kept) {
  uint64_t st[EXPR_MAX_DEPTH];
  int sp = 0;
  for (uint at = 0u; at < pc.code_len; ++at) {
    const uint word = program[at];
    const uint op = word & 0xFFu;
    const uint arg = word >> 8;
    if (op == EXPR_OP_LOAD_INT) {
      st[sp++] = uint64_t(int64_t(int(column_word(arg, row))));
      continue;
    }
    if (op == EXPR_OP_LOAD_FLOAT) {
      st[sp++] = uint64_t(column_word(arg, row));
      continue;
    }
    if (op == EXPR_OP_CONST) {
      const uint c = pc.const_base + 2u * arg;
      st[sp++] = uint64_t(program[c]) | (uint64_t(program[c + 1u]) << 32);
      continue;
    }
    if (op == EXPR_OP_I64_NEG) {
      const int64_t a = int64_t(st[sp - 1]);
      if (a == kMin64) fail(at, EXPR_ERR_OVERFLOW, i);
      st[sp - 1] = uint64_t(-a);
      continue;
    }
    if (op == EXPR_OP_F32_NEG) {
      st[sp - 1] ^= fmt_sign(0u);
      continue;
    }
    if (op == EXPR_OP_I64_TO_F32) {
      st[sp - 1] = fp_of_int(0u, int64_t(st[sp - 1]));
      continue;
    }
#if defined(EXPR_F64)
    if (op == EXPR_OP_F64_NEG) {
      st[sp - 1] ^= fmt_sign(1u);
      continue;
    }
    if (op == EXPR_OP_I64_TO_F64) {
      st[sp - 1] = fp_of_int(1u, int64_t(st[sp - 1]));
      continue;
    }
    if (op == EXPR_OP_F32_TO_F64) {
      st[sp - 1] = fp_widen(st[sp - 1]);
      continue;
    }
#endif
    if (op == EXPR_OP_YEAR || op == EXPR_OP_MONTH || op == EXPR_OP_DAY) {
      st[sp - 1] = uint64_t(civil_part(int64_t(st[sp - 1]), op));
      continue;
    }
    if (op >= EXPR_OP_CMP) {
      // Conditions and CASE: every operand was evaluated (the CPU engine evaluates every branch and
      // operand for every row, so their errors are raised alike).
      if (op == EXPR_OP_NOT) {
        st[sp - 1] ^= 1ul;
      } else if (op == EXPR_OP_KEEP) {
        if (st[--sp] == 0ul) {
          kept = false;
          return 0ul;
        }
      } else if (op == EXPR_OP_CASE_NEXT) {  // v d w t
        sp -= 2;
        const bool decided = st[sp - 1] != 0ul;
        if (!decided && st[sp] != 0ul) st[sp - 2] = st[sp + 1];
        st[sp - 1] |= st[sp];
      } else {
        const uint64_t b = st[--sp];
        const uint64_t a = st[sp - 1];
        if (op == EXPR_OP_CMP) {
          st[sp - 1] = compare(arg, a, b);
        } else if (op == EXPR_OP_AND) {
          st[sp - 1] = a & b;
        } else if (op == EXPR_OP_OR) {
          st[sp - 1] = a | b;
        } else if (op == EXPR_OP_CASE_FIRST) {  // w t -> (w ? t : 0) w
          st[sp - 1] = a != 0ul ? b : 0ul;
          st[sp++] = a;
        } else {  // CASE_ELSE: v d e
          --sp;
          if (a == 0ul) st[sp - 1] = b;
        }
      }
      continue;
    }
    // Binary operators: a below b.
    const uint64_t ub = st[--sp];
    const uint64_t ua = st[sp - 1];
    uint64_t r = 0ul;
    if (op <= EXPR_OP_I64_DIV) {
      r = uint64_t(int_op(op, arg, int64_t(ua), int64_t(ub), at, i));
    } else if (op <= EXPR_OP_F32_MUL || op == EXPR_OP_F32_DIV) {
      r = op == EXPR_OP_F32_ADD   ? f32_add(ua, ub)
          : op == EXPR_OP_F32_SUB ? f32_sub(ua, ub)
          : op == EXPR_OP_F32_MUL ? f32_mul(ua, ub)
                                  : f32_div(ua, ub);
    }
#if defined(EXPR_F64)
    else if (op <= EXPR_OP_F64_MUL || op == EXPR_OP_F64_DIV) {
      r = op == EXPR_OP_F64_ADD   ? fp_add(1u, ua, ub)
          : op == EXPR_OP_F64_SUB ? fp_sub(1u, ua, ub)
          : op == EXPR_OP_F64_MUL ? fp_mul(1u, ua, ub)
                                  : fp_div(1u, ua, ub);
    }
#endif
    st[sp - 1] = r;
  }
  return st[0];
}
#endif

void main() {
  const uint lane = gl_LocalInvocationID.x;
  const uint group = gl_WorkGroupID.x + pc.group_offset;
  const uint base = group * (EXPR_WG * EXPR_ROWS_PER_THREAD) + lane;
  uint64_t sum_lo = 0ul;
  int64_t sum_hi = 0l, lo = kMax64, hi = kMin64;
  uint64_t kept_rows = 0ul;
  [[unroll]] for (uint k = 0u; k < EXPR_ROWS_PER_THREAD; ++k) {
    const uint i = base + k * EXPR_WG;
    if (i >= pc.count) break;
    const uint row = pc.selected != 0u ? selection[i] : i;
    bool kept = true;
    const uint64_t v = value(row, i, kept);
    if (!kept) continue;
    const uint at = pc.by_row != 0u ? row : i;
    if (pc.mode == EXPR_MODE_VALUES32) {
      out0[at] = uint(v);
    } else if (pc.mode == EXPR_MODE_VALUES64) {
      out0[2u * at] = uint(v);
      out0[2u * at + 1u] = uint(v >> 32);
    } else if (pc.mode == EXPR_MODE_SPLIT64) {
      out0[at] = uint(v >> 32);
      out1[at] = uint(v) ^ 0x80000000u;
    } else {
      sum_lo += uint64_t(uint(v));
      sum_hi += int64_t(v) >> 32;
      lo = min(lo, int64_t(v));
      hi = max(hi, int64_t(v));
      kept_rows += 1ul;
    }
  }
  if (pc.mode != EXPR_MODE_REDUCE) return;
  s_lo[lane] = sum_lo;
  s_hi[lane] = sum_hi;
  s_min[lane] = lo;
  s_max[lane] = hi;
  s_kept[lane] = kept_rows;
  barrier();
  for (uint step = EXPR_WG / 2u; step > 0u; step >>= 1) {
    if (lane < step) {
      s_lo[lane] += s_lo[lane + step];
      s_hi[lane] += s_hi[lane + step];
      s_min[lane] = min(s_min[lane], s_min[lane + step]);
      s_max[lane] = max(s_max[lane], s_max[lane + step]);
      s_kept[lane] += s_kept[lane + step];
    }
    barrier();
  }
  if (lane == 0u) {
    const uint o = group * EXPR_PARTIAL_WORDS;
    const uint64_t words[5] =
        uint64_t[5](s_lo[0], uint64_t(s_hi[0]), uint64_t(s_min[0]), uint64_t(s_max[0]), s_kept[0]);
    [[unroll]] for (uint w = 0u; w < 5u; ++w) {
      out0[o + 2u * w] = uint(words[w]);
      out0[o + 2u * w + 1u] = uint(words[w] >> 32);
    }
  }
}
