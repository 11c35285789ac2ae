// The binder: syntax tree → logical plan. See binder.h for the planning rules and docs/SQL.md for
// the typing rules the expressions follow.

#include "plan/binder.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <set>

#include "gfxq/error.h"

namespace gfxq::plan {

namespace ast = sql::ast;

namespace {

// --- names in scope

struct ScopeColumn {
  std::string qualifier;  // the table's alias (or name)
  std::string name;
  Type type = Type::Int32;
  std::shared_ptr<const Dictionary> dictionary;
  size_t source = 0;  // which FROM table it comes from
};

struct Scope {
  std::vector<ScopeColumn> columns;
  std::vector<std::string> tables;  // qualifiers, by source
};

Scope scope_of(const Schema& schema, size_t source) {
  Scope s;
  for (const auto& c : schema) s.columns.push_back({c.qualifier, c.name, c.type, c.dictionary, source});
  if (!schema.empty()) s.tables.push_back(schema.front().qualifier);
  return s;
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

// "t has a, b; s has c" for messages.
std::string scope_listing(const Scope& scope) {
  std::string out;
  for (size_t t = 0; t < scope.tables.size(); ++t) {
    std::string cols;
    for (const auto& c : scope.columns)
      if (c.source == t) cols += (cols.empty() ? "" : ", ") + c.name;
    out += (out.empty() ? "" : "; ") + scope.tables[t] + " has " + (cols.empty() ? "no columns" : cols);
  }
  return out;
}

// --- expressions

bool is_aggregate_name(const std::string& name) {
  static const std::set<std::string> names = {"COUNT", "SUM", "AVG", "MIN", "MAX", "MEDIAN", "QUANTILE", "KTH_LARGEST"};
  return names.count(name) != 0;
}

bool has_aggregate(const ast::Expr& e) {
  if (e.kind == ast::ExprKind::Function && is_aggregate_name(e.name)) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const ast::Expr& a) { return has_aggregate(a); });
}

bool same_expr(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.type != b.type || a.boolean != b.boolean || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
    case ExprKind::Column:
      if (a.column != b.column) return false;
      break;
    case ExprKind::Literal:
      if (a.literal != b.literal) return false;
      // String literals are codes: code 0 of two one-value dictionaries are two different strings.
      if (a.dictionary != b.dictionary && (!a.dictionary || !b.dictionary || *a.dictionary != *b.dictionary))
        return false;
      break;
    case ExprKind::Arith:
      if (a.arith != b.arith) return false;
      break;
    case ExprKind::Compare:
      if (a.cmp != b.cmp) return false;
      break;
    case ExprKind::Extract:
      if (a.part != b.part) return false;
      break;
    case ExprKind::Case:
      if (a.has_else != b.has_else) return false;
      break;
    default: break;
  }
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!same_expr(a.args[i], b.args[i])) return false;
  return true;
}

CmpOp cmp_of(ast::Op op) {
  switch (op) {
    case ast::Op::Lt: return CmpOp::Lt;
    case ast::Op::Le: return CmpOp::Le;
    case ast::Op::Gt: return CmpOp::Gt;
    case ast::Op::Ge: return CmpOp::Ge;
    case ast::Op::Eq: return CmpOp::Eq;
    default: return CmpOp::Ne;
  }
}

bool is_comparison(ast::Op op) {
  return op == ast::Op::Lt || op == ast::Op::Le || op == ast::Op::Gt || op == ast::Op::Ge || op == ast::Op::Eq ||
         op == ast::Op::Ne;
}

// The wider of two number types for arithmetic: DOUBLE over FLOAT over BIGINT.
Type arith_type(Type a, Type b) {
  if (a == Type::Float64 || b == Type::Float64) return Type::Float64;
  if (a == Type::Float32 || b == Type::Float32) return Type::Float32;
  return Type::Int64;
}

// The type two values unify to (set operations, CASE branches), or nullopt.
std::optional<Type> unify_types(Type a, Type b) {
  if (a == b) return a;
  if (is_numeric(a) && is_numeric(b)) {
    if (is_integer(a) && is_integer(b)) return Type::Int64;
    if ((a == Type::Float32 && is_integer(b)) || (b == Type::Float32 && is_integer(a))) return Type::Float64;
    return Type::Float64;
  }
  return std::nullopt;
}

Expr cast_to(Expr e, Type type) {
  if (e.type == type) return e;
  if (e.kind == ExprKind::Literal && std::holds_alternative<std::monostate>(e.literal)) {
    e.type = type;
    return e;
  }
  Expr c;
  c.kind = ExprKind::Cast;
  c.type = type;
  c.text = e.text;
  c.args.push_back(std::move(e));
  return c;
}

bool is_null_literal(const Expr& e) {
  return e.kind == ExprKind::Literal && std::holds_alternative<std::monostate>(e.literal);
}

// The string of an uncoded string literal (a literal no dictionary codes yet).
const std::string* uncoded_string(const Expr& e) {
  if (e.kind != ExprKind::Literal || e.type != Type::String || e.dictionary) return nullptr;
  return std::get_if<std::string>(&e.literal);
}

// The value a boolean of the literal kind: TRUE / FALSE constants as Compare-free literals.
Expr bool_literal(bool v) {
  Expr e = literal_expr(int32_t(v ? 1 : 0), Type::Int32, v ? "TRUE" : "FALSE");
  e.boolean = true;
  return e;
}

// A string literal given its own one-value dictionary (used as a value, not compared to a column).
Expr coded_literal(const Expr& lit) {
  const std::string& s = std::get<std::string>(lit.literal);
  Expr e = lit;
  e.dictionary = Dictionary::of({s});
  e.literal = int32_t(0);
  return e;
}

struct AggScope;  // the aggregate output being bound against (post-aggregation expressions)

class Binder {
 public:
  explicit Binder(const Catalog& catalog) : catalog_(catalog) {}

  std::unique_ptr<Node> bind_query(const ast::Query& q);

 private:
  // One FROM table: its Scan and scope.
  struct Source {
    std::unique_ptr<Node> node;
    std::string qualifier;
    sql::Position pos;
  };

  std::unique_ptr<Node> bind_select(const ast::Select& s, const std::vector<ast::OrderItem>& order_by,
                                    std::optional<uint64_t> limit, std::optional<uint64_t> offset);
  std::unique_ptr<Node> bind_from(const ast::Select& s, Scope& scope);
  Source scan(const ast::TableRef& ref, size_t source);

  Expr bind_expr(const ast::Expr& e, const Scope& scope, const char* clause, AggScope* agg = nullptr);
  Expr bind_condition(const ast::Expr& e, const Scope& scope, const char* clause, AggScope* agg = nullptr);
  Expr resolve_column(const ast::Expr& e, const Scope& scope, const char* clause);
  Expr compare(CmpOp op, Expr l, Expr r, const ast::Expr& at, std::string text);
  Expr arith(ast::Op op, Expr l, Expr r, const ast::Expr& at, std::string text);
  Expr bind_case(const ast::Expr& e, const Scope& scope, const char* clause, AggScope* agg);
  AggCall bind_aggregate(const ast::Expr& e, const Scope& scope);

  const Catalog& catalog_;
};

// The aggregate node being built: its group keys and aggregate calls over the input scope.
struct AggScope {
  const Scope* input = nullptr;
  std::vector<Expr> keys;
  std::vector<AggCall> aggs;
  Binder* binder = nullptr;
};

