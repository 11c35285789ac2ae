#version 450
// group_by_global / group_by_shared_{s,m,l}: rows into the global hash table of GROUP BY.
//  - global (GB_KERNEL_GLOBAL): each row finds its slot in the global table (linear probing, CAS
//    claim) and updates it with atomics. Workgroup g takes rows [g * GB_GLOBAL_ROWS, ...).
//  - shared (GB_SHARED_WORDS): the few-groups variant. Each workgroup keeps its own table of
//    pc.shared_cap slots (plus the GB_EMPTY key's) in shared memory, takes rows
//    [g * pc.rows_per_group, ...), updates its table with shared atomics only, and at the end
//    merges each of its groups into the global table (one global slot update per group). A row
//    whose key finds no shared slot within GB_SHARED_PROBES (a full shared table) goes to the
//    global table at once, so any group count is correct here, only slower. With GB_CFG_COMBINE
//    the rows of equal keys in a subgroup are first combined by subgroup reductions, one leader
//    updating the shared table for each distinct key (for very few groups: fewer atomics on few
//    hot shared words). The partitioned variant runs this kernel over rows clustered by hash
//    partition, with pc.rows_per_group sized so a workgroup's rows hold about as many groups as
//    its table.
//  - private (GB_PRIVATE_WORDS; few groups): workgroups of GB_PRIVATE_WG invocations, each keeping
//    its own accumulators per slot of the workgroup's shared table (GB_PRIVATE_WORDS words per
//    invocation in shared memory, one column per invocation: plain loads and stores, no atomics,
//    no bank conflicts): the count, INT sums as two 32-bit sums of the values' low 16 bits and
//    their signed high 16 bits (exact for up to 65,536 rows per invocation), MIN and MAX. The shared
//    table (pc.shared_cap + 1 slots) only maps keys to slots (claimed by CAS once per key) and takes
//    the FLOAT sums by shared atomics. At the end the invocations' accumulators are added into the
//    shared table, which is merged into the global table as in the shared kernel. Rows are read as
//    uvec4s, the next step's loads issued before the current step's rows are processed.
// Defines: GB_KERNEL_GLOBAL or GB_SHARED_WORDS (the shared table's words), with GB_PRIVATE_WORDS
// for the private kernel; GB_ATOMIC64 where the device has 64-bit buffer atomics (needed for two
// key columns in the global table).
// Specialization constants: GB_STATES, GB_CONFIG (group_by_common.glsl).
// Bindings: 0 = table (uint[], uint64_t[]), 1 = ctrl (uint[GB_CTRL_WORDS]), 2..8 = rows
//           (group_by_rows.glsl).
// Push constants: count (rows or row ids of this stride), cap (global slots reached by hashing),
//                 probe_limit, rows_per_group (shared), shared_cap (shared), group_offset.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_memory_scope_semantics : require
#ifdef GB_ATOMIC64
#extension GL_EXT_shader_atomic_int64 : require
#endif
#include "group_by_config.glsl"
#include "hash.glsl"
#include "wg_tile.glsl"
#include "group_by_common.glsl"
#ifdef GB_PRIVATE_WORDS
#define GB_LOCAL GB_PRIVATE_WG
#else
#define GB_LOCAL GB_WG
#endif
layout(local_size_x = GB_LOCAL) in;
layout(std430, binding = 0) buffer Table { uint gb_table[]; };
#ifdef GB_ATOMIC64
layout(std430, binding = 0) buffer Table64 { uint64_t gb_table64[]; };
#endif
layout(std430, binding = 1) buffer Ctrl { uint gb_ctrl[]; };
shared uint s_claims;
layout(push_constant) uniform Push {
  uint count;
  uint cap;
  uint probe_limit;
  uint rows_per_group;
  uint shared_cap;
  uint group_offset;
} pc;
#include "group_by_rows.glsl"
#include "group_by_global.glsl"

