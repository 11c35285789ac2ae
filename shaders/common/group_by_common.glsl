// What the GROUP BY kernels share: the slot layout given by the specialization constants, order
// keys, the table hash, the exact FLOAT-sum decomposition and the state updates of a table in a
// buffer or in shared memory. Needs group_by_config.glsl.
//
// A slot is GB_SLOT_WORDS words: the key (one word; two for two key columns, as one 8-byte word
// whose low half is key 0), the row count (one word; a pad word after it with two keys, so that
// the states start 8-byte aligned), then each state in the order of specialization constant 0
// (the host puts the 2-word SUM_INT states first, so they stay 8-byte aligned); the slot is padded
// to an even number of words. Keys are order keys (sort_keys.glsl's sort_key: FLOAT -0.0 = +0.0,
// every NaN one key), so equal keys of the total order claim one slot.
#ifndef GFXQ_GROUP_BY_COMMON_GLSL
#define GFXQ_GROUP_BY_COMMON_GLSL
#include "hash.glsl"

layout(constant_id = 0) const uint GB_STATES = 0u;
layout(constant_id = 1) const uint GB_CONFIG = 0u;

const bool GB_TWO_KEYS = (GB_CONFIG & GB_CFG_TWO_KEYS) != 0u;
const bool GB_SELECTION = (GB_CONFIG & GB_CFG_SELECTION) != 0u;
const bool GB_COUNTS = (GB_CONFIG & GB_CFG_COUNT) != 0u;
const uint GB_HEADER = GB_TWO_KEYS ? 4u : 2u;
const uint GB_COUNT = GB_TWO_KEYS ? 2u : 1u;

uint gb_kind(uint i) { return (GB_STATES >> (3u * i)) & 7u; }
uint gb_binding(uint i) { return (GB_CONFIG >> (2u * i)) & 3u; }
bool gb_value_float(uint c) { return ((GB_CONFIG >> (GB_CFG_VALUE_FLOAT_SHIFT + c)) & 1u) != 0u; }
uint gb_kind_words(uint kind) {
  return kind == GB_STATE_SUM_INT ? 2u : (kind == GB_STATE_SUM_FLOAT ? GB_SUM_FLOAT_WORDS : (kind == 0u ? 0u : 1u));
}
// Word offset of state i within a slot. The loop has a constant bound, so it unrolls and the
// offsets fold into constants (a loop bounded by i stayed a loop on lavapipe, whose budget of
// loop iterations per invocation it then spent row by row).
uint gb_state_offset(uint i) {
  uint o = GB_HEADER;
  for (uint j = 0u; j < GB_MAX_STATES; ++j)
    if (j < i) o += gb_kind_words(gb_kind(j));
  return o;
}
uint gb_slot_words() {
  const uint w = gb_state_offset(GB_MAX_STATES);
  return (w + 1u) & ~1u;
}

// Order keys: INT with the sign bit flipped; FLOAT in the total order (sort_key of sort_keys.glsl).
uint gb_int_key(uint bits) { return bits ^ 0x80000000u; }
uint gb_float_key(uint b) {
  if ((b & 0x7fffffffu) > 0x7f800000u) b = 0x7fc00000u;  // any NaN: the canonical quiet NaN
  if (b == 0x80000000u) b = 0u;                          // -0.0: +0.0
  return (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);
}
uint gb_key0(uint bits) { return (GB_CONFIG & GB_CFG_KEY0_FLOAT) != 0u ? gb_float_key(bits) : gb_int_key(bits); }
uint gb_key1(uint bits) { return (GB_CONFIG & GB_CFG_KEY1_FLOAT) != 0u ? gb_float_key(bits) : gb_int_key(bits); }
uint gb_value_key(uint c, uint bits) { return gb_value_float(c) ? gb_float_key(bits) : gb_int_key(bits); }