Binder::Source Binder::scan(const ast::TableRef& ref, size_t source) {
  if (!catalog_.contains(ref.name)) {
    std::string have;
    for (const auto& n : catalog_.names()) have += (have.empty() ? "" : ", ") + n;
    sql::fail(ref.pos, "unknown table " + quoted(ref.name) + " (tables: " + (have.empty() ? "none" : have) + ")");
  }
  const Table& t = catalog_.get(ref.name);
  Source s;
  s.node = std::make_unique<Node>();
  s.node->kind = NodeKind::Scan;
  s.node->table_name = ref.name;
  s.node->table = &t;
  s.qualifier = ref.alias.empty() ? ref.name : ref.alias;
  s.pos = ref.pos;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const Column& c = t.columns[i];
    s.node->scan_columns.push_back(i);
    s.node->schema.push_back({c.name, s.qualifier, c.type, c.dictionary});
  }
  (void)source;
  return s;
}

Expr Binder::resolve_column(const ast::Expr& e, const Scope& scope, const char* clause) {
  std::vector<size_t> hits;
  for (size_t i = 0; i < scope.columns.size(); ++i) {
    const auto& c = scope.columns[i];
    if (c.name == e.name && (e.table.empty() || c.qualifier == e.table)) hits.push_back(i);
  }
  const std::string written = e.table.empty() ? e.name : e.table + "." + e.name;
  if (hits.empty()) {
    if (!e.table.empty() && std::find(scope.tables.begin(), scope.tables.end(), e.table) == scope.tables.end())
      sql::fail(e.pos, "unknown table " + quoted(e.table) + " in " + quoted(written) + " in " + clause + " (" +
                           scope_listing(scope) + ")");
    sql::fail(e.pos, "unknown column " + quoted(written) + " in " + clause + " (" + scope_listing(scope) + ")");
  }
  if (hits.size() > 1)
    sql::fail(e.pos, "ambiguous column " + quoted(written) + " in " + clause + ": " + scope.columns[hits[0]].qualifier +
                         " and " + scope.columns[hits[1]].qualifier + " both have it; qualify it");
  const auto& c = scope.columns[hits[0]];
  return column_expr(hits[0], c.type, written, c.dictionary);
}

Expr Binder::compare(CmpOp op, Expr l, Expr r, const ast::Expr& at, std::string text) {
  if (l.boolean || r.boolean) sql::fail(at.pos, "cannot compare a condition in " + quoted(text));
  Expr e;
  e.kind = ExprKind::Compare;
  e.boolean = true;
  e.cmp = op;
  e.text = std::move(text);
  const bool lnull = is_null_literal(l), rnull = is_null_literal(r);
  if (!lnull && !rnull) {
    // DATE against a string literal: the literal is a date.
    for (int side = 0; side < 2; ++side) {
      Expr& a = side ? r : l;
      Expr& b = side ? l : r;
      if (a.type == Type::Date && uncoded_string(b)) {
        const auto d = parse_date(*uncoded_string(b));
        if (!d) sql::fail(at.pos, "'" + *uncoded_string(b) + "' is not a date (YYYY-MM-DD) in " + quoted(e.text));
        b = literal_expr(*d, Type::Date, b.text);
      }
    }
    const bool both_numbers = is_numeric(l.type) && is_numeric(r.type);
    if (!both_numbers && l.type != r.type)
      sql::fail(at.pos, "cannot compare " + std::string(to_string(l.type)) + " with " + to_string(r.type) + " in " +
                            quoted(e.text));
    if (l.type == Type::String) {
      // A literal against a coded string: compare codes, the literal's code from the dictionary.
      const std::string* ls = uncoded_string(l);
      const std::string* rs = uncoded_string(r);
      if (ls && rs) return bool_literal(holds(op, *ls < *rs ? -1 : (*ls == *rs ? 0 : 1)));
      if (ls) {
        // The literal goes right; ls pointed into l's old value, so read the string anew.
        std::swap(l, r);
        rs = uncoded_string(r);
        op = flip(op);
      }
      if (rs) {
        const Dictionary& d = *l.dictionary;
        const auto found = d.find(*rs);
        const int32_t lb = d.lower_bound(*rs);
        // code op' k: = and <> by the code (or -1, which no code equals); < and >= by the lower bound;
        // <= and > by the lower bound past the string when it is present.
        int32_t k = 0;
        switch (op) {
          case CmpOp::Eq:
          case CmpOp::Ne: k = found ? *found : -1; break;
          case CmpOp::Lt:
          case CmpOp::Ge: k = lb; break;
          case CmpOp::Le:
            k = lb + (found ? 1 : 0);
            op = CmpOp::Lt;
            break;
          case CmpOp::Gt:
            k = lb + (found ? 1 : 0);
            op = CmpOp::Ge;
            break;
        }
        Expr code = literal_expr(k, Type::String, r.text);
        code.dictionary = l.dictionary;
        r = std::move(code);
        e.cmp = op;
      }
    }
  }
  e.args.push_back(std::move(l));
  e.args.push_back(std::move(r));
  return e;
}

Expr Binder::arith(ast::Op op, Expr l, Expr r, const ast::Expr& at, std::string text) {
  if (l.boolean)
    l = [&] {
      Expr b;
      b.kind = ExprKind::ToBool;
      b.type = Type::Int32;
      b.text = l.text;
      b.args.push_back(l);
      return b;
    }();
  if (r.boolean)
    r = [&] {
      Expr b;
      b.kind = ExprKind::ToBool;
      b.type = Type::Int32;
      b.text = r.text;
      b.args.push_back(r);
      return b;
    }();
  Expr e;
  e.kind = ExprKind::Arith;
  e.arith = op == ast::Op::Add   ? ArithOp::Add
            : op == ast::Op::Sub ? ArithOp::Sub
            : op == ast::Op::Mul ? ArithOp::Mul
                                 : ArithOp::Div;
  e.text = std::move(text);
  const bool lnull = is_null_literal(l), rnull = is_null_literal(r);
  if (lnull && rnull) {
    e.type = Type::Int64;
  } else if (lnull || rnull) {
    e.type = lnull ? r.type : l.type;
    if (e.type == Type::Int32) e.type = Type::Int64;
  } else if (is_numeric(l.type) && is_numeric(r.type)) {
    e.type = arith_type(l.type, r.type);
  } else if (l.type == Type::Date && is_integer(r.type) && (e.arith == ArithOp::Add || e.arith == ArithOp::Sub)) {
    e.type = Type::Date;
  } else if (is_integer(l.type) && r.type == Type::Date && e.arith == ArithOp::Add) {
    e.type = Type::Date;
    std::swap(l, r);
  } else if (l.type == Type::Date && r.type == Type::Date && e.arith == ArithOp::Sub) {
    e.type = Type::Int64;
  } else {
    sql::fail(at.pos, std::string("cannot apply ") + ast::to_string(op) + " to " + to_string(l.type) + " and " +
                          to_string(r.type) + " in " + quoted(e.text));
  }
  e.args.push_back(std::move(l));
  e.args.push_back(std::move(r));
  return e;
}

Expr Binder::bind_condition(const ast::Expr& e, const Scope& scope, const char* clause, AggScope* agg) {
  Expr c = bind_expr(e, scope, clause, agg);
  if (!c.boolean && !is_null_literal(c))
    sql::fail(e.pos, std::string(clause) + " needs a condition, but " + quoted(c.text) + " is a " + to_string(c.type) +
                         " value");
  if (is_null_literal(c)) c.boolean = true;
  return c;
}

