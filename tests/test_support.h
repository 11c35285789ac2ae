#pragma once
// Helpers shared by the test files: error expectations, special values, query-spec shorthands.

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "gfxq/error.h"
#include "gfxq/query.h"
#include "gfxq/table.h"

namespace gfxq::test {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kNegNaN = std::bit_cast<float>(0xffc00001u);  //!< a negative NaN with a payload

//! Runs f, which must throw a gfxq::Error of `code` whose message contains every one of `parts`.
template <class F>
void expect_error(F&& f, ErrorCode code, std::initializer_list<std::string_view> parts) {
  try {
    f();
    FAIL("expected gfxq::Error " << to_string(code));
  } catch (const Error& e) {
    INFO("message: " << e.what());
    CHECK(e.code() == code);
    for (std::string_view p : parts) {
      INFO("expected in the message: " << p);
      CHECK(std::string_view(e.what()).find(p) != std::string_view::npos);
    }
  }
}

//! An unqualified column reference.
inline ColumnRef col(std::string name) {
  return ColumnRef{"", std::move(name)};
}

//! An aggregate spec: kind over column `c` (none for COUNT(*)), with QUANTILE's q and KTH's k.
inline Aggregate agg(AggKind kind, std::optional<std::string> c = std::nullopt, double q = 0.5, int64_t k = 1) {
  Aggregate a;
  a.kind = kind;
  if (c) a.column = col(*c);
  a.q = q;
  a.k = k;
  return a;
}

//! A catalog of two tables named "r" and "s", as the join tests use them.
inline Catalog join_catalog(Table r, Table s) {
  Catalog c;
  c.add("r", std::move(r));
  c.add("s", std::move(s));
  return c;
}

//! Bit-exact copies of every column of `c`, to check that a failed query left its inputs alone.
inline std::vector<std::vector<uint8_t>> snapshot(const Catalog& c) {
  std::vector<std::vector<uint8_t>> out;
  for (const std::string& name : c.names())
    for (const Column& col : c.get(name).columns)
      std::visit(
          [&](const auto& v) {
            std::vector<uint8_t> bytes(v.size() * sizeof(v[0]));
            if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
            out.push_back(std::move(bytes));
          },
          col.data);
  return out;
}

// The correctly rounded (nearest, ties to even) sum of finite doubles whose exact sum is finite:
// Shewchuk's non-overlapping partials and the final rounding of Python's math.fsum.
inline double fsum(const std::vector<double>& values) {
  std::vector<double> partials;
  for (double x : values) {
    size_t i = 0;
    for (double y : partials) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      const double hi = x + y;
      const double lo = y - (hi - x);
      if (lo != 0.0) partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    partials.push_back(x);
  }
  size_t n = partials.size();
  double hi = 0.0;
  if (n == 0) return hi;
  hi = partials[--n];
  double lo = 0.0;
  while (n > 0) {
    const double x = hi;
    const double y = partials[--n];
    hi = x + y;
    lo = y - (hi - x);
    if (lo != 0.0) break;
  }
  // Half-way case: round towards the side the remaining partials are on.
  if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
    const double y = lo * 2;
    const double x = hi + y;
    if (y == x - hi) hi = x;
  }
  return hi;
}

}  // namespace gfxq::test

//! CHECK that `expr` throws gfxq::Error of `code` with every given substring in its message.
#define CHECK_ERROR(expr, code, ...)                                        \
  do {                                                                      \
    INFO("expression: " #expr);                                             \
    ::gfxq::test::expect_error([&] { (void)(expr); }, code, {__VA_ARGS__}); \
  } while (0)
