#pragma once
// Exact translation of `column op literal` into a comparison of 32-bit order keys
// (order_key.h), so a GPU kernel or raster pass never compares doubles. Every backend uses it.
//
// INT column, literal d: integers v satisfy v < d <=> v < ceil(d), v <= d <=> v <= floor(d),
// v = d <=> d integral and v == d; bounds outside int32 make the comparison constant.
// FLOAT column: d is bracketed by the floats f_lo <= d <= f_hi; when d is a float the keys are
// compared as is, otherwise v < d <=> v <= f_lo, v > d <=> v >= f_hi, v = d is never true.
// A NaN literal is the largest value (the total order): it compares against the NaN key.

#include <cstdint>

#include "gfxq/query.h"
#include "gfxq/table.h"

namespace gfxq {

//! `key op constant` over the order keys of a column, or a constant outcome.
struct KeyPredicate {
  enum class Kind { Always, Never, Compare };
  Kind kind = Kind::Compare;  //!< Always/Never: the literal decides for every value
  CmpOp op = CmpOp::Eq;       //!< unsigned comparison of the value's key with `key`
  uint32_t key = 0;           //!< the constant's order key

  //! A truth value that holds for every key.
  static KeyPredicate constant(bool value) noexcept { return {value ? Kind::Always : Kind::Never, CmpOp::Eq, 0}; }
  //! `key op constant`.
  static KeyPredicate compare(CmpOp op, uint32_t key) noexcept { return {Kind::Compare, op, key}; }
  bool operator==(const KeyPredicate&) const = default;
};

//! The key predicate equivalent to `value op literal` for every value of a column of type
//! `column_type` (Int32 or Float32), in gfxq's semantics (docs/SQL.md).
KeyPredicate literal_predicate(Type column_type, CmpOp op, double literal);

//! Applies a key predicate to one key (the CPU side of what kernels and passes do).
bool evaluate(const KeyPredicate& p, uint32_t key) noexcept;

}  // namespace gfxq
