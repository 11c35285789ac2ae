// The compute backend's fused scan (shaders/vk/cnf_scan.comp) on the values that stress its
// shortcuts: single-column predicates tested as raw-bit intervals (checked against the order-key
// semantics for every special pattern: both zeros, NaNs of either sign and any payload, infinities,
// subnormals), and FLOAT SUM/MIN/MAX whose values span every exponent bin, switch bins in runs, or
// are subnormal or special. Differential against the CPU reference; failures print their seed.

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cnf_interval_config.glsl"
#include "core/order_key.h"
#include "engine_compute_support.h"
#include "gfxq/cpu.h"
#include "gfxq/gfxq.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "test_support.h"
#include "vk/relational/cnf_program.h"
#include "vk/relational/select.h"

namespace {

using namespace gfxq;

// The process-wide engine of the compute tests.
Engine& engine() {
  return test::debug_engine();
}

// Raw FLOAT patterns at every class boundary, in both signs.
std::vector<uint32_t> special_float_bits() {
  std::vector<uint32_t> bits;
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t b : {0x00000000u, 0x00000001u, 0x007fffffu, 0x00800000u, 0x3effffffu, 0x3f000000u, 0x3f800000u,
                       0x7f7fffffu, 0x7f800000u, 0x7f800001u, 0x7fc00000u, 0x7fc00001u, 0x7fffffffu})
      bits.push_back(sign | b);
  return bits;
}

// Whether the program accepts a row whose slot-0 order key is `key` (the terms' semantics:
// unsigned key comparisons, OR within a clause, AND across clauses).
bool accepts(const vk::CnfProgram& p, uint32_t key) {
  bool all = true, clause = false;
  for (const vk::CnfTerm& t : p.terms) {
    clause = clause || holds(t.op, key < t.key ? -1 : (key > t.key ? 1 : 0));
    if (t.clause_end) {
      all = all && clause;
      clause = false;
    }
  }
  return all;
}

// The compute result of `q` equals the CPU reference's exactly, with no debug message; returns it.
Result check_exact(const Query& q, const Catalog& catalog, uint64_t rows) {
  INFO("rows " << rows << " query " << q.text());
  const Result want = cpu::execute(q, catalog);
  Result got = engine().execute(q, catalog, Backend::Compute);
  const std::string difference = test::table_difference(want.table, got.table);
  CHECK_MESSAGE(difference.empty(), difference);
  CHECK(engine().take_debug_messages().empty());
  return got;
}

bool in_raw(const std::vector<std::pair<uint32_t, uint32_t>>& intervals, uint32_t raw) {
  for (const auto& [first, width] : intervals)
    if (uint32_t(raw - first) <= width) return true;
  return false;
}

// The float test's verdict on raw FLOAT bits (IEEE compares, as the kernels do); with `ftz` a
// denormal row compares as a zero of its sign, as on a device that flushes denormals.
bool float_accepts(const vk::detail::FloatTest& f, uint32_t raw, bool ftz) {
  float x = std::bit_cast<float>(raw);
  if (ftz && std::fpclassify(x) == FP_SUBNORMAL) x = std::signbit(x) ? -0.0f : 0.0f;
  const float lo = std::bit_cast<float>(f.lo), hi = std::bit_cast<float>(f.hi);
  switch (f.shape) {
    case CNF_FLOAT_LE: return x <= hi;
    case CNF_FLOAT_GE: return x >= lo;
    case CNF_FLOAT_RANGE: return x >= lo && x <= hi;
    case CNF_FLOAT_GE_NAN: return !(x < lo);
    default: return false;
  }
}

// The program of `a op literal` AND ... over one FLOAT (or INT) column.
vk::CnfProgram program_of(std::initializer_list<std::pair<CmpOp, double>> terms, Type type = Type::Float32) {
  BoundCnf bound;
  const BoundColumn column{Side::Left, 0, type, "a"};
  for (const auto& [op, v] : terms) bound.clauses.push_back(BoundClause{{BoundComparison{column, op, v}}});
  return vk::compile_cnf(bound);
}

}  // namespace

