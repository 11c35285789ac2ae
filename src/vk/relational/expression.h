#pragma once
//! \file expression.h
//! Expressions on the compute path: a bound plan::Expr compiled to a small postfix program
//! (shaders/common/expression_config.glsl) that one kernel (shaders/vk/expression_eval.comp) runs for
//! every row of device columns, writing the values or reducing them per workgroup.
//!
//! Semantics equal the CPU engine's (cpu/exec/eval.h, docs/SQL.md "Expressions") bit for bit:
//! integer arithmetic in int64 with overflow and division by zero detected on the device (the
//! smallest failing row per instruction, so the error raised is the one the CPU engine raises:
//! same code, same message, same row), `/` truncating toward zero, DATE ± days with its int32 range
//! check, EXTRACT(YEAR | MONTH | DAY), FLOAT arithmetic (+ - * /) rounded to float32 per operation
//! and DOUBLE arithmetic per operation (no FMA contraction), integer-to-float conversions rounded to
//! nearest even, denormals kept. The kernel computes FLOAT and DOUBLE values on their IEEE bits with
//! integer operations, so this holds on every device whatever its denormal and rounding modes (the
//! H200 flushed float32 denormals in float instructions); on devices that round float instructions
//! to nearest even, FLOAT + - * run as float instructions where both operands are normal and the
//! exact result is certainly normal, and FLOAT / there takes a float estimate that integer
//! arithmetic corrects and checks. NaN results are x86's
//! (an operation on two NaNs may return the other one: gfxq's total order holds every NaN equal).
//! Not compiled, with the reason: conditions, CASE, NULL literals, strings, more than EXPR_MAX_CODE
//! instructions, EXPR_MAX_DEPTH stack slots or EXPR_MAX_COLUMNS columns.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gfxq/error.h"
#include "gfxq/result.h"
#include "plan/expr.h"
#include "vk/device.h"
#include "vk/relational/select.h"

