#version 450
// Builds the keys of one sort tile from one column tile for the blending network (src/gl/sort.cpp):
// the fragment of sort index i writes the (key - kmin)-th normal float for a record i < count that
// lies in the bound column tile (key: core/order_key.h's, ~key for a descending sort), discards
// records of other column tiles, and writes +inf (above every normal float) for i >= count.
// Used with fullscreen.vert.
// Inputs: locations 1-8 as sort_init_pairs.frag, and
//   location 9: uint kmin - the smallest key (after the direction is applied)
// Output: location 0, float into an R32F target.
layout(location = 1) uniform uint tile_base;
layout(location = 2) uniform uint log_width;
layout(location = 3) uniform uint count;
layout(location = 4) uniform uint column_first;
layout(location = 5) uniform uint column_records;
layout(location = 6) uniform uint column_width;
layout(location = 7) uniform uint flags;
layout(location = 8, binding = 0) uniform usampler2D column;
layout(location = 9) uniform uint kmin;
layout(location = 0) out float value;

uint int_key(uint bits) { return bits ^ 0x80000000u; }

uint float_key(uint bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u) bits = 0x7fc00000u;
  if (bits == 0x80000000u) bits = 0u;
  return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

// sort.h's normal_float_bits: the index-th normal float in increasing order (index < 2^32 - 2^25).
uint normal_float_bits(uint index) {
  const uint negatives = 0x7f000000u;  // normal floats of one sign: 2^31 - 2^24
  return index < negatives ? 0xff7fffffu - index : 0x00800000u + (index - negatives);
}

void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  uint i = tile_base + ((p.y << log_width) | p.x);
  if (i >= count) {
    value = uintBitsToFloat(0x7f800000u);
    return;
  }
  if (i < column_first || i - column_first >= column_records) discard;
  uint r = i - column_first;
  uint bits = texelFetch(column, ivec2(r % column_width, r / column_width), 0).r;
  uint key = (flags & 1u) != 0u ? float_key(bits) : int_key(bits);
  if ((flags & 2u) != 0u) key = ~key;
  value = uintBitsToFloat(normal_float_bits(key - kmin));
}
