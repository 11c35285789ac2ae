// Search of a CSS-tree built by css_build.comp (src/vk/primitives/css_tree.h): level 0 is the n
// sorted 32-bit keys, level k >= 1 holds the last key of every node (CSS_NODE_KEYS entries) of level
// k - 1; every level is padded with 0xFFFFFFFF to whole nodes. A search reads one node (four uvec4
// loads, a 64-byte line) per level: the number of its entries below the key is the child to descend
// into. The includer declares the bindings `css_keys_v` (uvec4[]: level 0) and `css_dir_v` (uvec4[]:
// the directory levels 1.., each starting at a whole node).
// Needs join_config.glsl.
#ifndef GFXQ_CSS_TREE_GLSL
#define GFXQ_CSS_TREE_GLSL

// The directory of n keys: the number of levels above level 0 and where each starts (in uvec4,
// level k at css_level_start[k - 1]).
struct CssTree {
  uint n;
  uint levels;
  uint level_len[CSS_MAX_LEVELS + 1];    // entries per level, level 0 = n
  uint level_start[CSS_MAX_LEVELS + 1];  // uvec4 index of level k >= 1 in css_dir_v (256-byte aligned)
};

CssTree css_tree(uint n) {
  CssTree t;
  t.n = n;
  t.levels = 0u;
  t.level_len[0] = n;
  t.level_start[0] = 0u;
  uint start = 0u;
  for (uint k = 1u; k <= CSS_MAX_LEVELS; ++k) {
    t.level_len[k] = 0u;
    t.level_start[k] = start;
    if (t.level_len[k - 1u] > CSS_NODE_KEYS) {
      t.level_len[k] = (t.level_len[k - 1u] + CSS_NODE_KEYS - 1u) / CSS_NODE_KEYS;
      start += (t.level_len[k] + 63u) / 64u * 16u;  // whole nodes, rounded up to 256 bytes (css_tree.cpp)
      t.levels = k;
    }
  }
  return t;
}

// Entries below x of the node at uvec4 index q of the directory / of level 0.
uint css_below(uvec4 v, uint x) {
  const uvec4 c = uvec4(lessThan(v, uvec4(x)));
  return c.x + c.y + c.z + c.w;
}
uint css_dir_below(uint q, uint x) {
  return css_below(css_dir_v[q], x) + css_below(css_dir_v[q + 1u], x) + css_below(css_dir_v[q + 2u], x) +
         css_below(css_dir_v[q + 3u], x);
}
uint css_keys_below(uint q, uint x) {
  return css_below(css_keys_v[q], x) + css_below(css_keys_v[q + 1u], x) + css_below(css_keys_v[q + 2u], x) +
         css_below(css_keys_v[q + 3u], x);
}

// The first index of level 0 whose key is >= x (n when there is none).
uint css_lower_bound(CssTree t, uint x) {
  uint node = 0u;
  for (uint k = t.levels; k >= 1u; --k) {
    const uint child = node * CSS_NODE_KEYS + css_dir_below(t.level_start[k] + node * (CSS_NODE_KEYS / 4u), x);
    if (child >= t.level_len[k]) return t.n;  // every key is below x (only at the top level)
    node = child;
  }
  return min(node * CSS_NODE_KEYS + css_keys_below(node * (CSS_NODE_KEYS / 4u), x), t.n);
}

// The first index of level 0 whose key is > x.
uint css_upper_bound(CssTree t, uint x) {
  return x == 0xFFFFFFFFu ? t.n : css_lower_bound(t, x + 1u);
}

#endif
