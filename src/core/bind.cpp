#include "core/bind.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "gfxq/error.h"

namespace gfxq {

namespace {

// The tables column references resolve against: the FROM table, then the JOIN table if any.
struct Input {
  std::string_view name;
  const Table* table;
  Side side;
  bool codes_as_int = false;  // STRING and DATE columns read as their int32 storage
};
using Scope = std::vector<Input>;

[[noreturn]] void fail(const std::string& message) {
  throw Error(ErrorCode::InvalidQuery, message);
}

std::string number_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// "table t has: a, b"
std::string columns_text(const Input& in) {
  std::vector<std::string> names;
  for (const auto& c : in.table->columns) names.push_back(c.name);
  return "table " + std::string(in.name) + " has: " + join_names(names);
}

// "table r has: a, b; table s has: c"
std::string scope_text(const Scope& scope) {
  std::string s;
  for (const auto& in : scope) s += (s.empty() ? "" : "; ") + columns_text(in);
  return s;
}

// "the query reads table t" / "the query reads tables r, s"
std::string tables_text(const Scope& scope) {
  std::vector<std::string> names;
  for (const auto& in : scope) names.emplace_back(in.name);
  return std::string("the query reads table") + (names.size() > 1 ? "s " : " ") + join_names(names);
}

// Queries read NULL-free Int32/Float32 columns only (the documented input of every backend).
void check_readable(const Input& in, size_t index) {
  const Column& c = in.table->columns[index];
  const std::string where = "column '" + c.name + "' of table " + std::string(in.name);
  const Type t = in.codes_as_int ? storage_type(c.type) : c.type;
  if (t != Type::Int32 && t != Type::Float32)
    throw Error(ErrorCode::InvalidInput,
                where + " is " + to_string(c.type) + "; queries read int and float columns only");
  for (uint8_t is_null : c.nulls)
    if (is_null) throw Error(ErrorCode::InvalidInput, where + " holds NULLs; queries read NULL-free columns only");
}

BoundColumn make_column(const Input& in, size_t index, std::string name) {
  check_readable(in, index);
  return BoundColumn{in.side, index, storage_type(in.table->columns[index].type), std::move(name)};
}

BoundColumn resolve(const Scope& scope, const ColumnRef& ref, std::string_view context) {
  const std::string ctx(context);
  if (!ref.table.empty()) {
    for (const auto& in : scope) {
      if (in.name != ref.table) continue;
      const auto index = in.table->find(ref.name);
      if (!index) fail("unknown column '" + ref.text() + "' in " + ctx + " (" + columns_text(in) + ")");
      return make_column(in, *index, ref.text());
    }
    fail("unknown table qualifier '" + ref.table + "' in " + ctx + " (" + tables_text(scope) + ")");
  }
  std::vector<std::pair<const Input*, size_t>> matches;
  for (const auto& in : scope)
    if (const auto index = in.table->find(ref.name)) matches.emplace_back(&in, *index);
  if (matches.empty()) fail("unknown column '" + ref.name + "' in " + ctx + " (" + scope_text(scope) + ")");
  if (matches.size() > 1)
    fail("column '" + ref.name + "' in " + ctx + " is ambiguous in a join: qualify it as " +
         std::string(scope[0].name) + "." + ref.name + " or " + std::string(scope[1].name) + "." + ref.name);
  return make_column(*matches[0].first, matches[0].second, ref.text());
}

BoundCnf bind_cnf(const Scope& scope, const Cnf& cnf) {
  BoundCnf out;
  for (size_t i = 0; i < cnf.clauses.size(); ++i) {
    const auto& clause = cnf.clauses[i];
    if (clause.terms.empty()) fail("WHERE clause " + std::to_string(i + 1) + " is an empty OR");
    BoundClause bound;
    for (const auto& term : clause.terms) {
      BoundComparison c{resolve(scope, term.lhs, "WHERE"), term.op, 0.0};
      if (const auto* col = std::get_if<ColumnRef>(&term.rhs))
        c.rhs = resolve(scope, *col, "WHERE");
      else
        c.rhs = std::get<double>(term.rhs);
      bound.terms.push_back(std::move(c));
    }
    out.clauses.push_back(std::move(bound));
  }
  return out;
}

const Table& lookup_table(const Catalog& catalog, const std::string& name, std::string_view context) {
  if (!catalog.contains(name)) {
    const auto names = catalog.names();
    fail("unknown table '" + name + "' in " + std::string(context) +
         " (tables: " + (names.empty() ? std::string("none") : join_names(names)) + ")");
  }
  return catalog.get(name);
}

// A join key must name a column of its own side; a qualifier naming the other side is the
// usual mistake (keys swapped), so it gets its own message.
BoundColumn resolve_key(const Scope& scope, const ColumnRef& key, Side side) {
  const Input& own = scope[static_cast<size_t>(side)];
  const Input& other = scope[1 - static_cast<size_t>(side)];
  const char* which = side == Side::Left ? "left" : "right";
  const char* role = side == Side::Left ? "the FROM table" : "the JOIN table";
  if (!key.table.empty() && key.table == other.name && key.table != own.name)
    fail(std::string(which) + " join key '" + key.text() + "' must be a column of " + std::string(own.name) + " (" +
         role + ")");
  return resolve(Scope{own}, key, std::string("JOIN ON (") + which + " key)");
}

BoundJoin bind_join(const Scope& scope, const JoinSpec& spec) {
  for (double offset : {spec.lo, spec.hi})
    if (!std::isfinite(offset)) fail("JOIN ON offsets must be finite, got " + number_text(offset));
  return BoundJoin{resolve_key(scope, spec.left_key, Side::Left), resolve_key(scope, spec.right_key, Side::Right),
                   spec.lo, spec.hi};
}

BoundAggregate bind_aggregate(const Scope& scope, const Aggregate& agg) {
  BoundAggregate out;
  out.kind = agg.kind;
  out.k = agg.k;
  out.name = agg.text();
  if (agg.kind != AggKind::Count && !agg.column) fail(std::string(to_string(agg.kind)) + " needs a column");
  if (agg.kind == AggKind::Quantile && !(agg.q > 0.0 && agg.q <= 1.0))
    fail("QUANTILE needs q in (0, 1], got " + number_text(agg.q));
  if (agg.kind == AggKind::KthLargest && agg.k < 1) fail("KTH_LARGEST needs k >= 1, got " + std::to_string(agg.k));
  out.q = agg.kind == AggKind::Quantile ? agg.q : 0.5;
  if (agg.column) out.column = resolve(scope, *agg.column, out.name);
  out.type = aggregate_type(agg.kind, out.column ? out.column->type : Type::Int32);
  return out;
}

// Items of the select list, `*` expanded. In an aggregate query a plain column must be the
// GROUP BY column (it then reports the group key).
std::vector<BoundItem> bind_items(const Scope& scope, const Query& query, const BoundQuery& bound) {
  std::vector<BoundItem> items;
  for (const auto& item : query.items) {
    if (std::holds_alternative<Star>(item)) {
      if (query.has_aggregates()) fail("* cannot be mixed with aggregates");
      if (bound.group_by) fail("* cannot be used with GROUP BY");
      for (const auto& in : scope)
        for (size_t i = 0; i < in.table->columns.size(); ++i) {
          const std::string& col = in.table->columns[i].name;
          items.push_back(make_column(in, i, scope.size() > 1 ? std::string(in.name) + "." + col : col));
        }
    } else if (const auto* ref = std::get_if<ColumnRef>(&item)) {
      BoundColumn col = resolve(scope, *ref, "select list");
      if (bound.aggregate && !(bound.group_by && same_column(col, *bound.group_by)))
        fail("column '" + ref->text() + "' must appear in GROUP BY or inside an aggregate");
      items.push_back(std::move(col));
    } else {
      items.push_back(bind_aggregate(scope, std::get<Aggregate>(item)));
    }
  }
  return items;
}

BoundOrder bind_order(const Scope& scope, const OrderBy& order, const BoundQuery& bound) {
  if (bound.aggregate && !bound.group_by)
    fail("ORDER BY cannot be used in an aggregate query without GROUP BY: its result is one row");
  BoundOrder out{resolve(scope, order.column, "ORDER BY"), order.descending};
  if (bound.group_by && !same_column(out.column, *bound.group_by))
    fail("ORDER BY '" + order.column.text() + "' must be the GROUP BY column '" + bound.group_by->name +
         "' in a grouped query");
  return out;
}

OutputColumn output_of(const BoundItem& item) {
  if (const auto* c = std::get_if<BoundColumn>(&item)) return {c->name, c->type};
  const auto& a = std::get<BoundAggregate>(item);
  return {a.name, a.type};
}

}  // namespace

BoundQuery bind(const Query& query, const Catalog& catalog, bool codes_as_int) {
  if (query.items.empty()) fail("the select list is empty");
  BoundQuery bound;
  bound.left_name = query.table;
  bound.left = &lookup_table(catalog, query.table, "FROM");
  Scope scope{{query.table, bound.left, Side::Left, codes_as_int}};
  if (query.join) {
    if (query.join->right == query.table)
      fail("table '" + query.table + "' is joined with itself; the SQL subset has no aliases: " +
           "add the table to the catalog under a second name");
    bound.right_name = query.join->right;
    bound.right = &lookup_table(catalog, query.join->right, "JOIN");
    scope.push_back({query.join->right, bound.right, Side::Right});
    bound.join = bind_join(scope, *query.join);
  }
  bound.where = bind_cnf(scope, query.where);
  bound.aggregate = query.has_aggregates() || query.group_by.has_value();
  if (query.group_by) bound.group_by = resolve(scope, *query.group_by, "GROUP BY");
  bound.items = bind_items(scope, query, bound);
  if (query.order_by) bound.order_by = bind_order(scope, *query.order_by, bound);
  bound.limit = query.limit;
  for (const auto& item : bound.items) bound.output.push_back(output_of(item));
  return bound;
}

BoundCnf bind_where(const Cnf& where, const Table& table, std::string_view name) {
  return bind_cnf(Scope{{name, &table, Side::Left}}, where);
}

Type aggregate_type(AggKind kind, Type input) noexcept {
  switch (kind) {
    case AggKind::Count: return Type::Int64;
    case AggKind::Sum: return input == Type::Int32 ? Type::Int64 : Type::Float64;
    case AggKind::Avg: return Type::Float64;
    default: return input;
  }
}

double canonical_double(double v) noexcept {
  if (std::isnan(v)) return std::numeric_limits<double>::quiet_NaN();
  if (v == 0.0) return 0.0;
  return v;
}

int64_t int_sum_result(__int128 sum, std::string_view what) {
  if (sum > std::numeric_limits<int64_t>::max() || sum < std::numeric_limits<int64_t>::min())
    throw Error(ErrorCode::Overflow, std::string(what) + " does not fit in a 64-bit integer");
  return static_cast<int64_t>(sum);
}

double int_average(__int128 sum, uint64_t n) noexcept {
  // The quotient |sum| / n as a 64-bit integer m and a power of two (|sum| / n = m * 2^-shift +
  // remainder), m in [2^63, 2^64): long division, one bit at a time. A nonzero remainder is
  // ORed into m's last bit (round to odd), so the one rounding of m to 53 bits by the conversion
  // to double is the rounding of the exact quotient.
  if (sum == 0) return 0.0;
  const bool negative = sum < 0;
  const unsigned __int128 a = negative ? -static_cast<unsigned __int128>(sum) : static_cast<unsigned __int128>(sum);
  unsigned __int128 q = a / n, r = a % n;
  int shift = 0;
  bool sticky = false;
  while (q >> 64) {  // too many integer bits: drop the lowest into the sticky bit
    sticky |= (q & 1) != 0;
    q >>= 1;
    --shift;
  }
  while (!(q >> 63)) {  // too few: take the next fraction bit of the division
    r <<= 1;
    q <<= 1;
    if (r >= n) {
      r -= n;
      q |= 1;
    }
    ++shift;
  }
  sticky |= r != 0;
  const double value = std::ldexp(static_cast<double>(static_cast<uint64_t>(q) | uint64_t(sticky)), -shift);
  return negative ? -value : value;
}

}  // namespace gfxq
