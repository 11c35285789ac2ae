// Seeded table generators, identical on every machine: the random numbers come from our own
// xoshiro256** (seeded by splitmix64 from the seed and the column index); values are derived from
// them by integer arithmetic and correctly rounded double operations (std::fma where a product
// feeds a sum, so no compiler's contraction can change a result). No std::*_distribution.
//
// Distributions (ColumnSpec::lo, hi):
// - int columns draw from the integers in [ceil(lo), floor(hi)], bounds clamped to int32;
//   float columns draw from [float(lo), float(hi)) (every row float(lo) when the two are equal).
// - Uniform: each value equally likely.
// - Skewed: Zipf with s = 1 over `distinct` values, rank k (0-based) drawn with probability
//   proportional to 1/(k+1) (integer weights floor(2^40/(k+1))). int: distinct = min(hi-lo+1, 1000),
//   rank k is lo+k. float: distinct = 1000, rank k is float(lo + k*(hi-lo)/1000). So lo is the most
//   frequent value, lo+1 (or the next step) half as frequent, and so on.
// - Sorted: Uniform, then sorted ascending.
// - AllEqual: every row is the smallest value of the range (int: ceil(lo); float: float(lo)).
// Spec errors are Error(InvalidQuery): a name that is not [A-Za-z_][A-Za-z0-9_]* or repeats, a type
// other than int and float, NaN bounds, lo > hi, an int range without an integer, float bounds
// outside the float range.

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "core/host_memory.h"
#include "gfxq/error.h"
#include "gfxq/table.h"

namespace gfxq {

namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// xoshiro256** 1.0 (Blackman and Vigna).
class Rng {
 public:
  Rng(uint64_t seed, uint64_t stream) {
    uint64_t sm = seed;
    uint64_t state = splitmix64(sm) ^ (0xD1B54A32D192ED03ull * (stream + 1));
    for (uint64_t& w : s_) w = splitmix64(state);
  }

  uint64_t next() {
    const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n), n >= 1, by rejection of masked draws (exact, no modulo bias).
  uint64_t below(uint64_t n) {
    const int bits = std::bit_width(n - 1);
    if (bits == 0) return 0;
    for (;;) {
      const uint64_t x = next() >> (64 - bits);
      if (x < n) return x;
    }
  }

  // Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }

 private:
  uint64_t s_[4];
};

constexpr uint64_t kMaxDistinct = 1000;

// Cumulative integer Zipf (s = 1) weights of ranks 0..n-1.
std::vector<uint64_t> zipf_cdf(uint64_t n) {
  std::vector<uint64_t> cdf(n);
  uint64_t sum = 0;
  for (uint64_t k = 0; k < n; ++k) cdf[k] = sum += (uint64_t{1} << 40) / (k + 1);
  return cdf;
}

uint64_t zipf_rank(Rng& rng, const std::vector<uint64_t>& cdf) {
  const uint64_t x = rng.below(cdf.back());
  return static_cast<uint64_t>(std::upper_bound(cdf.begin(), cdf.end(), x) - cdf.begin());
}

Error spec_error(const ColumnSpec& spec, const std::string& what) {
  return Error(ErrorCode::InvalidQuery, "generated column '" + excerpt(spec.name) + "': " + what);
}

std::string bounds_text(const ColumnSpec& spec) {
  char buf[64];
  std::string s = "[";
  s.append(buf, std::to_chars(buf, buf + sizeof buf, spec.lo).ptr);
  s += ", ";
  s.append(buf, std::to_chars(buf, buf + sizeof buf, spec.hi).ptr);
  return s + "]";
}

Column generate_ints(const ColumnSpec& spec, uint64_t rows, Rng& rng) {
  constexpr double kMin = std::numeric_limits<int32_t>::min(), kMax = std::numeric_limits<int32_t>::max();
  const double lo_d = std::clamp(std::ceil(spec.lo), kMin, kMax), hi_d = std::clamp(std::floor(spec.hi), kMin, kMax);
  if (lo_d > hi_d) throw spec_error(spec, "no integer in " + bounds_text(spec));
  const auto lo = static_cast<int64_t>(lo_d), hi = static_cast<int64_t>(hi_d);
  const auto range = static_cast<uint64_t>(hi - lo + 1);

  std::vector<int32_t> v(rows);
  switch (spec.dist) {
    case Distribution::Uniform:
    case Distribution::Sorted:
      for (auto& x : v) x = static_cast<int32_t>(lo + static_cast<int64_t>(rng.below(range)));
      if (spec.dist == Distribution::Sorted) std::sort(v.begin(), v.end());
      break;
    case Distribution::Skewed: {
      const auto cdf = zipf_cdf(std::min(range, kMaxDistinct));
      for (auto& x : v) x = static_cast<int32_t>(lo + static_cast<int64_t>(zipf_rank(rng, cdf)));
      break;
    }
    case Distribution::AllEqual: std::fill(v.begin(), v.end(), static_cast<int32_t>(lo)); break;
  }
  return Column::ints(spec.name, std::move(v));
}

Column generate_floats(const ColumnSpec& spec, uint64_t rows, Rng& rng) {
  const auto lo = static_cast<float>(spec.lo), hi = static_cast<float>(spec.hi);
  if (!std::isfinite(lo) || !std::isfinite(hi))
    throw spec_error(spec, "bounds " + bounds_text(spec) + " are outside the float range");
  const double width = static_cast<double>(hi) - static_cast<double>(lo);
  // Keeps rounding from reaching hi: the largest float below hi (>= lo since lo < hi).
  const auto below_hi = [&](double x) {
    const auto f = static_cast<float>(x);
    return f < hi ? f : std::nextafter(hi, lo);
  };

  std::vector<float> v(rows);
  if (lo == hi || spec.dist == Distribution::AllEqual) {
    std::fill(v.begin(), v.end(), lo);
  } else if (spec.dist == Distribution::Skewed) {
    std::vector<float> values(kMaxDistinct);
    for (uint64_t k = 0; k < kMaxDistinct; ++k)
      values[k] = below_hi(lo + static_cast<double>(k) * width / static_cast<double>(kMaxDistinct));
    const auto cdf = zipf_cdf(kMaxDistinct);
    for (auto& x : v) x = values[zipf_rank(rng, cdf)];
  } else {
    for (auto& x : v) x = below_hi(std::fma(rng.unit(), width, static_cast<double>(lo)));
    if (spec.dist == Distribution::Sorted) std::sort(v.begin(), v.end());
  }
  return Column::floats(spec.name, std::move(v));
}

bool is_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  });
}

