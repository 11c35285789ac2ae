// Exact FLOAT sums: core/exact_sum.h against an independent exact summation (Shewchuk's, as
// Python's math.fsum), and the raster path's SUM/AVG of FLOAT (fixed-point bit planes counted by
// occlusion queries, src/gl/aggregate.h) bit for bit against the correctly rounded exact sum and the
// CPU engine's (which sums exactly too, core/exact_sum.h's ExactFloatSum).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/exact_sum.h"
#include "gfxq/cpu.h"
#include "gfxq/sql.h"
#include "gl/select.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "raster_support.h"
#include "test_support.h"

using namespace gfxq;
using gfxq::test::catalog_of;
using gfxq::test::fsum;
using gfxq::test::gl_context;
using gfxq::test::kInf;
using gfxq::test::kNaN;

namespace {

uint64_t bits_of(double v) {
  return std::bit_cast<uint64_t>(v);
}

// A random float32 drawn by `kind`: 0 any finite bit pattern (every exponent, denormals), 1
// denormals and the smallest normals, 2 the largest exponents, 3 cancelling magnitudes, 4 a mix
// with zeros and small integers.
float random_float(std::mt19937_64& rng, int kind) {
  const uint32_t sign = uint32_t(rng() & 1) << 31;
  const uint32_t fraction = uint32_t(rng()) & 0x7fffff;
  switch (kind) {
    case 0: return std::bit_cast<float>(sign | uint32_t(rng() % 255) << 23 | fraction);
    case 1: return std::bit_cast<float>(sign | uint32_t(rng() % 3) << 23 | fraction);
    case 2: return std::bit_cast<float>(sign | uint32_t(251 + rng() % 4) << 23 | fraction);
    case 3: {
      const float big[] = {1e30f, 3.4e38f, 1.0f, 1e-30f, 1.5e-45f};
      return (sign ? -1.0f : 1.0f) * big[rng() % 5];
    }
    default: {
      const float some[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.1f, 16777216.0f, 16777217.0f, 2.5f};
      return rng() % 2 ? some[rng() % 8] : float(int32_t(rng() % 2001) - 1000);
    }
  }
}

// A table of FLOAT column x (values of `kind`, a few non-finite when `specials`) and INT column a.
Table float_table(uint64_t rows, int kind, bool specials, std::mt19937_64& rng) {
  std::vector<float> x(rows);
  std::vector<int32_t> a(rows);
  for (uint64_t i = 0; i < rows; ++i) {
    x[i] = random_float(rng, kind);
    if (specials && rng() % 8 == 0) {
      const float s[] = {kNaN, -kNaN, kInf, -kInf};
      x[i] = s[rng() % 4];
    }
    a[i] = int32_t(rng() % 200) - 100;
  }
  Table t;
  t.columns.push_back(Column::floats("x", std::move(x)));
  t.columns.push_back(Column::ints("a", std::move(a)));
  return t;
}

// Checks the raster answer of SELECT SUM(x), AVG(x), COUNT(*) FROM t [WHERE where]: bit for bit
// the correctly rounded exact sum (and that / n), within n * 2^-53 * sum|x| of the CPU's sum
// (AVG: that / n + 2^-51 |avg|), NaN and infinities as the CPU's; the report counts its passes.
void check_float_sum(const Catalog& catalog, const Cnf& where, const gl::RasterOptions& options) {
  Query q;
  q.table = "t";
  q.items = {Aggregate{AggKind::Sum, ColumnRef{"", "x"}}, Aggregate{AggKind::Avg, ColumnRef{"", "x"}},
             Aggregate{AggKind::Count, std::nullopt}};
  q.where = where;
  INFO(q.text());
  const Table& t = catalog.get("t");
  const Result want = cpu::execute(q, catalog);
  const Result got = gl::execute(gl_context(), q, catalog, options);
  CHECK(got.report.backend == Backend::Raster);
  REQUIRE(got.table.columns.size() == 3);
  REQUIRE(got.table.rows() == 1);
  const auto rows = cpu::select_rows(t, "t", where);
  const uint64_t n = rows.size();
  CHECK(got.table.columns[2].as<int64_t>()[0] == int64_t(n));
  // The passes the algorithm announces ran (none for an empty selection).
  size_t passes = 0;
  for (const auto& p : got.report.passes)
    if (p.kind == "float bit-plane count" || p.kind == "special-value count") ++passes;
  const std::string& algo = got.report.algorithm;
  const size_t at = algo.find("SUM(x): exact fixed-point bit planes (");
  REQUIRE(at != std::string::npos);
  const size_t announced = std::stoul(algo.substr(at + std::string("SUM(x): exact fixed-point bit planes (").size()));
  CHECK(passes == (n == 0 ? 0 : announced));
  if (n == 0) {
    CHECK(got.table.columns[0].is_null(0));
    CHECK(got.table.columns[1].is_null(0));
    return;
  }
  const double sum = got.table.columns[0].as<double>()[0], avg = got.table.columns[1].as<double>()[0];
  const double cpu_sum = want.table.columns[0].as<double>()[0], cpu_avg = want.table.columns[1].as<double>()[0];
  CHECK_MESSAGE(bits_of(sum) == bits_of(cpu_sum), sum << " vs CPU " << cpu_sum);
  CHECK_MESSAGE(bits_of(avg) == bits_of(cpu_avg), avg << " vs CPU " << cpu_avg);
  const auto& x = t.column("x").as<float>();
  std::vector<double> values;
  bool finite = true;
  for (uint64_t r : rows) {
    finite = finite && std::isfinite(x[r]);
    values.push_back(x[r]);
  }
  if (!finite) return;
  const double exact = fsum(values);
  CHECK_MESSAGE(bits_of(sum) == bits_of(exact + 0.0), sum << " vs exact " << exact);
  CHECK_MESSAGE(bits_of(avg) == bits_of(exact / double(n) + 0.0), avg << " vs exact / n " << exact / double(n));
}

}  // namespace

