// sql::parse: a statement parsed by parse_statement (the one SQL parser), converted to a Query
// spec where it has that spec's shape: one table or one JOIN of the supported forms, a WHERE of
// column/number comparisons (normalised to CNF), one GROUP BY column, one ORDER BY column, LIMIT.
// Anything else is Error(InvalidQuery) naming the construct the spec cannot express.

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "gfxq/error.h"
#include "gfxq/sql.h"
#include "sql/cnf.h"
#include "sql/parse_statement.h"

namespace gfxq::sql {

namespace {

using ast::ExprKind;
using ast::Op;

struct Function {
  std::string_view name;
  AggKind kind;
};

constexpr Function kFunctions[] = {
    {"COUNT", AggKind::Count},       {"SUM", AggKind::Sum},
    {"AVG", AggKind::Avg},           {"MIN", AggKind::Min},
    {"MAX", AggKind::Max},           {"MEDIAN", AggKind::Median},
    {"QUANTILE", AggKind::Quantile}, {"KTH_LARGEST", AggKind::KthLargest},
};

// "COUNT, SUM, ...", for messages.
std::string function_names() {
  std::string s;
  for (const Function& f : kFunctions) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

constexpr std::string_view kJoinForms =
    "ON supports r.a = s.b, s.b BETWEEN r.a - d AND r.a + d, or s.b >= r.a - d AND s.b <= r.a + d "
    "(r the FROM table, s the JOIN table, d a number)";

[[noreturn]] void unsupported(Position pos, const std::string& construct) {
  fail(pos, construct + " cannot be expressed as a query spec (gfxq::Query)");
}

// The expression as messages quote it.
std::string quoted(const ast::Expr& e) {
  std::string s = "'";
  s += excerpt(e.text());
  return s += '\'';
}

std::optional<CmpOp> comparison_op(Op op) {
  switch (op) {
    case Op::Lt: return CmpOp::Lt;
    case Op::Le: return CmpOp::Le;
    case Op::Gt: return CmpOp::Gt;
    case Op::Ge: return CmpOp::Ge;
    case Op::Eq: return CmpOp::Eq;
    case Op::Ne: return CmpOp::Ne;
    default: return std::nullopt;
  }
}

bool is_arithmetic(const ast::Expr& e) {
  return e.kind == ExprKind::Binary && (e.op == Op::Add || e.op == Op::Sub || e.op == Op::Mul || e.op == Op::Div);
}

// A numeric literal (or the negation of one) as a double; int64 literals round to the nearest.
std::optional<double> number_of(const ast::Expr& e) {
  if (e.kind == ExprKind::Unary && e.op == Op::Neg) {
    const auto v = number_of(e.args[0]);
    return v ? std::optional<double>(-*v) : std::nullopt;
  }
  if (e.kind != ExprKind::Literal) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(&e.literal)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&e.literal)) return *d;
  return std::nullopt;
}

// +0.0 for -0.0 (from `r.a - 0`), so that offsets print canonically.
double without_negative_zero(double v) {
  return v == 0 ? 0.0 : v;
}

// `r.a + d` or `r.a - d`, for messages.
std::string offset_text(const ColumnRef& column, double offset) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, offset < 0 ? -offset : offset).ptr;
  return column.text() + (offset < 0 ? " - " : " + ") + std::string(buf, end);
}

ColumnRef column_ref(const ast::Expr& e) {
  return {e.table, e.name};
}

// --- select list

Aggregate aggregate(const ast::Expr& e) {
  const auto* f =
      std::find_if(std::begin(kFunctions), std::end(kFunctions), [&](const Function& g) { return g.name == e.name; });
  if (f == std::end(kFunctions)) fail(e.pos, "unknown function '" + e.name + "' (supported: " + function_names() + ")");
  if (e.distinct) unsupported(e.pos, e.name + "(DISTINCT ...)");
  Aggregate a;
  a.kind = f->kind;
  if (e.star) return a;  // COUNT(*): the parser lets only COUNT take '*'
  const bool two = a.kind == AggKind::Quantile || a.kind == AggKind::KthLargest;
  if (e.args.size() != (two ? 2u : 1u))
    fail(e.pos,
         e.name + " takes " + (two ? "two arguments" : "one argument") + ", found " + std::to_string(e.args.size()));
  if (e.args[0].kind != ExprKind::Column) fail(e.args[0].pos, "expected a column, found " + quoted(e.args[0]));
  a.column = column_ref(e.args[0]);
  if (a.kind == AggKind::Median) a.q = 0.5;  // MEDIAN(c) = QUANTILE(c, 0.5)
  if (!two) return a;
  const ast::Expr& arg = e.args[1];
  const bool literal = arg.kind == ExprKind::Literal && number_of(arg);
  if (a.kind == AggKind::Quantile) {
    if (!literal) fail(arg.pos, "expected a number q in (0, 1], found " + quoted(arg));
    a.q = *number_of(arg);
    if (!(a.q > 0 && a.q <= 1)) fail(arg.pos, "QUANTILE's q must be in (0, 1], found '" + arg.literal_text + "'");
  } else {
    if (!literal) fail(arg.pos, "expected an integer k >= 1, found " + quoted(arg));
    const auto* k = std::get_if<int64_t>(&arg.literal);
    if (!k || *k < 1)
      fail(arg.pos, "KTH_LARGEST's k must be an integer in [1, 2^63 - 1], found '" + arg.literal_text + "'");
    a.k = *k;
  }
  return a;
}

