#version 450
// GROUP BY by blending (src/gl/group_by.cpp): one point per record of an input tile, drawn with
// glDrawArrays(GL_POINTS, first, count) and no vertex buffer (gl_VertexID is the record's index
// in the tile), at the pixel of its group in the group target: group g is pixel
// (g mod target.x, g / target.x). A record the selection rejects, or whose group id is
// 0xffffffff, is moved outside the clip volume, so its point is clipped and draws nothing.
// The raw bits of up to 8 value columns go to group_by.frag, which turns them into channels.
// Inputs:
//   location 0: uint tile_width - pixels per row of the input tiles (record r at (r mod w, r / w))
//   location 1: uint id_mode - 0: the group id from the key columns, sum over i of
//               (order key_i - key_lo[i]) * key_stride[i]; 1: from the id texture keys[0] (R32UI)
//   location 2: uint key_count - key columns read in mode 0 (1..4)
//   location 3: uint sel_mode - 0: every record; 1: records whose selection texel & sel_mask
//               equals sel_state (a kept stencil sampled as GL_STENCIL_INDEX, or an R8UI mask)
//   location 4: uint sel_mask
//   location 5: uint sel_state
//   location 6: uint value_count - value columns read (0..8)
//   location 7: uvec2 target - the group target's width and height in pixels
//   locations 8-11: uint key_float[4] - 1: key column i is FLOAT (float_key), 0: INT (int_key)
//   locations 12-15: uint key_lo[4] - the smallest order key of key column i
//   locations 16-19: uint key_stride[4] - the id weight of key column i
//   locations 20-23, bindings 0-3: usampler2D key0..key3 - key columns (mode 0) or the ids (mode 1, key0)
//   location 24, binding 4: usampler2D selection - the tile's selection (sel_mode 1)
//   locations 25-32, bindings 5-12: usampler2D value0..value7 - value columns, raw bits
// (Single samplers, not arrays: llvmpipe read zeros from a second sampler array's elements.)
// Outputs: location 0: flat uint vals[8] - the value columns' raw bits.
layout(location = 0) uniform uint tile_width;
layout(location = 1) uniform uint id_mode;
layout(location = 2) uniform uint key_count;
layout(location = 3) uniform uint sel_mode;
layout(location = 4) uniform uint sel_mask;
layout(location = 5) uniform uint sel_state;
layout(location = 6) uniform uint value_count;
layout(location = 7) uniform uvec2 target;
layout(location = 8) uniform uint key_float[4];
layout(location = 12) uniform uint key_lo[4];
layout(location = 16) uniform uint key_stride[4];
layout(location = 20, binding = 0) uniform usampler2D key0;
layout(location = 21, binding = 1) uniform usampler2D key1;
layout(location = 22, binding = 2) uniform usampler2D key2;
layout(location = 23, binding = 3) uniform usampler2D key3;
layout(location = 24, binding = 4) uniform usampler2D selection;
layout(location = 25, binding = 5) uniform usampler2D value0;
layout(location = 26, binding = 6) uniform usampler2D value1;
layout(location = 27, binding = 7) uniform usampler2D value2;
layout(location = 28, binding = 8) uniform usampler2D value3;
layout(location = 29, binding = 9) uniform usampler2D value4;
layout(location = 30, binding = 10) uniform usampler2D value5;
layout(location = 31, binding = 11) uniform usampler2D value6;
layout(location = 32, binding = 12) uniform usampler2D value7;

layout(location = 0) flat out uint vals[8];

// core/order_key.h's int_key: unsigned order = int32 order.
uint int_key(uint bits) { return bits ^ 0x80000000u; }

// core/order_key.h's float_key of the canonical value (-0.0 as +0.0, every NaN as the quiet NaN).
uint float_key(uint bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u) bits = 0x7fc00000u;
  if (bits == 0x80000000u) bits = 0u;
  return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

uint key_bits(uint i, ivec2 p) {
  switch (i) {
    case 0u: return texelFetch(key0, p, 0).r;
    case 1u: return texelFetch(key1, p, 0).r;
    case 2u: return texelFetch(key2, p, 0).r;
  }
  return texelFetch(key3, p, 0).r;
}

const vec4 kClipped = vec4(2.0, 2.0, 2.0, 1.0);  // outside the clip volume: the point is discarded

void main() {
  uint r = uint(gl_VertexID);
  ivec2 p = ivec2(r % tile_width, r / tile_width);
  for (int i = 0; i < 8; ++i) vals[i] = 0u;
  if (sel_mode != 0u && (texelFetch(selection, p, 0).r & sel_mask) != sel_state) {
    gl_Position = kClipped;
    return;
  }
  uint id = 0u;
  if (id_mode == 0u) {
    for (uint i = 0u; i < key_count; ++i) {
      uint bits = key_bits(i, p);
      uint key = key_float[i] != 0u ? float_key(bits) : int_key(bits);
      id += (key - key_lo[i]) * key_stride[i];
    }
  } else {
    id = texelFetch(key0, p, 0).r;
    if (id == 0xffffffffu) {
      gl_Position = kClipped;
      return;
    }
  }
  if (value_count > 0u) vals[0] = texelFetch(value0, p, 0).r;
  if (value_count > 1u) vals[1] = texelFetch(value1, p, 0).r;
  if (value_count > 2u) vals[2] = texelFetch(value2, p, 0).r;
  if (value_count > 3u) vals[3] = texelFetch(value3, p, 0).r;
  if (value_count > 4u) vals[4] = texelFetch(value4, p, 0).r;
  if (value_count > 5u) vals[5] = texelFetch(value5, p, 0).r;
  if (value_count > 6u) vals[6] = texelFetch(value6, p, 0).r;
  if (value_count > 7u) vals[7] = texelFetch(value7, p, 0).r;
  // The pixel centre (x + 0.5, y + 0.5) in normalised device coordinates; a one-pixel point
  // there covers exactly that pixel.
  vec2 centre = (vec2(id % target.x, id / target.x) + 0.5) / vec2(target) * 2.0 - 1.0;
  gl_Position = vec4(centre, 0.0, 1.0);
}
