// Benchmark cases of the compute expressions (src/vk/relational/expression.h): SUM(a * b) of two INT
// columns already on the device, as the expression kernel's Reduce layout (int64 products, exact
// per-workgroup sums), timed by GPU timestamps in turn with a copy of one column (bench/vk_timing.h):
//
// - expr.sum_all: every row; bytes = 8n (a and b read).
// - expr.sum_where: the rows of a WHERE (a > 0, about half) as a selection of row ids
//   made beforehand (the engine's InputRows hands the fragment such ids); bytes = 4s + 8n (the ids,
//   and every sector of a and b, which a selectivity of one half touches).
// - expr.float_mul, expr.float_div: x * y and x / y of two FLOAT columns into a FLOAT column (Compact
//   layout), normal operands and results; exact on every device: on devices that round float
//   instructions to nearest even the _rte kernel computes them by a float instruction (the quotient
//   as a float estimate corrected by integer arithmetic), elsewhere by integer operations on the
//   bits; bytes = 12n (x and y read, the result written); checked bit for bit against the host's.
// - expr.float_mul_int, expr.float_div_int: the same by integer operations only (the kernels without
//   the fast path, as on devices without round-to-nearest-even float instructions).
// - expr.double_div: x / y of the same FLOAT columns widened to DOUBLE, into a DOUBLE column (integer
//   operations only: the restoring division); bytes = 16n.
// - expr.sum_fused: SUM(a * b) WHERE a < c as one compile_kept() program (the condition, a keep
//   instruction, the product) reduced over every row with a count of the rows kept: the fused pass
//   of the engine's `SUM(expr) ... WHERE cond`; bytes = 12n (a, b and c read).
// - engine.sql_expr_sum: `SELECT SUM(a * b) FROM t WHERE a > 0` through the Engine on the
//   compute backend, columns resident (one untimed run first), wall time (one fused expression
//   pass: one submission, one wait); bytes = 8n.
// - engine.sql_expr_sum_fused: `SELECT SUM(a * b) FROM t WHERE a < c` likewise (a condition on two
//   columns, fused); bytes = 12n.
// Ratios are against compute.ceiling_copy of the same run and size; the notes give the ratio to a
// copy timed in turn with the kernel. Every result is compared with a CPU sum (checked). No name holds
// "compute", so `--cases compute` does not take these along: run them with `--cases expr`.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench.h"
#include "gfxq/engine.h"
#include "gfxq/error.h"
#include "plan/expr.h"
#include "vk/relational/expression.h"
#include "vk_timing.h"

