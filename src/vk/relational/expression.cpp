// Expression programs on the compute path (expression.h): the compiler from plan::Expr to postfix
// instructions, and the operator that runs them (shaders/vk/expression_eval.comp) and turns the
// per-instruction error words into the CPU engine's error.

#include "vk/relational/expression.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <memory>
#include <variant>

#include "expression_config.glsl"
#include "vk/primitives/compact.h"

namespace gfxq::vk {

namespace {

using plan::ArithOp;
using plan::Expr;
using plan::ExprKind;

// How a value sits on the kernel's stack.
enum class Repr { Int, F32, F64 };

Repr repr_of(Type t) {
  return t == Type::Float32 ? Repr::F32 : t == Type::Float64 ? Repr::F64 : Repr::Int;
}

class Compiler {
 public:
  explicit Compiler(std::string& why) : why_(why) {}

  // Compiles `e` onto the program, leaving its value on the stack; false with why_ set.
  bool value(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Column: return column(e);
      case ExprKind::Literal: return literal(e);
      case ExprKind::Arith: return arith(e);
      case ExprKind::Neg: {
        if (!value(e.args[0]) || !convert(repr_of(e.args[0].type), repr_of(e.type), e)) return false;
        const Repr r = repr_of(e.type);
        if (r == Repr::F64) p_.float64 = true;  // F64_NEG is compiled into the _f64 kernel only
        return emit(r == Repr::Int ? EXPR_OP_I64_NEG : r == Repr::F32 ? EXPR_OP_F32_NEG : EXPR_OP_F64_NEG, 0, e, 0);
      }
      case ExprKind::Cast: return value(e.args[0]) && convert(repr_of(e.args[0].type), repr_of(e.type), e);
      case ExprKind::Extract: {
        if (!value(e.args[0])) return false;
        const uint32_t op = e.part == plan::DatePart::Year    ? EXPR_OP_YEAR
                            : e.part == plan::DatePart::Month ? EXPR_OP_MONTH
                                                              : EXPR_OP_DAY;
        return emit(op, 0, e, 0);
      }
      case ExprKind::ToBool: return truth(e.args[0]);  // a truth value is already INT 1 / 0
      case ExprKind::Case: return case_of(e);
      default: break;
    }
    if (e.boolean) return truth(e);
    return refuse(e.text + " is not an expression the compute path compiles");
  }

  // Compiles condition `e` onto the program, leaving 1 (true) or 0 (false) on the stack.
  bool truth(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Compare: return compare(e);
      case ExprKind::And:
      case ExprKind::Or: {
        // Every operand for every row, as the CPU engine evaluates them (their errors are raised
        // even where an earlier operand decided the row).
        const uint32_t op = e.kind == ExprKind::And ? EXPR_OP_AND : EXPR_OP_OR;
        for (size_t i = 0; i < e.args.size(); ++i)
          if (!truth(e.args[i]) || (i > 0 && !emit(op, 0, e, -1))) return false;
        return true;
      }
      case ExprKind::Not: return truth(e.args[0]) && emit(EXPR_OP_NOT, 0, e, 0);
      case ExprKind::Literal:
        if (std::holds_alternative<std::monostate>(e.literal))
          return refuse("it holds the NULL literal (the compute expressions carry no NULLs)");
        return constant(std::get<int32_t>(e.literal) != 0 ? 1 : 0, e);
      default: break;
    }
    if (!e.boolean) return refuse(e.text + " is a " + std::string(to_string(e.type)) + " value, not a condition");
    return refuse(e.text + " is not a condition the compute path compiles");
  }

  // The condition `e` followed by EXPR_OP_KEEP: rows where it is false are dropped from there on.
  bool keep(const Expr& e) { return truth(e) && emit(EXPR_OP_KEEP, 0, e, -1); }

  ExprProgram take() { return std::move(p_); }
  // Instructions so far.
  size_t size() const noexcept { return p_.code.size(); }

 private:
  bool refuse(std::string why) {
    why_ = std::move(why);
    return false;
  }

