// Canonical SQL text of syntax trees (Expr::text) and their structural comparison.

#include "sql/ast.h"

#include <charconv>
#include <cmath>
#include <type_traits>
#include <variant>

namespace gfxq::sql::ast {

const char* to_string(Op op) noexcept {
  switch (op) {
    case Op::Neg: return "-";
    case Op::Not: return "NOT";
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::Eq: return "=";
    case Op::Ne: return "<>";
    case Op::And: return "AND";
    case Op::Or: return "OR";
  }
  return "?";
}

namespace {

// How tightly a node binds, loosest first (the parser's precedence levels): text() puts an
// operand in parentheses exactly when the parser would otherwise build another tree.
enum Level { kOr = 1, kAnd, kNot, kCompare, kAdd, kMul, kNeg, kPrimary };

int level(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Unary: return e.op == Op::Not ? kNot : kNeg;
    case ExprKind::Binary:
      switch (e.op) {
        case Op::Or: return kOr;
        case Op::And: return kAnd;
        case Op::Add:
        case Op::Sub: return kAdd;
        case Op::Mul:
        case Op::Div: return kMul;
        default: return kCompare;
      }
    case ExprKind::Between:
    case ExprKind::In: return kCompare;
    default: return kPrimary;
  }
}

bool is_number(const Expr& e) {
  return e.kind == ExprKind::Literal && !std::holds_alternative<std::monostate>(e.literal) &&
         !std::holds_alternative<std::string>(e.literal) && !std::holds_alternative<Date>(e.literal);
}

// A number without its text as written (a tree built by code): the shortest text that reads back
// to the same value, with ".0" on a whole floating-point number so that it stays one.
template <class T>
std::string number_text(T v) {
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  std::string s(buf, end);
  if constexpr (std::is_floating_point_v<T>)
    if (std::isfinite(v) && s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string literal_text(const Expr& e) {
  if (is_number(e) && !e.literal_text.empty()) return e.literal_text;
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "NULL";
        } else if constexpr (std::is_same_v<T, std::string>) {
          std::string s = "'";
          for (char c : v) s += c == '\'' ? std::string("''") : std::string(1, c);
          return s + "'";
        } else if constexpr (std::is_same_v<T, Date>) {
          return "DATE '" + format_date(v) + "'";
        } else {
          return number_text(v);
        }
      },
      e.literal);
}

void append(std::string& out, const Expr& e);

// `e`, in parentheses when it binds more loosely than `min`.
void append_operand(std::string& out, const Expr& e, int min) {
  if (level(e) >= min) return append(out, e);
  out += '(';
  append(out, e);
  out += ')';
}

void append_list(std::string& out, const std::vector<Expr>& args, size_t from) {
  for (size_t i = from; i < args.size(); ++i) {
    if (i > from) out += ", ";
    append(out, args[i]);
  }
}

void append(std::string& out, const Expr& e) {
  switch (e.kind) {
    case ExprKind::Column:
      if (!e.table.empty()) out += e.table + ".";
      out += e.name;
      return;
    case ExprKind::Literal: out += literal_text(e); return;
    case ExprKind::Unary: {
      if (e.op == Op::Not) {
        out += "NOT ";
        return append_operand(out, e.args[0], kNot);
      }
      // `-5` would read back as the literal -5, and `--` starts a comment.
      std::string operand;
      if (is_number(e.args[0])) {
        operand = '(';
        append(operand, e.args[0]);
        operand += ')';
      } else {
        append_operand(operand, e.args[0], kNeg);
      }
      out += operand.front() == '-' ? "- " : "-";
      out += operand;
      return;
    }
    case ExprKind::Binary: {
      // + - * / AND OR associate to the left; comparisons do not associate.
      const int l = level(e);
      append_operand(out, e.args[0], l == kCompare ? kCompare + 1 : l);
      out += std::string(" ") + to_string(e.op) + " ";
      append_operand(out, e.args[1], l + 1);
      return;
    }
    case ExprKind::Between:
      append_operand(out, e.args[0], kAdd);
      out += e.negated ? " NOT BETWEEN " : " BETWEEN ";
      append_operand(out, e.args[1], kAdd);
      out += " AND ";
      append_operand(out, e.args[2], kAdd);
      return;
    case ExprKind::In:
      append_operand(out, e.args[0], kAdd);
      out += e.negated ? " NOT IN (" : " IN (";
      append_list(out, e.args, 1);
      out += ')';
      return;
    case ExprKind::Case:
      out += "CASE";
      for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
        out += " WHEN ";
        append(out, e.args[i]);
        out += " THEN ";
        append(out, e.args[i + 1]);
      }
      if (e.args.size() % 2 == 1) {
        out += " ELSE ";
        append(out, e.args.back());
      }
      out += " END";
      return;
    case ExprKind::Function:
      out += e.name + "(";
      if (e.star) {
        out += '*';
      } else {
        if (e.distinct) out += "DISTINCT ";
        append_list(out, e.args, 0);
      }
      out += ')';
      return;
    case ExprKind::Extract:
      out += "EXTRACT(" + e.field + " FROM ";
      append(out, e.args[0]);
      out += ')';
      return;
  }
}

}  // namespace

std::string Expr::text() const {
  std::string out;
  append(out, *this);
  return out;
}

bool same_tree(const Expr& a, const Expr& b) noexcept {
  if (a.kind != b.kind || a.table != b.table || a.name != b.name || a.literal != b.literal ||
      a.literal_text != b.literal_text || a.op != b.op || a.negated != b.negated || a.distinct != b.distinct ||
      a.star != b.star || a.field != b.field || a.args.size() != b.args.size())
    return false;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!same_tree(a.args[i], b.args[i])) return false;
  return true;
}

}  // namespace gfxq::sql::ast