TEST_CASE("compute: raw-bit intervals accept exactly the rows the terms accept") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> specials = special_float_bits();
  int tested = 0, as_intervals = 0;
  for (int round = 0; round < 3000; ++round) {
    const bool is_float = round % 2 == 1;
    vk::CnfProgram p;
    p.outcome = vk::CnfProgram::Outcome::Rows;
    p.slots.push_back(BoundColumn{Side::Left, 0, is_float ? Type::Float32 : Type::Int32, "a"});
    const int clauses = 1 + int(rng() % 3);
    std::vector<uint32_t> literal_keys;
    for (int c = 0; c < clauses; ++c) {
      const int terms = 1 + int(rng() % 2);
      for (int t = 0; t < terms; ++t) {
        vk::CnfTerm term;
        term.op = CmpOp(rng() % 6);
        const uint32_t raw = rng() % 2 ? specials[rng() % specials.size()] : uint32_t(rng());
        term.key = is_float ? float_key(std::bit_cast<float>(raw)) : int_key(std::bit_cast<int32_t>(raw));
        if (rng() % 4 == 0) term.key += rng() % 2 ? 1 : -1;  // keys no canonical value has
        term.clause_end = t == terms - 1;
        literal_keys.push_back(term.key);
        p.terms.push_back(term);
      }
      ++p.clauses;
    }
    const auto intervals = vk::detail::raw_intervals(p);
    if (!intervals) continue;
    ++as_intervals;
    CHECK(intervals->size() <= vk::detail::kMaxRawIntervals);
    // Every special pattern, random ones, and the neighbours of every interval end and literal.
    std::vector<uint32_t> probes = specials;
    for (int i = 0; i < 64; ++i) probes.push_back(uint32_t(rng()));
    for (const auto& [first, width] : *intervals)
      for (uint32_t d : {0u, 1u, 2u, ~0u}) probes.insert(probes.end(), {first + d, first + width + d});
    for (uint32_t k : literal_keys)
      for (uint32_t d : {0u, 1u, ~0u}) {
        const uint32_t key = k + d;
        probes.push_back(is_float ? std::bit_cast<uint32_t>(float_from_key(key))
                                  : std::bit_cast<uint32_t>(int_from_key(key)));
      }
    for (uint32_t raw : probes) {
      const uint32_t key = is_float ? float_key(std::bit_cast<float>(raw)) : int_key(std::bit_cast<int32_t>(raw));
      CHECK_MESSAGE(in_raw(*intervals, raw) == accepts(p, key), "round " << round << " raw 0x" << std::hex << raw);
      ++tested;
    }
  }
  CHECK(as_intervals > 1000);
  MESSAGE(tested << " patterns over " << as_intervals << " interval programs");
}