  // Appends one instruction computing node `e` that changes the stack depth by `delta`.
  bool emit(uint32_t op, uint32_t arg, const Expr& e, int delta) {
    if (p_.code.size() >= EXPR_MAX_CODE)
      return refuse("it needs more than " + std::to_string(EXPR_MAX_CODE) +
                    " instructions (the compute expression program's limit)");
    depth_ += delta;
    if (depth_ > EXPR_MAX_DEPTH)
      return refuse("it needs more than " + std::to_string(EXPR_MAX_DEPTH) +
                    " stack slots (the compute expression program's limit; nest less deeply)");
    p_.depth = std::max<uint32_t>(p_.depth, uint32_t(depth_));
    p_.code.push_back(op | (arg << 8));
    p_.sites.push_back(e.text);
    return true;
  }

  bool constant(uint64_t bits, const Expr& e) {
    p_.constants.push_back(bits);
    return emit(EXPR_OP_CONST, uint32_t(p_.constants.size() - 1), e, 1);
  }

  bool column(const Expr& e) {
    if (e.type != Type::Int32 && e.type != Type::Float32 && e.type != Type::Date && e.type != Type::String)
      return refuse("column " + e.text + " is " + to_string(e.type) +
                    " (the compute expressions read 32-bit INT, FLOAT, DATE and STRING columns)");
    auto it = std::find(p_.columns.begin(), p_.columns.end(), e.column);
    if (it == p_.columns.end()) {
      if (p_.columns.size() >= EXPR_MAX_COLUMNS)
        return refuse("it reads more than " + std::to_string(EXPR_MAX_COLUMNS) +
                      " columns (the compute expression kernel's limit)");
      p_.columns.push_back(e.column);
      it = p_.columns.end() - 1;
    }
    const auto slot = uint32_t(it - p_.columns.begin());
    return emit(e.type == Type::Float32 ? EXPR_OP_LOAD_FLOAT : EXPR_OP_LOAD_INT, slot, e, 1);
  }