SelectItem select_item(const ast::SelectItem& item) {
  if (!item.alias.empty()) unsupported(item.pos, "an alias (AS " + item.alias + ")");
  if (item.star) {
    if (!item.star_table.empty()) unsupported(item.pos, "'" + item.star_table + ".*'");
    return Star{};
  }
  if (item.expr.kind == ExprKind::Column) return column_ref(item.expr);
  if (item.expr.kind == ExprKind::Function) return aggregate(item.expr);
  unsupported(item.expr.pos, "the select item " + quoted(item.expr) + " (not '*', a column or an aggregate)");
}

// --- WHERE

// A comparison operand: a column or a number.
struct Side {
  Operand value;
  Position pos;
};

Side side(const ast::Expr& e) {
  if (e.kind == ExprKind::Column) return {column_ref(e), e.pos};
  if (const auto v = number_of(e)) return {*v, e.pos};
  if (e.kind == ExprKind::Unary && e.op == Op::Neg)
    fail(e.args[0].pos, "expected a number after '-', found " + quoted(e.args[0]));
  if (is_arithmetic(e))
    fail(e.op_pos,
         std::string("arithmetic ('") + ast::to_string(e.op) + "') is only supported in a JOIN's ON condition");
  if (e.kind == ExprKind::Literal) unsupported(e.pos, "the literal " + excerpt(e.text()) + " (not a number)");
  fail(e.pos, "expected a column or a number, found " + quoted(e));
}

// lhs op rhs with the column on the left: `5 < a` becomes `a > 5`.
Comparison compare(const Side& lhs, CmpOp op, const Side& rhs) {
  if (const auto* c = std::get_if<ColumnRef>(&lhs.value)) return {*c, op, rhs.value};
  if (const auto* c = std::get_if<ColumnRef>(&rhs.value)) return {*c, flip(op), lhs.value};
  fail(lhs.pos, "comparison needs a column, but both sides are numbers");
}

// The operands of a chain of `op` (AND or OR), in order.
void collect(const ast::Expr& e, Op op, std::vector<const ast::Expr*>& out) {
  if (e.kind == ExprKind::Binary && e.op == op) {
    collect(e.args[0], op, out);
    collect(e.args[1], op, out);
  } else {
    out.push_back(&e);
  }
}

Expr condition(const ast::Expr& e) {
  if (e.kind == ExprKind::Binary && (e.op == Op::And || e.op == Op::Or)) {
    std::vector<const ast::Expr*> operands;
    collect(e, e.op, operands);
    std::vector<Expr> terms;
    for (const ast::Expr* operand : operands) terms.push_back(condition(*operand));
    return e.op == Op::And ? Expr::all_of(std::move(terms)) : Expr::any_of(std::move(terms));
  }
  if (e.kind == ExprKind::Unary && e.op == Op::Not) return Expr::negation(condition(e.args[0]));
  if (e.kind == ExprKind::Binary)
    if (const auto op = comparison_op(e.op)) return Expr::leaf(compare(side(e.args[0]), *op, side(e.args[1])));
  if (e.kind == ExprKind::Between) {
    const Side x = side(e.args[0]), lo = side(e.args[1]), hi = side(e.args[2]);
    if (e.negated) return Expr::any_of({Expr::leaf(compare(x, CmpOp::Lt, lo)), Expr::leaf(compare(x, CmpOp::Gt, hi))});
    return Expr::all_of({Expr::leaf(compare(x, CmpOp::Ge, lo)), Expr::leaf(compare(x, CmpOp::Le, hi))});
  }
  if (e.kind == ExprKind::In) {
    // x IN (a, b) is x = a OR x = b; NOT IN is x <> a AND x <> b.
    const Side x = side(e.args[0]);
    std::vector<Expr> terms;
    for (size_t i = 1; i < e.args.size(); ++i)
      terms.push_back(Expr::leaf(compare(x, e.negated ? CmpOp::Ne : CmpOp::Eq, side(e.args[i]))));
    return e.negated ? Expr::all_of(std::move(terms)) : Expr::any_of(std::move(terms));
  }
  fail(e.pos, "expected a condition (a comparison, BETWEEN or IN), found " + quoted(e));
}

