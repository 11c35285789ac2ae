// CNF normalisation of condition trees (src/sql/cnf.h).

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gfxq/error.h"
#include "sql/cnf.h"

using gfxq::Clause;
using gfxq::CmpOp;
using gfxq::Cnf;
using gfxq::CnfLimits;
using gfxq::Comparison;
using gfxq::sql::Expr;

namespace {

using enum gfxq::CmpOp;

Comparison cmp(const std::string& column, CmpOp op, double value) {
  return {{"", column}, op, value};
}

Expr leaf(const std::string& column, CmpOp op, double value) {
  return Expr::leaf(cmp(column, op, value));
}

Cnf cnf_of(const Expr& e, const CnfLimits& limits = {}) {
  return gfxq::sql::to_cnf(e, limits, {2, 7});
}

// The message of the InvalidQuery error to_cnf throws, or "no error".
std::string cnf_error(const Expr& e, const CnfLimits& limits = {}) {
  try {
    cnf_of(e, limits);
  } catch (const gfxq::Error& err) {
    CHECK(err.code() == gfxq::ErrorCode::InvalidQuery);
    return err.what();
  }
  return "no error";
}

// (a0 = 0 AND b0 = 0) OR (a1 = 1 AND b1 = 1) OR ...: n clauses of 2, 2^n clauses in CNF.
Expr or_of_ands(int n) {
  std::vector<Expr> ors;
  for (int i = 0; i < n; ++i) {
    const std::string s = std::to_string(i);
    ors.push_back(Expr::all_of({leaf("a" + s, Eq, i), leaf("b" + s, Eq, i)}));
  }
  return Expr::any_of(std::move(ors));
}

}  // namespace

TEST_CASE("cnf: a comparison is one clause of one term") {
  const Cnf c = cnf_of(leaf("a", Lt, 3));
  CHECK(c == Cnf{{Clause{{cmp("a", Lt, 3)}}}});
  CHECK(c.text() == "(a < 3)");
}

TEST_CASE("cnf: AND makes clauses, OR makes terms") {
  CHECK(cnf_of(Expr::all_of({leaf("a", Lt, 3), leaf("b", Ge, 2), leaf("c", Eq, 1)})).text() ==
        "(a < 3) AND (b >= 2) AND (c = 1)");
  CHECK(cnf_of(Expr::any_of({leaf("a", Lt, 3), leaf("b", Ge, 2), leaf("c", Eq, 1)})).text() ==
        "(a < 3 OR b >= 2 OR c = 1)");
  // Nested ANDs and ORs flatten.
  CHECK(cnf_of(Expr::all_of({leaf("a", Lt, 3), Expr::all_of({leaf("b", Ge, 2), leaf("c", Eq, 1)})})).text() ==
        "(a < 3) AND (b >= 2) AND (c = 1)");
  CHECK(cnf_of(Expr::any_of({Expr::any_of({leaf("a", Lt, 3), leaf("b", Ge, 2)}), leaf("c", Eq, 1)})).text() ==
        "(a < 3 OR b >= 2 OR c = 1)");
}

TEST_CASE("cnf: a single operand of all_of / any_of is the operand itself") {
  const Expr e = Expr::all_of({leaf("a", Lt, 3)});
  CHECK(e.kind == Expr::Kind::Leaf);
  CHECK(Expr::any_of({leaf("a", Lt, 3)}).kind == Expr::Kind::Leaf);
}

TEST_CASE("cnf: OR distributes over AND in a fixed order") {
  const Expr a = leaf("a", Eq, 1), b = leaf("b", Eq, 2), c = leaf("c", Eq, 3), d = leaf("d", Eq, 4);
  CHECK(cnf_of(Expr::any_of({Expr::all_of({a, b}), Expr::all_of({c, d})})).text() ==
        "(a = 1 OR c = 3) AND (a = 1 OR d = 4) AND (b = 2 OR c = 3) AND (b = 2 OR d = 4)");
  CHECK(cnf_of(Expr::any_of({a, Expr::all_of({b, c})})).text() == "(a = 1 OR b = 2) AND (a = 1 OR c = 3)");
  CHECK(cnf_of(Expr::any_of({Expr::all_of({a, b}), c})).text() == "(a = 1 OR c = 3) AND (b = 2 OR c = 3)");
  // Three-way: 2 * 1 * 2 clauses.
  CHECK(cnf_of(Expr::any_of({Expr::all_of({a, b}), c, Expr::all_of({d, a})})).text() ==
        "(a = 1 OR c = 3 OR d = 4) AND (a = 1 OR c = 3) AND (b = 2 OR c = 3 OR d = 4) AND (b = 2 OR c = 3 OR a = 1)");
}

