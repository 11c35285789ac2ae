#version 450
// Builds the sort records of one sort tile from one column tile (src/gl/sort.cpp, pair network).
// Texel q holds records 2q (RG) and 2q + 1 (BA); one draw writes record i = 2q + which of every texel
// (the other half is masked by glColorMask): (order key, i) for a record i < count that lies in the
// bound column tile, nothing for records of other column tiles (discarded: another draw writes
// them), and the padding record (0xffffffff, i) for i >= count, which sorts after every real
// record. Keys are core/order_key.h's, inverted (~key) for a descending sort. Used with fullscreen.vert.
// Inputs:
//   location 1: uint tile_base - texel index of the sort tile's pixel (0, 0)
//   location 2: uint log_width - log2 of the sort tile's width (pixel (x, y) is texel y * width + x)
//   location 3: uint count - real records
//   location 4: uint column_first - first record of the bound column tile
//   location 5: uint column_records - records in the bound column tile
//   location 6: uint column_width - the column tile's width in pixels
//   location 7: uint flags - bit 0: the column is FLOAT, bit 1: descending
//   location 8, binding 0: usampler2D column - the column tile's cells as raw bits, R32UI
//   location 10: uint which - which record of the texel this draw writes (0 or 1)
// Output: location 0, uvec4 (key, index, key, index) into an RGBA32UI target (one half masked).
layout(location = 1) uniform uint tile_base;
layout(location = 2) uniform uint log_width;
layout(location = 3) uniform uint count;
layout(location = 4) uniform uint column_first;
layout(location = 5) uniform uint column_records;
layout(location = 6) uniform uint column_width;
layout(location = 7) uniform uint flags;
layout(location = 8, binding = 0) uniform usampler2D column;
layout(location = 10) uniform uint which;
layout(location = 0) out uvec4 record;

// core/order_key.h's int_key: unsigned order = int32 order.
uint int_key(uint bits) { return bits ^ 0x80000000u; }

// core/order_key.h's float_key of the canonical value (-0.0 as +0.0, every NaN as the quiet NaN).
uint float_key(uint bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u) bits = 0x7fc00000u;
  if (bits == 0x80000000u) bits = 0u;
  return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  uint i = 2u * (tile_base + ((p.y << log_width) | p.x)) + which;
  if (i >= count) {
    record = uvec4(0xffffffffu, i, 0xffffffffu, i);
    return;
  }
  if (i < column_first || i - column_first >= column_records) discard;
  uint r = i - column_first;
  uint bits = texelFetch(column, ivec2(r % column_width, r / column_width), 0).r;
  uint key = (flags & 1u) != 0u ? float_key(bits) : int_key(bits);
  if ((flags & 2u) != 0u) key = ~key;
  record = uvec4(key, i, key, i);
}
