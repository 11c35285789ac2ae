#version 450
// One bit plane of a FLOAT column's exact fixed point (src/gl/aggregate.cpp, SUM/AVG of FLOAT):
// a finite float32 is +-M * 2^s units of 2^-149 with M = the significand (hidden bit included
// for normals, so M < 2^24) and s = max(biased exponent, 1) - 1 (0 .. 253). Keeps the fragments
// of the records of sign `negative` whose bit `bit` of X = M << s is set, discards the others
// (zeros, infinities and NaN always), so an occlusion query under the selection's stencil test
// counts the selected records with that bit. Used with fullscreen.vert (its `depth`, location 0,
// is unused here). No outputs.
// Inputs:
//   location 1: uint bit - the fixed-point bit q, 0..276
//   location 2: uint negative - 1: count values < 0, 0: values > 0
//   location 4, binding 0: usampler2D column - the tile's cells as raw float32 bits, R32UI
layout(location = 1) uniform uint bit;
layout(location = 2) uniform uint negative;
layout(location = 4, binding = 0) uniform usampler2D column;

void main() {
  uint bits = texelFetch(column, ivec2(gl_FragCoord.xy), 0).r;
  uint e = (bits >> 23) & 0xffu;
  if (e == 0xffu || (bits >> 31) != negative) discard;
  uint m = (bits & 0x7fffffu) | (e != 0u ? 0x800000u : 0u);
  uint s = max(e, 1u) - 1u;
  if (bit < s || bit > s + 23u || ((m >> (bit - s)) & 1u) == 0u) discard;
}
