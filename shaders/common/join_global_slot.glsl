// The global hash join's table (join_hash_global.comp builds it; join_probe_tiles.comp and
// join_hash_global.comp probe it): cap + 1 slots of one 64-bit entry, the key in the low word and a
// build row id in the high word. JOIN_EMPTY_ENTRY (both words JOIN_EMPTY) marks a free slot: no row id
// is 0xFFFFFFFF, so no entry equals it, the key 0xFFFFFFFF included. One slot per distinct build key,
// holding the row that claimed it:
// - direct addressing when `allow_direct` and the build keys' range (join_global_range) is at most
//   twice the build rows: slot = key - kmin, taken when its row word is set;
// - else open addressing with linear probing from hash_fmix32(key) over cap slots (a power of two,
//   at least twice the build rows, so a walk ends at a free slot).
// Slot `cap` holds the key 0xFFFFFFFF where the build claims slots by 32-bit atomics (a key word cannot
// be claimed from JOIN_EMPTY to itself); with 64-bit atomics that key is in the table like any other.
// join_global_find looks in both places, so probes need not know how the table was built.
// Needs join_config.glsl, hash.glsl, join_keys.glsl, GL_EXT_shader_explicit_arithmetic_types_int64,
// and the buffers `table64` (uint64_t[cap + 1]) and `range_words` (uint[]) declared before it.
#ifndef GFXQ_JOIN_GLOBAL_SLOT_GLSL
#define GFXQ_JOIN_GLOBAL_SLOT_GLSL

#define JOIN_EMPTY_ENTRY 0xFFFFFFFFFFFFFFFFul

// The build keys' smallest and largest key from range_words (two ReduceResults: the smallest at word
// 0, the largest at word 64), reduced over prepared keys (norm JOIN_NORM_RAW) or over the raw key
// column as I32 (JOIN_NORM_ORDER_INT) or F32 (JOIN_NORM_ORDER_FLOAT, gfxq's total order): the order
// keys keep those orders, so the key of the smallest value is the smallest key.
void join_global_range(uint norm, out uint kmin, out uint kmax) {
  kmin = range_words[0];
  kmax = range_words[64];
  if (norm != JOIN_NORM_RAW) {
    const uint type = norm == JOIN_NORM_ORDER_FLOAT ? JOIN_TYPE_FLOAT : JOIN_TYPE_INT;
    kmin = join_key32(kmin, type);
    kmax = join_key32(kmax, type);
  }
}

// Whether the table is directly addressed: allowed, and the build keys' range at most twice its rows.
bool join_global_direct(bool allow_direct, uint build, uint kmin, uint kmax) {
  return allow_direct && uint64_t(kmax - kmin) + 1ul <= 2ul * uint64_t(build);
}

// Whether key k has a slot; if so `slot` and the row id of its entry (`rid`). A walk visits at most
// `cap` slots (the table holds at most half as many keys as slots).
bool join_global_find(uint k, uint cap, bool direct, uint kmin, uint kmax, out uint slot, out uint rid) {
  slot = JOIN_EMPTY;
  rid = JOIN_EMPTY;
  if (direct) {
    const uint s = k - kmin;
    if (s > kmax - kmin) return false;
    rid = unpack32(table64[s]).y;
    slot = s;
    return rid != JOIN_EMPTY;
  }
  if (k == JOIN_EMPTY) {
    rid = unpack32(table64[cap]).y;
    if (rid != JOIN_EMPTY) {
      slot = cap;
      return true;
    }
  }
  uint h = hash_fmix32(k) & (cap - 1u);
  for (uint step = 0u; step < cap; ++step) {
    const uint64_t e = table64[h];
    if (e == JOIN_EMPTY_ENTRY) return false;
    const uvec2 w = unpack32(e);
    if (w.x == k) {
      slot = h;
      rid = w.y;
      return true;
    }
    h = (h + 1u) & (cap - 1u);
  }
  return false;
}

#endif