namespace gfxq::bench {
namespace {

// Columns a, b and c: n values in [-2^20, 2^20) from the seed (products need 41 bits).
struct Data {
  std::vector<int32_t> a, b, c;
  Data(const Env& env, uint64_t n) : a(n), b(n), c(n) {
    uint64_t s = env.seed;
    for (uint64_t i = 0; i < n; ++i) {
      a[i] = int32_t(mix(s) % (1u << 21)) - (1 << 20);
      b[i] = int32_t(mix(s) % (1u << 21)) - (1 << 20);
      c[i] = int32_t(mix(s) % (1u << 21)) - (1 << 20);
    }
  }
};

// `a op b` of columns 0 and 1 of type `operand`, the result of type `result`.
plan::Expr binary(plan::ArithOp op, Type operand, Type result, const std::string& a, const std::string& b) {
  plan::Expr e;
  e.kind = plan::ExprKind::Arith;
  e.arith = op;
  e.type = result;
  e.text = a + " " + plan::to_string(op) + " " + b;
  e.args = {plan::column_expr(0, operand, a), plan::column_expr(1, operand, b)};
  return e;
}

// A Reduce evaluation of `program` over `input`, timed in turn with a copy of its rows.
struct TimedReduce {
  double seconds = 0, copy_seconds = 0, copy_ratio = 0;
  uint64_t rows = 0, bytes = 0;
  std::string kernel;
  size_t instructions = 0;
  vk::ExprReduction got;
  bool error = false;
  //! The measurement, its note naming the kernel and `rows_text`.
  Measurement measurement(const std::string& rows_text) const {
    Measurement m;
    m.seconds = seconds;
    m.bytes = bytes;
    m.items = rows;
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s Reduce, %zu instructions, %s; %.3f of a copy timed in turn (%.4f ms)",
                  kernel.c_str(), instructions, rows_text.c_str(), copy_ratio, copy_seconds * 1e3);
    m.note = buf;
    return m;
  }
};

// Times `program` reducing `input` (bytes: what it must read) against a copy in turn, then reads its sums.
TimedReduce time_reduce(Env& env, const vk::ExprProgram& program, const vk::ExprInput& input, uint64_t bytes) {
  vk::Device& device = device_of(env);
  const vk::Buffer partials =
      device.create_buffer(vk::output_bytes(program, input, vk::ExprLayout::Reduce), vk::MemoryKind::Device);
  const vk::ExprKernel kernel(device, program, input, vk::ExprLayout::Reduce, partials);
  const CopyReference copy(device, input.rows);
  const std::vector<double> t = best_interleaved(
      env, {[&](VkCommandBuffer cmd) { kernel.record(cmd); }, [&](VkCommandBuffer cmd) { copy.record(device, cmd); }});
  TimedReduce r;
  r.seconds = t[0];
  r.copy_seconds = t[1];
  r.copy_ratio = copy.ratio(bytes, t[0], t[1]);
  r.rows = input.rows;
  r.bytes = bytes;
  r.kernel = kernel.kernel();
  r.instructions = program.code.size();
  r.got = vk::read_partials(device, partials, input.count());
  r.error = kernel.error().has_value();
  return r;
}

Measurement kernel_sum(Env& env, uint64_t rows, bool where) {
  vk::Device& device = device_of(env);
  const Data d(env, rows);
  std::vector<uint32_t> ids;
  __int128 want = 0;
  for (uint64_t i = 0; i < rows; ++i)
    if (!where || d.a[i] > 0) {
      if (where) ids.push_back(uint32_t(i));
      want += int64_t(d.a[i]) * d.b[i];
    }
  std::string why;
  const auto program = vk::compile_expression(binary(plan::ArithOp::Mul, Type::Int32, Type::Int64, "a", "b"), why);
  if (!program) throw Error(ErrorCode::Unsupported, "a * b does not compile: " + why);
  const vk::DeviceColumn a = vk::upload_column(device, Column::ints("a", d.a));
  const vk::DeviceColumn b = vk::upload_column(device, Column::ints("b", d.b));
  vk::Buffer selection;
  vk::ExprInput input;
  input.columns = {&a, &b};
  input.rows = rows;
  if (where) {
    selection = device.create_buffer(vk::padded_bytes(ids.size()), vk::MemoryKind::Device);
    if (!ids.empty()) device.upload(selection, ids.data(), ids.size() * 4);
    input.selection = &selection;
    input.selected = ids.size();
  }
  const TimedReduce r = time_reduce(env, *program, input, (where ? 4 * ids.size() : 0) + 8 * rows);
  if (r.error || r.got.sum != want)
    throw Error(ErrorCode::Internal, "expression bench: the device's SUM(a * b) differs from the CPU's");
  return r.measurement(std::to_string(input.count()) + " rows evaluated");
}

Measurement kernel_fused(Env& env, uint64_t rows) {
  vk::Device& device = device_of(env);
  const Data d(env, rows);
  __int128 want = 0;
  uint64_t kept = 0;
  for (uint64_t i = 0; i < rows; ++i)
    if (d.a[i] < d.c[i]) want += int64_t(d.a[i]) * d.b[i], ++kept;
  plan::Expr cond;
  cond.kind = plan::ExprKind::Compare;
  cond.boolean = true;
  cond.cmp = CmpOp::Lt;
  cond.text = "a < c";
  cond.args = {plan::column_expr(0, Type::Int32, "a"), plan::column_expr(2, Type::Int32, "c")};
  std::string why;
  const auto program = vk::compile_kept(cond, binary(plan::ArithOp::Mul, Type::Int32, Type::Int64, "a", "b"), why);
  if (!program) throw Error(ErrorCode::Unsupported, "a * b WHERE a < c does not compile: " + why);
  const vk::DeviceColumn a = vk::upload_column(device, Column::ints("a", d.a));
  const vk::DeviceColumn b = vk::upload_column(device, Column::ints("b", d.b));
  const vk::DeviceColumn c = vk::upload_column(device, Column::ints("c", d.c));
  vk::ExprInput input;
  for (size_t col : program->columns) input.columns.push_back(col == 0 ? &a : col == 1 ? &b : &c);
  input.rows = rows;
  const TimedReduce r = time_reduce(env, *program, input, 12 * rows);
  if (r.error || r.got.sum != want || r.got.count != kept)
    throw Error(ErrorCode::Internal, "expression bench: the device's SUM(a * b) WHERE a < c differs from the CPU's");
  return r.measurement(std::to_string(kept) + " of " + std::to_string(rows) + " rows kept");
}

// x op y of two FLOAT columns (op * or /) as `result` (FLOAT, or DOUBLE: both widened first); `fast`:
// as compiled (else integer operations only).
Measurement kernel_float(Env& env, uint64_t rows, plan::ArithOp op, Type result, bool fast) {
  vk::Device& device = device_of(env);
  // Values over 2^-40 .. 2^40 in magnitude, both signs: results stay normal, as in most data.
  std::vector<float> x(rows), y(rows);
  uint64_t s = env.seed;
  auto value = [&] {
    const uint64_t r = mix(s);
    const uint32_t exponent = 87 + uint32_t(r % 81), fraction = uint32_t(r >> 8) & 0x7FFFFFu;
    return std::bit_cast<float>((uint32_t(r >> 40) & 1u) << 31 | exponent << 23 | fraction);
  };
  for (uint64_t i = 0; i < rows; ++i) x[i] = value(), y[i] = value();
  const bool mul = op == plan::ArithOp::Mul;
  const bool wide = result == Type::Float64;
  const plan::Expr e = binary(op, Type::Float32, result, "x", "y");
  std::string why;
  auto program = vk::compile_expression(e, why);
  if (!program) throw Error(ErrorCode::Unsupported, e.text + " does not compile: " + why);
  if (!fast) program->float32_fast = false;
  const vk::DeviceColumn a = vk::upload_column(device, Column::floats("x", x));
  const vk::DeviceColumn b = vk::upload_column(device, Column::floats("y", y));
  vk::ExprInput input;
  input.columns = {&a, &b};
  input.rows = rows;
  const vk::Buffer out =
      device.create_buffer(vk::output_bytes(*program, input, vk::ExprLayout::Compact), vk::MemoryKind::Device);
  const vk::ExprKernel kernel(device, *program, input, vk::ExprLayout::Compact, out);
  const CopyReference copy(device, rows);
  const std::vector<double> t = best_interleaved(
      env, {[&](VkCommandBuffer cmd) { kernel.record(cmd); }, [&](VkCommandBuffer cmd) { copy.record(device, cmd); }});
  std::vector<uint64_t> got(wide ? rows : (rows + 1) / 2);
  if (rows) device.download(out, got.data(), rows * (wide ? 8 : 4));
  const auto* got32 = reinterpret_cast<const uint32_t*>(got.data());
  Measurement m;
  m.seconds = t[0];
  m.bytes = (wide ? 16 : 12) * rows;
  m.items = rows;
  m.checked = !kernel.error();
  for (uint64_t i = 0; i < rows && m.checked; ++i) {
    const double dx = x[i], dy = y[i];
    m.checked = wide ? got[i] == std::bit_cast<uint64_t>(mul ? dx * dy : dx / dy)
                     : got32[i] == std::bit_cast<uint32_t>(mul ? x[i] * y[i] : x[i] / y[i]);
  }
  if (!m.checked)
    throw Error(ErrorCode::Internal, "expression bench: the device's " + e.text + " differs from the host's");
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s Compact, %zu instructions; %.3f of a copy timed in turn (%.4f ms)",
                kernel.kernel().c_str(), program->code.size(), copy.ratio(m.bytes, t[0], t[1]), t[1] * 1e3);
  m.note = buf;
  return m;
}