TEST_CASE("exact_sum: random terms are the correctly rounded exact sum") {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::vector<ExactTerm> terms;
    std::vector<double> values;
    const int count = int(rng() % 40);
    const int spread = seed % 3 == 0 ? 8 : 300;  // narrow spreads make ties and cancellation likely
    for (int i = 0; i < count; ++i) {
      // count = a * 2^k with |a| < 2^53, so each term is an exact double.
      const int64_t a = int64_t(rng() % (uint64_t(1) << (rng() % 54))) * (rng() % 2 ? 1 : -1);
      const int k = int(rng() % 70);
      const int shift = int(rng() % spread);
      terms.push_back({__int128(a) << k, shift});
      values.push_back(std::ldexp(double(a), k + shift - 149));
      if (rng() % 4 == 0) {  // its negation elsewhere in the list: exact cancellation
        terms.push_back({-(__int128(a) << k), shift});
        values.push_back(-values.back());
      }
    }
    const double want = fsum(values) + 0.0;
    CHECK(bits_of(exact_sum(terms)) == bits_of(want));
  }
  // Ties to even at 2^53 + 1 and 2^53 + 3 (units of 2^-149), and sticky bits below the tie.
  const __int128 p53 = __int128(1) << 53;
  for (const std::vector<ExactTerm>& terms :
       {std::vector<ExactTerm>{{p53, 149}, {1, 149}}, std::vector<ExactTerm>{{p53, 149}, {3, 149}},
        std::vector<ExactTerm>{{p53, 149}, {1, 149}, {1, 0}}, std::vector<ExactTerm>{{-p53, 149}, {-1, 149}},
        std::vector<ExactTerm>{{p53 - 1, 149}, {1, 148}}, std::vector<ExactTerm>{}}) {
    std::vector<double> values;
    for (const auto& t : terms) values.push_back(std::ldexp(double(t.count), t.shift - 149));
    CHECK(bits_of(exact_sum(terms)) == bits_of(fsum(values) + 0.0));
  }
  CHECK(bits_of(exact_sum(std::vector<ExactTerm>{{5, 3}, {-5, 3}})) == bits_of(0.0));
  CHECK(std::isnan(*special_sum(true, false, false)));
  CHECK(std::isnan(*special_sum(false, true, true)));
  CHECK(*special_sum(false, true, false) == std::numeric_limits<double>::infinity());
  CHECK(*special_sum(false, false, true) == -std::numeric_limits<double>::infinity());
  CHECK(!special_sum(false, false, false));
}

