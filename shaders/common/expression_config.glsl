// Constants of the expression programs (src/vk/relational/expression.h, shaders/vk/expression_eval.comp).
// Plain #defines only: C++ includes this file too.
#ifndef GFXQ_EXPRESSION_CONFIG_GLSL
#define GFXQ_EXPRESSION_CONFIG_GLSL

// Invocations per workgroup and rows per invocation of expression_eval.
#define EXPR_WG 256
#define EXPR_ROWS_PER_THREAD 8
// Limits of one program: instructions, stack slots, input columns (bindings EXPR_BIND_COLUMN0 ...).
#define EXPR_MAX_CODE 64
#define EXPR_MAX_DEPTH 8
#define EXPR_MAX_COLUMNS 6

// Bindings of expression_eval.
#define EXPR_BIND_PROGRAM 0
#define EXPR_BIND_SELECTION 1
#define EXPR_BIND_COLUMN0 2
#define EXPR_BIND_OUT0 8
#define EXPR_BIND_OUT1 9
#define EXPR_BIND_ERRORS 10
#define EXPR_BINDINGS 11

// An instruction is one word: the opcode in bits 0..7, its operand (a column slot, a constant index,
// a flag) in bits 8..31. Values on the stack are 64 bits: integers (INT, BIGINT, DATE days) as int64,
// FLOAT as its bits in the low word, DOUBLE as its bits.
#define EXPR_OP_LOAD_INT 1u    // push int64(int32 column[operand][row])
#define EXPR_OP_LOAD_FLOAT 2u  // push float32 column[operand][row]
#define EXPR_OP_CONST 3u       // push constant[operand]
#define EXPR_OP_I64_ADD 4u     // int64 a + b; operand EXPR_FLAG_DATE: the result must fit int32 (a DATE)
#define EXPR_OP_I64_SUB 5u     // int64 a - b; operand EXPR_FLAG_DATE as above
#define EXPR_OP_I64_MUL 6u     // int64 a * b
#define EXPR_OP_I64_DIV 7u     // int64 a / b, truncated toward zero
#define EXPR_OP_I64_NEG 8u     // int64 -a
#define EXPR_OP_F32_ADD 9u     // float32 arithmetic on the bits by integer operations, each operation
                               // rounded once to nearest even, denormals kept
#define EXPR_OP_F32_SUB 10u
#define EXPR_OP_F32_MUL 11u
#define EXPR_OP_F32_NEG 12u
#define EXPR_OP_F64_ADD 13u    // double arithmetic, likewise
#define EXPR_OP_F64_SUB 14u
#define EXPR_OP_F64_MUL 15u
#define EXPR_OP_F64_NEG 16u
#define EXPR_OP_I64_TO_F32 17u  // int64 -> float32, rounded to nearest even by integer operations
#define EXPR_OP_I64_TO_F64 18u  // int64 -> double, likewise
#define EXPR_OP_F32_TO_F64 19u  // float32 -> double (exact; by integer operations too)
#define EXPR_OP_YEAR 20u        // EXTRACT(YEAR | MONTH | DAY FROM days) as int64
#define EXPR_OP_MONTH 21u
#define EXPR_OP_DAY 22u
#define EXPR_OP_F32_DIV 23u     // float32 a / b, rounded once to nearest even, denormals kept
#define EXPR_OP_F64_DIV 24u     // double a / b, likewise
#define EXPR_FLAG_DATE 1u
// Conditions and CASE (23 and 24 are FLOAT and DOUBLE division). Truth values are int64 1 / 0 (the
// compute expressions carry no NULLs, so no third value).
#define EXPR_OP_CMP 25u         // a op b: operand = CmpOp (Lt Le Gt Ge Eq Ne) | EXPR_CMP_* << 4
#define EXPR_OP_AND 26u         // a AND b
#define EXPR_OP_OR 27u          // a OR b
#define EXPR_OP_NOT 28u         // NOT a
#define EXPR_OP_CASE_FIRST 29u  // w t -> (w ? t : 0) w: the value so far and whether a WHEN held
#define EXPR_OP_CASE_NEXT 30u   // v d w t -> (d ? v : w ? t : v) (d | w)
#define EXPR_OP_CASE_ELSE 31u   // v d e -> d ? v : e
#define EXPR_OP_KEEP 32u        // pops a truth value: false drops the row (REDUCE counts the rows kept)
// How EXPR_OP_CMP compares (a below b): in gfxq's total order (-0.0 = +0.0, every NaN equal and
// above +inf), exactly on the mathematical values across integers and floats.
#define EXPR_CMP_INT 0u      // int64, int64
#define EXPR_CMP_F32 1u      // float32, float32
#define EXPR_CMP_F64 2u      // double, double
#define EXPR_CMP_INT_F32 3u  // int64, float32
#define EXPR_CMP_INT_F64 4u  // int64, double
#define EXPR_CMP_F32_INT 5u  // float32, int64
#define EXPR_CMP_F64_INT 6u  // double, int64

// Errors: per instruction three words, each the smallest row (position in the evaluated order) where
// the error happened, 0xFFFFFFFF for none.
#define EXPR_ERR_OVERFLOW 0u  // int64 result out of range
#define EXPR_ERR_DIV_ZERO 1u  // integer division by zero
#define EXPR_ERR_DATE 2u      // DATE result outside int32 days
#define EXPR_ERR_WORDS 3u

// What the kernel writes (push constant `mode`).
#define EXPR_MODE_VALUES32 0u  // out0[i] = the 32-bit result (INT, DATE, FLOAT)
#define EXPR_MODE_VALUES64 1u  // out0[2i], out0[2i + 1] = low, high word of the 64-bit result
#define EXPR_MODE_SPLIT64 2u   // out0[i] = high word (int32), out1[i] = low word ^ 0x80000000 (int32)
#define EXPR_MODE_REDUCE 3u    // out0: per workgroup EXPR_PARTIAL_WORDS words (see below)
// Partials of EXPR_MODE_REDUCE (integer results) over the rows kept (EXPR_OP_KEEP): the sum of the
// low words (uint64), the sum of the high words (int64), the minimum and the maximum (int64) and the
// number of rows kept (uint64), each as low word, high word.
#define EXPR_PARTIAL_WORDS 10
#endif