std::string normalized(std::string_view text) {
  std::string s;
  for (char c : text) s += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : (c == '_' ? '-' : c);
  return s;
}

}  // namespace

Distribution parse_distribution(std::string_view text) {
  const std::string s = normalized(text);
  if (s == "uniform") return Distribution::Uniform;
  if (s == "skewed") return Distribution::Skewed;
  if (s == "sorted") return Distribution::Sorted;
  if (s == "all-equal" || s == "allequal") return Distribution::AllEqual;
  throw Error(ErrorCode::InvalidQuery,
              "unknown distribution '" + excerpt(text) + "' (distributions: uniform, skewed, sorted, all-equal)");
}

const char* to_string(Distribution d) noexcept {
  switch (d) {
    case Distribution::Uniform: return "uniform";
    case Distribution::Skewed: return "skewed";
    case Distribution::Sorted: return "sorted";
    case Distribution::AllEqual: return "all-equal";
  }
  return "?";
}

Table generate_table(const std::vector<ColumnSpec>& columns, uint64_t rows, uint64_t seed) {
  std::set<std::string_view> names;
  for (const ColumnSpec& spec : columns) {
    if (!is_identifier(spec.name))
      throw spec_error(spec, "invalid name (a name is a letter or '_', then letters, digits or '_')");
    if (!names.insert(spec.name).second) throw spec_error(spec, "duplicate column name");
    if (spec.type != Type::Int32 && spec.type != Type::Float32)
      throw spec_error(spec, std::string("type ") + to_string(spec.type) + " cannot be generated (types: int, float)");
    if (std::isnan(spec.lo) || std::isnan(spec.hi))
      throw spec_error(spec, "bounds " + bounds_text(spec) + " contain NaN");
    if (spec.lo > spec.hi) throw spec_error(spec, "lo > hi in bounds " + bounds_text(spec));
  }
  check_host_bytes(rows, 4 * columns.size(), 0,
                   "generating " + std::to_string(rows) + " rows of " + std::to_string(columns.size()) + " columns");
  Table table;
  for (uint64_t i = 0; i < columns.size(); ++i) {
    Rng rng(seed, i);
    const ColumnSpec& spec = columns[i];
    table.columns.push_back(spec.type == Type::Int32 ? generate_ints(spec, rows, rng)
                                                     : generate_floats(spec, rows, rng));
  }
  return table;
}

}  // namespace gfxq
