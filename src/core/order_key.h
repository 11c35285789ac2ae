#pragma once
// Order-preserving 32-bit keys and the total order gfxq uses for FLOAT values.
// Every backend compares, sorts and selects through these keys, so they agree exactly:
//   -0.0 == +0.0, all NaNs are equal and greater than +inf.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace gfxq {

//! The canonical representative of a float in the total order: +0.0 for -0.0, the quiet NaN
//! 0x7fc00000 for every NaN, otherwise the value itself.
inline float canonical_float(float v) noexcept {
  if (std::isnan(v)) return std::bit_cast<float>(0x7fc00000u);
  if (v == 0.0f) return 0.0f;
  return v;
}

//! Unsigned key whose unsigned order is the total order of floats (see canonical_float).
inline uint32_t float_key(float v) noexcept {
  const uint32_t bits = std::bit_cast<uint32_t>(canonical_float(v));
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

//! Inverse of float_key on canonical values.
inline float float_from_key(uint32_t key) noexcept {
  const uint32_t bits = (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
  return std::bit_cast<float>(bits);
}

//! Unsigned key whose unsigned order is the order of int32 values (sign bit flipped).
inline uint32_t int_key(int32_t v) noexcept { return std::bit_cast<uint32_t>(v) ^ 0x80000000u; }

//! Inverse of int_key.
inline int32_t int_from_key(uint32_t key) noexcept { return std::bit_cast<int32_t>(key ^ 0x80000000u); }

//! Three-way comparison of floats in the total order: -1, 0 or 1.
inline int compare_total(float a, float b) noexcept {
  const uint32_t ka = float_key(a), kb = float_key(b);
  return ka < kb ? -1 : (ka > kb ? 1 : 0);
}

//! Three-way comparison of doubles in the same total order (NaN largest, -0.0 == 0.0).
inline int compare_total(double a, double b) noexcept {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}

}  // namespace gfxq
