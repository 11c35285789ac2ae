#pragma once
// Depth encodings of the raster path. Every depth value gfxq writes is v * 2^-24 for an integer
// v < 2^24: exact in float32, so exact in a GL_DEPTH32F_STENCIL8 buffer with glClipControl's
// zero-to-one depth, and exactly ordered as v. A comparison of 32-bit order keys is lowered to
// one to three such 24-bit "parts" compared lexicographically:
//   - 24-bit window: when every key involved lies in [base, base + 2^24), one part: key - base;
//   - 32-bit keys: two parts, key >> 16 then key & 0xffff;
//   - INT against FLOAT: the INT side's floor-float key (key_compare.h) in either form above, then
//     a third part, the INT cell minus that float (0..255) against 0, when some |INT| > 2^24.
// Each part has a stored side (copied into the depth buffer from a column) and an incoming side
// (a constant depth, or a column's values written as fragment depth) that the depth test
// compares with it.

#include <glad/gl.h>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "gfxq/query.h"
#include "gl/key_compare.h"
#include "gl/texture_store.h"

namespace gfxq::gl {

//! How raster_value.frag derives its 24-bit value from a cell (mirrors the shader's `mode`).
enum class ValueMode : uint32_t {
  Window = 0,       //!< key - base, the keys involved spanning less than 2^24
  High16 = 1,       //!< key >> 16
  Low16 = 2,        //!< key & 0xffff
  FloorWindow = 3,  //!< floor_float_key(cell) - base (INT cells compared with FLOAT)
  FloorHigh16 = 4,  //!< floor_float_key(cell) >> 16
  FloorLow16 = 5,   //!< floor_float_key(cell) & 0xffff
  Residue = 6,      //!< floor_residue(cell), 0..255
};

//! Per-pixel values: `mode` applied to the cells of the column in TextureStore slot `slot`.
struct ColumnValue {
  size_t slot = 0;                     //!< TextureStore slot of the column
  ValueMode mode = ValueMode::Window;  //!< how the value is derived
  uint32_t base = 0;                   //!< subtracted key (window modes)
  bool operator==(const ColumnValue&) const = default;
};

//! The incoming side of a part: a column's values per pixel, or one constant value.
using Incoming = std::variant<ColumnValue, uint32_t>;

//! One 24-bit step of a lexicographic comparison.
struct Part {
  ColumnValue stored;  //!< copied into the depth buffer
  Incoming incoming;   //!< drawn against it with the depth test
};

//! A comparison lowered to depth tests: lex(stored parts) op lex(incoming parts).
struct DepthCompare {
  CmpOp op = CmpOp::Eq;     //!< the comparison, stored side first
  std::vector<Part> parts;  //!< 1 to 3 parts, most significant first
  std::string encoding;     //!< e.g. "24-bit window", "32-bit keys hi16+lo16"
};

//! A lowered comparison, or the truth value it has for every row.
using Lowered = std::variant<bool, DepthCompare>;

//! Lowers `column op literal` (column in slot `slot`, described by `info`): folds it with the
//! column's key range, then picks the window (1 part) or 32-bit keys (2 parts).
Lowered lower_literal(size_t slot, const ColumnInfo& info, CmpOp op, double literal);
//! Lowers `lhs op rhs` of two columns (slots and infos). Same type: their keys, in one window
//! when both fit, else hi16+lo16. INT vs FLOAT: floor-float keys of the INT side (+ residue).
//! The same column on both sides is a truth value.
Lowered lower_columns(size_t lhs_slot, const ColumnInfo& lhs, CmpOp op, size_t rhs_slot, const ColumnInfo& rhs);

//! The depth value of v < 2^24: v * 2^-24, exact in float32.
float depth_of(uint32_t v) noexcept;
//! The depth function that passes iff `stored op incoming` (GL tests incoming FUNC stored).
GLenum depth_func(CmpOp op) noexcept;
//! "GL_LESS" etc.
const char* func_name(GLenum func) noexcept;
//! "key(x) >> 16", "floor-float key(a) - 0x80000000", ... for pass details.
std::string describe(const ColumnValue& value, const ColumnInfo& info);

}  // namespace gfxq::gl