TEST_CASE("raster: FLOAT SUM and AVG equal the correctly rounded exact sum, random columns") {
  const uint64_t sizes[] = {1, 2, test::kSmallTile - 1, test::kSmallTile + 1, 3 * test::kSmallTile + 4};
  uint64_t seed = 9000;
  for (uint64_t rows : sizes)
    for (int kind = 0; kind < 5; ++kind) {
      ++seed;
      std::mt19937_64 rng(seed);
      const Catalog catalog = catalog_of(float_table(rows, kind, seed % 3 == 0, rng));
      INFO("seed " << seed << ", " << rows << " rows, kind " << kind);
      check_float_sum(catalog, {}, test::kSmallTiles);
      check_float_sum(catalog, test::random_cnf(catalog.get("t"), rng, 2, 2), test::kSmallTiles);
    }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: FLOAT SUM is exact for cancellation, denormals, -0.0 and non-finite values") {
  const float dmin = std::numeric_limits<float>::denorm_min(), fmax = std::numeric_limits<float>::max();
  const std::vector<std::vector<float>> cases = {{1e30f, 1.0f, -1e30f},
                                                 {fmax, fmax, -fmax, 1.0f},
                                                 {fmax, fmax, fmax},
                                                 {dmin, dmin, -dmin, dmin, std::numeric_limits<float>::min()},
                                                 {-0.0f},
                                                 {-0.0f, -0.0f, 0.0f},
                                                 {16777216.0f, 1.0f, 1.0f, -16777216.0f},
                                                 {0.1f, 0.2f, 0.3f, -0.6f},
                                                 {kNaN},
                                                 {1.0f, kInf},
                                                 {-kInf, 2.0f, -kInf},
                                                 {kInf, -kInf},
                                                 {kNaN, kInf, 1.0f},
                                                 {-kNaN, -kInf},
                                                 std::vector<float>(test::kSmallTile + 1, 0.1f),
                                                 std::vector<float>(2 * test::kSmallTile, -dmin)};
  for (const auto& values : cases) {
    Table t;
    t.columns.push_back(Column::floats("x", values));
    std::vector<int32_t> a(values.size());
    for (size_t i = 0; i < a.size(); ++i) a[i] = int32_t(i % 3);
    t.columns.push_back(Column::ints("a", std::move(a)));
    const Catalog catalog = catalog_of(std::move(t));
    INFO(values.size() << " values, first " << values[0]);
    check_float_sum(catalog, {}, test::kSmallTiles);
    check_float_sum(catalog, sql::parse("SELECT x FROM t WHERE a < 2").where, test::kSmallTiles);
    check_float_sum(catalog, sql::parse("SELECT x FROM t WHERE a > 5").where, test::kSmallTiles);
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

TEST_CASE("raster: FLOAT SUM is exact with few fragments per occlusion query and larger tiles") {
  std::mt19937_64 rng(4242);
  const Catalog catalog = catalog_of(float_table(2 * test::kSmallTile + 5, 0, true, rng));
  const Cnf where = sql::parse("SELECT x FROM t WHERE a >= -50").where;
  for (uint64_t cap : {uint64_t(1), uint64_t(7)}) {
    gl::RasterOptions options = test::kSmallTiles;
    options.max_fragments_per_query = cap;
    INFO("cap " << cap);
    check_float_sum(catalog, where, options);
  }
  check_float_sum(catalog, where, {.tile_width = 16, .tile_height = 8});
  check_float_sum(catalog, {}, {});
  GFXQ_CHECK_NO_GL_MESSAGES();
}
