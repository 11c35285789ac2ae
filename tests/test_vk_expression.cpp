// Expression programs on the compute path (src/vk/relational/expression.h) against the CPU
// evaluator (cpu::evaluate): random expression trees over INT, FLOAT and DATE columns with every
// operator the compiler takes, typed as the binder types them; INT32 extremes, -0.0, NaN, +-inf;
// sizes 0, 1 and around the kernel's EXPR_WG * EXPR_ROWS_PER_THREAD rows per workgroup; selections;
// the by-row and split layouts; reductions; overflow, division by zero and DATE range errors raised
// with the CPU engine's code and message, and the next evaluation right after one. Values must be
// equal bit for bit (every NaN counts as one value, as in gfxq's total order). Random data comes from
// logged seeds (GFXQ_TEST_SEED overrides the random one).

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cpu/exec/eval.h"
#include "cpu/exec/ops.h"
#include "expression_config.glsl"
#include "gpu_support.h"
#include "plan/expr.h"
#include "vk/relational/expression.h"

namespace {

using namespace gfxq;
using plan::ArithOp;
using plan::Expr;
using plan::ExprKind;

uint64_t test_seed() {
  if (const char* s = std::getenv("GFXQ_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  return std::random_device{}();
}

vk::Device& device() {
  return test::vk_device();
}

// Columns of the test relation: a, b, c INT; f, g FLOAT; d DATE.
enum Col : size_t { A, B, C, F, G, D, kCols };
const char* const kNames[] = {"a", "b", "c", "f", "g", "d"};
const Type kTypes[] = {Type::Int32, Type::Int32, Type::Int32, Type::Float32, Type::Float32, Type::Date};

Expr col(size_t c) {
  return plan::column_expr(c, kTypes[c], kNames[c]);
}
Expr lit(int64_t v) {
  return plan::literal_expr(v, Type::Int64, std::to_string(v));
}
Expr flit(float v) {
  return plan::literal_expr(v, Type::Float32, std::to_string(v));
}
Expr dlit(double v) {
  return plan::literal_expr(v, Type::Float64, std::to_string(v));
}

// Arithmetic typed as the binder types it (plan/binder.cpp): DOUBLE over FLOAT over BIGINT; DATE +-
// an integer a DATE, DATE - DATE a BIGINT.
Expr arith(ArithOp op, Expr a, Expr b) {
  Expr e;
  e.kind = ExprKind::Arith;
  e.arith = op;
  if (a.type == Type::Date && b.type == Type::Date)
    e.type = Type::Int64;
  else if (a.type == Type::Date || b.type == Type::Date)
    e.type = Type::Date;
  else if (a.type == Type::Float64 || b.type == Type::Float64)
    e.type = Type::Float64;
  else if (a.type == Type::Float32 || b.type == Type::Float32)
    e.type = Type::Float32;
  else
    e.type = Type::Int64;
  e.text = "(" + a.text + " " + plan::to_string(op) + " " + b.text + ")";
  e.args = {std::move(a), std::move(b)};
  return e;
}
Expr neg(Expr a) {
  Expr e;
  e.kind = ExprKind::Neg;
  e.type = a.type == Type::Int32 ? Type::Int64 : a.type;
  e.text = "-" + a.text;
  e.args = {std::move(a)};
  return e;
}
Expr extract(plan::DatePart part, Expr a) {
  Expr e;
  e.kind = ExprKind::Extract;
  e.type = Type::Int32;
  e.part = part;
  e.text = "EXTRACT(" +
           std::string(part == plan::DatePart::Year    ? "YEAR"
                       : part == plan::DatePart::Month ? "MONTH"
                                                       : "DAY") +
           " FROM " + a.text + ")";
  e.args = {std::move(a)};
  return e;
}
Expr cast(Expr a, Type t) {
  Expr e;
  e.kind = ExprKind::Cast;
  e.type = t;
  e.text = "CAST(" + a.text + ")";
  e.args = {std::move(a)};
  return e;
}

// Conditions and CASE as the binder builds them.
Expr cmp(CmpOp op, Expr a, Expr b) {
  Expr e;
  e.kind = ExprKind::Compare;
  e.boolean = true;
  e.cmp = op;
  e.text = "(" + a.text + " " + to_string(op) + " " + b.text + ")";
  e.args = {std::move(a), std::move(b)};
  return e;
}
Expr logic(ExprKind kind, std::vector<Expr> args) {
  Expr e;
  e.kind = kind;
  e.boolean = true;
  const char* word = kind == ExprKind::And ? " AND " : " OR ";
  e.text = "(";
  for (size_t i = 0; i < args.size(); ++i) e.text += (i ? word : "") + args[i].text;
  e.text += ")";
  e.args = std::move(args);
  return e;
}
Expr and_of(std::vector<Expr> args) {
  return logic(ExprKind::And, std::move(args));
}
Expr or_of(std::vector<Expr> args) {
  return logic(ExprKind::Or, std::move(args));
}
Expr not_of(Expr a) {
  Expr e;
  e.kind = ExprKind::Not;
  e.boolean = true;
  e.text = "NOT " + a.text;
  e.args = {std::move(a)};
  return e;
}
Expr truth_literal(bool v) {
  Expr e = plan::literal_expr(int32_t(v ? 1 : 0), Type::Int32, v ? "TRUE" : "FALSE");
  e.boolean = true;
  return e;
}
Expr null_condition() {
  Expr e = plan::literal_expr(std::monostate{}, Type::Int32, "NULL");
  e.boolean = true;
  return e;
}
Expr to_bool(Expr a) {
  Expr e;
  e.kind = ExprKind::ToBool;
  e.type = Type::Int32;
  e.text = a.text;
  e.args = {std::move(a)};
  return e;
}
// The CASE result type as the binder unifies numbers: DOUBLE over FLOAT over BIGINT; DATE alone.
Type case_type(const std::vector<Expr>& values) {
  Type t = values[0].type;
  for (const Expr& v : values) {
    if (v.type == t) continue;
    if (t == Type::Float64 || v.type == Type::Float64)
      t = Type::Float64;
    else if (t == Type::Float32 || v.type == Type::Float32)
      t = Type::Float32;
    else
      t = Type::Int64;
  }
  return t;
}
// CASE WHEN w THEN t ... [ELSE x] END, the results cast to their common type.
Expr case_of(std::vector<std::pair<Expr, Expr>> branches, std::optional<Expr> otherwise) {
  std::vector<Expr> values;
  for (auto& b : branches) values.push_back(b.second);
  if (otherwise) values.push_back(*otherwise);
  const Type t = case_type(values);
  Expr e;
  e.kind = ExprKind::Case;
  e.type = t;
  e.has_else = otherwise.has_value();
  e.text = "CASE";
  auto as_t = [&](Expr v) { return v.type == t ? v : cast(std::move(v), t); };
  for (auto& [w, v] : branches) {
    e.text += " WHEN " + w.text + " THEN " + v.text;
    e.args.push_back(std::move(w));
    e.args.push_back(as_t(std::move(v)));
  }
  if (otherwise) {
    e.text += " ELSE " + otherwise->text;
    e.args.push_back(as_t(std::move(*otherwise)));
  }
  e.text += " END";
  return e;
}

// Random values with the extremes mixed in.
std::vector<int32_t> ints(std::mt19937_64& rng, size_t n, int32_t range) {
  std::uniform_int_distribution<int32_t> d(-range, range);
  std::uniform_int_distribution<int> pick(0, 39);
  std::vector<int32_t> v(n);
  for (auto& x : v) {
    x = d(rng);
    const int p = pick(rng);
    if (p == 0) x = std::numeric_limits<int32_t>::min();
    if (p == 1) x = std::numeric_limits<int32_t>::max();
    if (p == 2) x = 0;
    if (p == 3) x = -1;
  }
  return v;
}
std::vector<float> floats(std::mt19937_64& rng, size_t n) {
  std::uniform_real_distribution<float> d(-1e4f, 1e4f);
  std::uniform_int_distribution<int> pick(0, 39);
  std::uniform_int_distribution<int32_t> big(-(1 << 30), 1 << 30);
  std::vector<float> v(n);
  for (auto& x : v) {
    x = d(rng);
    const int p = pick(rng);
    if (p == 0) x = -0.0f;
    if (p == 1) x = std::numeric_limits<float>::quiet_NaN();
    if (p == 2) x = std::numeric_limits<float>::infinity();
    if (p == 3) x = -std::numeric_limits<float>::infinity();
    if (p == 4) x = std::numeric_limits<float>::denorm_min() * float(big(rng) % 1000);
    if (p == 5) x = std::numeric_limits<float>::max();
    if (p == 6) x = float(big(rng));
  }
  return v;
}

Table random_table(std::mt19937_64& rng, size_t n, int32_t range) {
  std::uniform_int_distribution<int32_t> days(-800000, 3000000);
  std::vector<int32_t> d(n);
  for (auto& x : d) x = days(rng);
  return Table{{Column::ints("a", ints(rng, n, range)), Column::ints("b", ints(rng, n, range)),
                Column::ints("c", ints(rng, n, 9)), Column::floats("f", floats(rng, n)),
                Column::floats("g", floats(rng, n)), Column::dates("d", d)}};
}

// A random expression of depth <= `depth`: integers, FLOAT and DOUBLE arithmetic, DATE +- days,
// EXTRACT, casts.
Expr random_expr(std::mt19937_64& rng, int depth) {
  std::uniform_int_distribution<int> pick(0, 15);
  const int p = depth <= 0 ? pick(rng) % 6 : pick(rng);
  switch (p) {
    case 0: return col(A);
    case 1: return col(B);
    case 2: return col(C);
    case 3: return col(F);
    case 4: return lit(std::uniform_int_distribution<int64_t>(-100, 100)(rng));
    case 5: {
      const int k = pick(rng) % 4;
      return k == 0 ? lit(std::numeric_limits<int64_t>::max() / 3) : k == 1 ? flit(0.5f) : k == 2 ? col(G) : dlit(0.1);
    }
    case 6: return neg(random_expr(rng, depth - 1));
    case 7: return extract(plan::DatePart(pick(rng) % 3), arith(ArithOp::Add, col(D), col(C)));
    case 8:
      return arith(ArithOp::Sub, col(D),
                   arith(ArithOp::Sub, col(D), random_expr(rng, 0).type == Type::Int64 ? lit(7) : col(C)));
    case 9: return cast(random_expr(rng, depth - 1), Type::Float64);
    default: break;
  }
  Expr a = random_expr(rng, depth - 1), b = random_expr(rng, depth - 1);
  const ArithOp op = ArithOp(pick(rng) % 4);
  if (a.type == Type::Date || b.type == Type::Date) return col(C);  // DATE only through the forms above
  return arith(op, std::move(a), std::move(b));
}

// A random condition of depth <= `depth`: comparisons of random expressions (integers, FLOAT,
// DOUBLE, mixed), of DATEs, AND, OR, NOT, TRUE and FALSE.
Expr random_condition(std::mt19937_64& rng, int depth) {
  const int p = int(rng() % (depth <= 0 ? 4 : 8));
  const CmpOp op = CmpOp(rng() % 6);
  switch (p) {
    case 0:
    case 1: return cmp(op, random_expr(rng, 1), random_expr(rng, 1));
    case 2: {
      const Expr c = rng() % 2 ? col(C) : lit(int64_t(rng() % 2000) - 1000);
      return cmp(op, col(D), arith(ArithOp::Add, col(D), c));
    }
    case 3: return rng() % 8 == 0 ? truth_literal(rng() % 2) : cmp(op, col(rng() % 2 ? F : A), col(G));
    case 4: return not_of(random_condition(rng, depth - 1));
    default: break;
  }
  std::vector<Expr> args;
  for (int k = 0, n = 2 + int(rng() % 2); k < n; ++k) args.push_back(random_condition(rng, depth - 1));
  return p == 5 ? or_of(std::move(args)) : and_of(std::move(args));
}

// A random CASE with 1 to 3 WHENs and an ELSE over random conditions and values.
Expr random_case(std::mt19937_64& rng) {
  std::vector<std::pair<Expr, Expr>> branches;
  for (int k = 0, n = 1 + int(rng() % 3); k < n; ++k)
    branches.emplace_back(random_condition(rng, 1), random_expr(rng, 1));
  return case_of(std::move(branches), random_expr(rng, 1));
}

// Whether `e` fits the program limits (random trees may not; anything else must compile).
bool within_limits(const Expr& e) {
  std::string why;
  if (vk::compile_expression(e, why)) return true;
  const bool limit = why.find("instructions") != std::string::npos || why.find("stack slots") != std::string::npos;
  CHECK_MESSAGE(limit, e.text << ": " << why);
  return false;
}

bool same_bits(const Value& w, const Value& g) {
  if (w.index() != g.index()) return false;
  if (const auto* x = std::get_if<float>(&w)) {
    const float y = std::get<float>(g);
    return (std::isnan(*x) && std::isnan(y)) || std::bit_cast<uint32_t>(*x) == std::bit_cast<uint32_t>(y);
  }
  if (const auto* x = std::get_if<double>(&w)) {
    const double y = std::get<double>(g);
    return (std::isnan(*x) && std::isnan(y)) || std::bit_cast<uint64_t>(*x) == std::bit_cast<uint64_t>(y);
  }
  return w == g;
}

// Uploads the program's columns of `rel` and evaluates it.
struct OnDevice {
  std::vector<vk::DeviceColumn> columns;
  vk::Buffer selection;
  vk::ExprInput input;
  OnDevice(const vk::ExprProgram& p, const cpu::HostRelation& rel, const std::vector<uint32_t>* ids) {
    columns.reserve(p.columns.size());
    for (size_t c : p.columns) columns.push_back(vk::upload_column(device(), rel.column(c)));
    for (const auto& c : columns) input.columns.push_back(&c);
    input.rows = rel.rows();
    if (ids) {
      selection = device().create_buffer(vk::padded_bytes(ids->size()), vk::MemoryKind::Device);
      if (!ids->empty()) device().upload(selection, ids->data(), ids->size() * 4);
      input.selection = &selection;
      input.selected = ids->size();
    }
  }
};

// The CPU's values of `e` over `rel` (or its error).
struct Expected {
  std::optional<Column> values;
  std::optional<Error> error;
};
Expected cpu_values(const Expr& e, const cpu::HostRelation& rel) {
  Expected x;
  try {
    x.values = cpu::evaluate(e, rel, "x");
  } catch (const Error& err) {
    x.error = err;
  }
  return x;
}

// Checks the GPU's Compact evaluation of `e` over `rel` (rows `ids` when given) against the CPU's;
// `integer_only`: FLOAT arithmetic by integer operations only (the kernels without the fast path).
void check_expression(const Expr& e, const cpu::HostRelation& rel, const std::vector<uint32_t>* ids,
                      const std::string& what, bool integer_only = false) {
  INFO(what << "; expression " << e.text << std::string(integer_only ? " (integer operations only)" : ""));
  std::string why;
  auto program = vk::compile_expression(e, why);
  REQUIRE_MESSAGE(program, why);
  if (integer_only) program->float32_fast = false;
  cpu::HostRelation sub = rel;
  if (ids) {
    Table t;
    const std::vector<uint64_t> rows(ids->begin(), ids->end());
    for (size_t c = 0; c < kCols; ++c) t.columns.push_back(cpu::gather_column(rel.column(c), rows, kNames[c]));
    sub = cpu::HostRelation::of(std::move(t));
  }
  const Expected want = cpu_values(e, sub);
  OnDevice dev(*program, rel, ids);
  std::vector<PassRecord> passes;
  const vk::ExprValues got = vk::evaluate_expression(device(), *program, dev.input, vk::ExprLayout::Compact, passes);
  REQUIRE(want.error.has_value() == got.error.has_value());
  if (want.error) {
    CHECK(want.error->code() == got.error->code());
    CHECK(std::string(want.error->what()) == std::string(got.error->what()));
    return;
  }
  const Column g = vk::download_values(device(), got, "x", passes);
  REQUIRE(g.type == want.values->type);
  REQUIRE(g.size() == want.values->size());
  for (uint64_t r = 0; r < g.size(); ++r)
    if (!same_bits(want.values->value(r), g.value(r))) {
      FAIL_CHECK("row " << r << ": got " << format_value(g.value(r)) << ", want "
                        << format_value(want.values->value(r)));
      break;
    }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

}  // namespace

TEST_CASE("vk-expression: random expressions equal the CPU evaluator") {
  const uint64_t base = test_seed();
  const uint64_t per_group = EXPR_WG * EXPR_ROWS_PER_THREAD;
  const size_t sizes[] = {0, 1, per_group - 1, per_group, per_group + 1, 3 * per_group + 17};
  for (uint64_t round = 0; round < 6; ++round) {
    const uint64_t seed = base + round;
    std::mt19937_64 rng(seed);
    const size_t n = sizes[round];
    const Table t = random_table(rng, n, round % 2 ? 3000 : 2000000000);
    const cpu::HostRelation rel = cpu::HostRelation::of(t);
    for (int k = 0; k < 25; ++k) {
      const Expr e = random_expr(rng, 3);
      if (e.kind == ExprKind::Column) continue;
      check_expression(e, rel, nullptr, "seed " + std::to_string(seed) + ", " + std::to_string(n) + " rows", k % 2);
    }
  }
}

TEST_CASE("vk-expression: the negation of a DOUBLE literal runs the DOUBLE kernel") {
  // Found with seed 2926885196 (CI): -0.1 alone compiled for the kernel without DOUBLE instructions,
  // which skipped the negation and gave 0.1.
  std::mt19937_64 rng(7);
  const Table t = random_table(rng, 100, 1000);
  const cpu::HostRelation rel = cpu::HostRelation::of(t);
  check_expression(neg(dlit(0.1)), rel, nullptr, "-0.1, 100 rows");
  check_expression(neg(neg(dlit(2.5))), rel, nullptr, "-(-2.5), 100 rows");
}

TEST_CASE("vk-expression: every operator and type, with selections") {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  const size_t n = 3000;
  const Table t = random_table(rng, n, 50000);
  const cpu::HostRelation rel = cpu::HostRelation::of(t);
  std::vector<uint32_t> ids;
  for (uint32_t r = 0; r < n; ++r)
    if (rng() % 3 == 0) ids.push_back(r);
  const std::vector<uint32_t> none;
  const std::vector<Expr> cases{
      arith(ArithOp::Add, col(A), col(B)),
      arith(ArithOp::Sub, col(A), col(B)),
      arith(ArithOp::Mul, col(A), col(B)),
      arith(ArithOp::Div, col(A), arith(ArithOp::Add, col(C), lit(10))),  // truncation toward zero, negatives
      neg(col(A)),
      neg(col(F)),
      arith(ArithOp::Add, col(F), col(G)),
      arith(ArithOp::Sub, col(F), col(A)),  // INT rounded to FLOAT first
      arith(ArithOp::Mul, col(F), col(G)),
      arith(ArithOp::Add, arith(ArithOp::Mul, col(F), col(G)), col(F)),  // no FMA contraction
      arith(ArithOp::Mul, col(F), dlit(0.1)),                            // DOUBLE
      arith(ArithOp::Add, arith(ArithOp::Mul, col(A), dlit(1e-3)), dlit(0.7)),
      arith(ArithOp::Add, arith(ArithOp::Mul, col(A), col(B)), lit(int64_t(1) << 60)),  // BIGINT to DOUBLE rounding
      cast(arith(ArithOp::Mul, arith(ArithOp::Mul, col(A), col(B)), lit(977)), Type::Float64),
      arith(ArithOp::Mul, arith(ArithOp::Mul, col(A), col(B)), flit(1.5f)),  // BIGINT to FLOAT rounding
      arith(ArithOp::Add, col(D), col(C)),
      arith(ArithOp::Sub, col(D), lit(365)),
      arith(ArithOp::Sub, col(D), arith(ArithOp::Add, col(D), col(C))),
      extract(plan::DatePart::Year, col(D)),
      extract(plan::DatePart::Month, col(D)),
      extract(plan::DatePart::Day, arith(ArithOp::Add, col(D), lit(59))),
  };
  for (const Expr& e : cases) {
    check_expression(e, rel, nullptr, "seed " + std::to_string(seed) + ", every row");
    check_expression(e, rel, &ids, "seed " + std::to_string(seed) + ", " + std::to_string(ids.size()) + " selected");
    check_expression(e, rel, &none, "seed " + std::to_string(seed) + ", empty selection");
  }
  // Every kernel ran: the interpreter, with DOUBLE instructions too, and the variant for one operator
  // on two INT columns.
  const auto names = device().pipeline_names();
  auto ran = [&](const char* kernel) { return std::find(names.begin(), names.end(), kernel) != names.end(); };
  CHECK(ran("expression_eval"));
  CHECK(ran("expression_eval_f64"));
  CHECK(ran("expression_eval_binary#6/2"));
}

// FLOAT and DOUBLE edge values: every instruction on float bits runs in integer operations, so
// these must equal the CPU's on any device, whatever its denormal and rounding modes (the H200's
// float instructions flushed float32 denormals).
TEST_CASE("vk-expression: FLOAT and DOUBLE edge values equal the CPU evaluator, denormals included") {
  const uint64_t base = test_seed();
  const float den = std::numeric_limits<float>::denorm_min(), inf = std::numeric_limits<float>::infinity();
  // Zeros, the smallest and largest denormals, the smallest normal, FLT_MAX, infinities, NaN, 2^-75
  // (2^-75 * 2^-75 is half the smallest denormal: a tie), 1.5 * 2^-75, and numbers in between.
  const std::vector<float> pool{0.0f,
                                -0.0f,
                                den,
                                -den,
                                2 * den,
                                3 * den,
                                std::bit_cast<float>(0x007FFFFFu),
                                std::bit_cast<float>(0x807FFFFFu),
                                std::numeric_limits<float>::min(),
                                -std::numeric_limits<float>::min(),
                                std::numeric_limits<float>::max(),
                                -std::numeric_limits<float>::max(),
                                inf,
                                -inf,
                                std::numeric_limits<float>::quiet_NaN(),
                                std::ldexp(1.0f, -75),
                                std::ldexp(1.5f, -75),
                                std::ldexp(-1.0f, -74),
                                std::ldexp(1.0f, -63),
                                std::ldexp(1.0f, 64),
                                1.0f,
                                -1.0f,
                                3.0f,
                                0.1f,
                                1e30f};
  // Int32 values whose products need more than 24 or 53 bits, some of them ties: 2^24 + 1 times a
  // power of two lies halfway between two floats.
  const std::vector<int32_t> int_pool{(1 << 24) + 1,
                                      (1 << 24) + 3,
                                      -((1 << 24) + 1),
                                      (1 << 27) + 1,
                                      (1 << 27) + 3,
                                      std::numeric_limits<int32_t>::max(),
                                      std::numeric_limits<int32_t>::min(),
                                      0,
                                      1,
                                      -1,
                                      1 << 30,
                                      1 << 29};
  const size_t n = 3000;
  for (uint64_t round = 0; round < 3; ++round) {
    const uint64_t seed = base + round;
    std::mt19937_64 rng(seed);
    auto one_of = [&](const auto& v) { return v[rng() % v.size()]; };
    auto nudge = [&](float x) { return std::bit_cast<float>(std::bit_cast<uint32_t>(x) + uint32_t(rng() % 5) - 2u); };
    auto edge = [&]() {
      switch (rng() % 5) {
        case 0: return one_of(pool);
        case 1: return nudge(one_of(pool));
        case 2: return std::bit_cast<float>(uint32_t(rng()));                // any bits: every exponent, NaN payloads
        case 3: return std::bit_cast<float>(uint32_t(rng() & 0x847FFFFFu));  // denormals and tiny normals
        default: {
          // Exponents whose products fall among the denormals (2^-90 .. 2^-40) or overflow (2^60 ..).
          const uint32_t exponent = rng() % 2 ? 37 + rng() % 50 : 187 + rng() % 20;
          return std::bit_cast<float>(uint32_t(rng() & 0x807FFFFFu) | (exponent << 23));
        }
      }
    };
    std::vector<float> f(n), g(n);
    std::vector<int32_t> a(n), b(n), c(n), d(n);
    for (size_t r = 0; r < n; ++r) {
      f[r] = edge();
      g[r] = rng() % 3 == 0 ? nudge(-f[r]) : edge();  // a difference that cancels: a denormal or zero
      a[r] = rng() % 2 ? one_of(int_pool) : int32_t(rng());
      b[r] = rng() % 2 ? one_of(int_pool) : rng() % 2 ? int32_t(1) << (rng() % 31) : int32_t(rng());
      c[r] = int32_t(rng() % 19) - 9;
      d[r] = int32_t(rng() % 100000);
    }
    const Table t{{Column::ints("a", a), Column::ints("b", b), Column::ints("c", c), Column::floats("f", f),
                   Column::floats("g", g), Column::dates("d", d)}};
    const cpu::HostRelation rel = cpu::HostRelation::of(t);
    const Expr ab = arith(ArithOp::Mul, col(A), col(B));
    const Expr fd = cast(col(F), Type::Float64), gd = cast(col(G), Type::Float64);
    const std::vector<Expr> cases{
        arith(ArithOp::Add, col(F), col(G)),
        arith(ArithOp::Sub, col(F), col(G)),
        arith(ArithOp::Mul, col(F), col(G)),
        neg(col(F)),
        arith(ArithOp::Sub, col(F), col(F)),  // +0, or NaN from infinities
        arith(ArithOp::Mul, arith(ArithOp::Mul, col(F), col(G)), col(G)),
        arith(ArithOp::Add, arith(ArithOp::Mul, col(F), col(G)), neg(col(G))),
        arith(ArithOp::Mul, col(F), flit(std::ldexp(1.0f, -100))),  // into the denormals
        arith(ArithOp::Mul, col(F), flit(1e30f)),                   // to infinity
        arith(ArithOp::Add, col(F), flit(-std::numeric_limits<float>::min())),
        arith(ArithOp::Add, col(F), col(A)),  // INT rounded to FLOAT first
        arith(ArithOp::Mul, col(G), col(B)),
        cast(ab, Type::Float32),  // BIGINT to FLOAT: 2^24 + 1 times 2^k is a tie
        cast(arith(ArithOp::Add, ab, lit(std::numeric_limits<int64_t>::max() / 2)), Type::Float32),  // past 2^53
        cast(arith(ArithOp::Sub, ab, lit(int64_t(1) << 62)), Type::Float32),
        cast(arith(ArithOp::Sub, lit(std::numeric_limits<int64_t>::min()), arith(ArithOp::Mul, col(C), lit(0))),
             Type::Float32),
        cast(ab, Type::Float64),  // (2^27 + 1)^2 needs 55 bits
        cast(arith(ArithOp::Add, ab, lit(std::numeric_limits<int64_t>::max() / 2)), Type::Float64),
        fd,  // FLOAT to DOUBLE: denormals and NaN payloads kept
        neg(fd),
        arith(ArithOp::Mul, fd, gd),
        arith(ArithOp::Sub, fd, gd),
        arith(ArithOp::Mul, fd, dlit(1e-300)),  // DOUBLE denormals
        arith(ArithOp::Add, arith(ArithOp::Mul, fd, dlit(1e-300)), dlit(-2.5e-310)),
        arith(ArithOp::Mul, arith(ArithOp::Mul, fd, gd), dlit(1e300)),  // DOUBLE overflow
        arith(ArithOp::Add, arith(ArithOp::Mul, col(F), col(G)), dlit(0.1)),
    };
    for (const Expr& e : cases) check_expression(e, rel, nullptr, "seed " + std::to_string(seed));
  }
}

// FLOAT and DOUBLE division: correctly rounded to nearest even on every device, denormal operands
// and results kept (results that round to the smallest denormal or to zero, ties among the
// denormals, quotients just below the smallest normal), x / 0 = +-inf, 0 / 0 and inf / inf x86's
// default NaN, NaN operands; seeded random bit patterns. Every FLOAT case runs twice: as compiled
// (on devices that round float instructions to nearest even, the float estimate corrected by
// integer arithmetic) and by integer operations only.
TEST_CASE("vk-expression: FLOAT and DOUBLE division equal the CPU evaluator, edge values and random bits") {
  const uint64_t base = test_seed();
  const float den = std::numeric_limits<float>::denorm_min(), inf = std::numeric_limits<float>::infinity();
  const float fmin = std::numeric_limits<float>::min(), fmax = std::numeric_limits<float>::max();
  // 2^-100 / 2^50 = 2^-150 (half the smallest denormal: a tie, to 0), 3 * 2^-100 / 2^50 (1.5 times
  // the smallest denormal: a tie, to 2), FLT_MIN / 2^24, (FLT_MIN - 2^-149) * 2 / 2 ...
  const std::vector<float> pool{0.0f,
                                -0.0f,
                                den,
                                -den,
                                2 * den,
                                3 * den,
                                std::bit_cast<float>(0x007FFFFFu),
                                std::bit_cast<float>(0x807FFFFFu),
                                fmin,
                                -fmin,
                                std::bit_cast<float>(0x00800001u),
                                std::bit_cast<float>(0x00FFFFFFu),
                                fmax,
                                -fmax,
                                inf,
                                -inf,
                                std::numeric_limits<float>::quiet_NaN(),
                                std::bit_cast<float>(0xFF812345u),  // a signalling NaN with a payload
                                std::ldexp(1.0f, -100),
                                std::ldexp(3.0f, -100),
                                std::ldexp(1.0f, 50),
                                std::ldexp(1.0f, 24),
                                std::ldexp(1.0f, 23),
                                std::ldexp(1.0f, -23),
                                std::ldexp(1.0f, 127),
                                std::ldexp(1.0f, -126),
                                std::ldexp(1.5f, -1),
                                2.0f,
                                1.0f,
                                -1.0f,
                                3.0f,
                                0.1f,
                                1e30f,
                                1e-30f};
  const size_t n = 3000;
  for (uint64_t round = 0; round < 3; ++round) {
    const uint64_t seed = base + round;
    std::mt19937_64 rng(seed);
    auto one_of = [&](const auto& v) { return v[rng() % v.size()]; };
    auto nudge = [&](float x) { return std::bit_cast<float>(std::bit_cast<uint32_t>(x) + uint32_t(rng() % 5) - 2u); };
    auto edge = [&]() {
      switch (rng() % 6) {
        case 0: return one_of(pool);
        case 1: return nudge(one_of(pool));
        case 2: return std::bit_cast<float>(uint32_t(rng()));                // any bits: every exponent, NaN payloads
        case 3: return std::bit_cast<float>(uint32_t(rng() & 0x847FFFFFu));  // denormals and tiny normals
        case 4: return std::bit_cast<float>(uint32_t(rng() | 0x7F000000u) & 0xFF7FFFFFu);  // huge
        default: {
          // Exponents where quotients fall among the denormals or overflow, or near 1.
          const uint32_t exponent = rng() % 3 == 0 ? 1 + rng() % 40 : rng() % 2 ? 200 + rng() % 54 : 110 + rng() % 30;
          return std::bit_cast<float>(uint32_t(rng() & 0x807FFFFFu) | (exponent << 23));
        }
      }
    };
    std::vector<float> f(n), g(n);
    std::vector<int32_t> a(n), b(n), c(n), d(n);
    for (size_t r = 0; r < n; ++r) {
      f[r] = edge();
      g[r] = rng() % 4 == 0 ? nudge(f[r]) : edge();  // quotients near 1
      a[r] = int32_t(rng());
      b[r] = rng() % 2 ? int32_t(rng()) : int32_t(rng() % 7) - 3;
      c[r] = int32_t(rng() % 19) - 9;  // zeros among them
      d[r] = int32_t(rng() % 100000);
    }
    const Table t{{Column::ints("a", a), Column::ints("b", b), Column::ints("c", c), Column::floats("f", f),
                   Column::floats("g", g), Column::dates("d", d)}};
    const cpu::HostRelation rel = cpu::HostRelation::of(t);
    const std::string what = "seed " + std::to_string(seed);
    auto div = [](Expr x, Expr y) { return arith(ArithOp::Div, std::move(x), std::move(y)); };
    const std::vector<Expr> float_cases{
        div(col(F), col(G)),
        div(col(G), col(F)),
        div(col(F), col(F)),  // 1, or NaN from 0 / 0 and inf / inf
        div(col(F), flit(std::ldexp(1.0f, 24))),
        div(col(F), flit(std::ldexp(1.0f, 50))),
        div(col(F), flit(3.0f)),
        div(col(F), flit(0.0f)),
        div(col(F), flit(-0.0f)),
        div(flit(1.0f), col(F)),  // reciprocals of denormals overflow
        div(flit(den), col(G)),
        div(flit(fmin), col(G)),
        div(col(F), col(C)),  // INT rounded to FLOAT first; zeros
        div(col(A), col(F)),
        div(arith(ArithOp::Mul, col(F), col(G)), col(G)),
        div(col(F), arith(ArithOp::Mul, col(G), flit(std::ldexp(1.0f, -100)))),
        arith(ArithOp::Add, div(col(F), col(G)), div(col(G), col(F))),
    };
    for (const Expr& e : float_cases) {
      check_expression(e, rel, nullptr, what);
      check_expression(e, rel, nullptr, what, true);
    }
    // DOUBLE operands with full 53-bit significands: a BIGINT product rounded to DOUBLE times a FLOAT
    // (any exponent), and random DOUBLE bit patterns as literals.
    const Expr fd = cast(col(F), Type::Float64), gd = cast(col(G), Type::Float64);
    const Expr x = arith(ArithOp::Mul, cast(arith(ArithOp::Mul, col(A), col(A)), Type::Float64), fd);
    const Expr y = arith(ArithOp::Mul, cast(arith(ArithOp::Mul, col(A), col(B)), Type::Float64), gd);
    std::vector<Expr> double_cases{
        div(fd, gd),
        div(x, y),
        div(x, gd),
        div(x, x),
        div(y, arith(ArithOp::Mul, x, dlit(1e-300))),  // overflow
        div(arith(ArithOp::Mul, x, dlit(1e-300)), y),  // DOUBLE denormals
        div(x, dlit(1e300)),
        div(x, dlit(2.5e-310)),                                        // a denormal divisor
        div(dlit(5e-324), y),                                          // the smallest denormal divided
        div(dlit(std::ldexp(1.0, -1000)), dlit(std::ldexp(1.0, 74))),  // 2^-1074 / 2: a tie, to 0
        div(dlit(std::ldexp(3.0, -1000)), dlit(std::ldexp(1.0, 75))),  // 1.5 * 2^-1074: a tie, to 2
        div(fd, cast(col(C), Type::Float64)),                          // +-inf, NaN from 0 / 0
        div(fd, dlit(-0.0)),
        div(arith(ArithOp::Add, x, dlit(0.1)), arith(ArithOp::Sub, y, dlit(3.0))),
        div(cast(div(col(F), col(G)), Type::Float64), x),  // FLOAT and DOUBLE division in one program
    };
    for (int k = 0; k < 12; ++k) {
      uint64_t bits = rng();
      if (k % 3 == 1) bits &= 0x800FFFFFFFFFFFFFull;  // a denormal
      if (k % 3 == 2)
        bits = (bits & 0x800FFFFFFFFFFFFFull) | (uint64_t(rng() % 2 ? 1 + rng() % 60 : 1990 + rng() % 57) << 52);
      const double v = std::bit_cast<double>(bits);
      double_cases.push_back(div(x, plan::literal_expr(v, Type::Float64, "bits " + std::to_string(bits))));
      double_cases.push_back(div(plan::literal_expr(v, Type::Float64, "bits " + std::to_string(bits)), y));
    }
    for (const Expr& e : double_cases) check_expression(e, rel, nullptr, what);
  }
  // The kernels with the fast path ran where the device rounds to nearest even.
  const auto names = device().pipeline_names();
  auto ran = [&](const char* kernel) { return std::find(names.begin(), names.end(), kernel) != names.end(); };
  CHECK(ran("expression_eval"));
  CHECK(ran("expression_eval_f64"));
  if (device().caps().rounding_rte_float32) {
    CHECK(ran("expression_eval_rte"));
    CHECK(ran("expression_eval_f64_rte"));
  }
}

// The fast FLOAT path's boundaries: exponent fields where + - * / leave it (sums of fields near 128
// and 380 for *, fields near 24 and 253 for + -, differences near -125 and 126 for /), significands
// all ones (products next to FLT_MAX), zero or random; quotients and products just below FLT_MIN and
// just past FLT_MAX; operands that are denormal. Run as compiled and by integer operations only.
TEST_CASE("vk-expression: the fast FLOAT path's boundaries equal the CPU evaluator") {
  const uint64_t base = test_seed();
  const size_t n = 4000;
  for (uint64_t round = 0; round < 2; ++round) {
    const uint64_t seed = base + round;
    std::mt19937_64 rng(seed);
    auto fraction = [&]() -> uint32_t {
      switch (rng() % 4) {
        case 0: return 0;
        case 1: return 0x7FFFFFu;
        case 2: return 0x7FFFFFu - uint32_t(rng() % 4);
        default: return uint32_t(rng() & 0x7FFFFFu);
      }
    };
    auto make = [&](int field) {
      field = std::clamp(field, 0, 255);
      if (field == 255 && rng() % 2) field = 254;
      return std::bit_cast<float>((uint32_t(rng() % 2) << 31) | (uint32_t(field) << 23) | fraction());
    };
    std::vector<float> f(n), g(n);
    for (size_t r = 0; r < n; ++r) {
      const int jitter = int(rng() % 7) - 3;
      const int fa = int(rng() % 256);
      int fb = 0;
      switch (rng() % 6) {
        case 0: fb = 128 - fa + jitter; break;                       // products near FLT_MIN
        case 1: fb = 380 - fa + jitter; break;                       // products near FLT_MAX
        case 2: fb = fa + 125 + jitter; break;                       // quotients near FLT_MIN
        case 3: fb = fa - 126 + jitter; break;                       // quotients near FLT_MAX
        case 4: fb = rng() % 2 ? 24 + jitter : 253 + jitter; break;  // sums at the fields' ends
        default: fb = fa + jitter; break;                            // cancellations
      }
      const bool swap = rng() % 2;
      f[r] = make(swap ? fb : fa);
      g[r] = make(swap ? fa : fb);
    }
    std::vector<int32_t> zeros(n, 0);
    const Table t{{Column::ints("a", zeros), Column::ints("b", zeros), Column::ints("c", zeros), Column::floats("f", f),
                   Column::floats("g", g), Column::dates("d", zeros)}};
    const cpu::HostRelation rel = cpu::HostRelation::of(t);
    const std::string what = "seed " + std::to_string(seed);
    const std::vector<Expr> cases{
        arith(ArithOp::Mul, col(F), col(G)), arith(ArithOp::Add, col(F), col(G)), arith(ArithOp::Sub, col(F), col(G)),
        arith(ArithOp::Sub, col(G), col(F)), arith(ArithOp::Div, col(F), col(G)), arith(ArithOp::Div, col(G), col(F)),
    };
    for (const Expr& e : cases) {
      check_expression(e, rel, nullptr, what);
      check_expression(e, rel, nullptr, what, true);
    }
  }
}

TEST_CASE("vk-expression: overflow, division by zero and DATE range raise the CPU engine's error") {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  const Table t = random_table(rng, 5000, 2000000000);
  const cpu::HostRelation rel = cpu::HostRelation::of(t);
  const int64_t big = int64_t(1) << 62;
  const std::vector<Expr> cases{
      arith(ArithOp::Mul, arith(ArithOp::Mul, col(A), col(B)), col(A)),       // BIGINT product overflow
      arith(ArithOp::Add, lit(std::numeric_limits<int64_t>::max()), col(C)),  // addition past the maximum
      arith(ArithOp::Sub, lit(std::numeric_limits<int64_t>::min()), col(C)),  // subtraction past the minimum
      arith(ArithOp::Div, col(A), col(C)),                                    // zeros in c
      arith(ArithOp::Div, lit(std::numeric_limits<int64_t>::min()), arith(ArithOp::Sub, col(C), col(C))),
      arith(ArithOp::Div, arith(ArithOp::Sub, lit(std::numeric_limits<int64_t>::min()), lit(0)), lit(-1)),
      neg(arith(ArithOp::Sub, lit(std::numeric_limits<int64_t>::min()), arith(ArithOp::Mul, col(C), lit(0)))),
      arith(ArithOp::Add, arith(ArithOp::Div, col(A), col(C)), arith(ArithOp::Mul, lit(big), col(B))),  // first wins
      arith(ArithOp::Add, arith(ArithOp::Mul, lit(big), col(B)), arith(ArithOp::Div, col(A), col(C))),
      arith(ArithOp::Add, col(D), arith(ArithOp::Mul, col(A), lit(4))),  // DATE out of int32 days
      arith(ArithOp::Add, col(D), lit(std::numeric_limits<int64_t>::max())),
  };
  for (const Expr& e : cases) {
    check_expression(e, rel, nullptr, "seed " + std::to_string(seed));
    // The next evaluation after an error is right.
    check_expression(arith(ArithOp::Add, col(A), col(B)), rel, nullptr, "after " + e.text);
  }
}

TEST_CASE("vk-expression: by-row and split layouts, reductions") {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);
  const uint64_t per_group = EXPR_WG * EXPR_ROWS_PER_THREAD;
  for (size_t n : {size_t(0), size_t(1), size_t(per_group - 1), size_t(per_group + 1), size_t(5000)}) {
    CAPTURE(n);
    const Table t = random_table(rng, n, 2000000000);
    const cpu::HostRelation rel = cpu::HostRelation::of(t);
    std::vector<uint32_t> ids;
    for (uint32_t r = 0; r < n; ++r)
      if (rng() % 2) ids.push_back(r);
    const Expr e = arith(ArithOp::Sub, arith(ArithOp::Mul, col(A), col(B)), col(C));
    std::string why;
    const auto program = vk::compile_expression(e, why);
    REQUIRE(program);
    const Column want = cpu::evaluate(e, rel, "x");
    const auto& w = want.as<int64_t>();
    for (const bool selected : {false, true}) {
      CAPTURE(selected);
      OnDevice dev(*program, rel, selected ? &ids : nullptr);
      std::vector<PassRecord> passes;
      // Split64 by row: high word and low word ^ 2^31 at each evaluated row's position.
      const vk::ExprValues v = vk::evaluate_expression(device(), *program, dev.input, vk::ExprLayout::Split64, passes);
      REQUIRE(!v.error);
      std::vector<int32_t> high(n), low(n);
      if (n) {
        device().download(v.values, high.data(), n * 4);
        device().download(v.low, low.data(), n * 4);
      }
      std::vector<uint32_t> rows;
      for (uint32_t r = 0; r < n; ++r)
        if (!selected || std::binary_search(ids.begin(), ids.end(), r)) rows.push_back(r);
      __int128 sum = 0;
      int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
      for (uint32_t r : rows) {
        const int64_t x = (int64_t(high[r]) << 32) | int64_t(uint32_t(low[r]) ^ 0x80000000u);
        REQUIRE(x == w[r]);
        sum += w[r];
        lo = std::min(lo, w[r]);
        hi = std::max(hi, w[r]);
      }
      const vk::ExprReduction red = vk::reduce_expression(device(), *program, dev.input, passes);
      REQUIRE(!red.error);
      CHECK(red.count == rows.size());
      CHECK(red.sum == sum);
      CHECK(red.min == lo);
      CHECK(red.max == hi);
    }
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-expression: what the compiler refuses is named") {
  const auto& caps = device().caps();
  auto refused = [&](const Expr& e, const std::string& part) {
    std::string why;
    CHECK_FALSE(vk::compile_expression(e, why));
    CHECK_MESSAGE(why.find(part) != std::string::npos, why);
  };
  refused(plan::literal_expr(std::monostate{}, Type::Int64, "NULL"), "NULL");
  Expr deep = col(A);
  for (int i = 0; i < EXPR_MAX_CODE; ++i) deep = arith(ArithOp::Add, deep, lit(i));
  refused(deep, "instructions");
  Expr wide = col(A);
  for (int i = 0; i < EXPR_MAX_DEPTH; ++i) wide = arith(ArithOp::Add, lit(i), wide);
  refused(wide, "stack slots");
  refused(case_of({{cmp(CmpOp::Lt, col(A), col(B)), col(A)}}, std::nullopt), "no ELSE");
  refused(to_bool(and_of({cmp(CmpOp::Lt, col(A), col(B)), null_condition()})), "NULL");
  std::string why;
  CHECK_FALSE(vk::compile_expression(cmp(CmpOp::Lt, col(A), col(B)), why));
  CHECK_MESSAGE(why.find("is a condition") != std::string::npos, why);
  // Strings of two dictionaries compare as strings on the CPU engine: not compiled.
  Expr s1 = plan::column_expr(A, Type::String, "s1", Dictionary::of({"x", "y"}));
  Expr s2 = plan::column_expr(B, Type::String, "s2", Dictionary::of({"x", "z"}));
  CHECK_FALSE(vk::compile_condition(cmp(CmpOp::Eq, s1, s2), why));
  CHECK_MESSAGE(why.find("two dictionaries") != std::string::npos, why);
  s2.dictionary = s1.dictionary;
  CHECK_MESSAGE(vk::compile_condition(cmp(CmpOp::Eq, s1, s2), why), why);
  (void)caps;
}

TEST_CASE("vk-expression: random conditions and CASE equal the CPU evaluator") {
  const uint64_t base = test_seed();
  const uint64_t per_group = EXPR_WG * EXPR_ROWS_PER_THREAD;
  const size_t sizes[] = {0, 1, per_group - 1, per_group, per_group + 1, 3 * per_group + 17};
  for (uint64_t round = 0; round < 6; ++round) {
    const uint64_t seed = base + round;
    std::mt19937_64 rng(seed);
    const size_t n = sizes[round];
    // Small ranges give duplicates and equal operands; full ranges the extremes.
    const Table t = random_table(rng, n, round % 2 ? 30 : 2000000000);
    const cpu::HostRelation rel = cpu::HostRelation::of(t);
    std::vector<uint32_t> ids;
    for (uint32_t r = 0; r < n; ++r)
      if (rng() % 3) ids.push_back(r);
    int compiled = 0;
    for (int k = 0; k < 30; ++k) {
      const Expr e = k % 2 ? to_bool(random_condition(rng, 3)) : random_case(rng);
      if (!within_limits(e)) continue;
      ++compiled;
      const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(n) + " rows";
      check_expression(e, rel, nullptr, what);
      if (k % 5 == 0) check_expression(e, rel, &ids, what + ", selected");
    }
    CHECK(compiled >= 15);
  }
}

TEST_CASE("vk-expression: comparisons at the edges of the total order and of exactness") {
  // Integers against floats near 2^24, 2^31, 2^53 and 2^63 (where a conversion to float would round),
  // -0.0 against +0.0 and 0, NaN against NaN, infinities; DOUBLE against FLOAT.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> fs{0.0f,
                              -0.0f,
                              nan,
                              -nan,
                              inf,
                              -inf,
                              16777216.0f,
                              16777218.0f,
                              2147483648.0f,
                              -2147483648.0f,
                              0.5f,
                              -0.5f,
                              1.5f,
                              -1.5f,
                              std::numeric_limits<float>::denorm_min(),
                              -std::numeric_limits<float>::denorm_min(),
                              9.2233720368547758e18f,
                              -9.2233720368547758e18f};
  const std::vector<int32_t> is{
      0, 1, -1, 16777217, 16777216, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(), 2, -2};
  std::vector<int32_t> a, c;
  std::vector<float> f, g;
  std::vector<int32_t> d;
  for (float x : fs)
    for (float y : fs)
      for (size_t k = 0; k < 2; ++k) {
        f.push_back(x);
        g.push_back(y);
        a.push_back(is[(f.size() * 7) % is.size()]);
        c.push_back(int32_t(f.size() % 5) - 2);
        d.push_back(int32_t(f.size()));
      }
  const Table t{{Column::ints("a", a), Column::ints("b", a), Column::ints("c", c), Column::floats("f", f),
                 Column::floats("g", g), Column::dates("d", d)}};
  const cpu::HostRelation rel = cpu::HostRelation::of(t);
  const Expr big = arith(ArithOp::Mul, col(A), lit(int64_t(1) << 32));  // BIGINT past 2^53
  const Expr imin = arith(ArithOp::Sub, lit(std::numeric_limits<int64_t>::min()), arith(ArithOp::Mul, col(C), lit(0)));
  for (int o = 0; o < 6; ++o) {
    const CmpOp op = CmpOp(o);
    for (const Expr& e : {cmp(op, col(F), col(G)), cmp(op, col(A), col(F)), cmp(op, col(F), col(A)),
                          cmp(op, big, col(F)), cmp(op, col(G), big), cmp(op, imin, col(F)),
                          cmp(op, cast(col(F), Type::Float64), col(G)), cmp(op, col(F), dlit(0.1)),
                          cmp(op, arith(ArithOp::Add, col(A), lit(int64_t(1) << 53)), cast(col(G), Type::Float64)),
                          cmp(op, col(F), flit(-0.0f)), cmp(op, col(D), arith(ArithOp::Add, col(D), col(C))),
                          cmp(op, col(A), lit(16777217))})
      check_expression(to_bool(e), rel, nullptr, "edges, " + std::string(to_string(op)));
  }
}

TEST_CASE("vk-expression: errors in AND, OR and CASE operands are the CPU engine's") {
  // The CPU engine evaluates every operand and every branch for every row: an error in a branch not
  // taken, or in an AND operand after a false one, is raised. The programs evaluate them all too.
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  const Table t = random_table(rng, 3000, 2000000000);
  const cpu::HostRelation rel = cpu::HostRelation::of(t);
  const Expr div = arith(ArithOp::Div, col(A), col(C));  // c holds zeros
  const Expr over = arith(ArithOp::Mul, arith(ArithOp::Mul, col(A), col(B)), col(A));
  const Expr zero = cmp(CmpOp::Eq, col(C), lit(0));
  const std::vector<Expr> cases{
      case_of({{zero, lit(0)}}, div),                               // the division runs where c = 0 too
      case_of({{not_of(zero), div}}, lit(0)),                       // likewise in a THEN
      case_of({{zero, over}, {truth_literal(true), div}}, lit(1)),  // the first failing node in order
      to_bool(and_of({truth_literal(false), cmp(CmpOp::Lt, div, lit(1))})),
      to_bool(or_of({truth_literal(true), cmp(CmpOp::Lt, over, lit(1))})),
      to_bool(and_of({cmp(CmpOp::Lt, over, lit(1)), cmp(CmpOp::Lt, div, lit(1))})),
      to_bool(not_of(cmp(CmpOp::Ge, arith(ArithOp::Add, col(D), arith(ArithOp::Mul, col(A), lit(4))), col(D)))),
  };
  for (const Expr& e : cases) {
    check_expression(e, rel, nullptr, "seed " + std::to_string(seed));
    check_expression(arith(ArithOp::Add, col(A), col(B)), rel, nullptr, "after " + e.text);
  }
}

namespace {

// SUM, MIN, MAX and the count of `e` over the rows where `cond` holds, by one compile_kept() program
// reduced on the device, against the CPU engine: the condition over every row (its error first), then
// `e` over the rows kept (its error names the position among them).
void check_kept(const Expr& cond, const Expr& e, const cpu::HostRelation& rel, const std::string& what) {
  INFO(what << "; " << e.text << " WHERE " << cond.text);
  std::string why;
  const auto program = vk::compile_kept(cond, e, why);
  REQUIRE_MESSAGE(program, why);
  std::optional<Error> want_error;
  std::vector<uint64_t> kept;
  std::optional<Column> values;
  try {
    kept = cpu::true_rows(cond, rel);
    Table t;
    for (size_t c = 0; c < kCols; ++c) t.columns.push_back(cpu::gather_column(rel.column(c), kept, kNames[c]));
    values = cpu::evaluate(e, cpu::HostRelation::of(std::move(t)), "x");
  } catch (const Error& err) {
    want_error = err;
  }
  OnDevice dev(*program, rel, nullptr);
  std::vector<PassRecord> passes;
  const auto got = vk::reduce_expressions(device(), {&*program}, {dev.input}, passes);
  REQUIRE(got.size() == 1);
  REQUIRE(want_error.has_value() == got[0].error.has_value());
  if (want_error) {
    CHECK(want_error->code() == got[0].error->code());
    CHECK(std::string(want_error->what()) == std::string(got[0].error->what()));
    return;
  }
  CHECK(got[0].count == kept.size());
  if (!plan::is_integer(e.type) && e.type != Type::Int32 && e.type != Type::Date) return;
  __int128 sum = 0;
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (uint64_t r = 0; r < values->size(); ++r) {
    const Value v = values->value(r);
    const int64_t x = e.type == Type::Int64  ? std::get<int64_t>(v)
                      : e.type == Type::Date ? std::get<Date>(v).days
                                             : std::get<int32_t>(v);
    sum += x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  CHECK(got[0].sum == sum);
  CHECK(got[0].min == lo);
  CHECK(got[0].max == hi);
}

}  // namespace

TEST_CASE("vk-expression: a value reduced over the rows a condition keeps, in one program") {
  const uint64_t base = test_seed();
  const uint64_t per_group = EXPR_WG * EXPR_ROWS_PER_THREAD;
  const size_t sizes[] = {0, 1, per_group - 1, per_group, per_group + 1, 2 * per_group + 5};
  for (uint64_t round = 0; round < 6; ++round) {
    const uint64_t seed = base + round;
    std::mt19937_64 rng(seed);
    const size_t n = sizes[round];
    const Table t = random_table(rng, n, round % 2 ? 3000 : 2000000000);
    const cpu::HostRelation rel = cpu::HostRelation::of(t);
    const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(n) + " rows";
    for (int k = 0; k < 12; ++k) {
      Expr e = random_expr(rng, 2);
      if (e.type == Type::Float32 || e.type == Type::Float64) e = arith(ArithOp::Mul, col(A), col(B));
      const Expr cond = random_condition(rng, 2);
      std::string why;
      if (!vk::compile_kept(cond, e, why)) {
        CHECK_MESSAGE(why.find("instructions") != std::string::npos, why);
        continue;
      }
      check_kept(cond, e, rel, what);
    }
    // Errors: in the condition (at a row of the table), in the value (at a row among those kept).
    const Expr div = arith(ArithOp::Div, col(A), col(C));
    const Expr over = arith(ArithOp::Mul, arith(ArithOp::Mul, col(A), col(B)), col(A));
    check_kept(cmp(CmpOp::Lt, div, lit(0)), col(A), rel, what);
    check_kept(cmp(CmpOp::Ne, col(C), lit(0)), div, rel, what);  // no error: c = 0 is not kept
    check_kept(cmp(CmpOp::Gt, col(C), lit(-3)), div, rel, what);
    check_kept(cmp(CmpOp::Lt, col(A), col(B)), over, rel, what);
    check_kept(truth_literal(false), over, rel, what);
    check_kept(cmp(CmpOp::Lt, col(F), col(G)), arith(ArithOp::Add, col(D), col(C)), rel, what);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}
