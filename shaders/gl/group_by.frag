#version 450
// GROUP BY by blending (src/gl/group_by.cpp): the channels of one record, written to up to 8
// RGBA32F attachments of the group target at its group's pixel, where blending adds them
// (GL_FUNC_ADD: counts of bits) or keeps their minimum or maximum (GL_MIN / GL_MAX: parts of
// order keys). Every channel value is an integer below 2^24 (or a neutral value), exact in float32.
// Channel c goes to attachment c / 4, component c % 4; channels[c] = (kind, value, a, b) with
// `value` the index into vals (the record's value columns' raw bits, from group_by.vert):
//   0 zero (an unused component)
//   1 one (COUNT)
//   2 bit b of (bits - a) as unsigned: bit planes of an INT column above its minimum a (SUM)
//   3 bit b of the exact fixed point M << s of a FLOAT of sign a (1: negative), 0 for zeros,
//     infinities and NaN (SUM of FLOAT, as raster_float_plane.frag)
//   4 non-finite FLOAT: a = 0 NaN, 1 +inf, 2 -inf (SUM of FLOAT)
//   5 the order key's high 24 bits, key >> 8 (a = 1: FLOAT column) (MIN/MAX, first round)
//   6 the order key's low 8 bits where its high 24 bits equal the group's minimum (layer b of
//     `high`), else 256, above every low part (MIN, second round)
//   7 as 6 where the high bits equal the group's maximum, else -1 (MAX, second round)
// Inputs:
//   location 33: uint channel_count - channels used (1..32)
//   locations 34-65: uvec4 channels[32]
//   location 66, binding 13: usampler2DArray high - per group (pixel) and MIN/MAX aggregate
//                            (layer) the high 24 bits of its result (second round)
layout(location = 33) uniform uint channel_count;
layout(location = 34) uniform uvec4 channels[32];
layout(location = 66, binding = 13) uniform usampler2DArray high;

layout(location = 0) flat in uint vals[8];

layout(location = 0) out vec4 out0;
layout(location = 1) out vec4 out1;
layout(location = 2) out vec4 out2;
layout(location = 3) out vec4 out3;
layout(location = 4) out vec4 out4;
layout(location = 5) out vec4 out5;
layout(location = 6) out vec4 out6;
layout(location = 7) out vec4 out7;

uint int_key(uint bits) { return bits ^ 0x80000000u; }

uint float_key(uint bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u) bits = 0x7fc00000u;
  if (bits == 0x80000000u) bits = 0u;
  return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

float channel(uvec4 c, uint bits) {
  switch (c.x) {
    case 1u: return 1.0;
    case 2u: return float(((bits - c.z) >> c.w) & 1u);
    case 3u: {
      uint e = (bits >> 23) & 0xffu;
      if (e == 0xffu || (bits >> 31) != c.z) return 0.0;
      uint m = (bits & 0x7fffffu) | (e != 0u ? 0x800000u : 0u);
      uint s = max(e, 1u) - 1u;
      return (c.w < s || c.w > s + 23u) ? 0.0 : float((m >> (c.w - s)) & 1u);
    }
    case 4u: {
      bool nan = (bits & 0x7fffffffu) > 0x7f800000u;
      return float(c.z == 0u ? nan : bits == (c.z == 1u ? 0x7f800000u : 0xff800000u));
    }
    case 5u: return float((c.z != 0u ? float_key(bits) : int_key(bits)) >> 8);
    case 6u:
    case 7u: {
      uint key = c.z != 0u ? float_key(bits) : int_key(bits);
      uint top = texelFetch(high, ivec3(ivec2(gl_FragCoord.xy), int(c.w)), 0).r;
      if ((key >> 8) == top) return float(key & 0xffu);
      return c.x == 6u ? 256.0 : -1.0;
    }
  }
  return 0.0;
}

void main() {
  uint v[8] = vals;
  float o[32];
  for (uint i = 0u; i < 32u; ++i) o[i] = i < channel_count ? channel(channels[i], v[channels[i].y]) : 0.0;
  out0 = vec4(o[0], o[1], o[2], o[3]);
  out1 = vec4(o[4], o[5], o[6], o[7]);
  out2 = vec4(o[8], o[9], o[10], o[11]);
  out3 = vec4(o[12], o[13], o[14], o[15]);
  out4 = vec4(o[16], o[17], o[18], o[19]);
  out5 = vec4(o[20], o[21], o[22], o[23]);
  out6 = vec4(o[24], o[25], o[26], o[27]);
  out7 = vec4(o[28], o[29], o[30], o[31]);
}