// Value binding c's raw bits of row j of a 4-row load, as x[c].
void gb_values_of(uvec4 v[GB_MAX_VALUE_BINDINGS], uint j, out uint x[GB_MAX_VALUE_BINDINGS]) {
  [[unroll]] for (uint c = 0u; c < GB_MAX_VALUE_BINDINGS; ++c) x[c] = v[c][j];
}

#ifdef GB_KERNEL_GLOBAL

void main() {
  if (gl_LocalInvocationIndex == 0u) s_claims = 0u;
  barrier();
  const uint group = gl_WorkGroupID.x + pc.group_offset;
  const uint first = group * GB_GLOBAL_ROWS;
  const uint last = min(first + GB_GLOBAL_ROWS, pc.count);
  for (uint step = first; step < last; step += GB_STEP) {
    uvec4 k0, k1, v[GB_MAX_VALUE_BINDINGS];
    bvec4 valid;
    gb_load4(step / 4u + gl_LocalInvocationIndex, last, k0, k1, v, valid);
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
      if (!valid[j]) continue;
      const uint s = gbg_find(k0[j], k1[j]);
      if (s == GB_NO_SLOT) continue;
      uint x[GB_MAX_VALUE_BINDINGS];
      gb_values_of(v, j, x);
      gbg_add_row(s, x);
    }
  }
  barrier();
  if (gl_LocalInvocationIndex == 0u && s_claims != 0u) atomicAdd(gb_ctrl[GB_CTRL_GROUPS], s_claims);
}

#else  // the workgroup-private (shared-memory) table

// Probes of the shared table before a row gives up on it and goes to the global table.
#define GB_SHARED_PROBES 64u

shared uint s_table[GB_SHARED_WORDS];
GB_DEFINE_TABLE_OPS(gbs, s_table)

// The shared slot of key (k0, k1), claimed if it has none yet; GB_NO_SLOT when the table has no
// room for it within GB_SHARED_PROBES slots. One key column: a CAS of the key word; the GB_EMPTY
// key has the last slot. Two key columns: key 0's word, then key 1's word, each claimed by a CAS
// (a slot whose key-0 word matches belongs to whoever sets its key-1 word first; neither word
// changes once set); keys with a GB_EMPTY word cannot be told from an unset word and get no slot.
uint gbs_find(uint k0, uint k1) {
  const uint sw = gb_slot_words();
  const uint cap = pc.shared_cap;
  if (GB_TWO_KEYS) {
    if (k0 == GB_EMPTY || k1 == GB_EMPTY) return GB_NO_SLOT;
  } else if (k0 == GB_EMPTY) {
    return cap;
  }
  uint s = gb_shared_home(gb_hash(k0, k1), cap);
  for (uint probe = 0u; probe < min(cap, GB_SHARED_PROBES); ++probe) {
    const uint at = s * sw;
    uint seen = s_table[at];
    if (seen == GB_EMPTY) seen = atomicCompSwap(s_table[at], GB_EMPTY, k0);
    if (seen == GB_EMPTY || seen == k0) {
      if (!GB_TWO_KEYS) return s;
      uint seen1 = s_table[at + 1u];
      if (seen1 == GB_EMPTY) seen1 = atomicCompSwap(s_table[at + 1u], GB_EMPTY, k1);
      if (seen1 == GB_EMPTY || seen1 == k1) return s;
    }
    s = s + 1u == cap ? 0u : s + 1u;
  }
  return GB_NO_SLOT;
}

