// Sort keys, digits and hash partitions of the sort-family kernels; mirrors cpu/primitives_sort.cpp.
// Needs sort_config.glsl.

// The unsigned key whose ascending order is the order of raw words of `key_type` (SORT_KEY_*),
// inverted when `descending` != 0. F32: -0.0 == +0.0, every NaN equal and largest (float_key).
uint sort_key(uint raw, uint key_type, uint descending) {
  uint u = raw;
  if (key_type == SORT_KEY_I32) {
    u = raw ^ 0x80000000u;
  } else if (key_type == SORT_KEY_F32) {
    uint b = raw;
    if ((b & 0x7fffffffu) > 0x7f800000u) b = 0x7fc00000u;  // any NaN -> the canonical quiet NaN
    if (b == 0x80000000u) b = 0u;                          // -0.0 -> +0.0
    u = (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);
  }
  return descending != 0u ? ~u : u;
}

// sort_key(raw, key_type, descending) for a key type known at compile time, with the rest folded
// into `flip` (the host's detail::key_flip()): the sign bit of I32 keys, all bits when descending.
// U32 and I32 keys cost one XOR, with no per-key select on `descending`.
uint sort_key_flip(uint raw, uint key_type, uint flip) {
  return (key_type == SORT_KEY_F32 ? sort_key(raw, SORT_KEY_F32, 0u) : raw) ^ flip;
}

// The canonical raw word of a sort key (inverse of sort_key up to F32 canonicalisation).
uint key_from_sort_key(uint key, uint key_type, uint descending) {
  uint u = descending != 0u ? ~key : key;
  if (key_type == SORT_KEY_I32) return u ^ 0x80000000u;
  if (key_type == SORT_KEY_F32) return (u & 0x80000000u) != 0u ? (u & 0x7fffffffu) : ~u;
  return u;
}

// murmur3's 32-bit finaliser.
uint fmix32(uint h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

// The digit of a raw key in a counting pass: (x >> shift) & mask, where x is the sort key, or with
// `hash` != 0 its hash partition hi32(fmix32(sort key ^ seed) * fanout).
uint sort_digit(uint raw, uint key_type, uint descending, uint hash, uint shift, uint mask, uint fanout,
                uint seed) {
  uint x = sort_key(raw, key_type, descending);
  if (hash != 0u) {
    uint lo;
    umulExtended(fmix32(x ^ seed), fanout, x, lo);
  }
  return (x >> shift) & mask;
}
