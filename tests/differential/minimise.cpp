// Greedy shrinking of a failing differential case: each step proposes smaller variants (fewer
// rows, fewer columns, a smaller query, simpler values) and keeps the first that still fails on
// the same side; it stops when no variant fails or the check budget is spent.

#include <functional>

#include "differential/check.h"

namespace gfxq::differential {

namespace {

using Variant = std::function<std::optional<Case>()>;

Case with_tables(const Case& c, std::vector<NamedTable> tables) {
  Case out = c;
  out.tables = std::make_shared<const std::vector<NamedTable>>(std::move(tables));
  return out;
}

//! `t` without rows [from, from + count).
Table drop_rows(const Table& t, uint64_t from, uint64_t count) {
  Table out;
  for (const Column& c : t.columns) {
    Column k = Column::make(c.name, c.type);
    for (uint64_t r = 0; r < c.size(); ++r)
      if (r < from || r >= from + count) k.push(c.value(r));
    out.columns.push_back(std::move(k));
  }
  return out;
}

//! Every condition obtained by replacing one node of `c` by one of its operands, or a BETWEEN by
//! a plain comparison, or a literal by 0.
void smaller_conditions(const Condition& c, std::vector<Condition>& out) {
  if (c.kind == Condition::Kind::And || c.kind == Condition::Kind::Or || c.kind == Condition::Kind::Not) {
    for (const Condition& o : c.operands) out.push_back(o);
    for (size_t i = 0; i < c.operands.size(); ++i) {
      if (c.operands.size() > 2) {
        Condition fewer = c;
        fewer.operands.erase(fewer.operands.begin() + static_cast<ptrdiff_t>(i));
        out.push_back(fewer);
      }
      std::vector<Condition> inner;
      smaller_conditions(c.operands[i], inner);
      for (Condition& x : inner) {
        Condition replaced = c;
        replaced.operands[i] = std::move(x);
        out.push_back(std::move(replaced));
      }
    }
  } else if (c.kind == Condition::Kind::Between) {
    Condition lo;
    lo.column = c.column;
    lo.op = CmpOp::Ge;
    lo.rhs = c.lo;
    out.push_back(lo);
    Condition hi = lo;
    hi.op = CmpOp::Le;
    hi.rhs = c.hi;
    out.push_back(hi);
  } else if (const auto* l = std::get_if<Literal>(&c.rhs); l && l->text != "0") {
    Condition zero = c;
    zero.rhs = literal_of(0.0);
    zero.literal_first = false;
    out.push_back(zero);
  }
}

//! Smaller queries: one item fewer, no WHERE or a smaller one, no ORDER BY, LIMIT or GROUP BY.
std::vector<QuerySpec> smaller_queries(const QuerySpec& q) {
  std::vector<QuerySpec> out;
  if (q.items.size() > 1)
    for (size_t i = 0; i < q.items.size(); ++i) {
      QuerySpec s = q;
      s.items.erase(s.items.begin() + static_cast<ptrdiff_t>(i));
      out.push_back(s);
    }
  if (q.where) {
    QuerySpec s = q;
    s.where.reset();
    out.push_back(s);
    std::vector<Condition> conditions;
    smaller_conditions(*q.where, conditions);
    for (Condition& c : conditions) {
      QuerySpec t = q;
      t.where = std::move(c);
      out.push_back(std::move(t));
    }
  }
  if (q.order_by) {
    QuerySpec s = q;
    s.order_by.reset();
    out.push_back(s);
  }
  if (q.limit) {
    QuerySpec s = q;
    s.limit.reset();
    out.push_back(s);
  }
  if (q.group_by) {
    QuerySpec s = q;
    s.group_by.reset();
    s.order_by.reset();
    std::erase_if(s.items, [](const Item& i) { return i.kind == Item::Kind::Column; });
    if (!s.items.empty()) out.push_back(s);
  }
  if (q.join && q.join->form != Join::Form::Equi) {
    QuerySpec s = q;
    s.join->form = Join::Form::Equi;
    out.push_back(s);
  }
  return out;
}

//! Variants of `c`, largest reductions first.
std::vector<Variant> variants(const Case& c) {
  std::vector<Variant> out;
  const auto& tables = *c.tables;
  // Rows: halves, quarters, ..., single rows, of each table.
  for (size_t t = 0; t < tables.size(); ++t) {
    const uint64_t n = tables[t].table.rows();
    for (uint64_t chunk = n / 2 ? n / 2 : 1; chunk >= 1 && n > 0; chunk /= 2) {
      for (uint64_t from = 0; from < n; from += chunk)
        out.push_back([&c, t, from, chunk]() -> std::optional<Case> {
          std::vector<NamedTable> copy = *c.tables;
          copy[t].table = drop_rows(copy[t].table, from, chunk);
          return with_tables(c, std::move(copy));
        });
      if (chunk == 1) break;
    }
  }
  // Columns.
  for (size_t t = 0; t < tables.size(); ++t)
    for (size_t col = 0; tables[t].table.columns.size() > 1 && col < tables[t].table.columns.size(); ++col)
      out.push_back([&c, t, col]() -> std::optional<Case> {
        std::vector<NamedTable> copy = *c.tables;
        copy[t].table.columns.erase(copy[t].table.columns.begin() + static_cast<ptrdiff_t>(col));
        return with_tables(c, std::move(copy));
      });
  // The query.
  for (QuerySpec& q : smaller_queries(c.query))
    out.push_back([&c, q]() -> std::optional<Case> {
      Case s = c;
      s.query = q;
      return s;
    });
  // Cell values: 0 instead of anything else, in small tables.
  for (size_t t = 0; t < tables.size(); ++t) {
    const Table& table = tables[t].table;
    if (table.rows() > 32) continue;
    for (size_t col = 0; col < table.columns.size(); ++col)
      for (uint64_t r = 0; r < table.rows(); ++r) {
        const Value v = table.columns[col].value(r);
        const bool zero = table.columns[col].type == Type::Int32 ? std::get<int32_t>(v) == 0
                                                                 : std::bit_cast<uint32_t>(std::get<float>(v)) == 0;
        if (zero) continue;
        out.push_back([&c, t, col, r]() -> std::optional<Case> {
          std::vector<NamedTable> copy = *c.tables;
          Column& k = copy[t].table.columns[col];
          if (k.type == Type::Int32)
            k.as<int32_t>()[r] = 0;
          else
            k.as<float>()[r] = 0.0f;
          return with_tables(c, std::move(copy));
        });
      }
  }
  return out;
}

}  // namespace

Case minimise(Checker& checker, const Case& failing, const std::string& side, int max_checks) {
  Case best = failing;
  int checks = 0;
  for (bool progress = true; progress && checks < max_checks;) {
    progress = false;
    for (const Variant& make : variants(best)) {
      if (++checks > max_checks) break;
      std::optional<Case> candidate = make();
      if (!candidate) continue;
      if (const auto m = checker.check_side(*candidate, side); m && m->side == side) {
        best = std::move(*candidate);
        progress = true;
        break;  // the variants of the smaller case are recomputed
      }
    }
  }
  return best;
}

}  // namespace gfxq::differential
