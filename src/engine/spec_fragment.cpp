// Matching plan fragments against the Query spec's shape, from the top:
//   [Project of columns] [Limit] [Sort by one column] [Project of columns]
//   [Aggregate: at most one column key, aggregates of columns] [Filter: comparisons only]
//   Scan | Join(Scan or Filter(Scan), Scan or Filter(Scan)) on one equality or a band.

#include "engine/spec_fragment.h"

#include <algorithm>
#include <cmath>

#include "gfxq/error.h"
#include "sql/cnf.h"

namespace gfxq::engine {

namespace {

using plan::Expr;
using plan::ExprKind;
using plan::Node;
using plan::NodeKind;

// The base columns a fragment's input schema position reads: (qualifier, table column name).
struct Source {
  std::vector<ColumnRef> columns;  // per input position
};

bool plain_column_type(const plan::SchemaColumn& c, const Table* t) {
  if (c.type != Type::Int32 && c.type != Type::Float32) return false;
  if (!t) return true;
  const auto i = t->find(c.name);
  return i && t->columns[*i].nulls.empty();
}

// A literal as the double a Comparison holds, when exact.
std::optional<double> literal_double(const Expr& e) {
  if (e.kind != ExprKind::Literal || e.boolean) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(&e.literal))
    return std::fabs(double(*i)) <= 0x1p53 ? std::optional<double>(double(*i)) : std::nullopt;
  if (const auto* d = std::get_if<double>(&e.literal)) return *d;
  if (const auto* f = std::get_if<float>(&e.literal)) return double(*f);
  if (const auto* i = std::get_if<int32_t>(&e.literal)) return double(*i);
  return std::nullopt;
}

// The condition tree of a predicate over `src`, or nullopt.
std::optional<sql::Expr> condition(const Expr& e, const Source& src, std::string& why) {
  switch (e.kind) {
    case ExprKind::And:
    case ExprKind::Or: {
      std::vector<sql::Expr> parts;
      for (const auto& a : e.args) {
        auto p = condition(a, src, why);
        if (!p) return std::nullopt;
        parts.push_back(std::move(*p));
      }
      return e.kind == ExprKind::And ? sql::Expr::all_of(std::move(parts)) : sql::Expr::any_of(std::move(parts));
    }
    case ExprKind::Not: {
      auto p = condition(e.args[0], src, why);
      if (!p) return std::nullopt;
      return sql::Expr::negation(std::move(*p));
    }
    case ExprKind::Compare: {
      const Expr *l = &e.args[0], *r = &e.args[1];
      CmpOp op = e.cmp;
      if (!l->is_column()) {
        std::swap(l, r);
        op = flip(op);
      }
      if (!l->is_column()) break;
      Comparison c;
      c.lhs = src.columns.at(l->column);
      c.op = op;
      if (r->is_column()) {
        c.rhs = src.columns.at(r->column);
      } else if (const auto d = literal_double(*r)) {
        c.rhs = *d;
      } else {
        break;
      }
      return sql::Expr::leaf(std::move(c));
    }
    default: break;
  }
  why = "its condition " + e.text + " is not comparisons of columns and number literals";
  return std::nullopt;
}

// Whether `e` is a comparison, possibly negated.
bool literal_like(const sql::Expr& e) {
  return e.kind == sql::Expr::Kind::Leaf || (e.kind == sql::Expr::Kind::Not && literal_like(e.operands[0]));
}

// Whether `e` is already in CNF (an AND of ORs of comparisons): its normalisation expands nothing.
bool cnf_shaped(const sql::Expr& e) {
  auto clause = [](const sql::Expr& c) {
    return literal_like(c) ||
           (c.kind == sql::Expr::Kind::Or && std::all_of(c.operands.begin(), c.operands.end(), literal_like));
  };
  if (e.kind == sql::Expr::Kind::And) return std::all_of(e.operands.begin(), e.operands.end(), clause);
  return clause(e);
}

// The CNF of a Filter over `src`. A condition that needs expanding (an OR over ANDs) is bounded by
// CnfLimits' defaults, so the expansion stays cheap (issue 26, item 5); one already in CNF (a Query
// spec's WHERE, say) is taken at any size, since the fused kernels split their geometry under a
// driver's loop limit. The CPU engine evaluates conditions as written and needs neither.
std::optional<Cnf> cnf_of(const Expr& predicate, const Source& src, std::string& why) {
  auto tree = condition(predicate, src, why);
  if (!tree) return std::nullopt;
  try {
    const CnfLimits limits =
        cnf_shaped(*tree) ? CnfLimits{.max_clauses = SIZE_MAX, .max_terms_per_clause = SIZE_MAX, .max_terms = SIZE_MAX}
                          : CnfLimits{};
    return sql::to_cnf(*tree, limits, sql::Position{});
  } catch (const Error& e) {
    why = e.what();
    return std::nullopt;
  }
}

Cnf conjoin(Cnf a, const Cnf& b) {
  for (const auto& c : b.clauses) a.clauses.push_back(c);
  return a;
}

// A Scan, optionally under a Filter: its table, its columns as ColumnRefs, its WHERE.
bool scan_input(const Node& n, bool qualify, Query& q, Source& src, Cnf& where, std::vector<const Node*>& covered,
                std::string& why) {
  const Node* scan = &n;
  const Node* filter = nullptr;
  if (n.kind == NodeKind::Filter) {
    filter = &n;
    scan = n.children[0].get();
  }
  if (scan->kind != NodeKind::Scan) {
    why = "its input is a " + std::string(plan::to_string(scan->kind)) + ", not a table";
    return false;
  }
  for (const auto& c : scan->schema) {
    if (c.qualifier != scan->table_name && qualify) {
      why = "table " + scan->table_name + " has the alias " + c.qualifier;
      return false;
    }
    if (!plain_column_type(c, scan->table)) {
      why = "column " + c.name + " is " + to_string(c.type) + " or has NULLs (the fused operators read INT and FLOAT)";
      return false;
    }
    src.columns.push_back(ColumnRef{qualify ? scan->table_name : "", c.name});
  }
  if (filter) {
    Source local;
    for (const auto& c : scan->schema) local.columns.push_back(ColumnRef{qualify ? scan->table_name : "", c.name});
    auto cnf = cnf_of(*filter->predicate, local, why);
    if (!cnf) return false;
    where = conjoin(std::move(where), *cnf);
    covered.push_back(filter);
  }
  covered.push_back(scan);
  if (q.table.empty()) q.table = scan->table_name;
  return true;
}

}  // namespace