// One row into the shared table, or into the global table when it has no shared slot.
void gbs_add_row(uint k0, uint k1, uint x[GB_MAX_VALUE_BINDINGS]) {
  const uint s = gbs_find(k0, k1);
  if (s == GB_NO_SLOT) {
    const uint g = gbg_find(k0, k1);
    if (g != GB_NO_SLOT) gbg_add_row(g, x);
    return;
  }
  const uint base = s * gb_slot_words();
  if (GB_COUNTS || s == pc.shared_cap) atomicAdd(s_table[base + GB_COUNT], 1u);
  [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) {
    const uint kind = gb_kind(i);
    const uint at = base + gb_state_offset(i);
    const uint v = x[gb_binding(i)];
    if (kind == GB_STATE_SUM_INT) {
      gbs_add64(at, v, int(v) < 0 ? 0xffffffffu : 0u);
    } else if (kind == GB_STATE_MIN) {
      atomicMax(s_table[at], ~gb_value_key(gb_binding(i), v));
    } else if (kind == GB_STATE_MAX) {
      atomicMax(s_table[at], gb_value_key(gb_binding(i), v));
    } else if (kind == GB_STATE_SUM_FLOAT) {
      uint w, lo, hi;
      bool negative;
      const uint flag = gb_float_addend(v, w, lo, hi, negative);
      if (flag != 0u)
        atomicOr(s_table[at + GB_F320_WORDS], flag);
      else if ((lo | hi) != 0u)
        gbs_f320_add(at, w, lo, hi, negative);
    }
  }
}

// The rows of a subgroup (one per lane, `pending` where valid) combined by key: each round takes
// the lowest pending lane's key, reduces the count, INT sums, MINs and MAXs of the lanes holding
// it, and that lane applies them to the shared table (or the global one). FLOAT sums are added
// by each lane on its own (exactly; a subgroup reduction of them would round). Called in
// uniform control flow.
void gbs_combine_row(uint k0, uint k1, uint x[GB_MAX_VALUE_BINDINGS], bool pending) {
  const bool has_float = pending;
  while (true) {
    const uvec4 ballot = subgroupBallot(pending);
    if (ballot == uvec4(0u)) break;
    const uint leader = subgroupBallotFindLSB(ballot);
    const uint l0 = subgroupShuffle(k0, leader);
    const uint l1 = subgroupShuffle(k1, leader);
    const bool mine = pending && k0 == l0 && (!GB_TWO_KEYS || k1 == l1);
    const uint count = subgroupAdd(mine ? 1u : 0u);
    uint lo[GB_MAX_STATES], hi[GB_MAX_STATES];
    [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) {
      const uint kind = gb_kind(i);
      const uint v = x[gb_binding(i)];
      lo[i] = 0u;
      hi[i] = 0u;
      if (kind == GB_STATE_SUM_INT) {
        // Exact int64 sum of at most 128 int32 values from two 32-bit subgroup sums: the low 16
        // bits (unsigned) and the rest (signed).
        const uint low = subgroupAdd(mine ? (v & 0xffffu) : 0u);
        const int high = subgroupAdd(mine ? (int(v) >> 16) : 0);
        const int64_t sum = (int64_t(high) << 16) + int64_t(low);
        const uvec2 words = unpack32(uint64_t(sum));
        lo[i] = words.x;
        hi[i] = words.y;
      } else if (kind == GB_STATE_MIN) {
        lo[i] = subgroupMax(mine ? ~gb_value_key(gb_binding(i), v) : 0u);
      } else if (kind == GB_STATE_MAX) {
        lo[i] = subgroupMax(mine ? gb_value_key(gb_binding(i), v) : 0u);
      }
    }
    if (gl_SubgroupInvocationID == leader) {
      uint s = gbs_find(k0, k1);
      const bool global = s == GB_NO_SLOT;
      if (global) s = gbg_find(k0, k1);
      if (s != GB_NO_SLOT) {
        const uint base = s * gb_slot_words();
        if (global)
          gbg_add_count(s, count);
        else if (GB_COUNTS || s == pc.shared_cap)
          atomicAdd(s_table[base + GB_COUNT], count);
        [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) {
          const uint kind = gb_kind(i);
          const uint at = base + gb_state_offset(i);
          if (kind == GB_STATE_SUM_INT) {
            if (global)
              gbg_add_int64(at, lo[i], hi[i]);
            else
              gbs_add64(at, lo[i], hi[i]);
          } else if (kind == GB_STATE_MIN || kind == GB_STATE_MAX) {
            if (global)
              atomicMax(gb_table[at], lo[i]);
            else
              atomicMax(s_table[at], lo[i]);
          }
        }
      }
    }
    pending = pending && !mine;
  }
  // The FLOAT sums, each lane its own value.
  bool any_float = false;
  [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) any_float = any_float || gb_kind(i) == GB_STATE_SUM_FLOAT;
  if (!any_float || !has_float) return;
  uint s = gbs_find(k0, k1);
  const bool global = s == GB_NO_SLOT;
  if (global) s = gbg_find(k0, k1);
  if (s == GB_NO_SLOT) return;
  const uint base = s * gb_slot_words();
  [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) {
    if (gb_kind(i) != GB_STATE_SUM_FLOAT) continue;
    const uint at = base + gb_state_offset(i);
    const uint v = x[gb_binding(i)];
    if (global) {
      gbg_add_float(at, v);
    } else {
      uint w, lo, hi;
      bool negative;
      const uint flag = gb_float_addend(v, w, lo, hi, negative);
      if (flag != 0u)
        atomicOr(s_table[at + GB_F320_WORDS], flag);
      else if ((lo | hi) != 0u)
        gbs_f320_add(at, w, lo, hi, negative);
    }
  }
}

