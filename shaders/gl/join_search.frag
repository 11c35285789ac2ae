#version 450
// Batched join probes (src/gl/join.cpp, JoinRoute::Search): one fragment per count of a batch,
// each the number of sorted inner keys below its bound c, count(key < c), found by a bitwise
// search over the positions: pos = 0, then for bit = top, top / 2, ..., 1 the candidate pos + bit
// is taken when it is at most m and key[pos + bit - 1] < c. The keys ascend, so pos ends as the
// largest number of keys all below c. Exact: unsigned integer compares of order keys.
// Used with fullscreen.vert over a viewport of the batch's counts (row-major, `width` per row).
// Inputs:
//   location 1: uint m - sorted keys
//   location 2: uint top - the largest power of two <= m (0 when m = 0)
//   location 3: uint keys_width - keys per row of the keys texture
//   location 4, binding 0: usampler2D keys - the sorted order keys, key i at (i mod keys_width, i / keys_width)
//   location 5, binding 1: usampler2D bounds - c of the count at this pixel
// Output: location 0, uint - count(key < c) into an R32UI target.
layout(location = 1) uniform uint m;
layout(location = 2) uniform uint top;
layout(location = 3) uniform uint keys_width;
layout(location = 4, binding = 0) uniform usampler2D keys;
layout(location = 5, binding = 1) uniform usampler2D bounds;
layout(location = 0) out uint position;

void main() {
  uint c = texelFetch(bounds, ivec2(gl_FragCoord.xy), 0).r;
  uint pos = 0u;
  for (uint bit = top; bit != 0u; bit >>= 1) {
    uint i = pos + bit - 1u;  // the candidate's last key
    if (pos + bit <= m && texelFetch(keys, ivec2(i % keys_width, i / keys_width), 0).r < c) pos += bit;
  }
  position = pos;
}