// --- JOIN

[[noreturn]] void fail_join_form(Position pos, const std::string& problem) {
  fail(pos, problem + "; " + std::string(kJoinForms));
}

// The FROM table (r) and the JOIN table (s).
struct JoinTables {
  std::string_view left;
  std::string_view right;
};

// A join key in ON: a qualified column plus an optional literal offset (`r.a - 2`).
struct JoinTerm {
  ColumnRef column;
  double offset = 0;
  bool has_offset = false;
  Position pos;
};

// One bound on the JOIN table's key:  right_key op left_key + offset, op one of >=, <=, =.
struct JoinBound {
  ColumnRef right_key;
  ColumnRef left_key;
  CmpOp op = CmpOp::Eq;
  double offset = 0;
  Position pos;
};

// table.column [(+|-) number]
JoinTerm join_term(const JoinTables& tables, const ast::Expr& e) {
  JoinTerm term;
  term.pos = e.pos;
  const bool offset = (e.kind == ExprKind::Binary && (e.op == Op::Add || e.op == Op::Sub));
  const ast::Expr& column = offset ? e.args[0] : e;
  if (column.kind != ExprKind::Column) fail_join_form(column.pos, "expected a column, found " + quoted(column));
  term.column = column_ref(column);
  if (term.column.table.empty())
    fail(term.pos, "columns in ON must be qualified with their table (" + std::string(tables.left) + "." +
                       term.column.name + " or " + std::string(tables.right) + "." + term.column.name + "), found '" +
                       term.column.name + "'");
  if (term.column.table != tables.left && term.column.table != tables.right)
    fail(term.pos, "column '" + term.column.text() + "' in ON must belong to '" + std::string(tables.left) + "' or '" +
                       std::string(tables.right) + "'");
  if (offset) {
    const auto d = number_of(e.args[1]);
    if (!d) fail(e.args[1].pos, "expected a number, found " + quoted(e.args[1]));
    term.offset = e.op == Op::Sub ? -*d : *d;
    term.has_offset = true;
  }
  return term;
}

// `a op b` as a bound on the JOIN table's key:  s.b op r.a + d.
JoinBound join_bound(const JoinTables& tables, JoinTerm a, CmpOp op, Position op_pos, JoinTerm b) {
  const CmpOp written = op;
  const bool a_right = a.column.table == tables.right;
  if (a_right == (b.column.table == tables.right))
    fail_join_form(a.pos, "ON must compare a column of '" + std::string(tables.left) + "' with a column of '" +
                              std::string(tables.right) + "'");
  if (!a_right) {
    std::swap(a, b);
    op = flip(op);
  }
  if (a.has_offset)
    fail_join_form(a.pos, "an offset is only supported on the column of '" + std::string(tables.left) + "'");
  if (op == CmpOp::Lt || op == CmpOp::Gt)
    fail(op_pos, "band join bounds must be inclusive (<= or >=), found '" + std::string(to_string(written)) + "'");
  if (op == CmpOp::Ne) fail_join_form(op_pos, "'" + std::string(to_string(written)) + "' is not a join condition");
  return {a.column, b.column, op, b.offset, a.pos};
}

void join_bounds(const JoinTables& tables, const ast::Expr& on, std::vector<JoinBound>& bounds) {
  std::vector<const ast::Expr*> conjuncts;
  collect(on, Op::And, conjuncts);
  for (const ast::Expr* c : conjuncts) {
    const ast::Expr& e = *c;
    if (e.kind == ExprKind::Binary && e.op == Op::Or) fail_join_form(e.op_pos, "OR is not supported in ON");
    if (e.kind == ExprKind::Unary && e.op == Op::Not) fail_join_form(e.pos, "NOT is not supported in ON");
    if (e.kind == ExprKind::Between && e.negated) fail_join_form(e.op_pos, "NOT BETWEEN is not supported in ON");
    if (e.kind == ExprKind::Between) {
      const JoinTerm x = join_term(tables, e.args[0]);
      const JoinTerm lo = join_term(tables, e.args[1]);
      const JoinTerm hi = join_term(tables, e.args[2]);
      bounds.push_back(join_bound(tables, x, CmpOp::Ge, e.op_pos, lo));
      bounds.push_back(join_bound(tables, x, CmpOp::Le, e.op_pos, hi));
      continue;
    }
    const auto op = e.kind == ExprKind::Binary ? comparison_op(e.op) : std::nullopt;
    if (!op) fail_join_form(e.pos, "expected a comparison, found " + quoted(e));
    const JoinTerm a = join_term(tables, e.args[0]);
    bounds.push_back(join_bound(tables, a, *op, e.op_pos, join_term(tables, e.args[1])));
  }
}