Expr Binder::bind_case(const ast::Expr& e, const Scope& scope, const char* clause, AggScope* agg) {
  const bool has_else = e.args.size() % 2 == 1;
  std::vector<Expr> whens, thens;
  for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
    whens.push_back(bind_condition(e.args[i], scope, clause, agg));
    thens.push_back(bind_expr(e.args[i + 1], scope, clause, agg));
  }
  if (has_else) thens.push_back(bind_expr(e.args.back(), scope, clause, agg));
  // The result type: unified numbers, one DATE, or strings that can share one dictionary.
  std::optional<Type> type;
  for (auto& t : thens) {
    if (t.boolean) sql::fail(e.pos, "a CASE result is a condition in " + quoted(e.text()));
    if (is_null_literal(t)) continue;
    if (!type) {
      type = t.type;
      continue;
    }
    const auto u = unify_types(*type, t.type);
    if (!u) sql::fail(e.pos, "CASE results of types " + std::string(to_string(*type)) + " and " + to_string(t.type));
    type = *u;
  }
  if (!type) type = Type::Int64;
  Expr out;
  out.kind = ExprKind::Case;
  out.type = *type;
  out.has_else = has_else;
  out.text = e.text();
  if (*type == Type::String) {
    std::shared_ptr<const Dictionary> dict;
    std::vector<std::string> literals;
    for (auto& t : thens) {
      if (is_null_literal(t)) continue;
      if (const auto* s = uncoded_string(t)) {
        literals.push_back(*s);
      } else if (!dict) {
        dict = t.dictionary;
      } else if (dict != t.dictionary) {
        sql::fail(e.pos, "CASE results from two string columns with different dictionaries are not supported yet in " +
                             quoted(out.text));
      }
    }
    if (!dict) {
      dict = Dictionary::of(literals);
    } else {
      for (const auto& s : literals)
        if (!dict->find(s))
          sql::fail(e.pos, "CASE result '" + s + "' mixed with a string column that does not hold it in " +
                               quoted(out.text) + " (not supported yet)");
    }
    for (auto& t : thens) {
      if (const auto* s = uncoded_string(t)) {
        Expr c = literal_expr(*dict->find(*s), Type::String, t.text);
        c.dictionary = dict;
        t = std::move(c);
      } else if (is_null_literal(t)) {
        t.type = Type::String;
        t.dictionary = dict;
      }
    }
    out.dictionary = dict;
  } else {
    for (auto& t : thens) t = cast_to(std::move(t), *type);
  }
  for (size_t i = 0; i < whens.size(); ++i) {
    out.args.push_back(std::move(whens[i]));
    out.args.push_back(std::move(thens[i]));
  }
  if (has_else) out.args.push_back(std::move(thens.back()));
  return out;
}

AggCall Binder::bind_aggregate(const ast::Expr& e, const Scope& scope) {
  AggCall a;
  a.text = e.text();
  const std::string& n = e.name;
  a.kind = n == "COUNT"      ? AggKind::Count
           : n == "SUM"      ? AggKind::Sum
           : n == "AVG"      ? AggKind::Avg
           : n == "MIN"      ? AggKind::Min
           : n == "MAX"      ? AggKind::Max
           : n == "MEDIAN"   ? AggKind::Median
           : n == "QUANTILE" ? AggKind::Quantile
                             : AggKind::KthLargest;
  a.distinct = e.distinct;
  if (e.distinct && a.kind != AggKind::Count)
    sql::fail(e.pos, "DISTINCT is supported inside COUNT only, not in " + quoted(a.text));
  if (e.star) {
    if (a.kind != AggKind::Count) sql::fail(e.pos, n + "(*) is not an aggregate; only COUNT(*) is");
    return a;
  }
  const size_t want = a.kind == AggKind::Quantile || a.kind == AggKind::KthLargest ? 2 : 1;
  if (e.args.size() != want)
    sql::fail(e.pos, n + " takes " + std::to_string(want) + " argument" + (want > 1 ? "s" : "") + ", got " +
                         std::to_string(e.args.size()) + " in " + quoted(a.text));
  for (const auto& arg : e.args)
    if (has_aggregate(arg)) sql::fail(arg.pos, "aggregates cannot be nested: " + quoted(a.text));
  Expr arg = bind_expr(e.args[0], scope, "an aggregate's argument");
  if (arg.boolean) {
    Expr b;
    b.kind = ExprKind::ToBool;
    b.type = Type::Int32;
    b.text = arg.text;
    b.args.push_back(std::move(arg));
    arg = std::move(b);
  }
  if (uncoded_string(arg)) arg = coded_literal(arg);
  if ((a.kind == AggKind::Sum || a.kind == AggKind::Avg) && !is_numeric(arg.type) && !is_null_literal(arg))
    sql::fail(e.args[0].pos, n + " needs a number, but " + quoted(arg.text) + " is " + to_string(arg.type));
  if (a.kind == AggKind::Quantile) {
    const ast::Expr& q = e.args[1];
    const double* d = std::get_if<double>(&q.literal);
    const int64_t* i = std::get_if<int64_t>(&q.literal);
    if (q.kind != ast::ExprKind::Literal || (!d && !i))
      sql::fail(q.pos, "QUANTILE's q must be a number literal in (0, 1] in " + quoted(a.text));
    a.q = d ? *d : double(*i);
    if (!(a.q > 0 && a.q <= 1)) sql::fail(q.pos, "QUANTILE's q must be in (0, 1], got " + q.literal_text);
  }
  if (a.kind == AggKind::KthLargest) {
    const ast::Expr& k = e.args[1];
    const int64_t* i = std::get_if<int64_t>(&k.literal);
    if (k.kind != ast::ExprKind::Literal || !i || *i < 1)
      sql::fail(k.pos, "KTH_LARGEST's k must be an integer literal >= 1 in " + quoted(a.text));
    a.k = *i;
  }
  if (a.kind == AggKind::Median) a.q = 0.5;
  a.type = agg_result_type(a.kind, arg.type);
  a.arg = std::move(arg);
  return a;
}