  // A literal as the CPU engine broadcasts it: integers converted to the literal's type.
  bool literal(const Expr& e) {
    if (std::holds_alternative<std::monostate>(e.literal))
      return refuse("it holds the NULL literal (the compute expressions carry no NULLs)");
    if (std::holds_alternative<std::string>(e.literal))
      return refuse("it holds the string literal " + e.text + " (the compute expressions compute numbers and dates)");
    uint64_t bits = 0;
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
            if (e.type == Type::Float32)
              bits = std::bit_cast<uint32_t>(float(x));
            else if (e.type == Type::Float64)
              bits = std::bit_cast<uint64_t>(double(x));
            else
              bits = uint64_t(int64_t(x));
          } else if constexpr (std::is_same_v<T, float>) {
            bits = std::bit_cast<uint32_t>(x);
          } else if constexpr (std::is_same_v<T, double>) {
            bits = e.type == Type::Float32 ? std::bit_cast<uint32_t>(float(x)) : std::bit_cast<uint64_t>(x);
          } else if constexpr (std::is_same_v<T, Date>) {
            bits = uint64_t(int64_t(x.days));
          }
        },
        e.literal);
    return constant(bits, e);
  }

  // Converts the value on top of the stack from `from` to `to` (wider only, as the binder types).
  bool convert(Repr from, Repr to, const Expr& e) {
    if (from == to) return true;
    if (to == Repr::F64) p_.float64 = true;
    if (from == Repr::Int && to == Repr::F32) return emit(EXPR_OP_I64_TO_F32, 0, e, 0);
    if (from == Repr::Int && to == Repr::F64) return emit(EXPR_OP_I64_TO_F64, 0, e, 0);
    if (from == Repr::F32 && to == Repr::F64) return emit(EXPR_OP_F32_TO_F64, 0, e, 0);
    return refuse(e.text + " narrows a value (not compiled for the compute path)");
  }

  // A comparison in the CPU engine's semantics (cpu/exec/eval.cpp compare): integers (INT, BIGINT,
  // DATE days, STRING codes of one dictionary) as int64; FLOAT and DOUBLE in the total order (a FLOAT
  // widened against a DOUBLE); an integer against a float exactly on the mathematical values.
  bool compare(const Expr& e) {
    const Expr& a = e.args[0];
    const Expr& b = e.args[1];
    if (a.boolean || b.boolean) return refuse(e.text + " compares truth values (not compiled for the compute path)");
    if ((a.type == Type::String) != (b.type == Type::String))
      return refuse(e.text + " compares a string with another type");
    if (a.type == Type::String && a.dictionary != b.dictionary)
      return refuse(e.text +
                    " compares strings of two dictionaries (compared as strings, not codes; not compiled "
                    "for the compute path)");
    const Repr ra = repr_of(a.type), rb = repr_of(b.type);
    // Two floats compare in the wider format; an integer and a float each in its own.
    const Repr common = ra == Repr::Int || rb == Repr::Int   ? Repr::Int
                        : ra == Repr::F64 || rb == Repr::F64 ? Repr::F64
                                                             : Repr::F32;
    if (!value(a) || (common != Repr::Int && !convert(ra, common, e))) return false;
    if (!value(b) || (common != Repr::Int && !convert(rb, common, e))) return false;
    uint32_t how = EXPR_CMP_INT;
    if (ra == Repr::Int && rb == Repr::Int)
      how = EXPR_CMP_INT;
    else if (ra == Repr::Int)
      how = rb == Repr::F32 ? EXPR_CMP_INT_F32 : EXPR_CMP_INT_F64;
    else if (rb == Repr::Int)
      how = ra == Repr::F32 ? EXPR_CMP_F32_INT : EXPR_CMP_F64_INT;
    else
      how = common == Repr::F32 ? EXPR_CMP_F32 : EXPR_CMP_F64;
    return emit(EXPR_OP_CMP, uint32_t(e.cmp) | (how << 4), e, -1);
  }

  // CASE WHEN w THEN t ... ELSE x END: every WHEN and THEN evaluated for every row, in the CPU
  // engine's order (w0 t0 w1 t1 ... x), folded into a (value, decided) pair as they come, so the
  // stack holds two slots however many branches there are.
  bool case_of(const Expr& e) {
    if (!e.has_else)
      return refuse(e.text +
                    " has no ELSE (its value is NULL where no WHEN holds; the compute expressions "
                    "carry no NULLs)");
    const Repr r = repr_of(e.type);
    const size_t pairs = e.args.size() / 2;
    for (size_t p = 0; p < pairs; ++p) {
      const Expr& then = e.args[2 * p + 1];
      if (!truth(e.args[2 * p]) || !result(then, e, r)) return false;
      if (!emit(p == 0 ? EXPR_OP_CASE_FIRST : EXPR_OP_CASE_NEXT, 0, e, p == 0 ? 0 : -2)) return false;
    }
    return result(e.args.back(), e, r) && emit(EXPR_OP_CASE_ELSE, 0, e, -2);
  }

  // A CASE result `v` of CASE `e` as a value of the CASE's representation.
  bool result(const Expr& v, const Expr& e, Repr r) {
    if (e.type == Type::String && v.dictionary != e.dictionary)
      return refuse(e.text + " takes strings of another dictionary (not compiled for the compute path)");
    return value(v) && convert(repr_of(v.type), r, e);
  }

  bool arith(const Expr& e) {
    const Repr r = repr_of(e.type);
    for (const Expr& a : e.args)
      if (!value(a) || !convert(repr_of(a.type), r, e)) return false;
    if (r == Repr::Int) {
      const uint32_t op = e.arith == ArithOp::Add   ? EXPR_OP_I64_ADD
                          : e.arith == ArithOp::Sub ? EXPR_OP_I64_SUB
                          : e.arith == ArithOp::Mul ? EXPR_OP_I64_MUL
                                                    : EXPR_OP_I64_DIV;
      return emit(op, e.type == Type::Date ? EXPR_FLAG_DATE : 0, e, -1);
    }
    if (r == Repr::F64) p_.float64 = true;
    if (r == Repr::F32) p_.float32_fast = true;
    if (e.arith == ArithOp::Div) return emit(r == Repr::F32 ? EXPR_OP_F32_DIV : EXPR_OP_F64_DIV, 0, e, -1);
    const uint32_t base = r == Repr::F32 ? EXPR_OP_F32_ADD : EXPR_OP_F64_ADD;
    const uint32_t op = base + (e.arith == ArithOp::Add ? 0 : e.arith == ArithOp::Sub ? 1 : 2);
    return emit(op, 0, e, -1);
  }

  std::string& why_;
  ExprProgram p_;
  int depth_ = 0;
};

}  // namespace

