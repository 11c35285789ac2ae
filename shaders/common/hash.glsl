// Hash finalizers shared by the hash join and hash GROUP BY kernels (shaders/vk/join_*,
// group_by_*). Murmur3's fmix32/fmix64 (Appleby): every input bit flips each output bit with
// probability about 1/2, so the low bits address buckets evenly; Karnagel et al. (ADMS 2015) show
// FNV-1a's bucket spikes on dense integer keys. C++ mirrors these in src/core/hash.h.
#ifndef GFXQ_HASH_GLSL
#define GFXQ_HASH_GLSL

uint hash_fmix32(uint h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

// fmix64 on a 64-bit key given as (lo, hi) words; returns the low 32 bits of the 64-bit result,
// computed with 32-bit multiplies so it needs no shaderInt64.
uint hash_fmix64_lo(uint lo, uint hi) {
  // k ^= k >> 33
  lo ^= hi >> 1;
  // k *= 0xff51afd7ed558ccd
  uvec2 a = uvec2(lo, hi);
  uint mlo, mhi;
  umulExtended(a.x, 0xed558ccdu, mhi, mlo);
  mhi += a.x * 0xff51afd7u + a.y * 0xed558ccdu;
  lo = mlo; hi = mhi;
  // k ^= k >> 33
  lo ^= hi >> 1;
  // k *= 0xc4ceb9fe1a85ec53
  a = uvec2(lo, hi);
  umulExtended(a.x, 0x1a85ec53u, mhi, mlo);
  mhi += a.x * 0xc4ceb9feu + a.y * 0x1a85ec53u;
  lo = mlo; hi = mhi;
  // k ^= k >> 33
  lo ^= hi >> 1;
  return lo;
}

#endif