JoinSpec join_spec(const JoinTables& tables, const std::vector<JoinBound>& bounds, Position start) {
  const JoinBound& first = bounds.front();
  JoinSpec spec{std::string(tables.right), first.left_key, first.right_key, 0, 0};
  if (bounds.size() == 1 && first.op == CmpOp::Eq) {
    spec.lo = spec.hi = without_negative_zero(first.offset);
    return spec;
  }
  const auto find = [&](CmpOp op) {
    return std::find_if(bounds.begin(), bounds.end(), [&](const JoinBound& b) { return b.op == op; });
  };
  const auto lower = find(CmpOp::Ge);
  const auto upper = find(CmpOp::Le);
  if (bounds.size() == 1) fail_join_form(start, "a band join needs a lower bound (>=) and an upper bound (<=)");
  if (bounds.size() != 2 || lower == bounds.end() || upper == bounds.end())
    fail_join_form(start, "ON must be one equality, or one lower bound (>=) and one upper bound (<=)");
  if (lower->left_key != upper->left_key || lower->right_key != upper->right_key)
    fail_join_form(bounds[1].pos, "both bounds of a band join must compare the same two columns");
  if (lower->offset > upper->offset)
    fail(start, "band join's lower bound " + offset_text(lower->left_key, lower->offset) +
                    " is above its upper bound " + offset_text(upper->left_key, upper->offset));
  spec.lo = without_negative_zero(lower->offset);
  spec.hi = without_negative_zero(upper->offset);
  return spec;
}

JoinSpec join(const ast::TableRef& from, const ast::Join& j) {
  if (j.kind == ast::JoinKind::Comma) unsupported(j.table.pos, "a second FROM table (',')");
  if (j.kind == ast::JoinKind::Cross) unsupported(j.table.pos, "CROSS JOIN");
  if (!j.table.alias.empty()) unsupported(j.table.pos, "a table alias ('" + j.table.alias + "')");
  if (j.table.name == from.name) fail(j.table.pos, "joining '" + from.name + "' with itself is not supported");
  const JoinTables tables{from.name, j.table.name};
  std::vector<JoinBound> bounds;
  join_bounds(tables, *j.on, bounds);
  return join_spec(tables, bounds, j.on->pos);
}

// --- the query

// The one column of GROUP BY or ORDER BY.
ColumnRef one_column(const std::vector<const ast::Expr*>& keys, const char* clause) {
  if (keys.size() > 1) fail(keys[1]->pos, std::string(clause) + " takes one column");
  if (keys[0]->kind != ExprKind::Column)
    fail(keys[0]->pos, std::string(clause) + " takes one column, found " + quoted(*keys[0]));
  return column_ref(*keys[0]);
}

Query query_spec(const ast::Statement& st, const CnfLimits& limits) {
  const ast::Query& q = st.query;
  if (st.explain) unsupported(q.pos, "EXPLAIN");
  if (!q.select) {
    const char* names[] = {"UNION", "INTERSECT", "EXCEPT"};
    unsupported(q.set_op_pos, names[static_cast<int>(q.set_op)]);
  }
  const ast::Select& s = *q.select;
  if (s.distinct) unsupported(s.pos, "SELECT DISTINCT");
  Query spec;
  for (const ast::SelectItem& item : s.items) spec.items.push_back(select_item(item));
  if (!s.from.alias.empty()) unsupported(s.from.pos, "a table alias ('" + s.from.alias + "')");
  spec.table = s.from.name;
  if (s.joins.size() > 1) unsupported(s.joins[1].table.pos, "a second join");
  if (!s.joins.empty()) spec.join = join(s.from, s.joins.front());
  if (s.where) spec.where = to_cnf(condition(*s.where), limits, s.where->pos);
  if (!s.group_by.empty()) {
    std::vector<const ast::Expr*> keys;
    for (const ast::Expr& e : s.group_by) keys.push_back(&e);
    spec.group_by = one_column(keys, "GROUP BY");
  }
  if (s.having) unsupported(s.having->pos, "HAVING");
  if (!q.order_by.empty()) {
    std::vector<const ast::Expr*> keys;
    for (const ast::OrderItem& o : q.order_by) keys.push_back(&o.expr);
    spec.order_by = OrderBy{one_column(keys, "ORDER BY"), q.order_by.front().descending};
  }
  spec.limit = q.limit;
  if (q.offset) unsupported(q.pos, "OFFSET");
  return spec;
}

}  // namespace

Query parse(std::string_view text, const CnfLimits& limits) {
  return query_spec(parse_statement(text), limits);
}

}  // namespace gfxq::sql
