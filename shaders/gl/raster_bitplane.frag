#version 450
// One bit plane of an INT column (src/gl/aggregate.cpp, SUM/AVG): keeps the fragments of the
// records whose bit `bit` of the raw two's-complement value is set, discards the others, so an
// occlusion query under the selection's stencil test counts the selected records with that bit.
// Used with fullscreen.vert (its `depth`, location 0, is unused here). No outputs.
// Inputs:
//   location 1: uint bit - the bit, 0..31
//   location 4, binding 0: usampler2D column - the tile's cells as raw bits, R32UI; pixel (x, y)
//                          holds the tile's record y * width + x
layout(location = 1) uniform uint bit;
layout(location = 4, binding = 0) uniform usampler2D column;

void main() {
  uint bits = texelFetch(column, ivec2(gl_FragCoord.xy), 0).r;
  if (((bits >> bit) & 1u) == 0u) discard;
}
