#pragma once
//! \file cnf.h
//! Conditions as the parser builds them, and their normalisation to conjunctive normal form.

#include <vector>

#include "gfxq/query.h"
#include "sql/lexer.h"

namespace gfxq::sql {

//! A condition tree: comparisons combined by AND, OR and NOT.
struct Expr {
  //! What the node is.
  enum class Kind { Leaf, And, Or, Not };

  Kind kind = Kind::Leaf;      //!< what the node is
  Comparison comparison;       //!< the comparison (Leaf only)
  std::vector<Expr> operands;  //!< And, Or: two or more; Not: one

  //! A comparison.
  static Expr leaf(Comparison comparison);
  //! AND of `operands` (not empty); a single operand is returned as is.
  static Expr all_of(std::vector<Expr> operands);
  //! OR of `operands` (not empty); a single operand is returned as is.
  static Expr any_of(std::vector<Expr> operands);
  //! NOT `operand`.
  static Expr negation(Expr operand);
};

//! `condition` in CNF: NOT pushed to the comparisons by De Morgan (a comparison's operator
//! negated with negate()), OR distributed over AND; then duplicate comparisons in a clause and
//! duplicate clauses (the same set of comparisons) are dropped, keeping first appearances in order.
//!
//! Before expanding, the size of the CNF without duplicate removal is computed (an OR of two
//! CNFs multiplies their clause counts and adds their clause widths; an AND adds the counts; the
//! comparison count of an OR is terms(a) * clauses(b) + terms(b) * clauses(a));
//! past `limits` this throws Error(InvalidQuery) "at <pos>: condition's CNF would have ...".
//! So the check is fast for any condition and the expansion is bounded by `limits`.
Cnf to_cnf(const Expr& condition, const CnfLimits& limits, Position pos);

}  // namespace gfxq::sql