Expr Binder::bind_expr(const ast::Expr& e, const Scope& scope, const char* clause, AggScope* agg) {
  if (agg) {
    // After aggregation: an aggregate is an output column of the Aggregate node; an expression equal
    // to a group key is that key's column; anything else is built from its parts.
    if (e.kind == ast::ExprKind::Function && is_aggregate_name(e.name)) {
      AggCall call = bind_aggregate(e, *agg->input);
      size_t i = 0;
      for (; i < agg->aggs.size(); ++i) {
        const AggCall& o = agg->aggs[i];
        if (o.kind == call.kind && o.distinct == call.distinct && o.q == call.q && o.k == call.k &&
            o.arg.has_value() == call.arg.has_value() && (!o.arg || same_expr(*o.arg, *call.arg)))
          break;
      }
      if (i == agg->aggs.size()) agg->aggs.push_back(call);
      Expr c = column_expr(agg->keys.size() + i, agg->aggs[i].type, call.text,
                           agg->aggs[i].arg ? agg->aggs[i].arg->dictionary : nullptr);
      return c;
    }
    if (!has_aggregate(e) && e.kind != ast::ExprKind::Literal) {
      Expr in = bind_expr(e, *agg->input, clause);
      for (size_t k = 0; k < agg->keys.size(); ++k)
        if (same_expr(in, agg->keys[k])) return column_expr(k, in.type, e.text(), in.dictionary);
      if (e.kind == ast::ExprKind::Column)
        sql::fail(e.pos, "column " + quoted(e.text()) + " in " + clause +
                             " must appear in GROUP BY or be used inside an aggregate");
      if (in.columns().empty()) return in;  // a constant expression
    }
  }
  switch (e.kind) {
    case ast::ExprKind::Column: return resolve_column(e, scope, clause);
    case ast::ExprKind::Literal: {
      const std::string text = e.text();
      return std::visit(
          [&](const auto& v) -> Expr {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::monostate>)
              return literal_expr(v, Type::Int64, "NULL");
            else if constexpr (std::is_same_v<T, int64_t>)
              return literal_expr(v, Type::Int64, text);
            else if constexpr (std::is_same_v<T, double>)
              return literal_expr(v, Type::Float64, text);
            else if constexpr (std::is_same_v<T, std::string>)
              return literal_expr(v, Type::String, text);
            else if constexpr (std::is_same_v<T, Date>)
              return literal_expr(v, Type::Date, text);
            else
              sql::fail(e.pos, "unexpected literal " + quoted(text));
          },
          e.literal);
    }
    case ast::ExprKind::Unary: {
      if (e.op == ast::Op::Not) {
        Expr a = bind_condition(e.args.at(0), scope, clause, agg);
        Expr n;
        n.kind = ExprKind::Not;
        n.boolean = true;
        n.text = e.text();
        n.args.push_back(std::move(a));
        return n;
      }
      Expr a = bind_expr(e.args.at(0), scope, clause, agg);
      if (a.boolean || (!is_numeric(a.type) && !is_null_literal(a)))
        sql::fail(e.pos,
                  "cannot negate " + quoted(a.text) + " (" + (a.boolean ? "a condition" : to_string(a.type)) + ")");
      Expr n;
      n.kind = ExprKind::Neg;
      n.type = a.type == Type::Int32 ? Type::Int64 : a.type;
      n.text = e.text();
      n.args.push_back(std::move(a));
      return n;
    }
    case ast::ExprKind::Binary: {
      if (e.op == ast::Op::And || e.op == ast::Op::Or) {
        Expr n;
        n.kind = e.op == ast::Op::And ? ExprKind::And : ExprKind::Or;
        n.boolean = true;
        n.text = e.text();
        for (const auto& a : e.args) n.args.push_back(bind_condition(a, scope, clause, agg));
        return n;
      }
      Expr l = bind_expr(e.args.at(0), scope, clause, agg);
      Expr r = bind_expr(e.args.at(1), scope, clause, agg);
      if (is_comparison(e.op)) return compare(cmp_of(e.op), std::move(l), std::move(r), e, e.text());
      return arith(e.op, std::move(l), std::move(r), e, e.text());
    }
    case ast::ExprKind::Between: {
      // x BETWEEN lo AND hi  =  x >= lo AND x <= hi;  NOT BETWEEN  =  x < lo OR x > hi.
      const Expr x = bind_expr(e.args.at(0), scope, clause, agg);
      Expr lo = bind_expr(e.args.at(1), scope, clause, agg);
      Expr hi = bind_expr(e.args.at(2), scope, clause, agg);
      Expr n;
      n.kind = e.negated ? ExprKind::Or : ExprKind::And;
      n.boolean = true;
      n.text = e.text();
      n.args.push_back(compare(e.negated ? CmpOp::Lt : CmpOp::Ge, x, std::move(lo), e,
                               x.text + (e.negated ? " < " : " >= ") + e.args[1].text()));
      n.args.push_back(compare(e.negated ? CmpOp::Gt : CmpOp::Le, x, std::move(hi), e,
                               x.text + (e.negated ? " > " : " <= ") + e.args[2].text()));
      return n;
    }
    case ast::ExprKind::In: {
      // x IN (a, b)  =  x = a OR x = b;  NOT IN  =  x <> a AND x <> b.
      const Expr x = bind_expr(e.args.at(0), scope, clause, agg);
      Expr n;
      n.kind = e.negated ? ExprKind::And : ExprKind::Or;
      n.boolean = true;
      n.text = e.text();
      for (size_t i = 1; i < e.args.size(); ++i)
        n.args.push_back(compare(e.negated ? CmpOp::Ne : CmpOp::Eq, x, bind_expr(e.args[i], scope, clause, agg), e,
                                 x.text + (e.negated ? " <> " : " = ") + e.args[i].text()));
      if (n.args.size() == 1) {
        Expr only = std::move(n.args[0]);
        only.text = n.text;
        return only;
      }
      return n;
    }
    case ast::ExprKind::Case: return bind_case(e, scope, clause, agg);
    case ast::ExprKind::Extract: {
      Expr a = bind_expr(e.args.at(0), scope, clause, agg);
      if (a.type != Type::Date || a.boolean)
        sql::fail(e.pos, "EXTRACT needs a date, but " + quoted(a.text) + " is " + to_string(a.type));
      Expr n;
      n.kind = ExprKind::Extract;
      n.type = Type::Int32;
      n.part = e.field == "YEAR" ? DatePart::Year : e.field == "MONTH" ? DatePart::Month : DatePart::Day;
      if (e.field != "YEAR" && e.field != "MONTH" && e.field != "DAY")
        sql::fail(e.pos, "EXTRACT takes YEAR, MONTH or DAY, not " + e.field);
      n.text = e.text();
      n.args.push_back(std::move(a));
      return n;
    }
    case ast::ExprKind::Function:
      if (is_aggregate_name(e.name)) sql::fail(e.pos, "aggregate " + quoted(e.text()) + " is not allowed in " + clause);
      sql::fail(e.pos, "unknown function " + quoted(e.name) +
                           " (functions: COUNT, SUM, AVG, MIN, MAX, MEDIAN, QUANTILE, KTH_LARGEST, EXTRACT)");
  }
  sql::fail(e.pos, "unexpected expression " + quoted(e.text()));
}

// --- FROM and WHERE: scans, pushed-down filters, joins

// The conjuncts of a condition (its AND operands, flattened).
void conjuncts(const ast::Expr& e, std::vector<const ast::Expr*>& out) {
  if (e.kind == ast::ExprKind::Binary && e.op == ast::Op::And) {
    for (const auto& a : e.args) conjuncts(a, out);
    return;
  }
  out.push_back(&e);
}

// The FROM tables a condition reads (by source index), resolving its columns in `scope`.
void sources_read(const Expr& e, const Scope& scope, std::set<size_t>& out) {
  for (size_t c : e.columns()) out.insert(scope.columns[c].source);
}

// A Filter of `predicate` over `child`.
std::unique_ptr<Node> filter(std::unique_ptr<Node> child, Expr predicate) {
  auto f = std::make_unique<Node>();
  f->kind = NodeKind::Filter;
  f->schema = child->schema;
  f->predicate = std::move(predicate);
  f->children.push_back(std::move(child));
  return f;
}

// AND of conditions (one: itself).
Expr conjunction(std::vector<Expr> parts) {
  if (parts.size() == 1) return std::move(parts[0]);
  Expr e;
  e.kind = ExprKind::And;
  e.boolean = true;
  for (auto& p : parts) {
    e.text += (e.text.empty() ? "" : " AND ") + p.text;
    e.args.push_back(std::move(p));
  }
  return e;
}

// `col ± literal` with the column read from `side` (0 left, 1 right of a join over `left_width`
// columns): the column and the offset; double arithmetic must give the same as the expression's
// own, so FLOAT columns take only DOUBLE literals.
std::optional<std::pair<size_t, double>> offset_term(const Expr& e) {
  if (e.kind == ExprKind::Column) return std::make_pair(e.column, 0.0);
  if (e.kind != ExprKind::Arith || (e.arith != ArithOp::Add && e.arith != ArithOp::Sub)) return std::nullopt;
  const Expr& a = e.args[0];
  const Expr& b = e.args[1];
  if (a.kind != ExprKind::Column || b.kind != ExprKind::Literal) return std::nullopt;
  if (a.type != Type::Int32 && a.type != Type::Float32) return std::nullopt;
  double v = 0;
  if (const auto* i = std::get_if<int64_t>(&b.literal))
    v = double(*i);
  else if (const auto* d = std::get_if<double>(&b.literal))
    v = *d;
  else
    return std::nullopt;
  if (!std::isfinite(v) || std::fabs(v) > 0x1p52) return std::nullopt;
  return std::make_pair(a.column, e.arith == ArithOp::Sub ? -v : v);
}

