// The raster path's exact key translation (src/gl/key_compare.h) and depth lowering
// (src/gl/depth_encode.h), checked on the host against the CPU semantics (compare_total in
// doubles) for random values and literals: the GPU only ever compares the integers chosen here.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/order_key.h"
#include "gl/depth_encode.h"
#include "gl/key_compare.h"
#include "raster_support.h"

using gfxq::CmpOp;
using gfxq::Type;
namespace gl = gfxq::gl;

namespace {

using gfxq::test::kCmpOps;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr float kFloatInf = std::numeric_limits<float>::infinity();

std::vector<int32_t> int_values(std::mt19937_64& rng) {
  std::vector<int32_t> v = {INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, 0,         -1,        1,
                            16777215,  16777216,      16777217,  -16777215,     -16777216, -16777217, 16777218,
                            33554431,  33554433,      -33554433, 1 << 30,       -(1 << 30)};
  for (int i = 0; i < 200; ++i) {
    const int shift = int(rng() % 32);
    v.push_back(static_cast<int32_t>(static_cast<uint32_t>(rng())) >> shift);
  }
  return v;
}

std::vector<float> float_values(std::mt19937_64& rng) {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          std::numeric_limits<float>::quiet_NaN(),
                          -std::numeric_limits<float>::quiet_NaN(),
                          std::bit_cast<float>(0x7f800001u),  // signalling NaN payload
                          std::bit_cast<float>(0xffffffffu),
                          kFloatInf,
                          -kFloatInf,
                          std::numeric_limits<float>::denorm_min(),
                          -std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::min(),
                          -std::numeric_limits<float>::min(),
                          std::nextafter(std::numeric_limits<float>::min(), 0.0f),
                          std::numeric_limits<float>::max(),
                          -std::numeric_limits<float>::max(),
                          16777216.0f,
                          16777218.0f,
                          1.0f,
                          0.1f,
                          -0.5f};
  for (int i = 0; i < 200; ++i) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  for (int i = 0; i < 50; ++i) v.push_back(std::uniform_real_distribution<float>(-10, 10)(rng));
  return v;
}

// Literals around `v`: itself, its double neighbours, halves, and far values.
void add_literals_around(double v, std::vector<double>& out) {
  out.push_back(v);
  out.push_back(std::nextafter(v, kInf));
  out.push_back(std::nextafter(v, -kInf));
  out.push_back(v + 0.5);
  out.push_back(v - 0.5);
}

std::vector<double> literals(std::mt19937_64& rng, const std::vector<double>& around) {
  std::vector<double> out = {kNan,
                             -kNan,
                             kInf,
                             -kInf,
                             0.0,
                             -0.0,
                             1e39,
                             -1e39,
                             1e-50,
                             -1e-50,
                             2.5,
                             -2.5,
                             0.1,
                             1e300,
                             -1e300,
                             0x1p31,
                             -0x1p31,
                             0x1p31 - 0.5,
                             -0x1p31 - 0.5,
                             0x1p24 + 1,
                             0x1p40,
                             -0x1p41,
                             3.4028235677973366e38};
  for (double v : around) add_literals_around(v, out);
  for (int i = 0; i < 100; ++i) {
    out.push_back(std::uniform_real_distribution<double>(-3e9, 3e9)(rng));
    out.push_back(std::bit_cast<double>(rng()));
  }
  return out;
}

// What a depth part compares on the GPU, computed on the host as raster_value.frag does.
uint32_t part_value(const gl::ColumnValue& v, Type type, uint32_t bits) {
  const int32_t a = std::bit_cast<int32_t>(bits);
  switch (v.mode) {
    case gl::ValueMode::Window: return gl::cell_key(type, bits) - v.base;
    case gl::ValueMode::High16: return gl::cell_key(type, bits) >> 16;
    case gl::ValueMode::Low16: return gl::cell_key(type, bits) & 0xffff;
    case gl::ValueMode::FloorWindow: return gl::floor_float_key(a) - v.base;
    case gl::ValueMode::FloorHigh16: return gl::floor_float_key(a) >> 16;
    case gl::ValueMode::FloorLow16: return gl::floor_float_key(a) & 0xffff;
    case gl::ValueMode::Residue: return gl::floor_residue(a);
  }
  return 0;
}

// Evaluates a lowered comparison on one row: the lexicographic compare the depth passes run.
bool evaluate(const gl::DepthCompare& d, const std::vector<Type>& types, const std::vector<uint32_t>& row) {
  int three_way = 0;
  for (const auto& part : d.parts) {
    const uint32_t s = part_value(part.stored, types[part.stored.slot], row[part.stored.slot]);
    CHECK(s < (1u << 24));
    const auto* column = std::get_if<gl::ColumnValue>(&part.incoming);
    const uint32_t i =
        column ? part_value(*column, types[column->slot], row[column->slot]) : std::get<uint32_t>(part.incoming);
    CHECK(i < (1u << 24));
    if (s != i) {
      three_way = s < i ? -1 : 1;
      break;
    }
  }
  return gfxq::holds(d.op, three_way);
}