TEST_CASE("cnf: NOT negates comparisons") {
  CHECK(cnf_of(Expr::negation(leaf("a", Lt, 3))) == Cnf{{Clause{{cmp("a", Ge, 3)}}}});
  CHECK(cnf_of(Expr::negation(leaf("a", Le, 3))).text() == "(a > 3)");
  CHECK(cnf_of(Expr::negation(leaf("a", Gt, 3))).text() == "(a <= 3)");
  CHECK(cnf_of(Expr::negation(leaf("a", Ge, 3))).text() == "(a < 3)");
  CHECK(cnf_of(Expr::negation(leaf("a", Eq, 3))).text() == "(a <> 3)");
  CHECK(cnf_of(Expr::negation(leaf("a", Ne, 3))).text() == "(a = 3)");
  const Comparison a_eq_b{{"r", "a"}, Eq, gfxq::ColumnRef{"s", "b"}};
  CHECK(cnf_of(Expr::negation(Expr::leaf(a_eq_b))).text() == "(r.a <> s.b)");
}

TEST_CASE("cnf: NOT is pushed down by De Morgan") {
  const Expr a = leaf("a", Lt, 1), b = leaf("b", Gt, 2), c = leaf("c", Eq, 3);
  CHECK(cnf_of(Expr::negation(Expr::all_of({a, b}))).text() == "(a >= 1 OR b <= 2)");
  CHECK(cnf_of(Expr::negation(Expr::any_of({a, b}))).text() == "(a >= 1) AND (b <= 2)");
  CHECK(cnf_of(Expr::negation(Expr::negation(a))).text() == "(a < 1)");
  CHECK(cnf_of(Expr::negation(Expr::negation(Expr::negation(a)))).text() == "(a >= 1)");
  // NOT ((a OR b) AND c) = (NOT a AND NOT b) OR NOT c
  CHECK(cnf_of(Expr::negation(Expr::all_of({Expr::any_of({a, b}), c}))).text() ==
        "(a >= 1 OR c <> 3) AND (b <= 2 OR c <> 3)");
  // NOT inside: a AND NOT (b OR NOT c) = a AND NOT b AND c
  CHECK(cnf_of(Expr::all_of({a, Expr::negation(Expr::any_of({b, Expr::negation(c)}))})).text() ==
        "(a < 1) AND (b <= 2) AND (c = 3)");
}

TEST_CASE("cnf: duplicate terms and clauses are dropped, first appearance kept") {
  const Expr a = leaf("a", Eq, 1), b = leaf("b", Eq, 2);
  CHECK(cnf_of(Expr::any_of({a, a, b, a})).text() == "(a = 1 OR b = 2)");
  CHECK(cnf_of(Expr::all_of({a, a})).text() == "(a = 1)");
  CHECK(cnf_of(Expr::all_of({b, a, b})).text() == "(b = 2) AND (a = 1)");
  // Clauses are compared as sets.
  CHECK(cnf_of(Expr::all_of({Expr::any_of({a, b}), Expr::any_of({b, a})})).text() == "(a = 1 OR b = 2)");
  CHECK(cnf_of(Expr::all_of({Expr::any_of({a, b}), Expr::any_of({b, a, b})})).text() == "(a = 1 OR b = 2)");
  // (a AND b) OR (a AND b): (a OR a), (a OR b), (b OR a), (b OR b)
  CHECK(cnf_of(Expr::any_of({Expr::all_of({a, b}), Expr::all_of({a, b})})).text() ==
        "(a = 1) AND (a = 1 OR b = 2) AND (b = 2)");
  // A NOT that yields an existing comparison is a duplicate too.
  CHECK(cnf_of(Expr::all_of({leaf("a", Ge, 1), Expr::negation(leaf("a", Lt, 1))})).text() == "(a >= 1)");
}

TEST_CASE("cnf: comparisons that differ are kept") {
  const Comparison a_eq_b{{"", "a"}, Eq, gfxq::ColumnRef{"", "b"}};
  const Comparison a_eq_tb{{"", "a"}, Eq, gfxq::ColumnRef{"t", "b"}};
  const Cnf c = cnf_of(Expr::all_of({Expr::leaf(a_eq_b), Expr::leaf(a_eq_tb), leaf("a", Eq, 1), leaf("a", Ne, 1),
                                     leaf("a", Eq, 2), Expr::leaf({{"t", "a"}, Eq, 1.0})}));
  CHECK(c.clauses.size() == 6);
  CHECK(c.text() == "(a = b) AND (a = t.b) AND (a = 1) AND (a <> 1) AND (a = 2) AND (t.a = 1)");
}

