#version 450
// One pass of the bitonic network on (key, position) records, two per RGBA32UI texel: texel q holds
// records 2q (RG) and 2q + 1 (BA) (src/gl/sort.cpp). For the stage of block size k, a record i keeps
// the smaller of itself and its partner when (i < partner) == ((i & k) == 0), the larger otherwise;
// both records of a texel agree on (i & k) for k >= 4 and on (i < partner) for partner distances >= 2,
// so whole texels compare. A pass runs `steps` consecutive texel steps of one stage, partner
// distances d, d/2, ... (d/4 at most), then, in mode 1, the step between the two records of a
// texel:
//   mode 0: texel steps only;
//   mode 1: texel steps (the last at distance 1), then the two records of the texel (the stage ends);
//   mode 2: the two records of the texel alone (stage k = 2).
// For s steps the fragment fetches the 2^s texels q XOR D (D any XOR of the pass's distances) and
// runs the steps on them in registers, keeping only what texel q ends with: the same reads as s
// one-step passes (2 per step), with one write instead of s and one pass instead of s.
// Records compare lexicographically (positions differ, so there are no ties). Texel q XOR D lives
// at pixel (q XOR D) mod T of tile t XOR (D / T) (T = texels per tile, a power of two), which the
// host binds at tile unit `s`, the subset of distances D is made of.
// Used with fullscreen.vert.
// Inputs:
//   location 1: uint tile_base - texel index of the tile's pixel (0, 0)
//   location 2: uint log_width - log2 of the tile's width
//   location 3: uint tile_mask - texels per tile - 1 (a power of two - 1)
//   location 4: uint d - the first partner distance in texels (a power of two; modes 0 and 1)
//   location 5: uint k - size of the blocks this stage sorts, in records (a power of two)
//   location 6: uint mode - 0, 1 or 2 as above
//   location 7: uint steps - texel steps in the pass, 1 to 3 (modes 0 and 1)
//   locations 8-15, bindings 0-7: usampler2D tile0..tile7 - tile unit s holds the texels q XOR D_s,
//     D_s the XOR of the distances d >> i for the bits i of s, RGBA32UI
// Output: location 0, uvec4 (key, position, key, position) into an RGBA32UI target.
layout(location = 1) uniform uint tile_base;
layout(location = 2) uniform uint log_width;
layout(location = 3) uniform uint tile_mask;
layout(location = 4) uniform uint d;
layout(location = 5) uniform uint k;
layout(location = 6) uniform uint mode;
layout(location = 7) uniform uint steps;
layout(location = 8, binding = 0) uniform usampler2D tile0;
layout(location = 9, binding = 1) uniform usampler2D tile1;
layout(location = 10, binding = 2) uniform usampler2D tile2;
layout(location = 11, binding = 3) uniform usampler2D tile3;
layout(location = 12, binding = 4) uniform usampler2D tile4;
layout(location = 13, binding = 5) uniform usampler2D tile5;
layout(location = 14, binding = 6) uniform usampler2D tile6;
layout(location = 15, binding = 7) uniform usampler2D tile7;
layout(location = 0) out uvec4 record;

bool less(uvec2 a, uvec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }

// The XOR of the distances d >> i for the bits i of s.
uint offset(uint s) {
  return ((s & 1u) != 0u ? d : 0u) ^ ((s & 2u) != 0u ? d >> 1 : 0u) ^ ((s & 4u) != 0u ? d >> 2 : 0u);
}

// Texel q XOR offset(s), from tile unit s.
uvec4 fetch(uint s, uint q) {
  uint local = (q ^ offset(s)) & tile_mask;
  ivec2 p = ivec2(local & ((1u << log_width) - 1u), local >> log_width);
  switch (s) {
    case 0u: return texelFetch(tile0, p, 0);
    case 1u: return texelFetch(tile1, p, 0);
    case 2u: return texelFetch(tile2, p, 0);
    case 3u: return texelFetch(tile3, p, 0);
    case 4u: return texelFetch(tile4, p, 0);
    case 5u: return texelFetch(tile5, p, 0);
    case 6u: return texelFetch(tile6, p, 0);
  }
  return texelFetch(tile7, p, 0);
}

// Record by record, the smaller (keep_min) or the larger of texels a and b.
uvec4 pick(uvec4 a, uvec4 b, bool keep_min) {
  return uvec4(less(a.xy, b.xy) == keep_min ? a.xy : b.xy, less(a.zw, b.zw) == keep_min ? a.zw : b.zw);
}

void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  uint q = tile_base + ((p.y << log_width) | p.x);
  bool up = ((2u * q) & k) == 0u;  // this block sorts ascending (the same for every texel fetched)
  uvec4 v[8];
  if (mode == 2u) {
    v[0] = texelFetch(tile0, ivec2(p), 0);
  } else {
    uint n = 1u << steps;
    for (uint s = 0u; s < n; ++s) v[s] = fetch(s, q);
    // Step i compares the texels of subsets s and s | 2^i (distance d >> i); only the subsets whose
    // bits 0..i are clear are needed afterwards (texel q is subset 0).
    for (uint i = 0u; i < steps; ++i) {
      uint dist = d >> i;
      for (uint s = 0u; s < n; s += 2u << i) {
        uint x = q ^ offset(s);
        v[s] = pick(v[s], v[s | (1u << i)], (x < (x ^ dist)) == up);
      }
    }
  }
  uvec2 r0 = v[0].xy, r1 = v[0].zw;
  if (mode != 0u && less(r0, r1) != up) {
    uvec2 t = r0;
    r0 = r1;
    r1 = t;
  }
  record = uvec4(r0, r1);
}