std::optional<ExprFailure> first_failure(const ExprProgram& p, const std::vector<uint32_t>& words) {
  for (size_t at = 0; at < p.code.size(); ++at) {
    const uint32_t* w = &words[at * EXPR_ERR_WORDS];
    const uint32_t row = std::min({w[EXPR_ERR_OVERFLOW], w[EXPR_ERR_DIV_ZERO], w[EXPR_ERR_DATE]});
    if (row != UINT32_MAX) return ExprFailure{at, row, words};
  }
  return std::nullopt;
}

Error failure_error(const ExprProgram& p, const ExprFailure& f, uint64_t row) {
  const uint32_t* w = &f.words[f.at * EXPR_ERR_WORDS];
  const std::string where = " in " + p.sites[f.at] + " at row " + std::to_string(row);
  if (f.row == w[EXPR_ERR_DIV_ZERO]) return Error(ErrorCode::InvalidInput, "division by zero" + where);
  if (f.row == w[EXPR_ERR_DATE]) return Error(ErrorCode::Overflow, "date out of range" + where);
  const bool neg = (p.code[f.at] & 0xFFu) == EXPR_OP_I64_NEG;
  return Error(ErrorCode::Overflow,
               std::string(neg ? "integer overflow" : "integer overflow (the result is outside BIGINT)") + where);
}

namespace {

// The error the CPU engine raises for the first failing instruction (program order is its evaluation
// order: operands before the node), from the kernel's per-instruction smallest rows.
std::optional<Error> first_error(const ExprProgram& p, const std::vector<uint32_t>& words) {
  const auto f = first_failure(p, words);
  if (!f) return std::nullopt;
  return failure_error(p, *f, f->row);
}

// Push constants of expression_eval.comp (group_offset last, set by dispatch).
struct EvalPush {
  uint32_t count, code_len, const_base, mode, selected, by_row, group_offset;
};

bool wide(Type t) {
  return t == Type::Int64 || t == Type::Float64;
}

uint64_t groups_for(uint64_t count) {
  const uint64_t per_group = EXPR_WG * EXPR_ROWS_PER_THREAD;
  return (count + per_group - 1) / per_group;
}

// Submits one ExprKernel and records its "expression" pass; returns its error.
// Runs the kernel's pass and records it; its error unless `extra` is given, when the error words are
// read in the same wait as `extra` (the caller's readbacks).
std::optional<Error> submit(Device& device, const ExprKernel& kernel, const ExprProgram& program,
                            const ExprInput& input, const std::string& what, std::vector<PassRecord>& passes,
                            std::vector<Device::Readback> extra = {}) {
  const auto start = std::chrono::steady_clock::now();
  const std::optional<double> gpu = device.run_pass([&](VkCommandBuffer cmd) { kernel.record(cmd); });
  PassRecord pass;
  pass.kind = "expression";
  pass.detail = what + " " + program.sites.back() + " (" + std::to_string(program.code.size()) + " instructions, " +
                kernel.kernel() + (input.selection ? ", selected rows)" : ")");
  pass.items = input.count();
  pass.gpu_ms = gpu;
  std::vector<uint32_t> words;
  extra.push_back(kernel.error_readback(words));
  device.download_many(extra);
  std::optional<Error> error = kernel.error(words);
  pass.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  passes.push_back(std::move(pass));
  return error;
}

}  // namespace

std::optional<ExprProgram> compile_expression(const plan::Expr& e, std::string& why) {
  if (e.boolean) {
    why = e.text + " is a condition (compile_condition compiles conditions)";
    return std::nullopt;
  }
  Compiler c(why);
  if (!c.value(e)) return std::nullopt;
  ExprProgram p = c.take();
  p.type = e.type;
  return p;
}

std::optional<ExprProgram> compile_condition(const plan::Expr& e, std::string& why) {
  Compiler c(why);
  if (!c.truth(e)) return std::nullopt;
  ExprProgram p = c.take();
  p.type = Type::Int32;
  return p;
}