TEST_CASE("compute: float tests accept exactly the rows the raw-bit intervals accept, denormals flushed or not") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> specials = special_float_bits();
  const double inf = std::numeric_limits<double>::infinity();
  // Each shape, and the programs that keep the raw bits (zero or denormal bounds, two intervals,
  // an INT column, every value but NaN).
  const auto f = [](std::initializer_list<std::pair<CmpOp, double>> t, Type type = Type::Float32) {
    return vk::detail::float_test(program_of(t, type));
  };
  REQUIRE(f({{CmpOp::Lt, 0.5}}));
  CHECK(f({{CmpOp::Lt, 0.5}})->shape == CNF_FLOAT_LE);
  CHECK(f({{CmpOp::Lt, 0.5}})->hi == std::bit_cast<uint32_t>(std::nextafter(0.5f, 0.0f)));
  CHECK(f({{CmpOp::Gt, 0.5}})->shape == CNF_FLOAT_GE_NAN);
  CHECK(f({{CmpOp::Ge, 0.5}, {CmpOp::Le, inf}})->shape == CNF_FLOAT_GE);
  CHECK(f({{CmpOp::Ge, -1.0}, {CmpOp::Le, 1.0}})->shape == CNF_FLOAT_RANGE);
  CHECK(f({{CmpOp::Eq, 3.0}})->shape == CNF_FLOAT_RANGE);
  for (const auto& raw : {f({{CmpOp::Gt, 0.0}}), f({{CmpOp::Ge, 0.0}}), f({{CmpOp::Lt, -0.0}}), f({{CmpOp::Lt, 1e-40}}),
                          f({{CmpOp::Ne, 1.0}}), f({{CmpOp::Lt, 5.0}}, Type::Int32), f({{CmpOp::Le, inf}}),
                          f({{CmpOp::Lt, 0.5}, {CmpOp::Gt, 0.5}})})
    CHECK_FALSE(raw.has_value());

  int programs = 0, shapes[5] = {};
  for (int round = 0; round < 4000; ++round) {
    vk::CnfProgram p;
    p.outcome = vk::CnfProgram::Outcome::Rows;
    p.slots.push_back(BoundColumn{Side::Left, 0, Type::Float32, "a"});
    const int clauses = 1 + int(rng() % 2);
    for (int c = 0; c < clauses; ++c) {
      vk::CnfTerm term;
      term.op = CmpOp(rng() % 6);
      const uint32_t raw = rng() % 2 ? specials[rng() % specials.size()] : uint32_t(rng());
      term.key = float_key(std::bit_cast<float>(raw));
      if (rng() % 4 == 0) term.key += rng() % 2 ? 1 : -1;  // keys no canonical value has
      term.clause_end = true;
      p.terms.push_back(term);
      ++p.clauses;
    }
    const auto test = vk::detail::float_test(p);
    if (!test) continue;
    const auto intervals = vk::detail::raw_intervals(p);
    REQUIRE(intervals);
    ++programs;
    ++shapes[test->shape];
    // Every special pattern, random ones (denormals among them), and the bounds' neighbours.
    std::vector<uint32_t> probes = specials;
    for (int i = 0; i < 64; ++i) probes.push_back(uint32_t(rng()));
    for (int i = 0; i < 16; ++i) probes.push_back(uint32_t(rng()) & 0x807fffffu);
    for (uint32_t b : {test->lo, test->hi})
      for (uint32_t d : {0u, 1u, 2u, ~0u, ~1u}) probes.push_back(b + d);
    for (uint32_t raw : probes)
      for (bool ftz : {false, true})
        CHECK_MESSAGE(float_accepts(*test, raw, ftz) == in_raw(*intervals, raw),
                      "round " << round << " raw 0x" << std::hex << raw << " ftz " << ftz);
  }
  MESSAGE(programs << " programs with a float test: " << shapes[CNF_FLOAT_LE] << " <=, " << shapes[CNF_FLOAT_GE]
                   << " >=, " << shapes[CNF_FLOAT_RANGE] << " ranges, " << shapes[CNF_FLOAT_GE_NAN] << " with NaN");
  CHECK(programs > 1000);
  for (int shape : {CNF_FLOAT_LE, CNF_FLOAT_GE_NAN, CNF_FLOAT_RANGE}) CHECK(shapes[shape] > 100);
}