// `SELECT SUM(a * b) FROM t WHERE a > 0`, or `WHERE a < c` with `two_columns`, through the Engine.
Measurement engine_sum(Env& env, uint64_t rows, bool two_columns) {
  const Data d(env, rows);
  __int128 want = 0;
  for (uint64_t i = 0; i < rows; ++i)
    if (two_columns ? d.a[i] < d.c[i] : d.a[i] > 0) want += int64_t(d.a[i]) * d.b[i];
  Catalog catalog;
  catalog.add("t", Table{{Column::ints("a", d.a), Column::ints("b", d.b), Column::ints("c", d.c)}});
  Engine engine;
  if (!engine.vk_capabilities().available)
    throw Error(ErrorCode::Unsupported, "no Vulkan device: " + engine.vk_capabilities().unavailable_reason);
  const std::string sql = std::string("SELECT SUM(a * b) FROM t WHERE ") + (two_columns ? "a < c" : "a > 0");
  Result last = engine.execute_sql(sql, catalog, Backend::Compute);
  double best = 1e300;
  for (int r = 0; r < env.repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    last = engine.execute_sql(sql, catalog, Backend::Compute);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  Measurement m;
  m.seconds = best;
  m.bytes = (two_columns ? 12 : 8) * rows;
  m.items = rows;
  const Value v = last.table.columns.at(0).value(0);
  m.checked = std::holds_alternative<int64_t>(v) && __int128(std::get<int64_t>(v)) == want;
  if (!m.checked) throw Error(ErrorCode::Internal, "expression bench: the engine's SUM(a * b) differs from the CPU's");
  m.note = last.report.algorithm + " (wall time, host included; " + std::to_string(last.report.gpu_submissions) +
           " submission(s), " + std::to_string(last.report.gpu_waits) + " wait(s))";
  return m;
}

const Registrar all{{"expr.sum_all", "compute", "compute.ceiling_copy", false,
                     [](Env& env, uint64_t rows) { return kernel_sum(env, rows, false); }}};
const Registrar where{{"expr.sum_where", "compute", "compute.ceiling_copy", false,
                       [](Env& env, uint64_t rows) { return kernel_sum(env, rows, true); }}};
const Registrar float_mul{{"expr.float_mul", "compute", "compute.ceiling_copy", false, [](Env& env, uint64_t rows) {
                             return kernel_float(env, rows, plan::ArithOp::Mul, Type::Float32, true);
                           }}};
const Registrar float_div{{"expr.float_div", "compute", "compute.ceiling_copy", false, [](Env& env, uint64_t rows) {
                             return kernel_float(env, rows, plan::ArithOp::Div, Type::Float32, true);
                           }}};
const Registrar float_mul_int{
    {"expr.float_mul_int", "compute", "compute.ceiling_copy", false,
     [](Env& env, uint64_t rows) { return kernel_float(env, rows, plan::ArithOp::Mul, Type::Float32, false); }}};
const Registrar float_div_int{
    {"expr.float_div_int", "compute", "compute.ceiling_copy", false,
     [](Env& env, uint64_t rows) { return kernel_float(env, rows, plan::ArithOp::Div, Type::Float32, false); }}};
const Registrar double_div{{"expr.double_div", "compute", "compute.ceiling_copy", false, [](Env& env, uint64_t rows) {
                              return kernel_float(env, rows, plan::ArithOp::Div, Type::Float64, true);
                            }}};
const Registrar fused{{"expr.sum_fused", "compute", "compute.ceiling_copy", false,
                       [](Env& env, uint64_t rows) { return kernel_fused(env, rows); }}};
const Registrar sql{{"engine.sql_expr_sum", "compute", "compute.ceiling_copy", false,
                     [](Env& env, uint64_t rows) { return engine_sum(env, rows, false); }}};
const Registrar sql_fused{{"engine.sql_expr_sum_fused", "compute", "compute.ceiling_copy", false,
                           [](Env& env, uint64_t rows) { return engine_sum(env, rows, true); }}};

}  // namespace
}  // namespace gfxq::bench