std::unique_ptr<Node> Binder::bind_from(const ast::Select& s, Scope& scope) {
  // The FROM tables in order and every inner-join condition.
  std::vector<Source> sources;
  std::vector<const ast::Expr*> conds;
  sources.push_back(scan(s.from, 0));
  for (const auto& j : s.joins) {
    sources.push_back(scan(j.table, sources.size()));
    if (j.on) conjuncts(*j.on, conds);
  }
  if (s.where) conjuncts(*s.where, conds);
  for (size_t i = 0; i < sources.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (sources[i].qualifier == sources[k].qualifier)
        sql::fail(sources[i].pos,
                  "table name " + quoted(sources[i].qualifier) + " appears twice in FROM; give one of them an alias");

  // The scope of all tables together, to see which tables each condition reads.
  Scope all;
  for (size_t i = 0; i < sources.size(); ++i) {
    for (const auto& c : sources[i].node->schema) all.columns.push_back({c.qualifier, c.name, c.type, c.dictionary, i});
    all.tables.push_back(sources[i].qualifier);
  }
  struct Cond {
    const ast::Expr* ast;
    std::set<size_t> reads;
    bool used = false;
  };
  std::vector<Cond> cs;
  for (const ast::Expr* c : conds) {
    if (has_aggregate(*c)) {
      const char* clause = "WHERE";
      bind_expr(*c, all, clause);  // throws naming the aggregate
    }
    Cond k{c, {}};
    sources_read(bind_condition(*c, all, "WHERE"), all, k.reads);
    cs.push_back(std::move(k));
  }
  // One-table conditions filter their scan.
  for (size_t i = 0; i < sources.size(); ++i) {
    std::vector<Expr> preds;
    const Scope local = [&] {
      Scope l = scope_of(sources[i].node->schema, 0);
      l.tables = {sources[i].qualifier};
      return l;
    }();
    for (auto& c : cs)
      if (!c.used && c.reads.size() == 1 && *c.reads.begin() == i) {
        preds.push_back(bind_condition(*c.ast, local, "WHERE"));
        c.used = true;
      }
    if (!preds.empty()) sources[i].node = filter(std::move(sources[i].node), conjunction(std::move(preds)));
  }

  // Left-deep joins in FROM order; a table no condition connects to the tables so far waits.
  // The base of the left-deep tree: the first FROM table, or with three tables or more the largest
  // (a star schema's fact table, so that every dimension joins it once).
  size_t base = 0;
  if (sources.size() >= 3) {
    auto rows = [&](size_t i) {
      const Node* n = sources[i].node.get();
      while (n->kind != NodeKind::Scan) n = n->children[0].get();
      return n->table ? n->table->rows() : 0;
    };
    for (size_t i = 1; i < sources.size(); ++i)
      if (rows(i) > rows(base)) base = i;
  }
  std::vector<size_t> order = {base};
  std::vector<bool> joined(sources.size(), false);
  joined[base] = true;
  std::unique_ptr<Node> tree = std::move(sources[base].node);
  Scope cur;
  for (const auto& c : tree->schema) cur.columns.push_back({c.qualifier, c.name, c.type, c.dictionary, base});
  cur.tables = all.tables;
  auto connects = [&](size_t t) {
    for (const auto& c : cs)
      if (!c.used && c.reads.count(t) &&
          std::all_of(c.reads.begin(), c.reads.end(), [&](size_t r) { return r == t || joined[r]; }))
        return true;
    return false;
  };
  for (size_t step = 1; step < sources.size(); ++step) {
    // Tables with conditions of their own first (they shrink the join's input), then FROM order.
    size_t next = sources.size();
    for (size_t t = 0; t < sources.size() && next == sources.size(); ++t)
      if (!joined[t] && connects(t) && sources[t].node->kind == NodeKind::Filter) next = t;
    for (size_t t = 0; t < sources.size() && next == sources.size(); ++t)
      if (!joined[t] && connects(t)) next = t;
    for (size_t t = 0; t < sources.size() && next == sources.size(); ++t)
      if (!joined[t]) next = t;
    joined[next] = true;
    auto join = std::make_unique<Node>();
    join->kind = NodeKind::Join;
    const size_t left_width = tree->schema.size();
    join->schema = tree->schema;
    for (const auto& c : sources[next].node->schema) join->schema.push_back(c);
    Scope js = cur;
    for (const auto& c : sources[next].node->schema)
      js.columns.push_back({c.qualifier, c.name, c.type, c.dictionary, next});
    // The conditions now covered: column equalities across the two sides are keys, a band pair is the
    // band, the rest is the residual.
    std::vector<Expr> rest;
    std::vector<std::pair<Expr, Expr>> band_bounds;  // (lower bound expr, upper bound expr) candidates
    std::optional<Band> band;
    for (auto& c : cs) {
      if (c.used || !c.reads.count(next) ||
          !std::all_of(c.reads.begin(), c.reads.end(), [&](size_t r) { return joined[r]; }))
        continue;
      c.used = true;
      Expr b = bind_condition(*c.ast, js, "WHERE");
      if (b.kind == ExprKind::Compare && b.cmp == CmpOp::Eq && b.args[0].is_column() && b.args[1].is_column()) {
        size_t l = b.args[0].column, r = b.args[1].column;
        if (l >= left_width) std::swap(l, r);
        const Type lt = join->schema[l].type, rt = join->schema[r].type;
        const bool same_strings = lt != Type::String || join->schema[l].dictionary == join->schema[r].dictionary;
        if (l < left_width && r >= left_width && same_strings && (lt == rt || (is_numeric(lt) && is_numeric(rt)))) {
          join->equi.emplace_back(l, r - left_width);
          continue;
        }
      }
      if (b.kind == ExprKind::And)  // a BETWEEN, say: its halves may form the band
        for (auto& part : b.args) rest.push_back(std::move(part));
      else
        rest.push_back(std::move(b));
    }
    // A band: right >= left + lo and right <= left + hi on the same column pair, in double arithmetic
    // (docs/SQL.md "Joins").
    {
      for (size_t i = 0; i < rest.size() && !band; ++i)
        for (size_t k = 0; k < rest.size() && !band; ++k) {
          const Expr& a = rest[i];
          const Expr& b = rest[k];
          if (i == k || a.kind != ExprKind::Compare || b.kind != ExprKind::Compare) continue;
          // Normalise each to (right column, op, left term) with the right column on the left.
          auto norm = [&](const Expr& c) -> std::optional<std::tuple<size_t, CmpOp, size_t, double>> {
            for (int side = 0; side < 2; ++side) {
              const Expr& x = c.args[side];
              const Expr& y = c.args[1 - side];
              const CmpOp op = side ? flip(c.cmp) : c.cmp;
              if (!x.is_column() || x.column < left_width) continue;
              const auto t = offset_term(y);
              if (!t || t->first >= left_width) continue;
              if (op != CmpOp::Ge && op != CmpOp::Le) continue;
              const Type xt = join->schema[x.column].type;
              if (xt != Type::Int32 && xt != Type::Float32) continue;
              return std::make_tuple(x.column, op, t->first, t->second);
            }
            return std::nullopt;
          };
          const auto na = norm(a), nb = norm(b);
          if (!na || !nb) continue;
          const auto [ra, opa, la, da] = *na;
          const auto [rb, opb, lb, db] = *nb;
          if (ra != rb || la != lb || opa != CmpOp::Ge || opb != CmpOp::Le || da > db) continue;
          band = Band{la, ra - left_width, da, db};
          rest.erase(rest.begin() + std::max(i, k));
          rest.erase(rest.begin() + std::min(i, k));
        }
    }
    join->band = band;
    if (!rest.empty()) join->residual = conjunction(std::move(rest));
    join->children.push_back(std::move(tree));
    join->children.push_back(std::move(sources[next].node));
    tree = std::move(join);
    cur = std::move(js);
    order.push_back(next);
  }
  // Conditions on no table (WHERE 1 = 0) filter the whole input.
  std::vector<Expr> constant;
  for (auto& c : cs)
    if (!c.used) {
      constant.push_back(bind_condition(*c.ast, cur, "WHERE"));
      c.used = true;
    }
  if (!constant.empty()) tree = filter(std::move(tree), conjunction(std::move(constant)));
  scope = std::move(cur);
  return tree;
}

// --- SELECT blocks

struct OutputItem {
  Expr expr;
  std::string name;
};

std::unique_ptr<Node> project(std::unique_ptr<Node> child, std::vector<OutputItem> items) {
  auto p = std::make_unique<Node>();
  p->kind = NodeKind::Project;
  for (auto& it : items) {
    SchemaColumn c;
    c.name = it.name;
    c.type = it.expr.type;
    c.dictionary = it.expr.dictionary;
    if (it.expr.is_column()) c.qualifier = child->schema[it.expr.column].qualifier;
    p->schema.push_back(std::move(c));
    p->exprs.push_back(std::move(it.expr));
  }
  p->children.push_back(std::move(child));
  return p;
}

// A value for the select list: a condition becomes INT 1 / 0; a string literal gets a dictionary.
Expr as_value(Expr e) {
  if (e.boolean) {
    Expr b;
    b.kind = ExprKind::ToBool;
    b.type = Type::Int32;
    b.text = e.text;
    b.args.push_back(std::move(e));
    return b;
  }
  if (uncoded_string(e)) return coded_literal(e);
  return e;
}

std::unique_ptr<Node> Binder::bind_select(const ast::Select& s, const std::vector<ast::OrderItem>& order_by,
                                          std::optional<uint64_t> limit, std::optional<uint64_t> offset) {
  Scope scope;
  std::unique_ptr<Node> input = bind_from(s, scope);
  const bool multi = !s.joins.empty();

  const bool aggregate = !s.group_by.empty() || s.having ||
                         std::any_of(s.items.begin(), s.items.end(),
                                     [](const ast::SelectItem& i) { return !i.star && has_aggregate(i.expr); });
  AggScope agg;
  agg.input = &scope;
  agg.binder = this;
  std::vector<OutputItem> items;

  // Plain select list items (and `*`), bound over `over` / `mode`.
  auto bind_items = [&](AggScope* mode) {
    for (const auto& it : s.items) {
      if (it.star) {
        if (mode) sql::fail(it.pos, "* cannot be used with GROUP BY or aggregates");
        bool any = false;
        // FROM order, whatever order the tables were joined in.
        std::vector<size_t> columns(scope.columns.size());
        std::iota(columns.begin(), columns.end(), size_t{0});
        std::stable_sort(columns.begin(), columns.end(),
                         [&](size_t a, size_t b) { return scope.columns[a].source < scope.columns[b].source; });
        for (size_t i : columns) {
          const auto& c = scope.columns[i];
          if (!it.star_table.empty() && c.qualifier != it.star_table) continue;
          any = true;
          const std::string name = multi ? c.qualifier + "." + c.name : c.name;
          items.push_back({column_expr(i, c.type, name, c.dictionary), name});
        }
        if (!any) sql::fail(it.pos, "unknown table " + quoted(it.star_table) + " in " + it.star_table + ".*");
        continue;
      }
      Expr e = as_value(bind_expr(it.expr, scope, "SELECT", mode));
      const std::string name = it.alias.empty() ? it.expr.text() : it.alias;
      items.push_back({std::move(e), name});
    }
  };

  // A GROUP BY item: an ordinal or alias of the select list, or an expression over the input.
  if (aggregate) {
    for (const auto& g : s.group_by) {
      if (has_aggregate(g)) sql::fail(g.pos, "aggregate in GROUP BY: " + quoted(g.text()));
      const ast::Expr* target = &g;
      if (g.kind == ast::ExprKind::Literal && std::holds_alternative<int64_t>(g.literal)) {
        const int64_t k = std::get<int64_t>(g.literal);
        if (k < 1 || size_t(k) > s.items.size() || s.items[size_t(k - 1)].star)
          sql::fail(g.pos, "GROUP BY " + std::to_string(k) + " is not a select list position (1 to " +
                               std::to_string(s.items.size()) + ")");
        target = &s.items[size_t(k - 1)].expr;
      } else if (g.kind == ast::ExprKind::Column && g.table.empty()) {
        const bool input_has = std::any_of(scope.columns.begin(), scope.columns.end(),
                                           [&](const ScopeColumn& c) { return c.name == g.name; });
        if (!input_has)
          for (const auto& it : s.items)
            if (!it.star && it.alias == g.name) target = &it.expr;
      }
      if (has_aggregate(*target)) sql::fail(g.pos, "GROUP BY names an aggregate: " + quoted(target->text()));
      Expr key = as_value(bind_expr(*target, scope, "GROUP BY"));
      if (std::none_of(agg.keys.begin(), agg.keys.end(), [&](const Expr& k) { return same_expr(k, key); }))
        agg.keys.push_back(std::move(key));
    }
    bind_items(&agg);
  } else {
    bind_items(nullptr);
  }

  std::optional<Expr> having;
  if (s.having) {
    if (!aggregate) sql::fail(s.having->pos, "HAVING needs GROUP BY or aggregates");
    having = bind_condition(*s.having, scope, "HAVING", &agg);
  }

  // ORDER BY keys: an ordinal, an output name, or an expression (a hidden output column when the
  // select list does not hold it).
  const size_t visible = items.size();
  std::vector<SortKey> keys;
  for (const auto& o : order_by) {
    size_t col = SIZE_MAX;
    const ast::Expr& x = o.expr;
    if (x.kind == ast::ExprKind::Literal && std::holds_alternative<int64_t>(x.literal)) {
      const int64_t k = std::get<int64_t>(x.literal);
      if (k < 1 || size_t(k) > visible)
        sql::fail(x.pos, "ORDER BY " + std::to_string(k) + " is not a select list position (1 to " +
                             std::to_string(visible) + ")");
      col = size_t(k - 1);
    } else if (x.kind == ast::ExprKind::Column && x.table.empty()) {
      for (size_t i = 0; i < visible && col == SIZE_MAX; ++i)
        if (items[i].name == x.name) col = i;
    }
    if (col == SIZE_MAX) {
      if (s.distinct)
        sql::fail(x.pos, "with SELECT DISTINCT, ORDER BY must name a select list column, not " + quoted(x.text()));
      Expr e = as_value(bind_expr(x, scope, "ORDER BY", aggregate ? &agg : nullptr));
      for (size_t i = 0; i < items.size() && col == SIZE_MAX; ++i)
        if (same_expr(items[i].expr, e)) col = i;
      if (col == SIZE_MAX) {
        col = items.size();
        items.push_back({std::move(e), x.text()});
      }
    }
    keys.push_back({col, o.descending});
  }

  std::unique_ptr<Node> node = std::move(input);
  if (aggregate) {
    auto a = std::make_unique<Node>();
    a->kind = NodeKind::Aggregate;
    for (const auto& k : agg.keys) {
      SchemaColumn c{k.text, "", k.type, k.dictionary};
      if (k.is_column()) c.qualifier = scope.columns[k.column].qualifier;
      a->schema.push_back(std::move(c));
    }
    for (const auto& ac : agg.aggs)
      a->schema.push_back({ac.text, "", ac.type, ac.arg && ac.kind != AggKind::Count ? ac.arg->dictionary : nullptr});
    a->group_keys = agg.keys;
    a->aggs = agg.aggs;
    a->children.push_back(std::move(node));
    node = std::move(a);
    if (having) node = filter(std::move(node), std::move(*having));
  }
  const bool hidden = items.size() > visible;
  std::vector<std::string> names;
  for (size_t i = 0; i < visible; ++i) names.push_back(items[i].name);
  node = project(std::move(node), std::move(items));
  if (s.distinct) {
    auto d = std::make_unique<Node>();
    d->kind = NodeKind::Distinct;
    d->schema = node->schema;
    d->children.push_back(std::move(node));
    node = std::move(d);
  }
  if (!keys.empty()) {
    auto so = std::make_unique<Node>();
    so->kind = NodeKind::Sort;
    so->schema = node->schema;
    so->sort_keys = std::move(keys);
    so->children.push_back(std::move(node));
    node = std::move(so);
  }
  if (limit || offset) {
    auto l = std::make_unique<Node>();
    l->kind = NodeKind::Limit;
    l->schema = node->schema;
    l->limit = limit.value_or(UINT64_MAX);
    l->offset = offset.value_or(0);
    l->children.push_back(std::move(node));
    node = std::move(l);
  }
  if (hidden) {
    std::vector<OutputItem> keep;
    for (size_t i = 0; i < visible; ++i) {
      const auto& c = node->schema[i];
      keep.push_back({column_expr(i, c.type, c.name, c.dictionary), names[i]});
    }
    node = project(std::move(node), std::move(keep));
  }
  return node;
}

std::unique_ptr<Node> Binder::bind_query(const ast::Query& q) {
  if (q.select) return bind_select(*q.select, q.order_by, q.limit, q.offset);
  std::unique_ptr<Node> left = bind_query(q.operands.at(0));
  std::unique_ptr<Node> right = bind_query(q.operands.at(1));
  if (left->schema.size() != right->schema.size())
    sql::fail(q.pos, "the operands of a set operation have " + std::to_string(left->schema.size()) + " and " +
                         std::to_string(right->schema.size()) + " columns");
  // Unify column types (wider numbers); strings keep their dictionaries (the operator re-codes).
  std::vector<Type> types;
  for (size_t i = 0; i < left->schema.size(); ++i) {
    const auto u = unify_types(left->schema[i].type, right->schema[i].type);
    if (!u)
      sql::fail(q.pos, "column " + std::to_string(i + 1) + " of a set operation is " + to_string(left->schema[i].type) +
                           " on one side and " + to_string(right->schema[i].type) + " on the other");
    types.push_back(*u);
  }
  auto widen = [&](std::unique_ptr<Node> n) {
    bool need = false;
    for (size_t i = 0; i < types.size(); ++i) need |= n->schema[i].type != types[i];
    if (!need) return n;
    std::vector<OutputItem> items;
    for (size_t i = 0; i < types.size(); ++i) {
      const auto& c = n->schema[i];
      items.push_back({cast_to(column_expr(i, c.type, c.name, c.dictionary), types[i]), c.name});
    }
    return project(std::move(n), std::move(items));
  };
  left = widen(std::move(left));
  right = widen(std::move(right));
  auto op = std::make_unique<Node>();
  op->kind = NodeKind::SetOp;
  op->set_op = q.set_op == ast::SetOpKind::Union       ? SetOpKind::Union
               : q.set_op == ast::SetOpKind::Intersect ? SetOpKind::Intersect
                                                       : SetOpKind::Except;
  op->all = q.all;
  op->schema = left->schema;
  for (size_t i = 0; i < op->schema.size(); ++i) {
    op->schema[i].qualifier.clear();
    if (op->schema[i].type == Type::String && op->schema[i].dictionary != right->schema[i].dictionary) {
      // The result's dictionary: both sides' strings.
      op->schema[i].dictionary =
          Dictionary::union_of({op->schema[i].dictionary.get(), right->schema[i].dictionary.get()});
    }
  }
  op->children.push_back(std::move(left));
  op->children.push_back(std::move(right));
  std::unique_ptr<Node> node = std::move(op);
  // ORDER BY of a set operation: output names or positions.
  if (!q.order_by.empty()) {
    auto so = std::make_unique<Node>();
    so->kind = NodeKind::Sort;
    so->schema = node->schema;
    for (const auto& o : q.order_by) {
      size_t col = SIZE_MAX;
      const ast::Expr& x = o.expr;
      if (x.kind == ast::ExprKind::Literal && std::holds_alternative<int64_t>(x.literal)) {
        const int64_t k = std::get<int64_t>(x.literal);
        if (k >= 1 && size_t(k) <= node->schema.size()) col = size_t(k - 1);
      } else if (x.kind == ast::ExprKind::Column && x.table.empty()) {
        for (size_t i = 0; i < node->schema.size() && col == SIZE_MAX; ++i)
          if (node->schema[i].name == x.name) col = i;
      }
      if (col == SIZE_MAX)
        sql::fail(x.pos, "ORDER BY of a set operation must name a result column or position, not " + quoted(x.text()));
      so->sort_keys.push_back({col, o.descending});
    }
    so->children.push_back(std::move(node));
    node = std::move(so);
  }
  if (q.limit || q.offset) {
    auto l = std::make_unique<Node>();
    l->kind = NodeKind::Limit;
    l->schema = node->schema;
    l->limit = q.limit.value_or(UINT64_MAX);
    l->offset = q.offset.value_or(0);
    l->children.push_back(std::move(node));
    node = std::move(l);
  }
  return node;
}

// --- column pruning: each node computes only what a node above reads

using Map = std::vector<std::optional<size_t>>;

Map prune(Node& n, const std::vector<bool>& needed);

// Marks the columns `e` reads.
void mark(const Expr& e, std::vector<bool>& need) {
  for (size_t c : e.columns()) need.at(c) = true;
}

Map identity(size_t n) {
  Map m(n);
  for (size_t i = 0; i < n; ++i) m[i] = i;
  return m;
}

// A Join whose output holds columns no node above reads (its keys, its inputs' filter columns)
// becomes a Project of the needed columns over the Join, so that the join hands on (a GPU join
// gathers) only those. `m` maps the Join's unpruned columns to its output; returns the map to the
// Project's.
Map project_needed(Node& n, const std::vector<bool>& needed, Map m) {
  std::vector<size_t> keep;
  for (size_t i = 0; i < m.size(); ++i)
    if (m[i] && needed[i]) keep.push_back(*m[i]);
  if (keep.size() == n.schema.size() || keep.empty()) return m;
  auto join = std::make_unique<Node>(std::move(n));
  Node p;
  p.kind = NodeKind::Project;
  std::vector<std::optional<size_t>> to(join->schema.size());
  for (size_t c : keep) {
    const SchemaColumn& col = join->schema[c];
    to[c] = p.schema.size();
    p.schema.push_back(col);
    const std::string text = col.qualifier.empty() ? col.name : col.qualifier + "." + col.name;
    p.exprs.push_back(column_expr(c, col.type, text, col.dictionary));
  }
  p.children.push_back(std::move(join));
  n = std::move(p);
  for (auto& e : m) e = e ? to[*e] : std::nullopt;
  return m;
}

Map prune(Node& n, const std::vector<bool>& needed) {
  switch (n.kind) {
    case NodeKind::Scan: {
      Map m(n.schema.size());
      Schema schema;
      std::vector<size_t> cols;
      for (size_t i = 0; i < n.schema.size(); ++i)
        if (needed[i]) {
          m[i] = schema.size();
          schema.push_back(n.schema[i]);
          cols.push_back(n.scan_columns[i]);
        }
      if (schema.empty() && !n.schema.empty()) {  // keep one column: it carries the row count
        m[0] = 0;
        schema.push_back(n.schema[0]);
        cols.push_back(n.scan_columns[0]);
      }
      n.schema = std::move(schema);
      n.scan_columns = std::move(cols);
      return m;
    }
    case NodeKind::Filter: {
      std::vector<bool> need = needed;
      mark(*n.predicate, need);
      const Map m = prune(*n.children[0], need);
      n.predicate = remap_columns(*n.predicate, m);
      n.schema = n.children[0]->schema;
      return m;
    }
    case NodeKind::Project: {
      std::vector<bool> need(n.children[0]->schema.size(), false);
      for (const auto& e : n.exprs) mark(e, need);
      const Map m = prune(*n.children[0], need);
      for (auto& e : n.exprs) e = remap_columns(e, m);
      // A Project of columns below (one project_needed put over a Join) is folded into this one.
      Node& below = *n.children[0];
      if (below.kind == NodeKind::Project &&
          std::all_of(below.exprs.begin(), below.exprs.end(), [](const Expr& e) { return e.is_column(); })) {
        Map through(below.exprs.size());
        for (size_t i = 0; i < below.exprs.size(); ++i) through[i] = below.exprs[i].column;
        for (auto& e : n.exprs) e = remap_columns(e, through);
        std::unique_ptr<Node> grandchild = std::move(below.children[0]);
        n.children[0] = std::move(grandchild);
      }
      return identity(n.schema.size());
    }
    case NodeKind::Join: {
      const size_t lw = n.children[0]->schema.size();
      const size_t rw = n.children[1]->schema.size();
      std::vector<bool> nl(needed.begin(), needed.begin() + long(lw)), nr(needed.begin() + long(lw), needed.end());
      for (const auto& [l, r] : n.equi) nl[l] = nr[r] = true;
      if (n.band) nl[n.band->left] = nr[n.band->right] = true;
      if (n.residual)
        for (size_t c : n.residual->columns()) (c < lw ? nl[c] : nr[c - lw]) = true;
      const Map ml = prune(*n.children[0], nl);
      const Map mr = prune(*n.children[1], nr);
      const size_t nlw = n.children[0]->schema.size();
      Map m(lw + rw);
      for (size_t i = 0; i < lw; ++i) m[i] = ml[i];
      for (size_t i = 0; i < rw; ++i)
        if (mr[i]) m[lw + i] = nlw + *mr[i];
      for (auto& [l, r] : n.equi) l = *ml[l], r = *mr[r];
      if (n.band) n.band->left = *ml[n.band->left], n.band->right = *mr[n.band->right];
      if (n.residual) n.residual = remap_columns(*n.residual, m);
      n.schema = n.children[0]->schema;
      for (const auto& c : n.children[1]->schema) n.schema.push_back(c);
      return project_needed(n, needed, m);
    }
    case NodeKind::Aggregate: {
      std::vector<bool> need(n.children[0]->schema.size(), false);
      for (const auto& k : n.group_keys) mark(k, need);
      for (const auto& a : n.aggs)
        if (a.arg) mark(*a.arg, need);
      const Map m = prune(*n.children[0], need);
      for (auto& k : n.group_keys) k = remap_columns(k, m);
      for (auto& a : n.aggs)
        if (a.arg) a.arg = remap_columns(*a.arg, m);
      return identity(n.schema.size());
    }
    case NodeKind::Sort: {
      std::vector<bool> need = needed;
      for (const auto& k : n.sort_keys) need[k.column] = true;
      const Map m = prune(*n.children[0], need);
      for (auto& k : n.sort_keys) k.column = *m[k.column];
      n.schema = n.children[0]->schema;
      return m;
    }
    case NodeKind::Limit: {
      const Map m = prune(*n.children[0], needed);
      n.schema = n.children[0]->schema;
      return m;
    }
    case NodeKind::Distinct:
    case NodeKind::SetOp:
      for (auto& c : n.children) prune(*c, std::vector<bool>(c->schema.size(), true));
      return identity(n.schema.size());
  }
  return identity(n.schema.size());
}

}  // namespace

