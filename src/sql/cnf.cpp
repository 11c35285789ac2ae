#include "sql/cnf.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "core/order_key.h"

namespace gfxq::sql {

Expr Expr::leaf(Comparison comparison) {
  Expr e;
  e.comparison = std::move(comparison);
  return e;
}

namespace {

Expr node(Expr::Kind kind, std::vector<Expr> operands) {
  if (operands.size() == 1) return std::move(operands.front());
  Expr e;
  e.kind = kind;
  e.operands = std::move(operands);
  return e;
}

// A count that saturates: `over` says the true value is at least 2^64 (`n` is then unused).
struct Count {
  uint64_t n = 0;
  bool over = false;
};

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

Count add(Count a, Count b) {
  const bool over = a.over || b.over || b.n > kMax - a.n;
  return {over ? 0 : a.n + b.n, over};
}

Count multiply(Count a, Count b) {
  const bool over = a.over || b.over || (a.n != 0 && b.n > kMax / a.n);
  return {over ? 0 : a.n * b.n, over};
}

Count larger(Count a, Count b) {
  if (a.over || b.over) return {0, true};
  return {std::max(a.n, b.n), false};
}

bool exceeds(Count c, size_t limit) {
  return c.over || c.n > limit;
}

std::string text(Count c) {
  return c.over ? "at least 2^64" : std::to_string(c.n);
}

// Clause count, widest clause and comparison count of a CNF, before duplicate removal.
struct Shape {
  Count clauses;
  Count width;
  Count terms;
};

// Whether an And/Or node under `negated` acts as an AND once NOT is pushed down (De Morgan).
bool acts_as_and(const Expr& e, bool negated) {
  return (e.kind == Expr::Kind::And) != negated;
}

Shape shape(const Expr& e, bool negated) {
  if (e.kind == Expr::Kind::Leaf) return {{1}, {1}, {1}};
  if (e.kind == Expr::Kind::Not) return shape(e.operands.front(), !negated);
  const bool conjunction = acts_as_and(e, negated);
  Shape s = shape(e.operands.front(), negated);
  for (size_t i = 1; i < e.operands.size(); ++i) {
    const Shape t = shape(e.operands[i], negated);
    if (conjunction)
      s = {add(s.clauses, t.clauses), larger(s.width, t.width), add(s.terms, t.terms)};
    else  // every clause of s joins every clause of t: each s term appears t.clauses times, and vice versa
      s = {multiply(s.clauses, t.clauses), add(s.width, t.width),
           add(multiply(s.terms, t.clauses), multiply(t.terms, s.clauses))};
  }
  return s;
}

// (a1 AND a2 ...) OR (b1 AND b2 ...)  =  (a1 OR b1) AND (a1 OR b2) AND ... AND (a2 OR b1) AND ...
std::vector<Clause> distribute(const std::vector<Clause>& a, const std::vector<Clause>& b) {
  std::vector<Clause> out;
  out.reserve(a.size() * b.size());
  for (const Clause& x : a) {
    for (const Clause& y : b) {
      Clause c = x;
      c.terms.insert(c.terms.end(), y.terms.begin(), y.terms.end());
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<Clause> expand(const Expr& e, bool negated) {
  if (e.kind == Expr::Kind::Leaf) {
    Comparison c = e.comparison;
    if (negated) c.op = negate(c.op);
    return {Clause{{std::move(c)}}};
  }
  if (e.kind == Expr::Kind::Not) return expand(e.operands.front(), !negated);
  const bool conjunction = acts_as_and(e, negated);
  std::vector<Clause> result = expand(e.operands.front(), negated);
  for (size_t i = 1; i < e.operands.size(); ++i) {
    std::vector<Clause> next = expand(e.operands[i], negated);
    if (conjunction)
      std::move(next.begin(), next.end(), std::back_inserter(result));
    else
      result = distribute(result, next);
  }
  return result;
}

// A strict order on comparisons, to treat clauses as sets.
struct TermLess {
  bool operator()(const Comparison& a, const Comparison& b) const {
    if (std::tie(a.lhs.table, a.lhs.name, a.op) != std::tie(b.lhs.table, b.lhs.name, b.op))
      return std::tie(a.lhs.table, a.lhs.name, a.op) < std::tie(b.lhs.table, b.lhs.name, b.op);
    if (a.rhs.index() != b.rhs.index()) return a.rhs.index() < b.rhs.index();
    if (const auto* x = std::get_if<ColumnRef>(&a.rhs)) {
      const auto& y = std::get<ColumnRef>(b.rhs);
      return std::tie(x->table, x->name) < std::tie(y.table, y.name);
    }
    // The total order (NaN above all, -0.0 = 0.0): with `<` a NaN literal would equal every other
    // literal and a clause would lose a comparison.
    return compare_total(std::get<double>(a.rhs), std::get<double>(b.rhs)) < 0;
  }
};

struct ClauseLess {
  bool operator()(const std::vector<Comparison>& a, const std::vector<Comparison>& b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), TermLess{});
  }
};

// Drops repeated comparisons within each clause, then clauses with the same set of comparisons
// as an earlier one; what remains keeps its order.
void drop_duplicates(std::vector<Clause>& clauses) {
  std::set<std::vector<Comparison>, ClauseLess> seen_clauses;
  std::vector<Clause> kept;
  for (Clause& clause : clauses) {
    std::set<Comparison, TermLess> seen_terms;
    std::vector<Comparison> terms;
    for (Comparison& term : clause.terms)
      if (seen_terms.insert(term).second) terms.push_back(std::move(term));
    if (seen_clauses.emplace(seen_terms.begin(), seen_terms.end()).second) kept.push_back(Clause{std::move(terms)});
  }
  clauses = std::move(kept);
}

}  // namespace

Expr Expr::all_of(std::vector<Expr> operands) {
  return node(Kind::And, std::move(operands));
}

Expr Expr::any_of(std::vector<Expr> operands) {
  return node(Kind::Or, std::move(operands));
}

Expr Expr::negation(Expr operand) {
  Expr e;
  e.kind = Kind::Not;
  e.operands.push_back(std::move(operand));
  return e;
}

Cnf to_cnf(const Expr& condition, const CnfLimits& limits, Position pos) {
  const Shape s = shape(condition, false);
  if (exceeds(s.clauses, limits.max_clauses))
    fail(pos, "condition's CNF would have " + text(s.clauses) + " clauses (limit " +
                  std::to_string(limits.max_clauses) + ")");
  if (exceeds(s.width, limits.max_terms_per_clause))
    fail(pos, "condition's CNF would have a clause of " + text(s.width) + " comparisons (limit " +
                  std::to_string(limits.max_terms_per_clause) + " per clause)");
  if (exceeds(s.terms, limits.max_terms))
    fail(pos, "condition's CNF would have " + text(s.terms) + " comparisons (limit " +
                  std::to_string(limits.max_terms) + " in all)");
  Cnf cnf{expand(condition, false)};
  drop_duplicates(cnf.clauses);
  return cnf;
}

}  // namespace gfxq::sql