namespace gfxq::vk {

//! A compiled expression.
struct ExprProgram {
  std::vector<uint32_t> code;       //!< instructions (opcode | operand << 8)
  std::vector<uint64_t> constants;  //!< 64-bit constants the CONST instructions push
  std::vector<size_t> columns;      //!< input column (of the expression's input schema) of each load slot
  std::vector<std::string> sites;   //!< per instruction: the text of the expression node it computes
  Type type = Type::Int64;          //!< result type
  bool float64 = false;             //!< uses DOUBLE instructions (the expression_eval_f64 kernel)
  //! has FLOAT + - * /, which the expression_eval[_f64]_rte kernels compute with float instructions
  //! where that is exact, on devices that round them to nearest even (clear it: integer code only)
  bool float32_fast = false;
  uint32_t depth = 0;  //!< stack slots used
  //! compile_kept: the EXPR_OP_KEEP instruction ending the condition (instructions after it run only
  //! on the rows kept, and their error rows are rows of the table, not of the kept rows)
  std::optional<size_t> keep;
};

//! Compiles `e` (for any device: nothing compiled depends on its capabilities), or nullopt with `why`
//! (what is not compiled and why). Column reads must be of INT, FLOAT, DATE or STRING columns (the
//! caller checks that they hold no NULLs).
std::optional<ExprProgram> compile_expression(const plan::Expr& e, std::string& why);

//! Compiles condition `e` (plan::Expr::boolean) to a program whose value is INT 1 where it holds and
//! 0 where not, or nullopt with `why`: comparisons (= <> < <= > >=) of integers, DATEs, FLOAT and
//! DOUBLE values (the total order: -0.0 = +0.0, NaN = NaN above +inf; an integer against a float
//! exactly) and STRING codes of one dictionary (a string literal is a code bound there, as the binder
//! maps it), AND, OR, NOT, TRUE and FALSE. Every operand is evaluated for every row, as the CPU engine
//! evaluates them, so errors are its errors. compile_expression() compiles conditions inside values
//! (a condition as INT, CASE WHEN ... THEN ... ELSE ... END) the same way.
std::optional<ExprProgram> compile_condition(const plan::Expr& e, std::string& why);

//! `e` over the rows where `condition` holds, in one program: the condition, EXPR_OP_KEEP, then `e`
//! (ExprProgram::keep). Reduced (ExprLayout::Reduce), its partials sum, bound and count only the rows
//! kept: `SUM(e) ... WHERE condition` in one pass. An error of the condition's instructions is at a
//! row of the input; one of `e`'s is at a row of the input too, where the CPU engine names the
//! position among the kept rows (reduce_kept() converts it).
std::optional<ExprProgram> compile_kept(const plan::Expr& condition, const plan::Expr& e, std::string& why);

//! The first failing instruction of a program's error words (program order, which is the CPU
//! engine's evaluation order) and its smallest failing row.
struct ExprFailure {
  size_t at = 0;                //!< the instruction
  uint32_t row = 0;             //!< its smallest failing row (position in the evaluated order)
  std::vector<uint32_t> words;  //!< the error words read back
};

//! The first failure in `words`, or nullopt when no instruction failed.
std::optional<ExprFailure> first_failure(const ExprProgram& program, const std::vector<uint32_t>& words);

//! The CPU engine's error for failure `f`, naming row `row` (f.row, or its position among the rows
//! kept by a compile_kept() condition).
Error failure_error(const ExprProgram& program, const ExprFailure& f, uint64_t row);

//! The rows an expression is evaluated over: device columns (one per load slot of the program, in
//! slot order) of `rows` rows, optionally only the ascending row ids of `selection`.
struct ExprInput {
  std::vector<const DeviceColumn*> columns;  //!< the program's load slots' columns
  uint64_t rows = 0;                         //!< rows of every column (< 2^32)
  const Buffer* selection = nullptr;         //!< optional: row ids to evaluate, in this order
  uint64_t selected = 0;                     //!< ids in `selection`
  //! Rows evaluated: `selected` with a selection, else `rows`.
  uint64_t count() const noexcept { return selection ? selected : rows; }
};

//! Where evaluated values go.
enum class ExprLayout {
  Compact,  //!< value i of the evaluated order at position i (count() values)
  ByRow,    //!< the value of row r at position r (rows values; unselected positions unwritten)
  Split64,  //!< ByRow, an integer result as two INT columns: high word, low word ^ 2^31
  Reduce,   //!< per-workgroup partials of the sum, minimum and maximum (integer results) and the count of
            //!< rows kept (every row unless the program has EXPR_OP_KEEP)
};

//! Bytes the first output buffer of `layout` needs for `program` over `input` (Split64: each of its
//! two buffers), padded as padded_bytes() pads.
uint64_t output_bytes(const ExprProgram& program, const ExprInput& input, ExprLayout layout);

//! One evaluation of a program, prepared for recording in the primitives' shape: the caller sizes
//! the outputs (output_bytes), records into its own command buffer, submits, then reads the errors.
//! A program of one integer operator on two INT columns runs a variant without the interpreter loop
//! (expression_eval_binary, the operator as a specialization constant); others the interpreter
//! (expression_eval_f64 where it computes DOUBLE values; the _rte variants of both for FLOAT
//! arithmetic on devices that round float instructions to nearest even).
class ExprKernel {
 public:
  //! Prepares `program` over `input` writing `layout` into `out0` (and `out1`, Split64's low words).
  //! `program`, the input's buffers and the outputs must outlive the kernel. Error(Unsupported) for
  //! 2^32 rows or more or a buffer larger than one storage binding.
  ExprKernel(Device& device, const ExprProgram& program, const ExprInput& input, ExprLayout layout, const Buffer& out0,
             const Buffer* out1 = nullptr);
  ExprKernel(const ExprKernel&) = delete;
  ExprKernel& operator=(const ExprKernel&) = delete;
  //! Records the reset of the error words, a barrier and the dispatch. The caller owes a barrier
  //! between earlier writes of the inputs and this, and between this and later reads of the outputs.
  void record(VkCommandBuffer cmd) const;
  //! After the submission: the error the CPU engine raises for the first failing instruction
  //! (program order is its evaluation order), if any. Downloads the error words.
  std::optional<Error> error() const;
  //! error() from error words downloaded by the caller (Device::download_many with error_readback()).
  std::optional<Error> error(const std::vector<uint32_t>& words) const;
  //! The readback of the error words into `words` (sized here).
  Device::Readback error_readback(std::vector<uint32_t>& words) const;
  //! The kernel variant it runs: expression_eval[_f64][_rte] (the interpreter) or expression_eval_binary.
  const std::string& kernel() const noexcept { return kernel_; }

