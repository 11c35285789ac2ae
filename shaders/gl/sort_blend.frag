#version 450
// One half of a comparator step (k, j) of the bitonic network by blending (src/gl/sort.cpp): the
// target already holds a copy of the keys; this draw outputs each fragment's partner key (index
// i XOR j, in the bound partner tile) for the fragments of one class and discards the others.
// The lower class (keep the min: (i < partner) == ((i & k) == 0)) is drawn with
// glBlendEquation(GL_MIN), the upper class with GL_MAX, so each position ends with min or max of
// itself and its partner. Keys are normal floats (or +inf padding): min/max are exact.
// Used with fullscreen.vert.
// Inputs:
//   locations 1-5 as sort_pairs.frag (tile_base, log_width, tile_mask, j, k)
//   location 6: uint lower - 1: draw the keep-min class, 0: the keep-max class
//   location 9, binding 1: sampler2D partner_tile - the partner's tile, R32F
// Output: location 0, float into an R32F target.
layout(location = 1) uniform uint tile_base;
layout(location = 2) uniform uint log_width;
layout(location = 3) uniform uint tile_mask;
layout(location = 4) uniform uint j;
layout(location = 5) uniform uint k;
layout(location = 6) uniform uint lower;
layout(location = 9, binding = 1) uniform sampler2D partner_tile;
layout(location = 0) out float value;

void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  uint i = tile_base + ((p.y << log_width) | p.x);
  uint partner = i ^ j;
  bool keep_min = (i < partner) == ((i & k) == 0u);
  if (keep_min != (lower != 0u)) discard;
  uint local = partner & tile_mask;
  uint width_mask = (1u << log_width) - 1u;
  value = texelFetch(partner_tile, ivec2(local & width_mask, local >> log_width), 0).r;
}
