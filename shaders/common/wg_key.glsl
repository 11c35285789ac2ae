// Order keys (src/core/order_key.h) on raw 32-bit values, and predicates on keys. Integer
// operations only, so denormals and NaNs pass through untouched whatever the float mode.
// KEY_OF(bits) is the key function of the column type a kernel is compiled for (TYPE_U32,
// TYPE_I32 or TYPE_F32).
#ifndef GFXQ_WG_KEY_GLSL
#define GFXQ_WG_KEY_GLSL

// int_key: the sign bit flipped.
uvec4 key_i32(uvec4 b) { return b ^ 0x80000000u; }
// float_key of the canonical value: every NaN as 0x7fc00000, -0.0 as +0.0; then negative
// values are complemented and non-negative ones get the sign bit.
uvec4 key_f32(uvec4 b) {
  const uvec4 mag = b & 0x7FFFFFFFu;
  b = mix(b, uvec4(0x7FC00000u), greaterThan(mag, uvec4(0x7F800000u)));
  b = mix(b, uvec4(0u), equal(mag, uvec4(0u)));
  return mix(b | 0x80000000u, ~b, notEqual(b & 0x80000000u, uvec4(0u)));
}
// int_from_key.
uvec4 i32_from_key(uvec4 k) { return k ^ 0x80000000u; }
// float_from_key.
uvec4 f32_from_key(uvec4 k) { return mix(~k, k & 0x7FFFFFFFu, notEqual(k & 0x80000000u, uvec4(0u))); }

// 1 where `k op c` holds, 0 elsewhere; `accept` encodes op: bit 0 passes k < c, bit 1 k == c,
// bit 2 k > c (7: always).
uvec4 key_accept(uvec4 k, uint accept, uint c) {
  const uvec4 shift = uvec4(greaterThanEqual(k, uvec4(c))) + uvec4(greaterThan(k, uvec4(c)));
  return (uvec4(accept) >> shift) & 1u;
}

#if defined(TYPE_U32)
#define KEY_OF(b) (b)
#elif defined(TYPE_I32)
#define KEY_OF(b) key_i32(b)
#elif defined(TYPE_F32)
#define KEY_OF(b) key_f32(b)
#endif

#endif