TEST_CASE("compute: predicates tested by float compares match the CPU and the report names the test") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> specials = special_float_bits();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    std::vector<std::pair<CmpOp, double>> terms;
    const char* test;  // the report's words, or null: raw bits
  };
  const std::vector<Case> cases = {
      {{{CmpOp::Lt, 0.5}}, "float compare x <= c"},
      {{{CmpOp::Le, -2.5}}, "float compare x <= c"},
      {{{CmpOp::Lt, 1e-30}}, "float compare x <= c"},
      {{{CmpOp::Gt, 0.5}}, "float compare not x < c"},
      {{{CmpOp::Ge, -1e30}}, "float compare not x < c"},
      {{{CmpOp::Ge, 0.5}, {CmpOp::Le, inf}}, "float compare x >= c"},
      {{{CmpOp::Ge, 0.2}, {CmpOp::Le, 0.7}}, "float compares c1 <= x <= c2"},
      {{{CmpOp::Ge, -1.0}, {CmpOp::Le, 1.0}}, "float compares c1 <= x <= c2"},
      {{{CmpOp::Eq, 3.0}}, "float compares c1 <= x <= c2"},
      {{{CmpOp::Gt, 0.0}}, nullptr},
      {{{CmpOp::Ge, 0.0}}, nullptr},
      {{{CmpOp::Lt, 1e-40}}, nullptr},
  };
  // Specials (denormals, zeros, infinities, NaNs of both signs), every literal's float neighbours,
  // and random values of every magnitude; sizes within one tile and over several.
  std::vector<uint32_t> pool = specials;
  for (const Case& c : cases)
    for (const auto& [op, v] : c.terms)
      for (float x : {float(v), std::nextafter(float(v), -INFINITY), std::nextafter(float(v), INFINITY)})
        if (!std::isnan(x)) pool.push_back(std::bit_cast<uint32_t>(x));
  for (uint64_t rows : {4099u, 70001u}) {
    std::vector<float> a(rows);
    for (float& v : a) {
      const uint32_t r = uint32_t(rng());
      v = std::bit_cast<float>(rng() % 2 ? pool[rng() % pool.size()] : rng() % 4 ? r : r & 0x807fffffu);
    }
    Table t;
    t.columns.push_back(Column::floats("a", a));
    const Catalog catalog = test::catalog_of(std::move(t));
    for (const Case& c : cases) {
      Query q;
      q.table = "t";
      for (const auto& [op, v] : c.terms) q.where.clauses.push_back(Clause{{Comparison{ColumnRef{"", "a"}, op, v}}});
      // COUNT, MIN and MAX (one aggregate kernel), COUNT alone, the rows; then the SUM kernel.
      for (AggKind kind : {AggKind::Count, AggKind::Min, AggKind::Max}) {
        Aggregate g;
        g.kind = kind;
        if (kind != AggKind::Count) g.column = ColumnRef{"", "a"};
        q.items.push_back(g);
      }
      Query count = q, star = q, sum = q;
      count.items.resize(1);
      star.items = {Star{}};
      Aggregate g;
      g.kind = AggKind::Sum;
      g.column = ColumnRef{"", "a"};
      sum.items = {g};
      const Query* queries[] = {&q, &count, &star, &sum};
      for (const Query* each_query : queries) {
        const Query& each = *each_query;
        INFO("rows " << rows << " query " << each.text());
        Result got;
        if (each_query != &sum) {
          got = check_exact(each, catalog, rows);
        } else {
          // Bit for bit the exact sum rounded once (the CPU's row-order double sum is only within a
          // bound of it), or the CPU's infinity or NaN when a selected value is one.
          got = engine().execute(sum, catalog, Backend::Compute);
          const double want = cpu::execute(sum, catalog).table.columns[0].as<double>()[0];
          std::vector<double> values;
          for (uint64_t r : cpu::select_rows(catalog.get("t"), "t", sum.where)) values.push_back(a[r]);
          const double exact = std::isfinite(want) ? test::fsum(values) + 0.0 : want;
          const double gs = got.table.columns[0].as<double>()[0];
          CHECK_MESSAGE(std::bit_cast<uint64_t>(gs) == std::bit_cast<uint64_t>(exact), gs << " vs exact " << exact);
        }
        const std::string report = got.report.text();
        INFO(report);
        if (c.test)
          CHECK(report.find(c.test) != std::string::npos);
        else
          CHECK(report.find("float compare") == std::string::npos);
      }
    }
  }
}

TEST_CASE("compute: single-column predicates over special FLOAT values match the CPU") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Special patterns (negative NaNs and NaN payloads included) among random values of every magnitude.
  const std::vector<uint32_t> specials = special_float_bits();
  for (uint64_t rows : {1u, 97u, 4099u}) {
    std::vector<float> a(rows);
    for (float& v : a) v = std::bit_cast<float>(rng() % 3 == 0 ? specials[rng() % specials.size()] : uint32_t(rng()));
    Table t;
    t.columns.push_back(Column::floats("a", a));
    const Catalog catalog = test::catalog_of(std::move(t));
    const double literals[] = {0.0,
                               -0.0,
                               0.5,
                               -0.5,
                               1e-40,
                               -1e-40,
                               std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity(),
                               3.4e38,
                               -3.4e38};
    for (int i = 0; i < 12; ++i) {
      Cnf cnf;
      for (int c = 0; c < 1 + int(rng() % 2); ++c) {
        Clause clause;
        for (int k = 0; k < 1 + int(rng() % 2); ++k) {
          Comparison cmp;
          cmp.lhs = ColumnRef{"", "a"};
          cmp.op = CmpOp(rng() % 6);
          cmp.rhs = rng() % 2 ? literals[rng() % std::size(literals)] : double(std::bit_cast<float>(uint32_t(rng())));
          if (const double* d = std::get_if<double>(&cmp.rhs); d && std::isnan(*d)) cmp.rhs = 1.0;
          clause.terms.push_back(cmp);
        }
        cnf.clauses.push_back(clause);
      }
      Query count, star;
      count.table = star.table = "t";
      count.where = star.where = cnf;
      Aggregate n;
      n.kind = AggKind::Count;
      count.items = {n};
      star.items = {Star{}};
      for (const Query& q : {count, star}) check_exact(q, catalog, rows);
    }
  }
}