std::optional<ExprProgram> compile_kept(const plan::Expr& condition, const plan::Expr& e, std::string& why) {
  if (e.boolean) {
    why = e.text + " is a condition (the compute expressions reduce values)";
    return std::nullopt;
  }
  Compiler c(why);
  if (!c.keep(condition)) return std::nullopt;
  const size_t keep = c.size() - 1;
  if (!c.value(e)) return std::nullopt;
  ExprProgram p = c.take();
  p.keep = keep;
  p.type = e.type;
  return p;
}

uint64_t output_bytes(const ExprProgram& program, const ExprInput& input, ExprLayout layout) {
  switch (layout) {
    case ExprLayout::Compact: return padded_bytes((wide(program.type) ? 2 : 1) * input.count());
    case ExprLayout::ByRow: return padded_bytes((wide(program.type) ? 2 : 1) * input.rows);
    case ExprLayout::Split64: return padded_bytes(input.rows);
    case ExprLayout::Reduce: return padded_bytes(groups_for(input.count()) * EXPR_PARTIAL_WORDS);
  }
  return 0;
}

ExprKernel::ExprKernel(Device& device, const ExprProgram& program, const ExprInput& input, ExprLayout layout,
                       const Buffer& out0, const Buffer* out1)
    : device_(device), program_(program) {
  const std::string what = "compute expression " + program.sites.back();
  if (input.rows >= (uint64_t(1) << 32))
    throw Error(ErrorCode::Unsupported,
                what + " over " + std::to_string(input.rows) + " rows (the kernel takes fewer than 2^32)");
  if (input.columns.size() != program.columns.size())
    throw Error(ErrorCode::Internal, what + ": " + std::to_string(input.columns.size()) + " columns bound for " +
                                         std::to_string(program.columns.size()) + " load slots");
  const bool integer = repr_of(program.type) == Repr::Int;
  if (layout == ExprLayout::Split64 && !integer)
    throw Error(ErrorCode::Internal, what + ": a " + to_string(program.type) + " value cannot be split");
  if (layout == ExprLayout::Split64 && !out1) throw Error(ErrorCode::Internal, what + ": Split64 without out1");
  const uint64_t limit = device.caps().max_storage_buffer_range;
  auto check = [&](const Buffer* b, const char* name) {
    if (b && b->size() > limit)
      throw Error(ErrorCode::Unsupported, what + ": its " + name + " (" + std::to_string(b->size()) +
                                              " bytes) exceeds one storage binding (" + std::to_string(limit) +
                                              " bytes); chunked evaluation is not built");
  };
  for (const DeviceColumn* c : input.columns) check(&c->buffer, "input column");
  check(input.selection, "selection");
  check(&out0, "output");
  check(out1, "output");
  if (out0.size() < output_bytes(program, input, layout) ||
      (out1 && out1->size() < output_bytes(program, input, layout)))
    throw Error(ErrorCode::Internal, what + ": output buffer smaller than output_bytes()");

  // The program: code words, then the constants as (low, high) word pairs.
  std::vector<uint32_t> words(program.code);
  const auto const_base = uint32_t(words.size());
  for (uint64_t c : program.constants) {
    words.push_back(uint32_t(c));
    words.push_back(uint32_t(c >> 32));
  }
  code_ = device.create_buffer(words.size() * 4, MemoryKind::Upload);
  std::memcpy(code_.mapped(), words.data(), words.size() * 4);
  errors_ = device.create_buffer(program.code.size() * EXPR_ERR_WORDS * 4, MemoryKind::Device);

  bindings_.assign(EXPR_BINDINGS, &code_);
  if (input.selection) bindings_[EXPR_BIND_SELECTION] = input.selection;
  for (size_t i = 0; i < input.columns.size(); ++i) bindings_[EXPR_BIND_COLUMN0 + i] = &input.columns[i]->buffer;
  bindings_[EXPR_BIND_OUT0] = &out0;
  if (out1) bindings_[EXPR_BIND_OUT1] = out1;
  bindings_[EXPR_BIND_ERRORS] = &errors_;
  const uint32_t mode = layout == ExprLayout::Split64  ? EXPR_MODE_SPLIT64
                        : layout == ExprLayout::Reduce ? EXPR_MODE_REDUCE
                        : wide(program.type)           ? EXPR_MODE_VALUES64
                                                       : EXPR_MODE_VALUES32;
  const EvalPush push{uint32_t(input.count()),
                      uint32_t(program.code.size()),
                      const_base,
                      mode,
                      input.selection ? 1u : 0u,
                      layout == ExprLayout::ByRow || layout == ExprLayout::Split64 ? 1u : 0u,
                      0};
  push_.resize(sizeof push / 4);
  std::memcpy(push_.data(), &push, sizeof push);
  groups_ = uint32_t(groups_for(input.count()));

  // One integer operator on two INT columns runs without the interpreter: the operator, the second
  // slot and the DATE flag become specialization constants.
  const auto op_of = [&](size_t at) { return program.code[at] & 0xFFu; };
  const auto arg_of = [&](size_t at) { return program.code[at] >> 8; };
  if (program.code.size() == 3 && op_of(0) == EXPR_OP_LOAD_INT && arg_of(0) == 0 && op_of(1) == EXPR_OP_LOAD_INT &&
      op_of(2) >= EXPR_OP_I64_ADD && op_of(2) <= EXPR_OP_I64_DIV) {
    kernel_ = "expression_eval_binary";
    spec0_ = op_of(2);
    spec1_ = 1 + arg_of(1) + (arg_of(2) << 4);
  } else {
    kernel_ = program.float64 ? "expression_eval_f64" : "expression_eval";
    if (program.float32_fast && device.caps().rounding_rte_float32) kernel_ += "_rte";
  }
}

