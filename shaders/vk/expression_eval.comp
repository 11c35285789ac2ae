#version 450
// expression_eval: one compiled expression program (src/vk/relational/expression.h) evaluated for
// every row, EXPR_ROWS_PER_THREAD rows per invocation, EXPR_WG invocations per workgroup. The program
// is a postfix instruction list over a stack of 64-bit values (shaders/common/expression_config.glsl);
// integer arithmetic is int64 with overflow, division by zero and DATE range recorded per instruction
// (the smallest row of each in `errors`), FLOAT and DOUBLE arithmetic rounds each operation once
// (`precise`: no contraction into FMA), integer-to-float conversions round to nearest even by integer
// operations. Row i of the evaluated order is selection[i] when `selected`, else i.
// Defines: EXPR_F64 compiles the DOUBLE instructions (the device needs shaderFloat64); without it
//          they are absent and the compiler refuses programs that need them. EXPR_BINARY: the
//          variant for programs of one integer operator on two INT columns (SUM(a * b),
//          lo_revenue - lo_supplycost), its operator in specialization constants (below).
//          EXPR_FLOAT_CONTROLS: the execution modes DenormPreserve and RoundingModeRTE for the float
//          widths used (devices that report support for them).
// Bindings: 0 = program (code words, then constants as (low, high) word pairs from const_base),
//           1 = selection (uint row ids; any buffer when not selected), 2..7 = input columns
//           (uint[]; unused ones bound to any buffer), 8 = out0, 9 = out1 (uint[]), 10 = errors.
// Push constants: count (rows to evaluate), code_len, const_base, mode (EXPR_MODE_*), selected,
//                 by_row (write values at the row id instead of at i), group_offset (last).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require
#include "expression_config.glsl"

#if defined(EXPR_FLOAT_CONTROLS)
// Round to nearest even and keep denormals, whatever the device's default (SPV_KHR_float_controls;
// the C++ picks this variant only where the device reports both for the widths used).
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 32);  // DenormPreserve
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4467], 4462, 32);  // RoundingModeRTE
#if defined(EXPR_F64)
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 64);
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4467], 4462, 64);
#endif
#endif

layout(local_size_x = EXPR_WG) in;
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

// |x| as uint64 and the position of its highest set bit (x != 0).
uint msb64(uint64_t m) {
  const uint hi = uint(m >> 32);
  return hi != 0u ? 32u + uint(findMSB(hi)) : uint(findMSB(uint(m)));
}

// m rounded to `bits` significant bits, nearest even: returns q < 2^bits (or 2^bits after a carry)
// and the shift with m ~ q * 2^shift.
uint64_t round_bits(uint64_t m, uint bits, out uint shift) {
  const uint top = msb64(m);
  if (top < bits) {
    shift = 0u;
    return m;
  }
  shift = top + 1u - bits;
  uint64_t q = m >> shift;
  const uint64_t rest = m & ((uint64_t(1) << shift) - 1ul);
  const uint64_t midpoint = uint64_t(1) << (shift - 1u);
  if (rest > midpoint || (rest == midpoint && (q & 1ul) != 0ul)) q += 1ul;
  return q;
}

float i64_to_f32(int64_t x) {
  if (x == 0l) return 0.0;
  const uint64_t m = x < 0l ? uint64_t(0) - uint64_t(x) : uint64_t(x);
  uint shift;
  const uint64_t q = round_bits(m, 24u, shift);  // q <= 2^24: exact as a float
  precise float v = float(uint(q)) * uintBitsToFloat((127u + shift) << 23);  // times 2^shift, exact
  return x < 0l ? -v : v;
}

#if defined(EXPR_F64)
double i64_to_f64(int64_t x) {
  if (x == 0l) return 0.0lf;
  const uint64_t m = x < 0l ? uint64_t(0) - uint64_t(x) : uint64_t(x);
  uint shift;
  const uint64_t q = round_bits(m, 53u, shift);  // q <= 2^53: exact as a double
  const double qd = double(uint(q >> 32)) * 4294967296.0lf + double(uint(q));  // both parts exact
  precise double v = qd * uint64BitsToDouble(uint64_t(1023u + shift) << 52);
  return x < 0l ? -v : v;
}
#endif

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