std::unique_ptr<Node> bind(const ast::Query& query, const Catalog& catalog) {
  Binder b(catalog);
  std::unique_ptr<Node> root = b.bind_query(query);
  prune(*root, std::vector<bool>(root->schema.size(), true));
  mark_any_order(*root);
  return root;
}

// --- Query spec → syntax tree

namespace {

ast::Expr column_ast(const ColumnRef& c) {
  ast::Expr e;
  e.kind = ast::ExprKind::Column;
  e.table = c.table;
  e.name = c.name;
  return e;
}

ast::Expr number_ast(double v) {
  ast::Expr e;
  e.kind = ast::ExprKind::Literal;
  e.literal = v;
  e.literal_text = number_text(v);
  return e;
}

ast::Expr binary(ast::Op op, ast::Expr a, ast::Expr b) {
  ast::Expr e;
  e.kind = ast::ExprKind::Binary;
  e.op = op;
  e.args.push_back(std::move(a));
  e.args.push_back(std::move(b));
  return e;
}

ast::Op op_of(CmpOp op) {
  switch (op) {
    case CmpOp::Lt: return ast::Op::Lt;
    case CmpOp::Le: return ast::Op::Le;
    case CmpOp::Gt: return ast::Op::Gt;
    case CmpOp::Ge: return ast::Op::Ge;
    case CmpOp::Eq: return ast::Op::Eq;
    case CmpOp::Ne: return ast::Op::Ne;
  }
  return ast::Op::Eq;
}

ast::Expr nary(ast::Op op, std::vector<ast::Expr> parts) {
  if (parts.size() == 1) return std::move(parts[0]);
  ast::Expr e;
  e.kind = ast::ExprKind::Binary;
  e.op = op;
  e.args = std::move(parts);
  return e;
}

}  // namespace

