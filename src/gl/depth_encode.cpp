#include "gl/depth_encode.h"

#include <algorithm>
#include <cstdio>

#include "core/trace_text.h"

namespace gfxq::gl {

namespace {

constexpr uint32_t kWindow = 1u << 24;  // values a single depth part holds exactly

// The modes that give a side's window value and its two 16-bit halves.
struct KeyModes {
  ValueMode window, high, low;
};
constexpr KeyModes kKeyModes{ValueMode::Window, ValueMode::High16, ValueMode::Low16};
constexpr KeyModes kFloorModes{ValueMode::FloorWindow, ValueMode::FloorHigh16, ValueMode::FloorLow16};

// The key parts of `stored op incoming` where every key involved (the stored column's, the
// incoming column's or constant) lies in `span`: one window part if it is narrow enough, else
// hi16 + lo16. The incoming side is a column slot or a constant key.
DepthCompare key_parts(CmpOp op, size_t stored_slot, const KeyModes& stored_modes, const KeyRange& span,
                       const std::variant<size_t, uint32_t>& incoming) {
  DepthCompare c;
  c.op = op;
  const auto* constant = std::get_if<uint32_t>(&incoming);
  const auto incoming_value = [&](ValueMode mode, uint32_t base, uint32_t shift, uint32_t mask) -> Incoming {
    if (constant) return ((*constant - base) >> shift) & mask;
    return ColumnValue{std::get<size_t>(incoming), mode, base};
  };
  if (span.span() < kWindow) {
    c.parts.push_back({ColumnValue{stored_slot, stored_modes.window, span.lo},
                       incoming_value(ValueMode::Window, span.lo, 0, kWindow - 1)});
    c.encoding = "24-bit window (keys - " + hex8(span.lo) + ", 1 pass)";
  } else {
    c.parts.push_back(
        {ColumnValue{stored_slot, stored_modes.high, 0}, incoming_value(ValueMode::High16, 0, 16, 0xffff)});
    c.parts.push_back({ColumnValue{stored_slot, stored_modes.low, 0}, incoming_value(ValueMode::Low16, 0, 0, 0xffff)});
    c.encoding = "32-bit keys (hi16 + lo16, 2 passes)";
  }
  return c;
}

KeyRange hull(const KeyRange& a, const KeyRange& b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

}  // namespace

Lowered lower_literal(size_t slot, const ColumnInfo& info, CmpOp op, double literal) {
  const KeyTest test = fold(literal_predicate(info.type, op, literal), info.keys);
  if (test.kind != KeyTest::Kind::Compare) return test.kind == KeyTest::Kind::Always;
  // Not folded, so the constant lies inside the column's key range.
  return key_parts(test.op, slot, kKeyModes, info.keys, test.key);
}

Lowered lower_columns(size_t lhs_slot, const ColumnInfo& lhs, CmpOp op, size_t rhs_slot, const ColumnInfo& rhs) {
  if (lhs_slot == rhs_slot) return op == CmpOp::Eq || op == CmpOp::Le || op == CmpOp::Ge;  // v op v
  if (lhs.type == rhs.type) {
    const KeyTest folded = fold_pair(op, lhs.keys, rhs.keys);
    if (folded.kind != KeyTest::Kind::Compare) return folded.kind == KeyTest::Kind::Always;
    return key_parts(op, lhs_slot, kKeyModes, hull(lhs.keys, rhs.keys), rhs_slot);
  }
  // INT vs FLOAT, as doubles. With F = the largest float <= a (monotone in a) and r = a - F >= 0:
  // F < x implies a < x, F > x implies a > x, and F == x leaves a - x = r; so a op x is
  // (floor_float_key(a), r) op (float_key(x), 0) lexicographically.
  const bool int_left = lhs.type == Type::Int32;
  const ColumnInfo& a = int_left ? lhs : rhs;
  const ColumnInfo& x = int_left ? rhs : lhs;
  const size_t a_slot = int_left ? lhs_slot : rhs_slot;
  const size_t x_slot = int_left ? rhs_slot : lhs_slot;
  const CmpOp a_op = int_left ? op : flip(op);
  const KeyRange floor_keys{floor_float_key(a.min_int), floor_float_key(a.max_int)};
  const bool residue = a.min_int < -(1 << 24) || a.max_int > (1 << 24);  // some INT is not a float
  const bool disjoint = floor_keys.hi < x.keys.lo || x.keys.hi < floor_keys.lo;
  if (!residue || disjoint) {
    // Without a residue the floor keys are the values' keys; disjoint ranges never tie.
    const KeyTest folded = fold_pair(a_op, floor_keys, x.keys);
    if (folded.kind != KeyTest::Kind::Compare) return folded.kind == KeyTest::Kind::Always;
  }
  DepthCompare c = key_parts(a_op, a_slot, kFloorModes, hull(floor_keys, x.keys), x_slot);
  c.encoding = "INT vs FLOAT as floor-float keys: " + c.encoding;
  if (residue) {
    c.parts.push_back({ColumnValue{a_slot, ValueMode::Residue, 0}, uint32_t{0}});
    c.encoding += " + residue (1 pass)";
  }
  return c;
}

float depth_of(uint32_t v) noexcept {
  return static_cast<float>(v) * 0x1p-24f;
}

GLenum depth_func(CmpOp op) noexcept {
  // stored op incoming  <=>  incoming flip(op) stored
  switch (op) {
    case CmpOp::Lt: return GL_GREATER;
    case CmpOp::Le: return GL_GEQUAL;
    case CmpOp::Gt: return GL_LESS;
    case CmpOp::Ge: return GL_LEQUAL;
    case CmpOp::Eq: return GL_EQUAL;
    case CmpOp::Ne: return GL_NOTEQUAL;
  }
  return GL_NEVER;
}

const char* func_name(GLenum func) noexcept {
  switch (func) {
    case GL_NEVER: return "GL_NEVER";
    case GL_LESS: return "GL_LESS";
    case GL_LEQUAL: return "GL_LEQUAL";
    case GL_GREATER: return "GL_GREATER";
    case GL_GEQUAL: return "GL_GEQUAL";
    case GL_EQUAL: return "GL_EQUAL";
    case GL_NOTEQUAL: return "GL_NOTEQUAL";
    case GL_ALWAYS: return "GL_ALWAYS";
    default: return "GL_?";
  }
}

std::string describe(const ColumnValue& value, const ColumnInfo& info) {
  const std::string key = "key(" + info.name + ")";
  const std::string floor_key = "floor-float key(" + info.name + ")";
  switch (value.mode) {
    case ValueMode::Window: return key + " - " + hex8(value.base);
    case ValueMode::High16: return key + " >> 16";
    case ValueMode::Low16: return key + " & 0xffff";
    case ValueMode::FloorWindow: return floor_key + " - " + hex8(value.base);
    case ValueMode::FloorHigh16: return floor_key + " >> 16";
    case ValueMode::FloorLow16: return floor_key + " & 0xffff";
    case ValueMode::Residue: return info.name + " - floor-float(" + info.name + ")";
  }
  return "?";
}

}  // namespace gfxq::gl
