// The global hash table of GROUP BY (Karnagel et al.): open addressing with linear probing in a
// buffer, keys claimed by compare-and-swap, states updated by atomics. Needs group_by_common.glsl
// and, from the including kernel: binding 0 as `uint gb_table[]` (and `uint64_t gb_table64[]` with
// GB_ATOMIC64: 64-bit atomics for INT sums and the 8-byte key of two key columns), binding 1 as
// `uint gb_ctrl[]`, push constants pc.cap (slots reached by hashing; slot pc.cap is the GB_EMPTY
// key's) and pc.probe_limit, and `shared uint s_claims` (the workgroup's claims, which it adds to
// GB_CTRL_GROUPS once at its end).
#ifndef GFXQ_GROUP_BY_GLOBAL_GLSL
#define GFXQ_GROUP_BY_GLOBAL_GLSL

GB_DEFINE_TABLE_OPS(gbg, gb_table, 1u)

const uint GB_NO_SLOT = 0xffffffffu;

uint gbg_load(uint at) {
  return atomicLoad(gb_table[at], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
uint gbg_load_ctrl(uint at) {
  return atomicLoad(gb_ctrl[at], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// The slot of key (k0, k1), claimed if it has none yet (s_claims counts the claims), or
// GB_NO_SLOT after pc.probe_limit slots without it or a free one (GB_CTRL_OVERFLOW is then set).
// A slot's key never changes once claimed, so a plain (relaxed) read that sees the key is final,
// and one that sees an empty slot is settled by the compare-and-swap.
uint gbg_find(uint k0, uint k1) {
  if (gb_is_empty_key(k0, k1)) return pc.cap;
  const uint sw = gb_slot_words();
  uint s = gb_home(gb_hash(k0, k1), pc.cap);
  for (uint probe = 0u; probe < pc.probe_limit; ++probe) {
    if (GB_TWO_KEYS) {
#ifdef GB_ATOMIC64
      const uint64_t key = pack64(uvec2(k0, k1));
      const uint64_t empty = pack64(uvec2(GB_EMPTY, GB_EMPTY));
      const uint at = s * sw / 2u;
      const uint64_t seen =
          atomicLoad(gb_table64[at], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
      if (seen == key) return s;
      if (seen == empty) {
        const uint64_t prev = atomicCompSwap(gb_table64[at], empty, key);
        if (prev == empty) {
          atomicAdd(s_claims, 1u);
          return s;
        }
        if (prev == key) return s;
      }
#endif
    } else {
      const uint at = s * sw;
      const uint seen = gbg_load(at);
      if (seen == k0) return s;
      if (seen == GB_EMPTY) {
        const uint prev = atomicCompSwap(gb_table[at], GB_EMPTY, k0);
        if (prev == GB_EMPTY) {
          atomicAdd(s_claims, 1u);
          return s;
        }
        if (prev == k0) return s;
      }
    }
    s = s + 1u == pc.cap ? 0u : s + 1u;
  }
  if (gbg_load_ctrl(GB_CTRL_OVERFLOW) == 0u) atomicOr(gb_ctrl[GB_CTRL_OVERFLOW], 1u);
  return GB_NO_SLOT;
}

// Adds `count` rows to slot s where counts are kept; the GB_EMPTY key's slot counts always, and as
// a group when its first rows come.
void gbg_add_count(uint s, uint count) {
  if (s == pc.cap) {
    if (atomicAdd(gb_table[s * gb_slot_words() + GB_COUNT], count) == 0u) atomicAdd(s_claims, 1u);
  } else if (GB_COUNTS) {
    atomicAdd(gb_table[s * gb_slot_words() + GB_COUNT], count);
  }
}

// Adds the int64 `x` (as low, high words) to the SUM_INT state at word `at`.
void gbg_add_int64(uint at, uint lo, uint hi) {
#ifdef GB_ATOMIC64
  atomicAdd(gb_table64[at / 2u], pack64(uvec2(lo, hi)));
#else
  gbg_add64(at, lo, hi);
#endif
}

// Adds one FLOAT value (raw bits) to the SUM_FLOAT state at word `at`.
void gbg_add_float(uint at, uint bits) {
  uint w, lo, hi;
  bool negative;
  const uint flag = gb_float_addend(bits, w, lo, hi, negative);
  if (flag != 0u)
    atomicOr(gb_table[at + GB_F320_WORDS], flag);
  else if ((lo | hi) != 0u)
    gbg_f320_add(at, w, lo, hi, negative);
}

// One row into slot s: its count and every state (v[c]: raw bits of value binding c).
void gbg_add_row(uint s, uint v[GB_MAX_VALUE_BINDINGS]) {
  gbg_add_count(s, 1u);
  const uint base = s * gb_slot_words();
  [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) {
    const uint kind = gb_kind(i);
    const uint at = base + gb_state_offset(i);
    const uint x = v[gb_binding(i)];
    if (kind == GB_STATE_SUM_INT)
      gbg_add_int64(at, x, int(x) < 0 ? 0xffffffffu : 0u);
    else if (kind == GB_STATE_MIN)
      atomicMax(gb_table[at], ~gb_value_key(gb_binding(i), x));
    else if (kind == GB_STATE_MAX)
      atomicMax(gb_table[at], gb_value_key(gb_binding(i), x));
    else if (kind == GB_STATE_SUM_FLOAT)
      gbg_add_float(at, x);
  }
}

#endif
