#version 450
// One pass of the bitonic network on (key, position) records, two per RGBA32UI texel: texel q holds
// records 2q (RG) and 2q + 1 (BA) (src/gl/sort.cpp). For the stage of block size k, a record i keeps
// the smaller of itself and its partner when (i < partner) == ((i & k) == 0), the larger otherwise;
// both records of a texel agree on (i & k) for k >= 4 and on (i < partner) for partner distances >= 2,
// so whole texels compare:
//   mode 0: step j >= 4: texel q against texel q XOR d (d = j / 2), record by record;
//   mode 1: step j = 2 (texel q against q XOR 1), then step j = 1 (the two records of the texel);
//   mode 2: step j = 1 alone (stage k = 2): the two records of the texel.
// Records compare lexicographically (positions differ, so there are no ties). The partner texel is
// fetched from the bound partner tile, which is the fragment's own tile when d is below the tile's
// texels. Used with fullscreen.vert.
// Inputs:
//   location 1: uint tile_base - texel index of the tile's pixel (0, 0)
//   location 2: uint log_width - log2 of the tile's width
//   location 3: uint tile_mask - texels per tile - 1 (a power of two - 1)
//   location 4: uint d - partner distance in texels (a power of two; modes 0 and 1)
//   location 5: uint k - size of the blocks this stage sorts, in records (a power of two)
//   location 6: uint mode - 0, 1 or 2 as above
//   location 8, binding 0: usampler2D self_tile - the fragment's tile, RGBA32UI
//   location 9, binding 1: usampler2D partner_tile - the partner's tile, RGBA32UI
// Output: location 0, uvec4 (key, position, key, position) into an RGBA32UI target.
layout(location = 1) uniform uint tile_base;
layout(location = 2) uniform uint log_width;
layout(location = 3) uniform uint tile_mask;
layout(location = 4) uniform uint d;
layout(location = 5) uniform uint k;
layout(location = 6) uniform uint mode;
layout(location = 8, binding = 0) uniform usampler2D self_tile;
layout(location = 9, binding = 1) uniform usampler2D partner_tile;
layout(location = 0) out uvec4 record;

bool less(uvec2 a, uvec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }

void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  uint q = tile_base + ((p.y << log_width) | p.x);
  bool up = ((2u * q) & k) == 0u;  // this block sorts ascending
  uvec4 a = texelFetch(self_tile, ivec2(p), 0);
  uvec2 r0 = a.xy, r1 = a.zw;
  if (mode != 2u) {
    uint partner = q ^ d;
    uint local = partner & tile_mask;
    uint width_mask = (1u << log_width) - 1u;
    uvec4 b = texelFetch(partner_tile, ivec2(local & width_mask, local >> log_width), 0);
    bool keep_min = (q < partner) == up;
    r0 = less(a.xy, b.xy) == keep_min ? a.xy : b.xy;
    r1 = less(a.zw, b.zw) == keep_min ? a.zw : b.zw;
  }
  if (mode != 0u && less(r0, r1) != up) {
    uvec2 t = r0;
    r0 = r1;
    r1 = t;
  }
  record = uvec4(r0, r1);
}
