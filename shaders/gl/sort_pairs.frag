#version 450
// One comparator step (k, j) of the bitonic network on (key, position) records (src/gl/sort.cpp).
// The fragment of sort index i fetches its record and its partner's, index i XOR j (in the bound
// partner tile, which is the fragment's own tile when j is below the tile's records), compares them
// lexicographically (positions differ, so there are no ties) and keeps the smaller one when
// (i < partner) == ((i & k) == 0), the larger one otherwise: blocks of k sort ascending and
// descending alternately, so each step of stage k merges bitonic sequences. Used with fullscreen.vert.
// Inputs:
//   location 1: uint tile_base - sort index of the tile's pixel (0, 0)
//   location 2: uint log_width - log2 of the tile's width
//   location 3: uint tile_mask - records per tile - 1 (a power of two - 1)
//   location 4: uint j - partner distance (a power of two)
//   location 5: uint k - size of the blocks this stage sorts (a power of two, > j)
//   location 8, binding 0: usampler2D self_tile - the fragment's tile, RG32UI
//   location 9, binding 1: usampler2D partner_tile - the partner's tile, RG32UI
// Output: location 0, uvec4 (key, position) into an RG32UI target.
layout(location = 1) uniform uint tile_base;
layout(location = 2) uniform uint log_width;
layout(location = 3) uniform uint tile_mask;
layout(location = 4) uniform uint j;
layout(location = 5) uniform uint k;
layout(location = 8, binding = 0) uniform usampler2D self_tile;
layout(location = 9, binding = 1) uniform usampler2D partner_tile;
layout(location = 0) out uvec4 record;

void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  uint i = tile_base + ((p.y << log_width) | p.x);
  uint partner = i ^ j;
  uint local = partner & tile_mask;
  uint width_mask = (1u << log_width) - 1u;
  uvec2 a = texelFetch(self_tile, ivec2(p), 0).rg;
  uvec2 b = texelFetch(partner_tile, ivec2(local & width_mask, local >> log_width), 0).rg;
  bool a_less = a.x < b.x || (a.x == b.x && a.y < b.y);
  bool keep_min = (i < partner) == ((i & k) == 0u);
  record = uvec4(a_less == keep_min ? a : b, 0u, 0u);
}