TEST_CASE("compute: FLOAT SUM, MIN and MAX over every exponent range and bin change match the CPU") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const auto finite = [&](int lo_exp, int hi_exp) {
    const uint32_t e = uint32_t(lo_exp + int(rng() % uint64_t(hi_exp - lo_exp + 1)));
    return std::bit_cast<float>((rng() % 2 ? 0x80000000u : 0u) | (e << 23) | uint32_t(rng() & 0x7fffffu));
  };
  // Both register bins of the exact sum: doubles (devices with shaderFloat64) and int64.
  for (const bool int64_bin : {false, true})
    for (uint64_t rows : {1u, 31u, 2049u, 9001u}) {
      // ComputeOptions::float_sum_int64 forces the int64 register bin.
      Engine& forced = test::engine_with({.float_sum_int64 = int64_bin});
      std::vector<float> spread(rows), runs(rows), tiny(rows), mixed(rows);
      std::vector<int32_t> key(rows);
      for (uint64_t r = 0; r < rows; ++r) {
        spread[r] = finite(1, 254);                                  // every bin, both signs
        runs[r] = (r / 40) % 2 ? finite(20, 30) : finite(200, 210);  // runs in two bins
        tiny[r] = std::bit_cast<float>(uint32_t(rng() % 0x800000u) | (rng() % 2 ? 0x80000000u : 0u));  // subnormal
        mixed[r] = rng() % 50 == 0 ? std::bit_cast<float>(special_float_bits()[rng() % 26]) : finite(100, 140);
        key[r] = int32_t(rng() % 100);
      }
      Table t;
      for (auto& [name, v] : {std::pair{"s", &spread}, {"r", &runs}, {"d", &tiny}, {"m", &mixed}})
        t.columns.push_back(Column::floats(name, *v));
      t.columns.push_back(Column::ints("k", key));
      const Catalog catalog = test::catalog_of(std::move(t));
      for (const char* c : {"s", "r", "d", "m"})
        for (int where : {0, 1, 2}) {
          Query q;
          q.table = "t";
          // 1: WHERE on another column (the two-slot kernels); 2: on the aggregated column itself,
          // which keeps most values (the one-slot raw-interval kernels).
          if (where == 1) q.where.clauses.push_back(Clause{{Comparison{ColumnRef{"", "k"}, CmpOp::Lt, 50.0}}});
          if (where == 2) q.where.clauses.push_back(Clause{{Comparison{ColumnRef{"", c}, CmpOp::Gt, -1e30}}});
          for (AggKind kind : {AggKind::Sum, AggKind::Min, AggKind::Max, AggKind::Count}) {
            Aggregate a;
            a.kind = kind;
            a.column = ColumnRef{"", c};
            q.items.push_back(a);
          }
          // SUM alone and MIN/MAX/COUNT without SUM too: the sum-only and min/max-only kernels.
          Query sum_only = q, no_sum = q;
          sum_only.items.resize(1);
          no_sum.items.erase(no_sum.items.begin());
          for (const Query& each : {q, sum_only, no_sum}) {
            INFO("rows " << rows << " query " << each.text());
            const Result want = cpu::execute(each, catalog);
            const Result got = forced.execute(each, catalog, Backend::Compute);
            CHECK(forced.take_debug_messages().empty());
            // The report names the kernel: the double bin unless forced off or missing.
            const bool wants_sum = each.items.size() != no_sum.items.size();
            bool f64 = false;
            for (const PassRecord& p : got.report.passes) f64 = f64 || p.detail.find("_f64") != std::string::npos;
            CHECK(f64 == (wants_sum && !int64_bin && forced.vk_capabilities().shader_float64));
            // MIN, MAX and COUNT exactly; a finite SUM bit for bit against the exact sum rounded once
            // (+0.0 for a zero sum), a special one as the CPU's.
            const auto rows_in = cpu::select_rows(catalog.get("t"), "t", each.where);
            const auto& v = catalog.get("t").column(c).as<float>();
            std::vector<double> values;
            bool special = false;
            for (uint64_t r : rows_in) {
              values.push_back(v[r]);
              special = special || !std::isfinite(v[r]);
            }
            const Column& sum = got.table.columns[0];
            if (wants_sum && values.empty()) {
              CHECK(sum.is_null(0));
            } else if (wants_sum && special) {
              CHECK(std::bit_cast<uint64_t>(sum.as<double>()[0]) ==
                    std::bit_cast<uint64_t>(want.table.columns[0].as<double>()[0]));
            } else if (wants_sum) {
              const double gs = sum.as<double>()[0], exact = test::fsum(values) + 0.0;
              CHECK_MESSAGE(std::bit_cast<uint64_t>(gs) == std::bit_cast<uint64_t>(exact), gs << " vs exact " << exact);
            }
            for (size_t i = wants_sum ? 1 : 0; i < each.items.size(); ++i) {
              Table w, g;
              w.columns.push_back(want.table.columns[i]);
              g.columns.push_back(got.table.columns[i]);
              CHECK(test::table_difference(w, g).empty());
            }
          }
        }
    }
}

