#include "differential/case.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

namespace gfxq::differential {

namespace {

std::string column_sql(const ColumnRef& c) {
  return c.text();
}

std::string operand_sql(const std::variant<ColumnRef, Literal>& o) {
  if (const auto* c = std::get_if<ColumnRef>(&o)) return column_sql(*c);
  return std::get<Literal>(o).text;
}

std::string item_sql(const Item& item) {
  switch (item.kind) {
    case Item::Kind::Star: return "*";
    case Item::Kind::Column: return column_sql(item.column);
    case Item::Kind::Aggregate: break;
  }
  const std::string name = to_string(item.agg);
  if (item.count_star) return name + "(*)";
  if (item.agg == AggKind::Quantile) return name + "(" + column_sql(item.column) + ", " + item.q + ")";
  if (item.agg == AggKind::KthLargest)
    return name + "(" + column_sql(item.column) + ", " + std::to_string(item.k) + ")";
  return name + "(" + column_sql(item.column) + ")";
}

//! `word` as the style spells keywords.
std::string kw(const Style& style, std::string word) {
  if (style.lower_keywords)
    for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return word;
}

std::string op_sql(CmpOp op, const Style& style) {
  return op == CmpOp::Ne && style.bang_not_equal ? "!=" : to_string(op);
}

std::string join_sql(const Join& j, const Style& st) {
  std::string s = " " + kw(st, st.inner_join ? "INNER JOIN " : "JOIN ") + j.right + " " + kw(st, "ON") + " ";
  const std::string l = column_sql(j.left_key), r = column_sql(j.right_key);
  switch (j.form) {
    case Join::Form::Equi: return s + l + " = " + r;
    case Join::Form::Between:
      return s + r + " " + kw(st, "BETWEEN") + " " + l + " - " + j.below.text + " " + kw(st, "AND") + " " + l + " + " +
             j.above.text;
    case Join::Form::Pair:
      return s + r + " <= " + l + " + " + j.above.text + " " + kw(st, "AND") + " " + r + " >= " + l + " - " +
             j.below.text;
  }
  return s;
}

}  // namespace

Literal literal_of(double value) {
  char buf[64];
  // Digits alone past 2^63 would be an out-of-range BIGINT literal: write those in scientific form.
  const auto res = std::fabs(value) >= 9223372036854775808.0
                       ? std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific)
                       : std::to_chars(buf, buf + sizeof buf, value);
  return {std::string(buf, res.ptr), value};
}

std::string condition_sql(const Condition& c, const Style& st) {
  switch (c.kind) {
    case Condition::Kind::Compare: {
      const std::string lhs = column_sql(c.column), rhs = operand_sql(c.rhs);
      if (c.literal_first) return rhs + " " + op_sql(flip(c.op), st) + " " + lhs;
      return lhs + " " + op_sql(c.op, st) + " " + rhs;
    }
    case Condition::Kind::Between:
      return column_sql(c.column) + " " + kw(st, c.negated ? "NOT BETWEEN" : "BETWEEN") + " " + c.lo.text + " " +
             kw(st, "AND") + " " + c.hi.text;
    case Condition::Kind::Not: return kw(st, "NOT") + " (" + condition_sql(c.operands.at(0), st) + ")";
    case Condition::Kind::And:
    case Condition::Kind::Or: {
      const std::string op = " " + kw(st, c.kind == Condition::Kind::And ? "AND" : "OR") + " (";
      std::string s;
      for (const Condition& o : c.operands) s += (s.empty() ? "(" : op) + condition_sql(o, st) + ")";
      return s;
    }
  }
  return "";
}

bool QuerySpec::aggregate() const {
  for (const Item& i : items)
    if (i.kind == Item::Kind::Aggregate) return true;
  return false;
}

std::string QuerySpec::sql() const {
  const Style& st = style;
  const std::string gap = st.newlines ? "\n" : " ";
  std::string s = kw(st, "SELECT") + " ";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + item_sql(items[i]);
  s += gap + kw(st, "FROM") + " " + from;
  if (join) s += join_sql(*join, st);
  if (where) s += gap + kw(st, "WHERE") + " " + condition_sql(*where, st);
  if (group_by) s += gap + kw(st, "GROUP BY") + " " + column_sql(*group_by);
  if (order_by)
    s += gap + kw(st, "ORDER BY") + " " + column_sql(order_by->column) +
         (order_by->descending ? " " + kw(st, "DESC") : (st.explicit_asc ? " " + kw(st, "ASC") : ""));
  if (limit) s += gap + kw(st, "LIMIT") + " " + std::to_string(*limit);
  if (st.semicolon) s += ";";
  return s;
}

Catalog Case::catalog() const {
  Catalog c;
  for (const NamedTable& t : *tables) c.add(t.name, t.table);
  return c;
}

const Table& Case::table(const std::string& name) const {
  for (const NamedTable& t : *tables)
    if (t.name == name) return t.table;
  throw Error(ErrorCode::Internal, "differential case has no table " + name);
}

std::string Case::text() const {
  std::ostringstream out;
  for (const NamedTable& t : *tables) {
    out << "-- table " << t.name << " (" << t.table.rows() << " rows)\n";
    write_csv(out, t.table, true);
  }
  out << "-- query" << (seed ? " (generator seed " + std::to_string(seed) + ")" : std::string()) << "\n"
      << query.sql() << "\n";
  return out.str();
}

}  // namespace gfxq::differential
