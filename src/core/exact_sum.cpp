#include "core/exact_sum.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gfxq/error.h"

namespace gfxq {

double exact_sum(std::span<const ExactTerm> terms, int unit_exponent) {
  int max_shift = 0;
  for (const ExactTerm& t : terms) {
    if (t.shift < 0 || t.shift > 2200)
      throw Error(ErrorCode::Internal, "exact_sum: bit position " + std::to_string(t.shift) + " out of range");
    max_shift = std::max(max_shift, t.shift);
  }
  // Two's complement in 32-bit limbs: limb j holds bits 32j .. 32j + 31 (the top limb also the
  // sign). A term adds |count| < 2^126 in 32-bit pieces, each shifted by < 32 bits, so every
  // addition is below 2^63 and the limbs, normalised after each term, never overflow __int128.
  const size_t limbs = size_t(max_shift) / 32 + 7;
  std::vector<__int128> limb(limbs, 0);
  auto normalise = [&] {
    for (size_t j = 0; j + 1 < limbs; ++j) {
      const __int128 carry = limb[j] >> 32;  // floor division: the limb keeps 0 .. 2^32 - 1
      limb[j] -= carry * (__int128(1) << 32);
      limb[j + 1] += carry;
    }
  };
  for (const ExactTerm& t : terms) {
    __int128 c = t.count;
    size_t j = size_t(t.shift) / 32;
    const int r = t.shift % 32;
    for (; c != 0 && c != -1; ++j, c >>= 32) limb[j] += (c & 0xffffffff) << r;
    limb[j] += c * (__int128(1) << r);  // what is left is 0 or -1: the sign extension
    normalise();
  }
  const bool negative = limb[limbs - 1] < 0;
  if (negative) {
    for (auto& l : limb) l = -l;
    normalise();
  }
  // The magnitude's bits: find the highest, keep 53, round to nearest even on the rest.
  auto bit = [&](int i) { return int((limb[size_t(i) / 32] >> (i % 32)) & 1); };
  int top = int(limbs) * 32 - 1;
  while (top >= 0 && !bit(top)) --top;
  if (top < 0) return 0.0;
  const int low = std::max(0, top - 52);
  uint64_t mantissa = 0;
  for (int i = top; i >= low; --i) mantissa = mantissa << 1 | uint64_t(bit(i));
  if (low > 0 && bit(low - 1)) {
    bool sticky = false;
    for (int i = low - 2; i >= 0 && !sticky; --i) sticky = bit(i);
    if (sticky || (mantissa & 1)) ++mantissa;  // 2^53 after a carry is still exact
  }
  const double magnitude = std::ldexp(double(mantissa), low + unit_exponent);
  return negative ? -magnitude : magnitude;
}

std::optional<double> special_sum(bool nan, bool positive_inf, bool negative_inf) {
  if (nan || (positive_inf && negative_inf)) return std::numeric_limits<double>::quiet_NaN();
  if (positive_inf) return std::numeric_limits<double>::infinity();
  if (negative_inf) return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

void ExactFloatSum::add(float v) noexcept {
  const auto bits = std::bit_cast<uint32_t>(v);
  const uint32_t exponent = (bits >> 23) & 0xff;
  const int64_t fraction = bits & 0x7fffff;
  const bool negative = (bits >> 31) != 0;
  if (exponent == 0xff) {
    if (fraction != 0)
      nan_ = true;
    else
      (negative ? negative_inf_ : positive_inf_) = true;
    return;
  }
  // A denormal is fraction * 2^-149, a normal (fraction + 2^23) * 2^(exponent - 150): both are
  // significand * 2^(bin - 149) with bin = max(exponent - 1, 0).
  const int64_t significand = exponent == 0 ? fraction : fraction | (int64_t(1) << 23);
  bins_[exponent == 0 ? 0 : exponent - 1] += negative ? -significand : significand;
}

void ExactFloatSum::merge(const ExactFloatSum& other) noexcept {
  for (size_t i = 0; i < bins_.size(); ++i) bins_[i] += other.bins_[i];
  nan_ |= other.nan_;
  positive_inf_ |= other.positive_inf_;
  negative_inf_ |= other.negative_inf_;
}

double ExactFloatSum::result() const {
  if (const auto special = special_sum(nan_, positive_inf_, negative_inf_)) return *special;
  std::vector<ExactTerm> terms;
  for (size_t i = 0; i < bins_.size(); ++i)
    if (bins_[i] != 0) terms.push_back({bins_[i], int(i)});
  return exact_sum(terms);
}

void ExactDoubleSum::add(double v) noexcept {
  const auto bits = std::bit_cast<uint64_t>(v);
  const uint32_t exponent = uint32_t(bits >> 52) & 0x7ff;
  const int64_t fraction = int64_t(bits & ((uint64_t(1) << 52) - 1));
  const bool negative = (bits >> 63) != 0;
  if (exponent == 0x7ff) {
    if (fraction != 0)
      nan_ = true;
    else
      (negative ? negative_inf_ : positive_inf_) = true;
    return;
  }
  // significand * 2^(bin - 1074), bin = max(exponent - 1, 0); each bin holds at most 2^72 summands of
  // 2^53 before it could pass 2^126, far more than any table has rows.
  const int64_t significand = exponent == 0 ? fraction : fraction | (int64_t(1) << 52);
  const size_t bin = exponent == 0 ? 0 : exponent - 1;
  bins_[bin] += negative ? -significand : significand;
  low_ = std::min(low_, bin);
  high_ = std::max(high_, bin + 1);
}

double ExactDoubleSum::result() const {
  if (const auto special = special_sum(nan_, positive_inf_, negative_inf_)) return *special;
  std::vector<ExactTerm> terms;
  for (size_t i = low_; i < high_; ++i)
    if (bins_[i] != 0) terms.push_back({bins_[i], int(i)});
  return exact_sum(terms, -1074);
}

void ExactDoubleSum::clear() noexcept {
  for (size_t i = low_; i < high_; ++i) bins_[i] = 0;
  low_ = bins_.size();
  high_ = 0;
  nan_ = positive_inf_ = negative_inf_ = false;
}

}  // namespace gfxq
