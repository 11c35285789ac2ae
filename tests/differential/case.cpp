#include "differential/case.h"

#include <charconv>
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

std::string join_sql(const std::string& from, const Join& j) {
  std::string s = " JOIN " + j.right + " ON ";
  const std::string l = column_sql(j.left_key), r = column_sql(j.right_key);
  switch (j.form) {
    case Join::Form::Equi: return s + l + " = " + r;
    case Join::Form::Between:
      return s + r + " BETWEEN " + l + " - " + j.below.text + " AND " + l + " + " + j.above.text;
    case Join::Form::Pair:
      return s + r + " <= " + l + " + " + j.above.text + " AND " + r + " >= " + l + " - " + j.below.text;
  }
  (void)from;
  return s;
}

}  // namespace

Literal literal_of(double value) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, value);
  return {std::string(buf, res.ptr), value};
}

std::string condition_sql(const Condition& c) {
  switch (c.kind) {
    case Condition::Kind::Compare: {
      const std::string lhs = column_sql(c.column), rhs = operand_sql(c.rhs);
      if (c.literal_first) return rhs + " " + to_string(flip(c.op)) + " " + lhs;
      return lhs + " " + to_string(c.op) + " " + rhs;
    }
    case Condition::Kind::Between:
      return column_sql(c.column) + (c.negated ? " NOT BETWEEN " : " BETWEEN ") + c.lo.text + " AND " + c.hi.text;
    case Condition::Kind::Not: return "NOT (" + condition_sql(c.operands.at(0)) + ")";
    case Condition::Kind::And:
    case Condition::Kind::Or: {
      std::string s;
      for (const Condition& o : c.operands)
        s += (s.empty() ? "(" : (c.kind == Condition::Kind::And ? " AND (" : " OR (")) + condition_sql(o) + ")";
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
  std::string s = "SELECT ";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + item_sql(items[i]);
  s += " FROM " + from;
  if (join) s += join_sql(from, *join);
  if (where) s += " WHERE " + condition_sql(*where);
  if (group_by) s += " GROUP BY " + column_sql(*group_by);
  if (order_by) s += " ORDER BY " + column_sql(order_by->column) + (order_by->descending ? " DESC" : " ASC");
  if (limit) s += " LIMIT " + std::to_string(*limit);
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