// Shared slot s into the global table, if it holds a group (a claimed key; the last slot: rows).
void gbs_merge(uint s) {
  const uint sw = gb_slot_words();
  const uint base = s * sw;
  const uint count = s_table[base + GB_COUNT];
  if (s == pc.shared_cap ? count == 0u : s_table[base] == GB_EMPTY) return;
  const uint k0 = s_table[base];
  const uint k1 = GB_TWO_KEYS ? s_table[base + 1u] : 0u;
  const uint g = gbg_find(k0, k1);
  if (g == GB_NO_SLOT) return;
  gbg_add_count(g, count);
  const uint gbase = g * sw;
  [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) {
    const uint kind = gb_kind(i);
    const uint o = gb_state_offset(i);
    if (kind == GB_STATE_SUM_INT) {
      gbg_add_int64(gbase + o, s_table[base + o], s_table[base + o + 1u]);
    } else if (kind == GB_STATE_MIN || kind == GB_STATE_MAX) {
      atomicMax(gb_table[gbase + o], s_table[base + o]);
    } else if (kind == GB_STATE_SUM_FLOAT) {
      for (uint w = 0u; w < GB_F320_WORDS; ++w) gbg_f320_add_word(gbase + o, w, s_table[base + o + w]);
      const uint flags = s_table[base + o + GB_F320_WORDS];
      if (flags != 0u) atomicOr(gb_table[gbase + o + GB_F320_WORDS], flags);
    }
  }
}

#ifdef GB_PRIVATE_WORDS

// The invocations' accumulators: word w of slot s of invocation i at (w * slots + s) * GB_PRIVATE_WG + i.
shared uint s_private[GB_PRIVATE_WORDS * GB_PRIVATE_WG];

// Private words per slot: the count (GB_COUNTS), then per state: SUM_INT 2 (low-piece sum,
// high-piece sum), MIN and MAX 1 (order keys, MIN inverted), SUM_FLOAT none (shared table).
uint gbp_kind_words(uint kind) {
  return kind == GB_STATE_SUM_INT ? 2u : ((kind == GB_STATE_MIN || kind == GB_STATE_MAX) ? 1u : 0u);
}
uint gbp_offset(uint i) {
  uint o = GB_COUNTS ? 1u : 0u;
  [[unroll]] for (uint j = 0u; j < GB_MAX_STATES; ++j)
    if (j < i) o += gbp_kind_words(gb_kind(j));
  return o;
}