void ExprKernel::record(VkCommandBuffer cmd) const {
  const Pipeline& pipe = device_.pipeline(kernel_, EXPR_BINDINGS, sizeof(EvalPush), true, spec0_, spec1_);
  vkCmdFillBuffer(cmd, errors_.handle(), 0, VK_WHOLE_SIZE, 0xFFFFFFFFu);
  device_.barrier(cmd);
  if (groups_) device_.dispatch(cmd, pipe, bindings_, push_.data(), groups_);
}

std::optional<Error> ExprKernel::error() const {
  std::vector<uint32_t> words;
  const Device::Readback r = error_readback(words);
  device_.download(*r.src, r.dst, r.bytes);
  return first_error(program_, words);
}

std::optional<Error> ExprKernel::error(const std::vector<uint32_t>& words) const {
  return first_error(program_, words);
}

Device::Readback ExprKernel::error_readback(std::vector<uint32_t>& words) const {
  words.assign(program_.code.size() * EXPR_ERR_WORDS, 0);
  return {&errors_, words.data(), words.size() * 4, 0};
}

ExprValues evaluate_expression(Device& device, const ExprProgram& program, const ExprInput& input, ExprLayout layout,
                               std::vector<PassRecord>& passes) {
  if (layout == ExprLayout::Reduce)
    throw Error(ErrorCode::Internal, "evaluate_expression: Reduce is reduce_expression's layout");
  ExprValues out;
  out.type = program.type;
  out.count = layout == ExprLayout::Compact ? input.count() : input.rows;
  out.values = device.create_buffer(output_bytes(program, input, layout), MemoryKind::Device);
  const bool split = layout == ExprLayout::Split64;
  if (split) out.low = device.create_buffer(output_bytes(program, input, layout), MemoryKind::Device);
  const ExprKernel kernel(device, program, input, layout, out.values, split ? &out.low : nullptr);
  out.error = submit(device, kernel, program, input, "evaluate", passes);
  return out;
}

Column download_values(Device& device, const ExprValues& values, const std::string& name,
                       std::vector<PassRecord>& passes) {
  const auto start = std::chrono::steady_clock::now();
  Column c = Column::make(name, values.type);
  const uint64_t n = values.count;
  std::visit(
      [&](auto& v) {
        v.resize(n);
        if (n) device.download(values.values, v.data(), n * sizeof(v[0]));
      },
      c.data);
  PassRecord p;
  p.kind = "download";
  p.detail = name + " (" + std::to_string(n * (wide(values.type) ? 8 : 4)) + " bytes)";
  p.items = n;
  p.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  passes.push_back(std::move(p));
  return c;
}