float f32(uint64_t v) { return uintBitsToFloat(uint(v)); }
uint64_t of_f32(float f) { return uint64_t(floatBitsToUint(f)); }
#if defined(EXPR_F64)
double f64(uint64_t v) { return uint64BitsToDouble(v); }
uint64_t of_f64(double d) { return doubleBitsToUint64(d); }
#endif

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

uint64_t value(uint row, uint i) {
  const int64_t a = int64_t(int(col0[row]));
  const int64_t b = int64_t(int(column_word((BINARY_ARGS & 15u) - 1u, row)));
  return uint64_t(int_op(BINARY_OP, BINARY_ARGS >> 4, a, b, 2u, i));
}
#else
// The program's value at row `row`, the `i`-th row evaluated.
uint64_t value(uint row, uint i) {
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
      st[sp - 1] = of_f32(-f32(st[sp - 1]));
      continue;
    }
    if (op == EXPR_OP_I64_TO_F32) {
      st[sp - 1] = of_f32(i64_to_f32(int64_t(st[sp - 1])));
      continue;
    }
#if defined(EXPR_F64)
    if (op == EXPR_OP_F64_NEG) {
      st[sp - 1] = of_f64(-f64(st[sp - 1]));
      continue;
    }
    if (op == EXPR_OP_I64_TO_F64) {
      st[sp - 1] = of_f64(i64_to_f64(int64_t(st[sp - 1])));
      continue;
    }
    if (op == EXPR_OP_F32_TO_F64) {
      st[sp - 1] = of_f64(double(f32(st[sp - 1])));
      continue;
    }
#endif
    if (op == EXPR_OP_YEAR || op == EXPR_OP_MONTH || op == EXPR_OP_DAY) {
      st[sp - 1] = uint64_t(civil_part(int64_t(st[sp - 1]), op));
      continue;
    }
    // Binary operators: a below b.
    const uint64_t ub = st[--sp];
    const uint64_t ua = st[sp - 1];
    uint64_t r = 0ul;
    if (op <= EXPR_OP_I64_DIV) {
      r = uint64_t(int_op(op, arg, int64_t(ua), int64_t(ub), at, i));
    } else if (op <= EXPR_OP_F32_MUL) {
      const float a = f32(ua), b = f32(ub);
      precise float z;
      if (op == EXPR_OP_F32_ADD)
        z = a + b;
      else if (op == EXPR_OP_F32_SUB)
        z = a - b;
      else
        z = a * b;
      r = of_f32(z);
    }
#if defined(EXPR_F64)
    else {
      const double a = f64(ua), b = f64(ub);
      precise double z;
      if (op == EXPR_OP_F64_ADD)
        z = a + b;
      else if (op == EXPR_OP_F64_SUB)
        z = a - b;
      else
        z = a * b;
      r = of_f64(z);
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
  [[unroll]] for (uint k = 0u; k < EXPR_ROWS_PER_THREAD; ++k) {
    const uint i = base + k * EXPR_WG;
    if (i >= pc.count) break;
    const uint row = pc.selected != 0u ? selection[i] : i;
    const uint64_t v = value(row, i);
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
    }
  }
  if (pc.mode != EXPR_MODE_REDUCE) return;
  s_lo[lane] = sum_lo;
  s_hi[lane] = sum_hi;
  s_min[lane] = lo;
  s_max[lane] = hi;
  barrier();
  for (uint step = EXPR_WG / 2u; step > 0u; step >>= 1) {
    if (lane < step) {
      s_lo[lane] += s_lo[lane + step];
      s_hi[lane] += s_hi[lane + step];
      s_min[lane] = min(s_min[lane], s_min[lane + step]);
      s_max[lane] = max(s_max[lane], s_max[lane + step]);
    }
    barrier();
  }
  if (lane == 0u) {
    const uint o = group * EXPR_PARTIAL_WORDS;
    const uint64_t words[4] = uint64_t[4](s_lo[0], uint64_t(s_hi[0]), uint64_t(s_min[0]), uint64_t(s_max[0]));
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
      out0[o + 2u * w] = uint(words[w]);
      out0[o + 2u * w + 1u] = uint(words[w] >> 32);
    }
  }
}