// One row into this invocation's accumulators of slot s (`slots` slots in all).
void gbp_add_row(uint s, uint slots, uint x[GB_MAX_VALUE_BINDINGS]) {
  const uint column = s * GB_PRIVATE_WG + gl_LocalInvocationIndex;
  const uint plane = slots * GB_PRIVATE_WG;
  if (GB_COUNTS) s_private[column] += 1u;
  [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) {
    const uint kind = gb_kind(i);
    const uint at = gbp_offset(i) * plane + column;
    const uint v = x[gb_binding(i)];
    if (kind == GB_STATE_SUM_INT) {
      s_private[at] += v & 0xffffu;
      s_private[at + plane] += uint(int(v) >> 16);
    } else if (kind == GB_STATE_MIN) {
      s_private[at] = max(s_private[at], ~gb_value_key(gb_binding(i), v));
    } else if (kind == GB_STATE_MAX) {
      s_private[at] = max(s_private[at], gb_value_key(gb_binding(i), v));
    } else if (kind == GB_STATE_SUM_FLOAT) {
      const uint t = s * gb_slot_words() + gb_state_offset(i);
      uint w, lo, hi;
      bool negative;
      const uint flag = gb_float_addend(v, w, lo, hi, negative);
      if (flag != 0u)
        atomicOr(s_table[t + GB_F320_WORDS], flag);
      else if ((lo | hi) != 0u)
        gbs_f320_add(t, w, lo, hi, negative);
    }
  }
}

// This invocation's accumulators of slot s added into the shared table's slot s.
void gbp_fold(uint s, uint slots) {
  const uint column = s * GB_PRIVATE_WG + gl_LocalInvocationIndex;
  const uint plane = slots * GB_PRIVATE_WG;
  const uint base = s * gb_slot_words();
  if (GB_COUNTS) {
    const uint c = s_private[column];
    if (c != 0u) atomicAdd(s_table[base + GB_COUNT], c);
  }
  [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) {
    const uint kind = gb_kind(i);
    const uint at = gbp_offset(i) * plane + column;
    const uint t = base + gb_state_offset(i);
    if (kind == GB_STATE_SUM_INT) {
      const uint low = s_private[at];
      const int high = int(s_private[at + plane]);
      if (low != 0u || high != 0) {
        const uvec2 words = unpack32(uint64_t((int64_t(high) << 16) + int64_t(low)));
        gbs_add64(t, words.x, words.y);
      }
    } else if (kind == GB_STATE_MIN || kind == GB_STATE_MAX) {
      const uint m = s_private[at];
      if (m != 0u) atomicMax(s_table[t], m);
    }
  }
}

// The 4 rows of one load: each finds its slot of the shared table (or, when the table has no room
// for its key, goes to the global table) and updates this invocation's accumulators.
void gbp_rows(uvec4 k0, uvec4 k1, uvec4 v[GB_MAX_VALUE_BINDINGS], bvec4 valid, uint slots, inout bool empty_seen) {
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    if (!valid[j]) continue;
    uint x[GB_MAX_VALUE_BINDINGS];
    gb_values_of(v, j, x);
    const uint s = gbs_find(k0[j], k1[j]);
    if (s == GB_NO_SLOT) {
      const uint g = gbg_find(k0[j], k1[j]);
      if (g != GB_NO_SLOT) gbg_add_row(g, x);
      continue;
    }
    if (s == pc.shared_cap) empty_seen = true;
    gbp_add_row(s, slots, x);
  }
}