TEST_CASE("cnf: a NaN literal is a comparison of its own, and -0.0 the same as 0.0") {
  // Ordered by `<`, NaN compared equal to every literal and (y = 3.4e38 OR y = NaN) lost its NaN term.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Cnf c = cnf_of(Expr::any_of({leaf("y", Eq, 3.4028234663852886e38), leaf("y", Eq, nan), leaf("y", Eq, 0.0),
                                     leaf("y", Eq, -0.0), leaf("y", Eq, nan)}));
  REQUIRE(c.clauses.size() == 1);
  CHECK(c.clauses[0].terms.size() == 3);
  CHECK(std::isnan(std::get<double>(c.clauses[0].terms[1].rhs)));
}

TEST_CASE("cnf: sizes at the limits pass") {
  const Expr e = or_of_ands(2);  // 4 clauses of 2
  CHECK(cnf_of(e, {4, 2, 8}).clauses.size() == 4);
  CHECK(cnf_error(e, {3, 2, 8}) == "at 2:7: condition's CNF would have 4 clauses (limit 3)");
  CHECK(cnf_error(e, {4, 1, 8}) == "at 2:7: condition's CNF would have a clause of 2 comparisons (limit 1 per clause)");
  CHECK(cnf_error(e, {4, 2, 7}) == "at 2:7: condition's CNF would have 8 comparisons (limit 7 in all)");
}

TEST_CASE("cnf: the comparison count of a distributed OR is counted before expanding") {
  // (x1 AND x2 AND x3) OR (y1 AND y2) OR z: 3*2*1 = 6 clauses of 3 terms = 18 comparisons.
  const Expr e = Expr::any_of({Expr::all_of({leaf("a", Eq, 1), leaf("a", Eq, 2), leaf("a", Eq, 3)}),
                               Expr::all_of({leaf("b", Eq, 1), leaf("b", Eq, 2)}), leaf("c", Eq, 1)});
  const Cnf c = cnf_of(e, {6, 3, 18});
  size_t terms = 0;
  for (const auto& clause : c.clauses) terms += clause.terms.size();
  CHECK(c.clauses.size() == 6);
  CHECK(terms == 18);
  CHECK(cnf_error(e, {6, 3, 17}) == "at 2:7: condition's CNF would have 18 comparisons (limit 17 in all)");
}

TEST_CASE("cnf: the limit applies to the size before duplicate removal") {
  const Expr a = leaf("a", Eq, 1);
  const Expr e = Expr::any_of({Expr::all_of({a, a}), Expr::all_of({a, a})});  // 4 clauses, all (a = 1)
  CHECK(cnf_of(e).text() == "(a = 1)");
  CHECK(cnf_error(e, {3, 256, 256}) == "at 2:7: condition's CNF would have 4 clauses (limit 3)");
}

TEST_CASE("cnf: an exponential CNF is rejected before expanding") {
  // 2^40 clauses: the check must not expand them (this would not finish otherwise).
  CHECK(cnf_error(or_of_ands(40)) == "at 2:7: condition's CNF would have 1099511627776 clauses (limit 256)");
  CHECK(cnf_error(or_of_ands(63)) == "at 2:7: condition's CNF would have 9223372036854775808 clauses (limit 256)");
  // 2^64 and beyond saturate.
  CHECK(cnf_error(or_of_ands(64)) == "at 2:7: condition's CNF would have at least 2^64 clauses (limit 256)");
  CHECK(cnf_error(or_of_ands(500)) == "at 2:7: condition's CNF would have at least 2^64 clauses (limit 256)");
  CHECK(cnf_error(Expr::all_of({or_of_ands(70), leaf("x", Eq, 1)})) ==
        "at 2:7: condition's CNF would have at least 2^64 clauses (limit 256)");
  // Under NOT the same tree is an AND of ORs: 40 clauses of 2.
  const Cnf negated = cnf_of(Expr::negation(or_of_ands(40)));
  CHECK(negated.clauses.size() == 40);
  CHECK(negated.clauses[0] == Clause{{cmp("a0", Ne, 0), cmp("b0", Ne, 0)}});
}

TEST_CASE("cnf: a clause too wide is rejected") {
  std::vector<Expr> ors;
  for (int i = 0; i < 300; ++i) ors.push_back(leaf("a", Eq, i));
  CHECK(cnf_error(Expr::any_of(ors)) ==
        "at 2:7: condition's CNF would have a clause of 300 comparisons (limit 256 per clause)");
  ors.resize(256);
  CHECK(cnf_of(Expr::any_of(ors)).clauses.at(0).terms.size() == 256);
  // 300 one-comparison clauses: each narrow, too many in all.
  std::vector<Expr> ands;
  for (int i = 0; i < 300; ++i) ands.push_back(leaf("a", Ne, i));
  CHECK(cnf_error(Expr::all_of(ands), {1000, 256, 256}) ==
        "at 2:7: condition's CNF would have 300 comparisons (limit 256 in all)");
}
