#pragma once
// Exact sums of float32 values, shared by the backends that sum FLOAT columns exactly (the compute
// path's fixed-point bins, the raster path's occlusion-counted bit planes). A finite float32 is an
// integer multiple of 2^-149 (the smallest denormal); a backend counts the summands' bits or bins
// as integers at bit positions of that fixed point, and exact_sum adds them exactly and rounds the
// total once to the nearest double, ties to even.

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace gfxq {

//! One term of an exact sum: count * 2^shift units (a unit is 2^-149 for float32 sums, 2^-1074 for
//! double sums).
struct ExactTerm {
  __int128 count = 0;  //!< signed multiplier, |count| < 2^126
  int shift = 0;       //!< bit position of the fixed point, 0 <= shift <= 2200
};

//! The sum of `terms` (count * 2^(shift + unit_exponent) each), computed exactly in a wide fixed
//! point and rounded once to the nearest double, ties to even; +0.0 when it is zero, +-inf past the
//! double range.
double exact_sum(std::span<const ExactTerm> terms, int unit_exponent = -149);

//! What IEEE addition of the summands gives when some are not finite: NaN when a NaN was summed or
//! both infinities, else +inf or -inf; nullopt when every summand is finite.
std::optional<double> special_sum(bool nan, bool positive_inf, bool negative_inf);

//! The exact sum of float32 values added one at a time (the CPU reference's SUM and AVG of FLOAT):
//! each finite value's significand is added into the bin of its exponent, so the result is the
//! same whatever the order of the additions.
class ExactFloatSum {
 public:
  //! Adds one value.
  void add(float v) noexcept;
  //! Adds every value another accumulator holds.
  void merge(const ExactFloatSum& other) noexcept;
  //! The exact sum rounded once to the nearest double (special_sum's rule when a summand was NaN
  //! or infinite); +0.0 for no summands.
  double result() const;

 private:
  std::array<__int128, 254> bins_{};  // bin e: signed significands of exponent field e + 1 (0: denormals too)
  bool nan_ = false, positive_inf_ = false, negative_inf_ = false;
};

//! The exact sum of double values (SUM of DOUBLE expressions), as ExactFloatSum does for float32:
//! order-independent, rounded once. clear() resets only the bins used since the last clear, so one
//! accumulator serves many groups cheaply.
class ExactDoubleSum {
 public:
  //! Adds one value.
  void add(double v) noexcept;
  //! The exact sum rounded once to the nearest double; special_sum's rule for NaN and infinities.
  double result() const;
  //! Back to no summands.
  void clear() noexcept;

 private:
  std::array<__int128, 2046> bins_{};  // bin e: signed significands of exponent field e + 1 (0: denormals too)
  size_t low_ = bins_.size(), high_ = 0;  // the bins touched: [low_, high_)
  bool nan_ = false, positive_inf_ = false, negative_inf_ = false;
};

}  // namespace gfxq