TEST_CASE("compute: one-column programs of more than four intervals run the term variant, exactly") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> specials = special_float_bits();
  for (uint64_t rows : {3u, 4097u, 20000u}) {
    std::vector<float> a(rows);
    for (float& v : a) v = rng() % 4 == 0 ? std::bit_cast<float>(specials[rng() % specials.size()]) : float(rng() % 16);
    Table t;
    t.columns.push_back(Column::floats("a", a));
    const Catalog catalog = test::catalog_of(std::move(t));
    // a <> 1 AND a <> 3 AND ... : six key intervals, more than the interval kernels take.
    Cnf cnf;
    for (double v : {1.0, 3.0, 5.0, 7.0, 9.0})
      cnf.clauses.push_back(Clause{{Comparison{ColumnRef{"", "a"}, CmpOp::Ne, v}}});
    BoundCnf bound;
    const BoundColumn column{Side::Left, 0, Type::Float32, "a"};
    for (const Clause& c : cnf.clauses)
      bound.clauses.push_back(BoundClause{{BoundComparison{column, c.terms[0].op, std::get<double>(c.terms[0].rhs)}}});
    CHECK_FALSE(vk::detail::raw_intervals(vk::compile_cnf(bound)).has_value());
    Query q;
    q.table = "t";
    q.where = cnf;
    for (AggKind kind : {AggKind::Count, AggKind::Min, AggKind::Max, AggKind::Sum}) {
      Aggregate g;
      g.kind = kind;
      if (kind != AggKind::Count) g.column = ColumnRef{"", "a"};
      q.items.push_back(g);
    }
    Query star = q;
    star.items = {Star{}};
    for (const Query& each : {q, star}) check_exact(each, catalog, rows);
  }
}