namespace {

// Combines the downloaded partials (`words`, one reduction per workgroup) of `count` rows evaluated.
ExprReduction combine_partials(const std::vector<uint64_t>& words, uint64_t count) {
  ExprReduction r;
  const uint64_t groups = groups_for(count);
  for (uint64_t g = 0; g < groups; ++g) {
    const uint64_t* w = &words[g * EXPR_PARTIAL_WORDS / 2];
    r.sum += __int128(w[0]) + (__int128(int64_t(w[1])) << 32);
    r.min = std::min(r.min, int64_t(w[2]));
    r.max = std::max(r.max, int64_t(w[3]));
    r.count += w[4];
  }
  return r;
}

}  // namespace

ExprReduction read_partials(Device& device, const Buffer& partials, uint64_t count) {
  std::vector<uint64_t> words(groups_for(count) * EXPR_PARTIAL_WORDS / 2);
  if (!words.empty()) device.download(partials, words.data(), words.size() * 8);
  return combine_partials(words, count);
}

ExprReduction reduce_expression(Device& device, const ExprProgram& program, const ExprInput& input,
                                std::vector<PassRecord>& passes) {
  Buffer partials = device.create_buffer(output_bytes(program, input, ExprLayout::Reduce), MemoryKind::Device);
  const ExprKernel kernel(device, program, input, ExprLayout::Reduce, partials);
  // The partials come back in the same wait as the error words.
  std::vector<uint64_t> words(groups_for(input.count()) * EXPR_PARTIAL_WORDS / 2);
  std::optional<Error> error =
      submit(device, kernel, program, input, "reduce", passes, {{&partials, words.data(), words.size() * 8, 0}});
  ExprReduction r = combine_partials(words, input.count());
  r.error = std::move(error);
  return r;
}

