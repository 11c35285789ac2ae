#pragma once
// Seeded random tables and queries over the whole SQL subset, for differential testing.
//
// Tables: 1-4 INT/FLOAT columns whose values follow a profile each: uniform, few distinct
// (duplicates), skewed, all-equal, sorted, INT32 extremes, FLOAT specials (-0.0, NaN with payloads
// and sign, +-inf, subnormals, FLT_MIN/MAX), integers stored as FLOAT, and a wide exponent range.
// Queries: projections, aggregates, GROUP BY, joins (equi and band), WHERE trees of comparisons,
// BETWEEN, NOT, AND, OR, ORDER BY and LIMIT, with literals taken from the data, its boundaries and
// neighbours, and odd spellings (".5", "1E3", "+2", "1e-400").
//
// What each construct is drawn from is a weighted table in generator.cpp (kQueryForms,
// kConditionForms, kAggregates, kIntProfiles, kFloatProfiles): a new construct is a new row.

#include <cstdint>
#include <random>
#include <utility>

#include "differential/case.h"

namespace gfxq::differential {

//! Sizes of the generated tables.
struct GeneratorOptions {
  uint64_t max_rows = 200;     //!< usual largest table
  uint64_t large_rows = 5000;  //!< the occasional large table (past several GPU tiles)
  double large_share = 0.03;   //!< share of tables drawn up to large_rows
  double join_share = 0.2;     //!< share of table sets made for joins ("r" and "s")
};

//! Makes tables and queries from a seed; the same seed gives the same output everywhere.
class Generator {
 public:
  //! A generator whose draws all follow from `seed`.
  explicit Generator(uint64_t seed, GeneratorOptions options = {});

  //! A fresh table set from `seed`: "t", or "r" and "s" for a join set.
  Tables tables(uint64_t seed);
  //! A random valid query over `tables` from `seed`.
  QuerySpec query(const Tables& tables, uint64_t seed);
  //! The next seed of this generator's sequence (for tables and queries).
  uint64_t next_seed() { return rng_(); }

 private:
  std::mt19937_64 rng_;
  GeneratorOptions options_;
};

//! The exact 1-based rank ceil(q * n) of QUANTILE(c, q) for q written as the decimal `q_text`
//! ("0.1", "1e-1", "1"); 0 when n is 0. Independent of gfxq's own rank code.
uint64_t decimal_rank(const std::string& q_text, uint64_t n);
//! q written as the decimal `q_text` as a fraction numerator / denominator (a power of ten).
std::pair<int64_t, int64_t> decimal_fraction(const std::string& q_text);

}  // namespace gfxq::differential
