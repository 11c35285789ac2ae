#pragma once
// Host mirrors of the hash finalizers in shaders/common/hash.glsl (Murmur3's fmix32 / fmix64), so
// host code (tests, optimizers sizing tables, CPU references) addresses buckets as the GPU does.

#include <cstdint>

namespace gfxq {

//! Murmur3 fmix32: an avalanching 32-bit finalizer (hash_fmix32 in hash.glsl).
constexpr uint32_t hash_fmix32(uint32_t h) noexcept {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

//! Murmur3 fmix64 (hash_fmix64_lo in hash.glsl returns its low 32 bits).
constexpr uint64_t hash_fmix64(uint64_t k) noexcept {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

}  // namespace gfxq