 private:
  Device& device_;
  const ExprProgram& program_;
  Buffer code_, errors_;
  std::vector<const Buffer*> bindings_;
  std::vector<uint32_t> push_;
  uint32_t groups_ = 0;
  std::string kernel_;              // expression_eval[_f64][_rte] or expression_eval_binary
  uint32_t spec0_ = 0, spec1_ = 0;  // the binary variant's specialization constants
};

//! The values of one evaluated expression on the device.
struct ExprValues {
  Type type = Type::Int64;     //!< the expression's type
  Buffer values;               //!< 4- or 8-byte values (Split64: the high words)
  Buffer low;                  //!< Split64: the low words ^ 2^31
  uint64_t count = 0;          //!< positions the buffers hold
  std::optional<Error> error;  //!< the error the CPU engine would raise evaluating it, if any
};

//! Evaluates `program` over `input` (one submission; an "expression" pass in `passes`). An
//! evaluation error does not throw: it comes back in ExprValues::error, so the caller raises errors
//! in the CPU engine's order. Error(Unsupported) when a column exceeds one storage binding.
ExprValues evaluate_expression(Device& device, const ExprProgram& program, const ExprInput& input, ExprLayout layout,
                               std::vector<PassRecord>& passes);

//! The values of a Compact evaluation as a host column of the expression's type named `name`.
Column download_values(Device& device, const ExprValues& values, const std::string& name,
                       std::vector<PassRecord>& passes);

//! An integer expression's values reduced on the device: exact sum, minimum, maximum.
struct ExprReduction {
  __int128 sum = 0;            //!< the exact sum of the values
  int64_t min = INT64_MAX;     //!< the smallest value (INT64_MAX over no rows)
  int64_t max = INT64_MIN;     //!< the largest value (INT64_MIN over no rows)
  uint64_t count = 0;          //!< values reduced (the rows kept, for a compile_kept() program)
  std::optional<Error> error;  //!< as ExprValues::error
};

//! The exact sum, minimum and maximum of the Reduce partials an ExprKernel wrote for `count` rows
//! (error left empty).
ExprReduction read_partials(Device& device, const Buffer& partials, uint64_t count);

//! Reduces an integer-typed (INT, BIGINT, DATE) `program` over `input`: per-workgroup partials of
//! the sum (low and high words apart, so exact), minimum and maximum, added on the host.
ExprReduction reduce_expression(Device& device, const ExprProgram& program, const ExprInput& input,
                                std::vector<PassRecord>& passes);

//! Reduces `programs` (integer-typed, or of any type for their count and errors only), each over its
//! input (`inputs[i]`: its load slots' columns; every input of the same rows), each by its own dispatch, all recorded
//! into one submission and read back in one wait (an "expression" pass). A compile_kept() program's reduction covers
//! the rows its condition keeps, and its error names the row the CPU engine names (an error of the value among the kept
//! rows: found by a rerun over the rows before it, only when there is one).
std::vector<ExprReduction> reduce_expressions(Device& device, const std::vector<const ExprProgram*>& programs,
                                              const std::vector<ExprInput>& inputs, std::vector<PassRecord>& passes);

//! The rows where a condition holds, as device row ids.
struct ExprSelection {
  Buffer ids;                  //!< ascending row ids (uint32, padded_bytes(); at least 16 bytes)
  uint64_t count = 0;          //!< ids in `ids`
  std::optional<Error> error;  //!< as ExprValues::error (the ids are then meaningless)
};

//! Selects the rows of `input` (every row, or the ids of its selection) where the compile_condition()
//! program holds, in one submission and one wait (an "expression" pass): the program writes a flag
//! at each evaluated row id, compact() (vk/primitives/compact.h) turns the flags into ascending row
//! ids, and the count comes back with the error words. Needs what compact() needs.
ExprSelection select_rows(Device& device, const ExprProgram& condition, const ExprInput& input,
                          std::vector<PassRecord>& passes);

}  // namespace gfxq::vk
