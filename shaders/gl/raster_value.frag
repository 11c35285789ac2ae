#version 450
// Writes a 24-bit value v derived from each record's cell as depth: gl_FragDepth = v * 2^-24,
// exact in float32 (v < 2^24), so a GL_DEPTH32F_STENCIL8 buffer holds v exactly and depth tests
// compare v exactly. Used with fullscreen.vert (its `depth`, location 0, is unused here).
// Inputs:
//   location 4, binding 0: usampler2D column - the tile's cells as raw bits (int32 or float32), R32UI;
//                          pixel (x, y) holds the tile's record y * width + x
//   location 1: uint mode - how v is derived (src/gl/depth_encode.h, ValueMode):
//     0 key - base, 1 key >> 16, 2 key & 0xffff (key: the cell's order key),
//     3 fkey - base, 4 fkey >> 16, 5 fkey & 0xffff (fkey: float key of the largest float <= the INT cell),
//     6 the INT cell minus that float (0..255)
//   location 2: uint is_float - 1: the column is FLOAT (key = float_key), 0: INT (key = int_key)
//   location 3: uint base - subtracted in modes 0 and 3
layout(location = 1) uniform uint mode;
layout(location = 2) uniform uint is_float;
layout(location = 3) uniform uint base;
layout(location = 4, binding = 0) uniform usampler2D column;

// core/order_key.h's int_key: unsigned order = int32 order.
uint int_key(uint bits) { return bits ^ 0x80000000u; }

// core/order_key.h's float_key of the canonical value: -0.0 as +0.0, every NaN as the quiet NaN,
// so unsigned order = gfxq's total order of floats.
uint float_key(uint bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u) bits = 0x7fc00000u;
  if (bits == 0x80000000u) bits = 0u;
  return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

// The largest float <= the int32 `bits` (key_compare.cpp's floor_float): keep the top 24
// significant bits of |a|, rounding the magnitude down for a >= 0 and up for a < 0. The rounded
// magnitude is on the float grid, so float() converts it exactly. Returns its float key and
// a minus that float in `residue`.
uint floor_float_key(uint bits, out uint residue) {
  bool negative = (bits & 0x80000000u) != 0u;
  uint m = negative ? 0u - bits : bits;  // |a| in [0, 2^31]
  int width = findMSB(m) + 1;            // 0 for m == 0
  uint low = width > 24 ? (1u << uint(width - 24)) - 1u : 0u;
  uint rounded = negative ? (m + low) & ~low : m & ~low;
  residue = negative ? rounded - m : m & low;
  float f = negative ? -float(rounded) : float(rounded);
  return float_key(floatBitsToUint(f));
}

void main() {
  uint bits = texelFetch(column, ivec2(gl_FragCoord.xy), 0).r;
  uint v;
  if (mode < 3u) {
    uint key = is_float != 0u ? float_key(bits) : int_key(bits);
    v = mode == 0u ? key - base : (mode == 1u ? key >> 16 : key & 0xffffu);
  } else {
    uint residue;
    uint key = floor_float_key(bits, residue);
    v = mode == 3u ? key - base : (mode == 4u ? key >> 16 : (mode == 5u ? key & 0xffffu : residue));
  }
  gl_FragDepth = float(v) * exp2(-24.0);
}