std::optional<Query> scan_filter_spec(const Node& filter, std::string& why) {
  const Node* scan = filter.kind == NodeKind::Filter ? filter.children[0].get() : nullptr;
  if (!scan || scan->kind != NodeKind::Scan) {
    why = "it is not a Filter over a table";
    return std::nullopt;
  }
  Source src;
  for (const auto& c : scan->schema) src.columns.push_back(ColumnRef{"", c.name});
  Query q;
  q.table = scan->table_name;
  for (size_t c : filter.predicate->columns()) {
    // STRING codes and DATE days compare as INT (the binder made string literals codes).
    plan::SchemaColumn as_int = scan->schema[c];
    as_int.type = storage_type(as_int.type);
    if (!plain_column_type(as_int, scan->table)) {
      why = "its condition reads " + scan->schema[c].name + ", which is " + to_string(scan->schema[c].type) +
            " or has NULLs (the CNF kernels read INT, FLOAT, STRING codes and DATE days without NULLs)";
      return std::nullopt;
    }
    q.items.push_back(src.columns[c]);
  }
  auto cnf = cnf_of(*filter.predicate, src, why);
  if (!cnf) return std::nullopt;
  q.where = std::move(*cnf);
  return q;
}

std::optional<SpecFragment> spec_fragment(const Node& node, std::string& why) {
  std::vector<const Node*> layers;  // top-down
  const Node* cur = &node;
  auto take = [&](NodeKind k) {
    if (cur->kind != k) return (const Node*)nullptr;
    const Node* n = cur;
    layers.push_back(n);
    cur = n->children.empty() ? nullptr : n->children[0].get();
    return n;
  };
  auto columns_only = [](const Node* p) {
    for (const auto& e : p->exprs)
      if (!e.is_column()) return false;
    return true;
  };
  const Node* outer = cur->kind == NodeKind::Project && columns_only(cur) && cur->children[0]->kind == NodeKind::Limit
                          ? take(NodeKind::Project)
                          : nullptr;
  const Node* limit = take(NodeKind::Limit);
  if (!outer && limit == nullptr && cur->kind == NodeKind::Project && columns_only(cur) &&
      cur->children[0]->kind == NodeKind::Sort)
    outer = take(NodeKind::Project);
  const Node* sort = take(NodeKind::Sort);
  const Node* select = cur->kind == NodeKind::Project ? take(NodeKind::Project) : nullptr;
  const Node* having = select && cur->kind == NodeKind::Filter && cur->children[0]->kind == NodeKind::Aggregate
                           ? take(NodeKind::Filter)
                           : nullptr;
  const Node* aggregate = cur && cur->kind == NodeKind::Aggregate ? take(NodeKind::Aggregate) : nullptr;
  if (having) {
    why = "HAVING is not in the Query spec's shape";
    return std::nullopt;
  }
  if (select && !columns_only(select)) {
    why = "its select list computes expressions";
    return std::nullopt;
  }
  if (limit && limit->offset) {
    why = "OFFSET is not in the Query spec's shape";
    return std::nullopt;
  }
  if (sort && sort->sort_keys.size() != 1) {
    why = "ORDER BY has several keys";
    return std::nullopt;
  }
  if (!cur) {
    why = "no table under it";
    return std::nullopt;
  }

  SpecFragment sf;
  Query& q = sf.query;
  Source src;
  Cnf where;
  std::vector<const Node*> covered = layers;
  // The bottom: a Filter over a Scan or a Join, a Scan, or a Join.
  const Node* filter = nullptr;
  if (cur->kind == NodeKind::Filter && cur->children[0]->kind == NodeKind::Join) {
    filter = cur;
    cur = cur->children[0].get();
  }
  if (cur->kind == NodeKind::Join) {
    const Node& j = *cur;
    if (j.residual || j.equi.size() + (j.band ? 1 : 0) != 1) {
      why = "its join is not one equality or one band";
      return std::nullopt;
    }
    covered.push_back(&j);
    Source ls, rs;
    if (!scan_input(*j.children[0], true, q, ls, where, covered, why)) return std::nullopt;
    Query rq;
    if (!scan_input(*j.children[1], true, rq, rs, where, covered, why)) return std::nullopt;
    if (rq.table == q.table) {
      why = "it joins a table with itself";
      return std::nullopt;
    }
    JoinSpec spec;
    spec.right = rq.table;
    if (!j.equi.empty()) {
      spec.left_key = ls.columns[j.equi[0].first];
      spec.right_key = rs.columns[j.equi[0].second];
    } else {
      spec.left_key = ls.columns[j.band->left];
      spec.right_key = rs.columns[j.band->right];
      spec.lo = j.band->lo;
      spec.hi = j.band->hi;
    }
    q.join = spec;
    src.columns = ls.columns;
    src.columns.insert(src.columns.end(), rs.columns.begin(), rs.columns.end());
    if (filter) {
      auto cnf = cnf_of(*filter->predicate, src, why);
      if (!cnf) return std::nullopt;
      where = conjoin(std::move(where), *cnf);
      covered.push_back(filter);
    }
  } else if (!scan_input(*cur, false, q, src, where, covered, why)) {
    return std::nullopt;
  }
  q.where = std::move(where);

  // The select list, over the aggregate's output or the input.
  std::vector<SelectItem> items;  // per output column of `select` (or of the aggregate / input)
  if (aggregate) {
    if (aggregate->group_keys.size() > 1 ||
        (aggregate->group_keys.size() == 1 && !aggregate->group_keys[0].is_column())) {
      why = "it groups by several keys or an expression";
      return std::nullopt;
    }
    if (!aggregate->group_keys.empty()) q.group_by = src.columns[aggregate->group_keys[0].column];
    std::vector<SelectItem> agg_out;
    if (q.group_by) agg_out.push_back(*q.group_by);
    for (const auto& a : aggregate->aggs) {
      if (a.distinct || (a.arg && !a.arg->is_column())) {
        why = "aggregate " + a.text + " is not of a plain column";
        return std::nullopt;
      }
      Aggregate spec;
      spec.kind = a.kind;
      if (a.arg) spec.column = src.columns[a.arg->column];
      spec.q = a.q;
      spec.k = a.k;
      agg_out.push_back(spec);
    }
    if (!select) {
      why = "an aggregate without a select list";
      return std::nullopt;
    }
    for (const auto& e : select->exprs) items.push_back(agg_out.at(e.column));
    if (std::none_of(items.begin(), items.end(),
                     [](const SelectItem& i) { return std::holds_alternative<Aggregate>(i); }) &&
        !q.group_by) {
      why = "no aggregate in the select list";
      return std::nullopt;
    }
  } else if (select) {
    for (const auto& e : select->exprs) items.push_back(src.columns.at(e.column));
  } else {
    for (const auto& c : src.columns) items.push_back(c);
  }
  if (sort) {
    const SelectItem& key = items.at(sort->sort_keys[0].column);
    const auto* c = std::get_if<ColumnRef>(&key);
    if (!c) {
      why = "it orders by an aggregate";
      return std::nullopt;
    }
    q.order_by = OrderBy{*c, sort->sort_keys[0].descending};
  }
  if (limit) q.limit = limit->limit;
  if (outer) {
    std::vector<SelectItem> kept;
    for (const auto& e : outer->exprs) kept.push_back(items.at(e.column));
    items = std::move(kept);
  }
  q.items = std::move(items);
  sf.fragment.root = &node;
  sf.fragment.nodes = std::move(covered);
  return sf;
}

}  // namespace gfxq::engine