bool evaluate(const gl::Lowered& lowered, const std::vector<Type>& types, const std::vector<uint32_t>& row) {
  if (const bool* b = std::get_if<bool>(&lowered)) return *b;
  return evaluate(std::get<gl::DepthCompare>(lowered), types, row);
}

bool cpu_holds(CmpOp op, double lhs, double rhs) {
  return gfxq::holds(op, gfxq::compare_total(lhs, rhs));
}

gl::ColumnInfo info_of(const char* name, Type type, const std::vector<uint32_t>& bits) {
  gfxq::Column c = gfxq::Column::make(name, type);
  for (uint32_t b : bits) {
    if (type == Type::Int32)
      c.as<int32_t>().push_back(std::bit_cast<int32_t>(b));
    else
      c.as<float>().push_back(std::bit_cast<float>(b));
  }
  return gl::column_info(c);
}

double as_double(Type type, uint32_t bits) {
  return type == Type::Int32 ? double(std::bit_cast<int32_t>(bits)) : double(std::bit_cast<float>(bits));
}

}  // namespace

TEST_CASE("raster: INT literals translate to exact key tests") {
  std::mt19937_64 rng(11);
  const auto values = int_values(rng);
  std::vector<double> around;
  for (int32_t v : values) around.push_back(v);
  const auto lits = literals(rng, around);
  uint64_t checked = 0;
  for (double d : lits)
    for (CmpOp op : kCmpOps) {
      const gl::KeyTest t = gfxq::literal_predicate(Type::Int32, op, d);
      for (int32_t v : values) {
        CAPTURE(v);
        CAPTURE(d);
        CAPTURE(gfxq::to_string(op));
        REQUIRE(gfxq::evaluate(t, gfxq::int_key(v)) == cpu_holds(op, v, d));
        ++checked;
      }
    }
  CHECK(checked > 100000);
  // The documented examples.
  CHECK(gfxq::literal_predicate(Type::Int32, CmpOp::Lt, 2.5) == gl::KeyTest::compare(CmpOp::Lt, gfxq::int_key(3)));
  CHECK(gfxq::literal_predicate(Type::Int32, CmpOp::Lt, 3e9).kind == gl::KeyTest::Kind::Always);
  CHECK(gfxq::literal_predicate(Type::Int32, CmpOp::Gt, 3e9).kind == gl::KeyTest::Kind::Never);
  CHECK(gfxq::literal_predicate(Type::Int32, CmpOp::Eq, 0.5).kind == gl::KeyTest::Kind::Never);
  CHECK(gfxq::literal_predicate(Type::Int32, CmpOp::Lt, kNan).kind == gl::KeyTest::Kind::Always);
}

TEST_CASE("raster: FLOAT literals translate to exact key tests in the total order") {
  std::mt19937_64 rng(12);
  const auto values = float_values(rng);
  std::vector<double> around;
  for (float v : values) {
    around.push_back(v);
    // The midpoint between v and its float neighbour: no float equals it.
    if (std::isfinite(v)) around.push_back((double(v) + double(std::nextafter(v, kFloatInf))) / 2);
  }
  const auto lits = literals(rng, around);
  uint64_t checked = 0;
  for (double d : lits)
    for (CmpOp op : kCmpOps) {
      const gl::KeyTest t = gfxq::literal_predicate(Type::Float32, op, d);
      for (float v : values) {
        CAPTURE(std::bit_cast<uint32_t>(v));
        CAPTURE(d);
        CAPTURE(gfxq::to_string(op));
        REQUIRE(gfxq::evaluate(t, gl::cell_key(Type::Float32, std::bit_cast<uint32_t>(v))) == cpu_holds(op, v, d));
        ++checked;
      }
    }
  CHECK(checked > 100000);
  // x < 0.1 (double) is key(x) <= key(largest float < 0.1): 0.1f rounds up, so that float is below it.
  REQUIRE(double(0.1f) > 0.1);
  CHECK(gfxq::literal_predicate(Type::Float32, CmpOp::Lt, 0.1) ==
        gl::KeyTest::compare(CmpOp::Le, gfxq::float_key(std::nextafter(0.1f, 0.0f))));
  CHECK(gfxq::literal_predicate(Type::Float32, CmpOp::Le, 0.1) ==
        gl::KeyTest::compare(CmpOp::Le, gfxq::float_key(std::nextafter(0.1f, 0.0f))));
  CHECK(gfxq::literal_predicate(Type::Float32, CmpOp::Eq, 0.1).kind == gl::KeyTest::Kind::Never);
  // x <= NaN holds for every float: a comparison with the NaN key, the largest key.
  CHECK(gfxq::literal_predicate(Type::Float32, CmpOp::Le, kNan) ==
        gl::KeyTest::compare(CmpOp::Le, gfxq::float_key(std::numeric_limits<float>::quiet_NaN())));
  CHECK(gfxq::float_key(std::numeric_limits<float>::quiet_NaN()) == 0xffc00000u);
  CHECK(gfxq::literal_predicate(Type::Float32, CmpOp::Eq, -0.0) ==
        gfxq::literal_predicate(Type::Float32, CmpOp::Eq, 0.0));
}