void main() {
  const uint sw = gb_slot_words();
  const uint slots = pc.shared_cap + 1u;
  const uint words = slots * sw;
  for (uint i = gl_LocalInvocationIndex; i < words; i += GB_PRIVATE_WG) s_table[i] = 0u;
  const uint private_words = gbp_offset(GB_MAX_STATES) * slots * GB_PRIVATE_WG;
  for (uint i = gl_LocalInvocationIndex; i < private_words; i += GB_PRIVATE_WG) s_private[i] = 0u;
  if (gl_LocalInvocationIndex == 0u) s_claims = 0u;
  barrier();
  const uint group = gl_WorkGroupID.x + pc.group_offset;
  const uint first = group * pc.rows_per_group;
  const uint last = min(first + pc.rows_per_group, pc.count);
  bool empty_seen = false;
  if (first < last) {
    uvec4 k0, k1, v[GB_MAX_VALUE_BINDINGS];
    bvec4 valid;
    gb_load4(first / 4u + gl_LocalInvocationIndex, last, k0, k1, v, valid);
    for (uint step = first; step < last; step += GB_PRIVATE_STEP) {
      // The next step's loads in flight while this step's rows are processed.
      uvec4 n0 = uvec4(0u), n1 = uvec4(0u), nv[GB_MAX_VALUE_BINDINGS];
      [[unroll]] for (uint c = 0u; c < GB_MAX_VALUE_BINDINGS; ++c) nv[c] = uvec4(0u);
      bvec4 nvalid = bvec4(false);
      const uint next = step + GB_PRIVATE_STEP;
      if (next < last) gb_load4(next / 4u + gl_LocalInvocationIndex, last, n0, n1, nv, nvalid);
      gbp_rows(k0, k1, v, valid, slots, empty_seen);
      k0 = n0;
      k1 = n1;
      v = nv;
      valid = nvalid;
    }
  }
  barrier();
  // Every invocation's accumulators into the shared table (starting at different slots, so the
  // invocations' atomics spread over the slots), then the shared table into the global one.
  for (uint t = 0u; t < slots; ++t) gbp_fold((t + gl_LocalInvocationIndex) % slots, slots);
  // The GB_EMPTY key's slot holds a group when some row had it (its count says so).
  if (!GB_COUNTS && empty_seen) atomicAdd(s_table[pc.shared_cap * sw + GB_COUNT], 1u);
  barrier();
  for (uint s = gl_LocalInvocationIndex; s < slots; s += GB_PRIVATE_WG) gbs_merge(s);
  barrier();
  if (gl_LocalInvocationIndex == 0u && s_claims != 0u) atomicAdd(gb_ctrl[GB_CTRL_GROUPS], s_claims);
}

#else

void main() {
  const uint sw = gb_slot_words();
  const uint words = (pc.shared_cap + 1u) * sw;
  for (uint i = gl_LocalInvocationIndex; i < words; i += GB_WG) s_table[i] = 0u;
  if (gl_LocalInvocationIndex == 0u) s_claims = 0u;
  barrier();
  const uint group = gl_WorkGroupID.x + pc.group_offset;
  const uint first = group * pc.rows_per_group;
  const uint last = min(first + pc.rows_per_group, pc.count);
  for (uint step = first; step < last; step += GB_STEP) {
    uvec4 k0, k1, v[GB_MAX_VALUE_BINDINGS];
    bvec4 valid;
    gb_load4(step / 4u + gl_LocalInvocationIndex, last, k0, k1, v, valid);
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
      uint x[GB_MAX_VALUE_BINDINGS];
      gb_values_of(v, j, x);
      if (GB_COMBINE)
        gbs_combine_row(k0[j], k1[j], x, valid[j]);
      else if (valid[j])
        gbs_add_row(k0[j], k1[j], x);
    }
  }
  barrier();
  for (uint s = gl_LocalInvocationIndex; s < pc.shared_cap + 1u; s += GB_WG) gbs_merge(s);
  barrier();
  if (gl_LocalInvocationIndex == 0u && s_claims != 0u) atomicAdd(gb_ctrl[GB_CTRL_GROUPS], s_claims);
}

#endif  // GB_PRIVATE_WORDS

#endif
