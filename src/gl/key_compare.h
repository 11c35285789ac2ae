#pragma once
// Exact translation of comparisons into comparisons of 32-bit order keys (core/order_key.h), the
// one place where the raster path turns SQL.md's semantics into integer key tests:
//   - `column op literal(double)` becomes `key(column) op' K` or a constant TRUE/FALSE
//     (core/key_compare.h, shared with the compute backend), folded here by the column's key range;
//   - INT against FLOAT columns become a lexicographic comparison of (floor-float key, residue).
// Everything here is host code; the GPU only ever sees the integer keys these functions chose.

#include <cstdint>

#include "core/key_compare.h"
#include "gfxq/query.h"
#include "gfxq/table.h"

namespace gfxq::gl {

//! A test of an order key against a constant key, or a truth value (the shared core type).
using KeyTest = KeyPredicate;

//! The inclusive range of keys a column holds.
struct KeyRange {
  uint32_t lo = 0;  //!< smallest key
  uint32_t hi = 0;  //!< largest key
  //! Number of distinct keys the range spans minus one (hi - lo).
  uint32_t span() const noexcept { return hi - lo; }
};


//! The order key of a stored cell given as raw bits (int32 bits for INT, float32 bits for FLOAT):
//! int_key or float_key, exactly as raster_value.frag computes it.
uint32_t cell_key(Type type, uint32_t bits) noexcept;

//! `test` over a column whose keys lie in `range`: Always or Never when every key in the range
//! gives the same answer, else `test` unchanged (so its constant then lies inside the range).
KeyTest fold(const KeyTest& test, const KeyRange& range) noexcept;

//! Always or Never when `lhs op rhs` has one answer for every pair of keys from the two ranges;
//! Compare (with op, key unused) when it depends on the values.
KeyTest fold_pair(CmpOp op, const KeyRange& lhs, const KeyRange& rhs) noexcept;

//! The float key of the largest float32 <= a (the INT side of an INT-vs-FLOAT comparison).
//! Exact and monotone: every int32 with |a| <= 2^24 is a float32, so there it is float_key(a).
uint32_t floor_float_key(int32_t a) noexcept;
//! a minus the largest float32 <= a: 0 for |a| <= 2^24, at most 255 otherwise.
uint32_t floor_residue(int32_t a) noexcept;

}  // namespace gfxq::gl