TEST_CASE("raster: folding with key ranges agrees with every key in the range") {
  std::mt19937_64 rng(13);
  for (int i = 0; i < 3000; ++i) {
    const uint32_t a = uint32_t(rng() % 64), b = uint32_t(rng() % 64);
    const gl::KeyRange range{std::min(a, b), std::max(a, b)};
    const gl::KeyTest test = gl::KeyTest::compare(kCmpOps[rng() % 6], uint32_t(rng() % 70));
    const gl::KeyTest folded = gl::fold(test, range);
    const uint32_t c = uint32_t(rng() % 64), e = uint32_t(rng() % 64);
    const gl::KeyRange other{std::min(c, e), std::max(c, e)};
    const gl::KeyTest pair = gl::fold_pair(test.op, range, other);
    CAPTURE(range.lo);
    CAPTURE(range.hi);
    CAPTURE(test.key);
    CAPTURE(gfxq::to_string(test.op));
    bool any_true = false, any_false = false;
    for (uint32_t k = range.lo; k <= range.hi; ++k) {
      const bool h = gfxq::evaluate(test, k);
      (h ? any_true : any_false) = true;
      if (folded.kind != gl::KeyTest::Kind::Compare) CHECK(h == (folded.kind == gl::KeyTest::Kind::Always));
      for (uint32_t j = other.lo; j <= other.hi; ++j)
        if (pair.kind != gl::KeyTest::Kind::Compare)
          CHECK(gfxq::holds(test.op, k < j ? -1 : (k > j ? 1 : 0)) == (pair.kind == gl::KeyTest::Kind::Always));
    }
    // Folding is complete: a comparison left to the GPU has both answers in the range.
    if (folded.kind == gl::KeyTest::Kind::Compare) CHECK((any_true && any_false));
  }
}

TEST_CASE("raster: floor-float keys and residues compare INT with FLOAT exactly") {
  std::mt19937_64 rng(14);
  const auto ints = int_values(rng);
  for (int32_t a : ints) {
    CAPTURE(a);
    const float f = gfxq::float_from_key(gl::floor_float_key(a));
    CHECK(double(f) <= double(a));
    CHECK(double(std::nextafter(f, kFloatInf)) > double(a));
    CHECK(int64_t(a) - int64_t(f) == int64_t(gl::floor_residue(a)));
    CHECK(gl::floor_residue(a) <= 255);
    if (a >= -(1 << 24) && a <= (1 << 24)) CHECK(gl::floor_residue(a) == 0);
  }
  const auto floats = float_values(rng);
  for (int32_t a : ints)
    for (float x : floats) {
      const uint32_t fa = gl::floor_float_key(a), fx = gl::cell_key(Type::Float32, std::bit_cast<uint32_t>(x));
      const uint32_t r = gl::floor_residue(a);
      const int lex = fa != fx ? (fa < fx ? -1 : 1) : (r > 0 ? 1 : 0);
      CAPTURE(a);
      CAPTURE(std::bit_cast<uint32_t>(x));
      REQUIRE(lex == gfxq::compare_total(double(a), double(x)));
    }
}