// The hash of a key (one or two order keys) that picks its slot.
uint gb_hash(uint k0, uint k1) { return GB_TWO_KEYS ? hash_fmix64_lo(k0, k1) : hash_fmix32(k0); }
// Whether a key is GB_EMPTY (it goes to the table's last slot).
bool gb_is_empty_key(uint k0, uint k1) { return k0 == GB_EMPTY && (!GB_TWO_KEYS || k1 == GB_EMPTY); }
// Slot of a hash among `cap` (1..2^31) slots: the high word of hash * cap.
uint gb_home(uint h, uint cap) {
  uint hi, lo;
  umulExtended(h, cap, hi, lo);
  return hi;
}
// Home slot in a workgroup's shared table: the hash rotated by 16 bits first, so that the slot
// comes from the hash's low half. The partitioned variant clusters rows by the top 16 bits of the
// same hash (fmix32 of key 0), so a workgroup's run holds keys of a few partitions; slots from the
// high half would put all of them on a few home slots (one probe cluster per partition).
uint gb_shared_home(uint h, uint cap) { return gb_home((h << 16) | (h >> 16), cap); }

// A finite FLOAT value as an addend of the fixed point in units of 2^-149: |v| = M << shift with
// M < 2^24, so it touches word w = shift / 32 (low part `lo`) and word w + 1 (`hi`). Returns the
// GB_FLAG_* bit of a NaN or an infinity (and nothing to add), else 0; zeros give lo = hi = 0.
uint gb_float_addend(uint b, out uint w, out uint lo, out uint hi, out bool negative) {
  const uint e = (b >> 23) & 0xffu;
  const uint f = b & 0x7fffffu;
  negative = (b & 0x80000000u) != 0u;
  w = 0u;
  lo = 0u;
  hi = 0u;
  if (e == 0xffu) return f != 0u ? GB_FLAG_NAN : (negative ? GB_FLAG_NEG_INF : GB_FLAG_POS_INF);
  const uint m = e == 0u ? f : (f | 0x800000u);
  const uint shift = e == 0u ? 0u : e - 1u;
  w = shift >> 5u;
  const uint r = shift & 31u;
  lo = m << r;
  hi = r == 0u ? 0u : m >> (32u - r);
  return 0u;
}

// GB_DEFINE_TABLE_OPS(P, T, W): the state updates of a table held in the uint array T (a buffer or
// shared memory) whose consecutive words of one slot lie W words apart (1 in a buffer; a shared
// table keeps each word of its slots in a plane of its own, so that the lanes of a subgroup
// updating random slots hit distinct banks), as functions named P_*. Every update is a 32-bit
// atomic, so updates in any order give the same words:
// - P_add64(at, lo, hi): adds the 64-bit (hi, lo) to words at, at + W with the carry by a second
//   atomic (an INT sum when the device has no 64-bit atomics, or in shared memory).
// - P_f320_add(at, w, lo, hi, negative): adds or subtracts (hi, lo) at words w, w + 1 of the fixed
//   point at `at`, carrying or borrowing upward; exact modulo 2^320 whatever the order.
// - P_f320_add_word(at, w, x): adds the unsigned word x at word w, carrying upward (merging
//   fixed points word by word).
#define GB_DEFINE_TABLE_OPS(P, T, W)                                               \
  void P##_add64(uint at, uint lo, uint hi) {                                      \
    const uint old = atomicAdd(T[at], lo);                                         \
    const uint up = hi + (old + lo < old ? 1u : 0u);                               \
    if (up != 0u) atomicAdd(T[at + (W)], up);                                      \
  }                                                                                \
  void P##_f320_add_word(uint at, uint w, uint x) {                                \
    for (; x != 0u && w < GB_F320_WORDS; ++w) {                                    \
      const uint old = atomicAdd(T[at + w * (W)], x);                              \
      x = old + x < old ? 1u : 0u;                                                 \
    }                                                                              \
  }                                                                                \
  void P##_f320_add(uint at, uint w, uint lo, uint hi, bool negative) {            \
    if (!negative) {                                                               \
      const uint old = atomicAdd(T[at + w * (W)], lo);                             \
      P##_f320_add_word(at, w + 1u, hi + (old + lo < old ? 1u : 0u));             \
      return;                                                                      \
    }                                                                              \
    uint old = atomicAdd(T[at + w * (W)], 0u - lo);                                \
    uint borrow = hi + (old < lo ? 1u : 0u);                                       \
    for (++w; borrow != 0u && w < GB_F320_WORDS; ++w) {                            \
      old = atomicAdd(T[at + w * (W)], 0u - borrow);                               \
      borrow = old < borrow ? 1u : 0u;                                             \
    }                                                                              \
  }

#endif