TEST_CASE("compute: per-column raw-bit intervals of several columns accept exactly the rows the terms accept") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> specials = special_float_bits();
  int as_intervals = 0, refused_mixed = 0;
  for (int round = 0; round < 2000; ++round) {
    vk::CnfProgram p;
    p.outcome = vk::CnfProgram::Outcome::Rows;
    const uint32_t slots = 2 + uint32_t(rng() % 3);
    for (uint32_t s = 0; s < slots; ++s)
      p.slots.push_back(
          BoundColumn{Side::Left, s, rng() % 3 == 0 ? Type::Float32 : Type::Int32, "c" + std::to_string(s)});
    // Clauses of one column each; one round in eight also gets a clause over two columns.
    const bool mixed = rng() % 8 == 0;
    const int clauses = 1 + int(rng() % 4);
    for (int c = 0; c < clauses; ++c) {
      const uint32_t slot = uint32_t(rng() % slots);
      const int terms = 1 + int(rng() % 2);
      for (int t = 0; t < terms; ++t) {
        vk::CnfTerm term;
        term.op = CmpOp(rng() % 6);
        term.lhs = mixed && c == 0 && t == 1 ? (slot + 1) % slots : slot;
        const bool is_float = p.slots[term.lhs].type == Type::Float32;
        const uint32_t raw = rng() % 2 ? specials[rng() % specials.size()] : uint32_t(rng() % 2 ? rng() : rng() % 64);
        term.key = is_float ? float_key(std::bit_cast<float>(raw)) : int_key(std::bit_cast<int32_t>(raw));
        term.clause_end = t == terms - 1;
        p.terms.push_back(term);
      }
      ++p.clauses;
    }
    const auto intervals = vk::detail::slot_intervals(p);
    if (mixed && p.terms.size() > 1 && p.terms[0].lhs != p.terms[1].lhs && !p.terms[0].clause_end) {
      CHECK_MESSAGE(!intervals, "round " << round << ": a clause over two columns has no per-column intervals");
      ++refused_mixed;
      continue;
    }
    if (!intervals) continue;
    ++as_intervals;
    REQUIRE(intervals->size() == slots);
    const uint32_t word = vk::detail::interval_word(p, 1u << 20);
    for (uint32_t s = 0; s < slots; ++s) {
      CHECK((*intervals)[s].size() <= vk::detail::kMaxRawIntervals);
      CHECK(((word >> (4 * s)) & 15u) == (*intervals)[s].size());
    }
    // Rows of specials, random patterns and each interval's ends and neighbours, slot by slot.
    for (int row = 0; row < 200; ++row) {
      std::vector<uint32_t> raw(slots);
      for (uint32_t s = 0; s < slots; ++s) {
        const auto& iv = (*intervals)[s];
        const uint32_t pick = uint32_t(rng() % 4);
        if (pick == 0 || iv.empty())
          raw[s] = specials[rng() % specials.size()];
        else if (pick == 1)
          raw[s] = uint32_t(rng());
        else {
          const auto& [first, width] = iv[rng() % iv.size()];
          raw[s] = (pick == 2 ? first : first + width) + uint32_t(rng() % 3) - 1u;
        }
      }
      bool want = true;
      for (uint32_t s = 0; s < slots; ++s)
        if (!(*intervals)[s].empty()) want = want && in_raw((*intervals)[s], raw[s]);
      CHECK_MESSAGE(vk::evaluate(p, raw) == want, "round " << round << " row " << row);
    }
  }
  CHECK(as_intervals > 300);
  CHECK(refused_mixed > 0);
}

TEST_CASE("compute: conditions of one column per clause over several columns run as raw-bit intervals, exactly") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (uint64_t rows : {1u, 4u, 4097u, 50003u}) {
    std::vector<int32_t> a(rows), b(rows);
    std::vector<float> f(rows);
    const std::vector<uint32_t> specials = special_float_bits();
    for (uint64_t i = 0; i < rows; ++i) {
      a[i] = rng() % 8 == 0 ? int32_t(rng()) : int32_t(rng() % 50) - 5;
      b[i] = rng() % 16 == 0 ? (rng() % 2 ? INT32_MIN : INT32_MAX) : int32_t(rng() % 1000);
      f[i] = rng() % 8 == 0 ? std::bit_cast<float>(specials[rng() % specials.size()]) : float(rng() % 200) / 8.0f;
    }
    Table t;
    t.columns.push_back(Column::ints("a", a));
    t.columns.push_back(Column::ints("b", b));
    t.columns.push_back(Column::floats("f", f));
    const Catalog catalog = test::catalog_of(std::move(t));
    int intervals = 0;
    for (int round = 0; round < 12; ++round) {
      // 2-4 clauses, each over one column: a range, a bound, an inequality or two equalities.
      std::string where;
      const int clauses = 2 + int(rng() % 3);
      for (int c = 0; c < clauses; ++c) {
        const char* col = c == 0 ? "a" : c == 1 ? "b" : rng() % 2 ? "f" : "a";
        const int v = int(rng() % 40) - 3;
        std::string clause;
        switch (rng() % 4) {
          case 0: clause = std::string(col) + " BETWEEN " + std::to_string(v) + " AND " + std::to_string(v + 9); break;
          case 1: clause = std::string(col) + " < " + std::to_string(v); break;
          case 2: clause = std::string(col) + " <> " + std::to_string(v); break;
          default:
            clause =
                "(" + std::string(col) + " = " + std::to_string(v) + " OR " + col + " = " + std::to_string(v + 2) + ")";
        }
        where += (c ? " AND " : "") + clause;
      }
      for (const std::string select : {"COUNT(*)", "COUNT(*), SUM(b)", "a, b"}) {
        const std::string sql = "SELECT " + select + " FROM t WHERE " + where;
        INFO("rows " << rows << ": " << sql);
        const Query q = sql::parse(sql);
        const Result got = check_exact(q, catalog, rows);
        intervals += got.report.text().find("raw-bit intervals on") != std::string::npos;
      }
    }
    CHECK(intervals > 0);
  }
}
