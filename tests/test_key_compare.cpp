// key_compare: `column op literal` as an order-key comparison agrees with the CPU semantics
// (comparison of doubles in the total order) for every value and literal tried.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "core/key_compare.h"
#include "core/order_key.h"
#include "random_queries.h"

namespace {

bool reference(double v, gfxq::CmpOp op, double d) {
  const int c = gfxq::compare_total(v, d);
  switch (op) {
    case gfxq::CmpOp::Lt: return c < 0;
    case gfxq::CmpOp::Le: return c <= 0;
    case gfxq::CmpOp::Gt: return c > 0;
    case gfxq::CmpOp::Ge: return c >= 0;
    case gfxq::CmpOp::Eq: return c == 0;
    case gfxq::CmpOp::Ne: return c != 0;
  }
  return false;
}

std::vector<double> literals(std::mt19937_64& rng) {
  std::vector<double> out = gfxq::test::int_boundaries();
  for (double f : gfxq::test::float_boundaries()) out.push_back(f);
  for (double f : {1e300, -1e300, 2147483647.5, -2147483648.5, 2147483648.0, -2147483649.0, 0.1, -0.1, 1e-320})
    out.push_back(f);
  for (int i = 0; i < 200; ++i) {
    out.push_back(std::uniform_real_distribution<double>(-3e9, 3e9)(rng));
    out.push_back(std::bit_cast<double>(rng()));  // any double, NaNs and denormals included
    out.push_back(double(std::bit_cast<float>(uint32_t(rng()))) + (rng() % 2 ? 1e-12 : 0.0));
  }
  return out;
}

// Every (value, op, literal) combination: the key predicate must agree with the reference.
template <class T, class KeyFn>
void check_all(gfxq::Type type, const std::vector<T>& values, const std::vector<double>& lits, KeyFn key) {
  uint64_t checked = 0, wrong = 0;
  std::string first;
  for (double d : lits)
    for (int op = 0; op < 6; ++op) {
      const auto p = gfxq::literal_predicate(type, gfxq::CmpOp(op), d);
      for (T v : values) {
        ++checked;
        if (gfxq::evaluate(p, key(v)) != reference(double(v), gfxq::CmpOp(op), d) && wrong++ == 0)
          first = "v=" + std::to_string(v) + " op " + gfxq::to_string(gfxq::CmpOp(op)) + " d=" + std::to_string(d);
      }
    }
  CHECK(checked > 100000);
  CHECK_MESSAGE(wrong == 0, first);
}

}  // namespace

TEST_CASE("keys: INT column against double literals, exactly") {
  const uint64_t seed = 20261121;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<int32_t> values = {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), -1, 0, 1,
                                 16777216, 16777217, -16777217};
  for (int i = 0; i < 200; ++i) values.push_back(int32_t(uint32_t(rng())));
  check_all(gfxq::Type::Int32, values, literals(rng), [](int32_t v) { return gfxq::int_key(v); });
}

TEST_CASE("keys: FLOAT column against double literals, in the total order") {
  const uint64_t seed = 4242;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<float> values;
  for (double f : gfxq::test::float_boundaries()) values.push_back(float(f));
  values.push_back(-std::numeric_limits<float>::quiet_NaN());
  values.push_back(std::bit_cast<float>(0x7f800001u));  // a signalling NaN payload
  for (int i = 0; i < 200; ++i) values.push_back(std::bit_cast<float>(uint32_t(rng())));
  check_all(gfxq::Type::Float32, values, literals(rng), [](float v) { return gfxq::float_key(v); });
}
