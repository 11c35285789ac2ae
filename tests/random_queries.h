#pragma once
// Seeded random tables and CNF queries for differential tests: every GPU backend's answer is
// compared with the CPU reference engine's, exactly. One generator serves every backend.

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gfxq/gfxq.h"

namespace gfxq::test {

//! Boundary values every INT comparison set draws from.
inline const std::vector<double>& int_boundaries() {
  static const std::vector<double> v = {-2147483648.0, -2147483647.0, 2147483647.0, 2147483646.0, 0.0,
                                        -1.0,          1.0,           16777215.0,   16777216.0,   16777217.0,
                                        -16777216.0,   -16777217.0,   0.5,          -0.5};
  return v;
}

//! Boundary values every FLOAT comparison set draws from (NaN, -0.0, infinities, denormals).
inline const std::vector<double>& float_boundaries() {
  static const std::vector<double> v = {0.0,
                                        -0.0,
                                        std::numeric_limits<double>::quiet_NaN(),
                                        std::numeric_limits<double>::infinity(),
                                        -std::numeric_limits<double>::infinity(),
                                        std::numeric_limits<float>::denorm_min(),
                                        -std::numeric_limits<float>::denorm_min(),
                                        std::numeric_limits<float>::min(),
                                        std::numeric_limits<float>::max(),
                                        -std::numeric_limits<float>::max(),
                                        16777216.0,
                                        1.0,
                                        0.5};
  return v;
}

//! Table "t" of `rows` rows: a (INT, full int32 range), b (INT in [-1000, 1000]), x (FLOAT in
//! [-1e6, 1e6]), y (FLOAT in [0, 1]) with `dist`; about 1 row in 16 of a and y replaced by a
//! boundary value (INT32 min/max, 2^24 +- 1, NaN, -0.0, infinities, denormals).
inline Table random_table(uint64_t rows, Distribution dist, uint64_t seed) {
  Table t = generate_table({{"a", Type::Int32, dist, -2147483648.0, 2147483647.0},
                            {"b", Type::Int32, dist, -1000, 1000},
                            {"x", Type::Float32, dist, -1e6, 1e6},
                            {"y", Type::Float32, dist, 0, 1}},
                           rows, seed);
  if (dist == Distribution::Sorted || dist == Distribution::AllEqual) return t;
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  auto& a = t.columns[0].as<int32_t>();
  auto& y = t.columns[3].as<float>();
  for (uint64_t i = 0; i < rows; ++i) {
    if (rng() % 16 == 0) a[i] = static_cast<int32_t>(int_boundaries()[rng() % int_boundaries().size()]);
    if (rng() % 16 == 0) y[i] = static_cast<float>(float_boundaries()[rng() % float_boundaries().size()]);
  }
  return t;
}

//! A literal for column `col` of `t`: a value from the data, a boundary, or a random number.
inline double random_constant(const Table& t, size_t col, std::mt19937_64& rng) {
  const Column& c = t.columns[col];
  const auto& bounds = c.type == Type::Int32 ? int_boundaries() : float_boundaries();
  const uint64_t pick = rng() % 8;
  if (pick < 4 && t.rows() > 0) {
    const uint64_t row = rng() % t.rows();
    return c.type == Type::Int32 ? c.as<int32_t>()[row] : c.as<float>()[row];
  }
  if (pick < 7) return bounds[rng() % bounds.size()];
  return std::uniform_real_distribution<double>(-2e6, 2e6)(rng);
}

//! A CNF of 1..max_clauses clauses of 1..max_terms comparisons over t's columns; about one
//! comparison in five is column-vs-column.
inline Cnf random_cnf(const Table& t, std::mt19937_64& rng, int max_clauses = 6, int max_terms = 4) {
  Cnf cnf;
  const int clauses = 1 + static_cast<int>(rng() % max_clauses);
  for (int c = 0; c < clauses; ++c) {
    Clause clause;
    const int terms = 1 + static_cast<int>(rng() % max_terms);
    for (int i = 0; i < terms; ++i) {
      const size_t col = rng() % t.columns.size();
      Comparison cmp;
      cmp.lhs = {"", t.columns[col].name};
      cmp.op = static_cast<CmpOp>(rng() % 6);
      if (rng() % 5 == 0)
        cmp.rhs = ColumnRef{"", t.columns[rng() % t.columns.size()].name};
      else
        cmp.rhs = random_constant(t, col, rng);
      clause.terms.push_back(cmp);
    }
    cnf.clauses.push_back(clause);
  }
  return cnf;
}

//! A catalog holding `t` as table "t".
inline Catalog catalog_of(Table t) {
  Catalog c;
  c.add("t", std::move(t));
  return c;
}

//! Empty when `got` equals `want` exactly (names, types, NULLs, value bits), else what differs.
inline std::string table_difference(const Table& want, const Table& got) {
  if (want.columns.size() != got.columns.size())
    return "column count " + std::to_string(got.columns.size()) + " != " + std::to_string(want.columns.size());
  for (size_t c = 0; c < want.columns.size(); ++c) {
    const Column& w = want.columns[c];
    const Column& g = got.columns[c];
    if (w.name != g.name || w.type != g.type)
      return "column " + std::to_string(c) + ": " + g.name + ":" + to_string(g.type) + " != " + w.name + ":" +
             to_string(w.type);
    if (w.size() != g.size())
      return "column " + w.name + ": " + std::to_string(g.size()) + " rows != " + std::to_string(w.size());
    // A malformed column (NULL flags of another length, STRING codes outside its dictionary) is a
    // difference, not a crash of the comparison.
    if (!g.nulls.empty() && g.nulls.size() != g.size())
      return "column " + g.name + ": " + std::to_string(g.nulls.size()) + " NULL flags for " +
             std::to_string(g.size()) + " rows";
    if (g.type == Type::String) {
      if (!g.dictionary) return "column " + g.name + ": STRING without a dictionary";
      const auto& codes = std::get<std::vector<int32_t>>(g.data);
      for (uint64_t r = 0; r < codes.size(); ++r)
        if (!g.is_null(r) && (codes[r] < 0 || size_t(codes[r]) >= g.dictionary->size()))
          return "column " + g.name + " row " + std::to_string(r) + ": code " + std::to_string(codes[r]) +
                 " outside its dictionary of " + std::to_string(g.dictionary->size()) + " strings";
    }
    for (uint64_t r = 0; r < w.size(); ++r) {
      const Value wv = w.value(r), gv = g.value(r);
      const bool same = std::visit(
          [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if (!std::holds_alternative<T>(gv)) return false;
            if constexpr (std::is_same_v<T, std::monostate>)
              return true;
            else if constexpr (std::is_same_v<T, float>)
              return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(std::get<T>(gv));
            else if constexpr (std::is_same_v<T, double>)
              return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(std::get<T>(gv));
            else
              return x == std::get<T>(gv);
          },
          wv);
      if (!same)
        return "column " + w.name + " row " + std::to_string(r) + ": " + format_value(gv) + " != " + format_value(wv);
    }
  }
  return {};
}

}  // namespace gfxq::test