TEST_CASE("raster: lowered comparisons evaluate like the CPU on every row") {
  // Columns chosen to hit each encoding: a window (span < 2^24), exactly the largest window
  // (span 2^24 - 1), one past it (2 parts), full-range INT (2 parts, residue against FLOAT),
  // small and wide FLOAT.
  std::mt19937_64 rng(15);
  const uint32_t base = 0x80000000u - 12345;
  struct Spec {
    const char* name;
    Type type;
    std::vector<uint32_t> bits;
  };
  std::vector<Spec> columns = {{"w", Type::Int32, {}}, {"edge", Type::Int32, {}}, {"past", Type::Int32, {}},
                               {"a", Type::Int32, {}}, {"y", Type::Float32, {}},  {"x", Type::Float32, {}},
                               {"s", Type::Int32, {}}};
  const auto ints = int_values(rng);
  const auto floats = float_values(rng);
  const size_t rows = 300;
  for (size_t r = 0; r < rows; ++r) {
    columns[0].bits.push_back(std::bit_cast<uint32_t>(gfxq::int_from_key(base + uint32_t(rng() % 5000))));
    const uint32_t edge = r == 0 ? base : (r == 1 ? base + (1u << 24) - 1 : base + uint32_t(rng() % (1u << 24)));
    columns[1].bits.push_back(std::bit_cast<uint32_t>(gfxq::int_from_key(edge)));
    const uint32_t past = r == 0 ? base : (r == 1 ? base + (1u << 24) : base + uint32_t(rng() % (1u << 24)));
    columns[2].bits.push_back(std::bit_cast<uint32_t>(gfxq::int_from_key(past)));
    columns[3].bits.push_back(std::bit_cast<uint32_t>(ints[rng() % ints.size()]));
    columns[4].bits.push_back(std::bit_cast<uint32_t>(std::uniform_real_distribution<float>(1, 2)(rng)));
    columns[5].bits.push_back(std::bit_cast<uint32_t>(floats[rng() % floats.size()]));
    columns[6].bits.push_back(std::bit_cast<uint32_t>(int32_t(rng() % 2001) - 1000));
  }
  std::vector<gl::ColumnInfo> infos;
  std::vector<Type> types;
  for (const auto& c : columns) {
    infos.push_back(info_of(c.name, c.type, c.bits));
    types.push_back(c.type);
  }
  CHECK(std::get<gl::DepthCompare>(gl::lower_literal(1, infos[1], CmpOp::Lt, gfxq::int_from_key(base + 7)))
            .parts.size() == 1);
  CHECK(std::get<gl::DepthCompare>(gl::lower_literal(2, infos[2], CmpOp::Lt, gfxq::int_from_key(base + 7)))
            .parts.size() == 2);

  std::vector<uint32_t> row(columns.size());
  size_t by_parts[4] = {0, 0, 0, 0};  // lowered comparisons by number of parts (0: folded)
  for (int q = 0; q < 4000; ++q) {
    const size_t lhs = rng() % columns.size();
    const CmpOp op = kCmpOps[rng() % 6];
    const bool column_rhs = rng() % 3 == 0;
    const size_t rhs = rng() % columns.size();
    double literal = as_double(types[lhs], columns[lhs].bits[rng() % rows]);
    if (rng() % 3 == 0) literal += std::uniform_real_distribution<double>(-2, 2)(rng);
    if (rng() % 8 == 0) literal = std::bit_cast<double>(rng());
    const gl::Lowered lowered = column_rhs ? gl::lower_columns(lhs, infos[lhs], op, rhs, infos[rhs])
                                           : gl::lower_literal(lhs, infos[lhs], op, literal);
    const auto* lowered_compare = std::get_if<gl::DepthCompare>(&lowered);
    ++by_parts[lowered_compare ? lowered_compare->parts.size() : 0];
    CAPTURE(columns[lhs].name);
    CAPTURE(gfxq::to_string(op));
    CAPTURE(column_rhs ? columns[rhs].name : "");
    CAPTURE(literal);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < columns.size(); ++c) row[c] = columns[c].bits[r];
      const double l = as_double(types[lhs], row[lhs]);
      const double rv = column_rhs ? as_double(types[rhs], row[rhs]) : literal;
      CAPTURE(r);
      REQUIRE(evaluate(lowered, types, row) == cpu_holds(op, l, rv));
    }
  }
  MESSAGE("lowered comparisons by parts (0 = folded): " << by_parts[0] << ", " << by_parts[1] << ", " << by_parts[2]
                                                        << ", " << by_parts[3]);
  for (size_t n : by_parts) CHECK(n > 50);
}

TEST_CASE("raster: depth values k * 2^-24 are exact floats in order") {
  for (uint32_t k : {0u, 1u, 2u, 0x7fffffu, 0x800000u, 0x800001u, 0xfffffeu, 0xffffffu}) {
    const float d = gl::depth_of(k);
    CHECK(double(d) == std::ldexp(double(k), -24));
    CHECK(d < 1.0f);
    if (k > 0) CHECK(gl::depth_of(k - 1) < d);
  }
  CHECK(gl::depth_func(CmpOp::Lt) == GL_GREATER);  // stored < incoming  <=>  incoming > stored
  CHECK(gl::depth_func(CmpOp::Ge) == GL_LEQUAL);
  CHECK(gl::depth_func(CmpOp::Ne) == GL_NOTEQUAL);
}
