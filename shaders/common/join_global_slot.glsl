// The slot of a key in the global hash join's table (join_hash_global.comp builds it,
// join_probe_tiles.comp probes it): open addressing with linear probing (hash_fmix32, compare-and-
// swap on the key word, JOIN_EMPTY free; the key 0xFFFFFFFF has slot `cap` of its own), or, when
// `allow_direct` and the build keys' range (read from range_words: the smallest at word 0, the largest
// at word 64) is at most twice the build rows, slot = key - kmin.
// Needs join_config.glsl, hash.glsl, GL_EXT_shader_explicit_arithmetic_types_int64, and the buffers
// `table` (uint[cap]) and `range_words` (uint[]) declared before it.
#ifndef GFXQ_JOIN_GLOBAL_SLOT_GLSL
#define GFXQ_JOIN_GLOBAL_SLOT_GLSL

// The slot of key k (claimed when `insert`), or JOIN_EMPTY when a probe finds no slot. A probe walks
// at most `cap` slots: the table holds at most half as many keys as slots.
uint join_global_slot(uint k, bool insert, uint cap, bool allow_direct, uint build) {
  const uint kmin = range_words[0];
  const uint64_t span = uint64_t(range_words[64] - kmin) + 1ul;
  if (allow_direct && span <= 2ul * uint64_t(build)) {
    const uint s = k - kmin;
    return uint64_t(s) < span ? s : JOIN_EMPTY;
  }
  if (k == JOIN_EMPTY) return cap;
  uint h = hash_fmix32(k) & (cap - 1u);
  for (uint step = 0u; step < cap; ++step) {
    uint cur = table[h];
    if (cur == JOIN_EMPTY && insert) cur = atomicCompSwap(table[h], JOIN_EMPTY, k);
    if (cur == k || (cur == JOIN_EMPTY && insert)) return h;
    if (cur == JOIN_EMPTY) return JOIN_EMPTY;
    h = (h + 1u) & (cap - 1u);
  }
  return JOIN_EMPTY;
}

#endif