ast::Query to_ast(const Query& query) {
  ast::Select s;
  for (const auto& item : query.items) {
    ast::SelectItem it;
    if (std::holds_alternative<Star>(item)) {
      it.star = true;
    } else if (const auto* c = std::get_if<ColumnRef>(&item)) {
      it.expr = column_ast(*c);
    } else {
      const auto& a = std::get<Aggregate>(item);
      ast::Expr f;
      f.kind = ast::ExprKind::Function;
      f.name = to_string(a.kind);
      if (!a.column) {
        f.star = true;
      } else {
        f.args.push_back(column_ast(*a.column));
      }
      if (a.kind == AggKind::Quantile) f.args.push_back(number_ast(a.q));
      if (a.kind == AggKind::KthLargest) {
        ast::Expr k;
        k.kind = ast::ExprKind::Literal;
        k.literal = a.k;
        k.literal_text = std::to_string(a.k);
        f.args.push_back(std::move(k));
      }
      it.expr = std::move(f);
    }
    s.items.push_back(std::move(it));
  }
  s.from.name = query.table;
  if (query.join) {
    const JoinSpec& j = *query.join;
    ast::Join join;
    join.kind = ast::JoinKind::Inner;
    join.table.name = j.right;
    const ast::Expr l = column_ast(j.left_key), r = column_ast(j.right_key);
    if (j.equi()) {
      join.on = binary(ast::Op::Eq, l, r);
    } else {
      join.on = nary(ast::Op::And, {binary(ast::Op::Ge, r, binary(ast::Op::Add, l, number_ast(j.lo))),
                                    binary(ast::Op::Le, r, binary(ast::Op::Add, l, number_ast(j.hi)))});
    }
    s.joins.push_back(std::move(join));
  }
  if (!query.where.empty()) {
    std::vector<ast::Expr> clauses;
    for (const auto& clause : query.where.clauses) {
      std::vector<ast::Expr> terms;
      for (const auto& t : clause.terms)
        terms.push_back(binary(op_of(t.op), column_ast(t.lhs),
                               std::holds_alternative<ColumnRef>(t.rhs) ? column_ast(std::get<ColumnRef>(t.rhs))
                                                                        : number_ast(std::get<double>(t.rhs))));
      clauses.push_back(nary(ast::Op::Or, std::move(terms)));
    }
    s.where = nary(ast::Op::And, std::move(clauses));
  }
  if (query.group_by) s.group_by.push_back(column_ast(*query.group_by));
  ast::Query q;
  q.select = std::move(s);
  if (query.order_by) q.order_by.push_back({column_ast(query.order_by->column), query.order_by->descending});
  q.limit = query.limit;
  return q;
}

}  // namespace gfxq::plan
