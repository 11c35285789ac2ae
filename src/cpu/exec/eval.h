#pragma once
//! \file eval.h
//! Evaluation of bound expressions (plan/expr.h) over a host relation, a column at a time: values as
//! a Column of the expression's type (NULLs flagged), conditions as three-valued truth vectors.

#include <cstdint>
#include <vector>

#include "cpu/exec/relation.h"
#include "plan/expr.h"

namespace gfxq::cpu {

//! Three-valued truth per row: 1 true, 0 false, -1 unknown (NULL).
using Truth = std::vector<int8_t>;

//! The values of `e` (not boolean) for every row of `in`, as a column of type e.type named
//! `name`. Error(Overflow) when integer arithmetic leaves int64 or a DATE its range, naming the
//! expression and the row; Error(InvalidInput) on division by zero.
Column evaluate(const plan::Expr& e, const HostRelation& in, const std::string& name = {});

//! The truth of condition `e` (boolean) for every row of `in`.
Truth evaluate_condition(const plan::Expr& e, const HostRelation& in);

//! The rows (ascending) where `e` is true; NULL and false rows are dropped.
std::vector<uint64_t> true_rows(const plan::Expr& e, const HostRelation& in);

//! Three-way comparison of two non-NULL cells in gfxq's total order: numbers by their exact values
//! (−0.0 = 0.0; NaN = NaN, above +∞), strings byte-wise, dates by day.
int compare_values(const Value& a, const Value& b);

}  // namespace gfxq::cpu
