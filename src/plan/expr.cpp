#include "plan/expr.h"

#include <algorithm>

namespace gfxq::plan {

const char* to_string(ArithOp op) noexcept {
  switch (op) {
    case ArithOp::Add: return "+";
    case ArithOp::Sub: return "-";
    case ArithOp::Mul: return "*";
    case ArithOp::Div: return "/";
  }
  return "?";
}

bool Expr::reads(size_t c) const {
  if (kind == ExprKind::Column) return column == c;
  return std::any_of(args.begin(), args.end(), [c](const Expr& a) { return a.reads(c); });
}

namespace {
void collect_columns(const Expr& e, std::vector<size_t>& out) {
  if (e.kind == ExprKind::Column) out.push_back(e.column);
  for (const Expr& a : e.args) collect_columns(a, out);
}
}  // namespace

std::vector<size_t> Expr::columns() const {
  std::vector<size_t> out;
  collect_columns(*this, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Expr column_expr(size_t index, Type type, std::string text, std::shared_ptr<const Dictionary> dictionary) {
  Expr e;
  e.kind = ExprKind::Column;
  e.column = index;
  e.type = type;
  e.text = std::move(text);
  e.dictionary = std::move(dictionary);
  return e;
}

Expr literal_expr(Value value, Type type, std::string text) {
  Expr e;
  e.kind = ExprKind::Literal;
  e.literal = std::move(value);
  e.type = type;
  e.text = std::move(text);
  return e;
}

Expr remap_columns(const Expr& e, const std::vector<std::optional<size_t>>& map) {
  Expr out = e;
  if (out.kind == ExprKind::Column) out.column = map.at(out.column).value();
  for (Expr& a : out.args) a = remap_columns(a, map);
  return out;
}

bool is_numeric(Type type) noexcept {
  return type == Type::Int32 || type == Type::Int64 || type == Type::Float32 || type == Type::Float64;
}

bool is_integer(Type type) noexcept {
  return type == Type::Int32 || type == Type::Int64;
}

Type agg_result_type(AggKind kind, Type arg) noexcept {
  switch (kind) {
    case AggKind::Count: return Type::Int64;
    case AggKind::Sum: return is_integer(arg) ? Type::Int64 : Type::Float64;
    case AggKind::Avg: return Type::Float64;
    default: return arg;
  }
}

}  // namespace gfxq::plan