namespace {

// The partials' words of one reduction over `count` rows.
uint64_t partial_words(uint64_t count) {
  return groups_for(count) * EXPR_PARTIAL_WORDS / 2;
}

// reduce_expressions(); with `resolve` false, a kept program's error keeps the input's row (a rerun
// that counts the kept rows before an error reads only the count).
std::vector<ExprReduction> reduce_all(Device& device, const std::vector<const ExprProgram*>& programs,
                                      const std::vector<ExprInput>& inputs, std::vector<PassRecord>& passes,
                                      bool resolve) {
  if (inputs.size() != programs.size() || programs.empty())
    throw Error(ErrorCode::Internal, "reduce_expressions: one input per program, at least one");
  const ExprInput& input = inputs[0];
  const auto start = std::chrono::steady_clock::now();
  std::vector<Buffer> partials;
  partials.reserve(programs.size());  // the kernels keep references to their buffers
  std::vector<std::unique_ptr<ExprKernel>> kernels;
  for (const ExprProgram* p : programs) {
    partials.push_back(device.create_buffer(output_bytes(*p, input, ExprLayout::Reduce), MemoryKind::Device));
    const ExprInput& x = inputs[kernels.size()];
    if (x.count() != input.count())
      throw Error(ErrorCode::Internal, "reduce_expressions: inputs of different row counts");
    kernels.push_back(std::make_unique<ExprKernel>(device, *p, x, ExprLayout::Reduce, partials.back()));
  }
  const std::optional<double> gpu = device.run_pass([&](VkCommandBuffer cmd) {
    for (const auto& k : kernels) k->record(cmd);
  });
  // Every program's partials and error words in one wait.
  std::vector<std::vector<uint64_t>> words(programs.size(), std::vector<uint64_t>(partial_words(input.count())));
  std::vector<std::vector<uint32_t>> errors(programs.size());
  std::vector<Device::Readback> reads;
  for (size_t i = 0; i < programs.size(); ++i) {
    if (!words[i].empty()) reads.push_back({&partials[i], words[i].data(), words[i].size() * 8, 0});
    reads.push_back(kernels[i]->error_readback(errors[i]));
  }
  device.download_many(reads);
  PassRecord pass;
  pass.kind = "expression";
  pass.detail = "reduce " + std::to_string(programs.size()) + " program(s) in one submission:";
  for (size_t i = 0; i < programs.size(); ++i)
    pass.detail += (i ? ", " : " ") + programs[i]->sites.back() + " (" + std::to_string(programs[i]->code.size()) +
                   " instructions" +
                   (programs[i]->keep ? ", rows kept by " + programs[i]->sites[*programs[i]->keep] : "") + ")";
  pass.detail += input.selection ? " over selected rows" : "";
  pass.items = input.count();
  pass.gpu_ms = gpu;
  pass.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  passes.push_back(std::move(pass));

  std::vector<ExprReduction> out;
  for (size_t i = 0; i < programs.size(); ++i) {
    const ExprProgram& p = *programs[i];
    ExprReduction r = combine_partials(words[i], input.count());
    if (const auto f = first_failure(p, errors[i])) {
      uint64_t row = f->row;
      if (resolve && p.keep && f->at > *p.keep) {
        // The value's instructions ran on kept rows only; the CPU engine numbers them among the kept
        // rows: their number before row f->row, from a rerun over the rows before it (rare: errors only).
        ExprInput before = inputs[i];
        if (before.selection)
          before.selected = f->row;
        else
          before.rows = f->row;
        row = reduce_all(device, {&p}, {before}, passes, false).at(0).count;
      }
      r.error = failure_error(p, *f, row);
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::vector<ExprReduction> reduce_expressions(Device& device, const std::vector<const ExprProgram*>& programs,
                                              const std::vector<ExprInput>& inputs, std::vector<PassRecord>& passes) {
  return reduce_all(device, programs, inputs, passes, true);
}

ExprSelection select_rows(Device& device, const ExprProgram& condition, const ExprInput& input,
                          std::vector<PassRecord>& passes) {
  if (condition.type != Type::Int32 || condition.keep)
    throw Error(ErrorCode::Internal, "select_rows: " + condition.sites.back() + " is not a compiled condition");
  const auto start = std::chrono::steady_clock::now();
  ExprSelection out;
  const uint64_t n = input.rows;
  // Flags by row id (zero where a selection leaves a row out), then compacted over every row: the
  // ids come out ascending, as the selection's are.
  Buffer flags = device.create_buffer(padded_bytes(n), MemoryKind::Device);
  out.ids = device.create_buffer(std::max<uint64_t>(padded_bytes(input.count()), 16), MemoryKind::Device);
  Buffer count = device.create_buffer(16, MemoryKind::Device);
  Buffer scratch = device.create_buffer(std::max<uint64_t>(compact_scratch_bytes(device, n), 16), MemoryKind::Device);
  const ExprKernel kernel(device, condition, input, ExprLayout::ByRow, flags);
  const std::optional<double> gpu = device.run_pass([&](VkCommandBuffer cmd) {
    if (input.selection) vkCmdFillBuffer(cmd, flags.handle(), 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, count.handle(), 0, VK_WHOLE_SIZE, 0);
    device.barrier(cmd);
    kernel.record(cmd);
    device.barrier(cmd);
    if (n) {
      CompactOutputs o;
      o.ids = {&out.ids, 0, input.count() * 4};
      o.count = {&count, 0, 8};
      o.capacity = input.count();
      compact(device, cmd, ElemType::U32, {&flags, 0, n * 4}, n, Predicate::nonzero(), {}, o, {&scratch, 0, 0});
    }
  });
  std::vector<uint32_t> words;
  uint64_t selected = 0;
  device.download_many({{&count, &selected, 8, 0}, kernel.error_readback(words)});
  out.count = selected;
  out.error = kernel.error(words);
  PassRecord pass;
  pass.kind = "expression";
  pass.detail = "select rows where " + condition.sites.back() + " (" + std::to_string(condition.code.size()) +
                " instructions, " + kernel.kernel() + ", flags compacted into " + std::to_string(selected) +
                " row ids" + (input.selection ? ", selected rows)" : ")");
  pass.items = input.count();
  pass.gpu_ms = gpu;
  pass.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  passes.push_back(std::move(pass));
  return out;
}

}  // namespace gfxq::vk
