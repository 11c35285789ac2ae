#version 450
// group_by_global / group_by_shared_{s,m,l} / group_by_private_{s,m,l}: rows into the global hash
// table of GROUP BY.
//  - global (GB_KERNEL_GLOBAL): each row finds its slot in the global table (linear probing, CAS
//    claim) and updates it with atomics. Workgroup g takes rows [g * GB_GLOBAL_ROWS, ...).
//  - shared (GB_SHARED_WORDS): workgroup-private tables. Each workgroup keeps its own table of
//    pc.shared_cap slots (plus the GB_EMPTY key's) in shared memory, each word of the slots in a
//    plane of its own (gbs_plane), takes rows
//    [g * pc.rows_per_group, ...) with GB_SHARED_WG invocations (the next step's rows loaded
//    before this step's are added), updates its table with shared atomics only, and at the end
//    merges each of its groups into the global table (one global slot update per group). A row
//    whose key finds no shared slot within GB_SHARED_PROBES (a full shared table) goes to the
//    global table at once, so any group count is correct here, only slower. The partitioned
//    variant runs this kernel over rows clustered by hash partition, with pc.rows_per_group sized
//    so a workgroup's rows hold about as many groups as its table.
//  - private (GB_SHARED_WORDS and GB_PRIVATE; few groups): each workgroup takes a run of
//    pc.rows_per_group rows and maps keys to dense group ids by a small key table in shared memory
//    (one hash per row, a probe reading a slot's key and id together); each group has pc.copies
//    copies of its accumulators, one per invocation where they fit (plain loads and stores, no
//    atomics: the fewest groups), else a few updated by shared atomics (up to about 2^10 groups).
//    INT sums are exact int64 (low and high word with carry), MIN and MAX order keys, FLOAT sums
//    the exact fixed point, once per group. At the end each group's copies are added up and merged
//    into the global table once per workgroup. Rows are read as uvec4s, two steps' loads issued
//    before their rows are processed.
// Defines: GB_KERNEL_GLOBAL or GB_SHARED_WORDS (the shared memory's words), with GB_PRIVATE for
// the private kernel; GB_ATOMIC64 where the device has 64-bit buffer atomics (needed for two
// key columns in the global table).
// Specialization constants: GB_STATES, GB_CONFIG (group_by_common.glsl).
// Bindings: 0 = table (uint[], uint64_t[]), 1 = ctrl (uint[GB_CTRL_WORDS]), 2..8 = rows
//           (group_by_rows.glsl).
// Push constants: count (rows or row ids of this stride), cap (global slots reached by hashing),
//                 probe_limit, rows_per_group (shared), shared_cap (shared; private: key table
//                 slots), ids and copies (private), group_offset.
#extension GL_KHR_shader_subgroup_basic : require
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
// The shared-table kernel runs GB_SHARED_WG invocations per workgroup (one table for more
// invocations: more of them fit an SM), the others GB_WG; a step covers 4 rows per invocation.
#if defined(GB_SHARED_WORDS) && !defined(GB_PRIVATE)
#define GB_KWG GB_SHARED_WG
#else
#define GB_KWG GB_WG
#endif
#define GB_KSTEP (4u * GB_KWG)
layout(local_size_x = GB_KWG) in;
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
  uint ids;
  uint copies;
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

// The shared table's planes: word o of slot s (0..pc.shared_cap, the last one the GB_EMPTY key's)
// is s_table[o * gbs_plane() + s], so that the lanes of a subgroup reaching random slots read and
// update distinct banks (slots of consecutive words put a slot's words on one bank in four).
uint gbs_plane() { return pc.shared_cap + 1u; }
// The planes of a slot: the key words, the count when counted (GB_COUNTS; otherwise the GB_EMPTY
// key's rows are counted in s_empty_rows), then the states as in a global slot, without its
// header's count and padding.
const uint GB_KEY_PLANES = GB_TWO_KEYS ? 2u : 1u;
const uint GB_SHARED_COUNT = GB_KEY_PLANES;
uint gbs_state_plane(uint i) { return GB_KEY_PLANES + (GB_COUNTS ? 1u : 0u) + gb_state_offset(i) - GB_HEADER; }
uint gbs_words() { return gbs_state_plane(GB_MAX_STATES); }
shared uint s_empty_rows;
GB_DEFINE_TABLE_OPS(gbs, s_table, gbs_plane())

// The shared slot of key (k0, k1), claimed if it has none yet; GB_NO_SLOT when the table has no
// room for it within GB_SHARED_PROBES slots. One key column: a CAS of the key word; the GB_EMPTY
// key has the last slot. Two key columns: key 0's word, then key 1's word, each claimed by a CAS
// (a slot whose key-0 word matches belongs to whoever sets its key-1 word first; neither word
// changes once set); keys with a GB_EMPTY word cannot be told from an unset word and get no slot.
uint gbs_find(uint k0, uint k1) {
  const uint cap = pc.shared_cap;
  if (GB_TWO_KEYS) {
    if (k0 == GB_EMPTY || k1 == GB_EMPTY) return GB_NO_SLOT;
  } else if (k0 == GB_EMPTY) {
    return cap;
  }
  uint s = gb_shared_home(gb_hash(k0, k1), cap);
  for (uint probe = 0u; probe < min(cap, GB_SHARED_PROBES); ++probe) {
    uint seen = s_table[s];
    if (seen == GB_EMPTY) seen = atomicCompSwap(s_table[s], GB_EMPTY, k0);
    if (seen == GB_EMPTY || seen == k0) {
      if (!GB_TWO_KEYS) return s;
      const uint at1 = gbs_plane() + s;
      uint seen1 = s_table[at1];
      if (seen1 == GB_EMPTY) seen1 = atomicCompSwap(s_table[at1], GB_EMPTY, k1);
      if (seen1 == GB_EMPTY || seen1 == k1) return s;
    }
    s = s + 1u == cap ? 0u : s + 1u;
  }
  return GB_NO_SLOT;
}

// State i of one row (its value bits v) into its shared slot's word `at` of the state's plane.
void gbs_update_state(uint i, uint at, uint v) {
  const uint kind = gb_kind(i);
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
      atomicOr(s_table[at + GB_F320_WORDS * gbs_plane()], flag);
    else if ((lo | hi) != 0u)
      gbs_f320_add(at, w, lo, hi, negative);
  }
}

// One row into the shared table, or into the global table when it has no shared slot.
void gbs_add_row(uint k0, uint k1, uint x[GB_MAX_VALUE_BINDINGS]) {
  const uint s = gbs_find(k0, k1);
  if (s == GB_NO_SLOT) {
    const uint g = gbg_find(k0, k1);
    if (g != GB_NO_SLOT) gbg_add_row(g, x);
    return;
  }
  if (GB_COUNTS)
    atomicAdd(s_table[GB_SHARED_COUNT * gbs_plane() + s], 1u);
  else if (s == pc.shared_cap)
    atomicAdd(s_empty_rows, 1u);
  [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i)
    gbs_update_state(i, gbs_state_plane(i) * gbs_plane() + s, x[gb_binding(i)]);
}

// Read-only probes of gbs_add_rows4's fast path.
#define GB_FAST_PROBES 8u
// The four rows of one load. The rows whose key some slot already holds
// (nearly all once a workgroup has met its groups) take a fast path: the four rows' slots found by
// read-only probes in step (home slots first), then the four rows' updates issued together (their
// returned words used after); the others go through gbs_add_row. A slot's key never changes once
// claimed, so a key read early that matches is final.
void gbs_add_rows4(uvec4 k0, uvec4 k1, uvec4 v[GB_MAX_VALUE_BINDINGS], bvec4 valid) {
  const uint cap = pc.shared_cap;
  const uint plane = gbs_plane();
  bvec4 fast = bvec4(false);
  uvec4 s;
  bvec4 todo;
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    s[j] = gb_shared_home(gb_hash(k0[j], k1[j]), cap);
    todo[j] = valid[j] && k0[j] != GB_EMPTY && (!GB_TWO_KEYS || k1[j] != GB_EMPTY);
  }
  // Read-only probes of the four rows in step: a row is fast once a slot holds its key; an empty
  // slot (its key not claimed yet; with two key columns also a slot whose key-1 word is still
  // empty) or a long chain leaves it to gbs_add_row. The home slots are read first, unrolled (with
  // few groups nearly every row ends there).
  uvec4 seen, seen1 = k1;
  [[unroll]] for (uint j = 0u; j < 4u; ++j) seen[j] = s_table[s[j]];
  if (GB_TWO_KEYS) {
    [[unroll]] for (uint j = 0u; j < 4u; ++j) seen1[j] = s_table[plane + s[j]];
  }
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    fast[j] = todo[j] && seen[j] == k0[j] && seen1[j] == k1[j];
    todo[j] = todo[j] && !fast[j] && seen[j] != GB_EMPTY && seen1[j] != GB_EMPTY;
    if (todo[j]) s[j] = s[j] + 1u == cap ? 0u : s[j] + 1u;
  }
  for (uint probe = 1u; probe < GB_FAST_PROBES && any(todo); ++probe) {
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
      if (!todo[j]) continue;
      const uint w0 = s_table[s[j]];
      const uint w1 = GB_TWO_KEYS ? s_table[plane + s[j]] : k1[j];
      fast[j] = w0 == k0[j] && w1 == k1[j];
      todo[j] = !fast[j] && w0 != GB_EMPTY && w1 != GB_EMPTY;
      if (todo[j]) s[j] = s[j] + 1u == cap ? 0u : s[j] + 1u;
    }
  }
  if (GB_COUNTS) {
    [[unroll]] for (uint j = 0u; j < 4u; ++j)
      if (fast[j]) atomicAdd(s_table[GB_SHARED_COUNT * plane + s[j]], 1u);
  }
  // INT sums: the four low-word atomics first, their carries after; the other states row by row.
  [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) {
    const uint o = gbs_state_plane(i) * plane;
    const uvec4 x = v[gb_binding(i)];
    if (gb_kind(i) == GB_STATE_SUM_INT) {
      uvec4 old;
      [[unroll]] for (uint j = 0u; j < 4u; ++j)
        if (fast[j]) old[j] = atomicAdd(s_table[o + s[j]], x[j]);
      [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        const uint up = (int(x[j]) < 0 ? 0xffffffffu : 0u) + (old[j] + x[j] < old[j] ? 1u : 0u);
        if (fast[j] && up != 0u) atomicAdd(s_table[o + plane + s[j]], up);
      }
    } else {
      [[unroll]] for (uint j = 0u; j < 4u; ++j)
        if (fast[j]) gbs_update_state(i, o + s[j], x[j]);
    }
  }
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    if (!valid[j] || fast[j]) continue;
    uint x[GB_MAX_VALUE_BINDINGS];
    gb_values_of(v, j, x);
    gbs_add_row(k0[j], k1[j], x);
  }
}

// Shared slot s into the global table, if it holds a group (a claimed key; the last slot: rows).
void gbs_merge(uint s) {
  const uint plane = gbs_plane();
  const uint count = GB_COUNTS ? s_table[GB_SHARED_COUNT * plane + s] : (s == pc.shared_cap ? s_empty_rows : 0u);
  if (s == pc.shared_cap ? count == 0u : s_table[s] == GB_EMPTY) return;
  const uint k0 = s_table[s];
  const uint k1 = GB_TWO_KEYS ? s_table[plane + s] : 0u;
  const uint g = gbg_find(k0, k1);
  if (g == GB_NO_SLOT) return;
  gbg_add_count(g, count);
  const uint gbase = g * gb_slot_words();
  [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) {
    const uint kind = gb_kind(i);
    const uint o = gb_state_offset(i);
    const uint at = gbs_state_plane(i) * plane + s;
    if (kind == GB_STATE_SUM_INT) {
      gbg_add_int64(gbase + o, s_table[at], s_table[at + plane]);
    } else if (kind == GB_STATE_MIN || kind == GB_STATE_MAX) {
      atomicMax(gb_table[gbase + o], s_table[at]);
    } else if (kind == GB_STATE_SUM_FLOAT) {
      for (uint w = 0u; w < GB_F320_WORDS; ++w) gbg_f320_add_word(gbase + o, w, s_table[at + w * plane]);
      const uint flags = s_table[at + GB_F320_WORDS * plane];
      if (flags != 0u) atomicOr(gb_table[gbase + o + GB_F320_WORDS], flags);
    }
  }
}

#ifdef GB_PRIVATE

// The few-groups kernel. The workgroup's shared memory (s_table) is laid out at run time from
// pc.shared_cap (S: slots of the key table), pc.ids (D: groups the workgroup can hold) and
// pc.copies (C: copies of each group's accumulators, GB_WG or a power of two below it):
//   key table: S slots of GB_KEY_PLANES + 1 words: the key word(s), then the reference (id + 1 of
//     the slot's group; 0 while unpublished, GB_NO_SLOT when the workgroup had no id left), so
//     that one probe reads a slot's key and reference together;
//   group keys: one plane of D words per key column (for the merge);
//   accumulators: word j of group d in copy c at (j * D + d) * C + c (j: gbf_offset);
//   FLOAT sums: GB_SUM_FLOAT_WORDS words per group and SUM_FLOAT state, group-major.
// Invocation i updates copy i mod C: with C = GB_WG each copy is its own (plain loads and stores,
// no atomics, and the lanes of a subgroup hit distinct banks); with fewer copies by shared atomics.

// Words of a group's accumulators in one copy: the count (GB_COUNTS), then per state SUM_INT 2
// (the int64's low and high words), MIN and MAX 1 (order keys, MIN inverted), SUM_FLOAT none.
uint gbf_kind_words(uint kind) {
  return kind == GB_STATE_SUM_INT ? 2u : ((kind == GB_STATE_MIN || kind == GB_STATE_MAX) ? 1u : 0u);
}
uint gbf_offset(uint i) {
  uint o = GB_COUNTS ? 1u : 0u;
  [[unroll]] for (uint j = 0u; j < GB_MAX_STATES; ++j)
    if (j < i) o += gbf_kind_words(gb_kind(j));
  return o;
}
// SUM_FLOAT states before state i.
uint gbf_float_index(uint i) {
  uint f = 0u;
  [[unroll]] for (uint j = 0u; j < GB_MAX_STATES; ++j)
    if (j < i && gb_kind(j) == GB_STATE_SUM_FLOAT) ++f;
  return f;
}
uint gbf_key_base() { return (GB_KEY_PLANES + 1u) * pc.shared_cap; }
uint gbf_acc_base() { return gbf_key_base() + GB_KEY_PLANES * pc.ids; }
uint gbf_float_base() { return gbf_acc_base() + gbf_offset(GB_MAX_STATES) * pc.ids * pc.copies; }
uint gbf_float_at(uint id, uint i) {
  return gbf_float_base() + (id * gbf_float_index(GB_MAX_STATES) + gbf_float_index(i)) * GB_SUM_FLOAT_WORDS;
}

// The FLOAT sums' updates (their words consecutive).
GB_DEFINE_TABLE_OPS(gbp, s_table, 1u)

// Ids handed out (may pass pc.ids: those keys got none).
shared uint s_ids_used;

// The group id of key (k0, k1) in this workgroup, claimed if the key has none yet; GB_NO_SLOT when
// the row must go to the global table: a key with a GB_EMPTY word (INT -2^31; rare), no free slot
// within GB_SHARED_PROBES, no id left, or an id not yet published by the invocation claiming it
// (nobody waits on another invocation).
uint gbf_find(uint k0, uint k1) {
  if (k0 == GB_EMPTY || (GB_TWO_KEYS && k1 == GB_EMPTY)) return GB_NO_SLOT;
  const uint cap = pc.shared_cap;
  // One key column: Fibonacci hashing (the high word of (key * 2^32 / phi) * cap; two
  // instructions where fmix32 and the rotation take about ten, in the loop's hottest path; the key
  // table is at most half full). Two: the 64-bit finalizer as everywhere.
  uint s = GB_TWO_KEYS ? gb_shared_home(gb_hash(k0, k1), cap) : gb_home(k0 * 0x9e3779b1u, cap);
  for (uint probe = 0u; probe < min(cap, GB_SHARED_PROBES); ++probe) {
    const uint at = s * (GB_KEY_PLANES + 1u);
    uint seen = s_table[at];
    // A reference read with the key is final once nonzero (set once, after the key).
    const uint ref = s_table[at + GB_KEY_PLANES];
    bool won = false;
    if (seen == GB_EMPTY) {
      seen = atomicCompSwap(s_table[at], GB_EMPTY, k0);
      won = seen == GB_EMPTY;
    }
    bool mine = seen == GB_EMPTY || seen == k0;
    if (mine && GB_TWO_KEYS) {
      uint seen1 = s_table[at + 1u];
      won = false;
      if (seen1 == GB_EMPTY) {
        seen1 = atomicCompSwap(s_table[at + 1u], GB_EMPTY, k1);
        won = seen1 == GB_EMPTY;
      }
      mine = seen1 == GB_EMPTY || seen1 == k1;
    }
    if (mine) {
      uint r = ref;
      if (won) {
        const uint id = atomicAdd(s_ids_used, 1u);
        r = id < pc.ids ? id + 1u : GB_NO_SLOT;
        if (id < pc.ids) {
          s_table[gbf_key_base() + id] = k0;
          if (GB_TWO_KEYS) s_table[gbf_key_base() + pc.ids + id] = k1;
        }
        atomicExchange(s_table[at + GB_KEY_PLANES], r);
      }
      // A key claimed by another invocation just now: its reference read again after the claim's
      // block (lanes of one subgroup claiming together find it set), else no id this time.
      if (r == 0u)
        r = atomicLoad(s_table[at + GB_KEY_PLANES], gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelaxed);
      const uint id = r - 1u;  // 0 (unpublished) and GB_NO_SLOT both give no id
      return id < pc.ids ? id : GB_NO_SLOT;
    }
    s = s + 1u == cap ? 0u : s + 1u;
  }
  return GB_NO_SLOT;
}

// One row into this invocation's copy of its group's accumulators (or into the global table).
void gbf_add_row(uint k0, uint k1, uint x[GB_MAX_VALUE_BINDINGS]) {
  const uint id = gbf_find(k0, k1);
  if (id == GB_NO_SLOT) {
    const uint g = gbg_find(k0, k1);
    if (g != GB_NO_SLOT) gbg_add_row(g, x);
    return;
  }
  const bool own = pc.copies == GB_WG;
  const uint plane = pc.ids * pc.copies;
  const uint column = gbf_acc_base() + id * pc.copies + (gl_LocalInvocationIndex & (pc.copies - 1u));
  if (GB_COUNTS) {
    if (own)
      s_table[column] += 1u;
    else
      atomicAdd(s_table[column], 1u);
  }
  [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) {
    const uint kind = gb_kind(i);
    const uint at = column + gbf_offset(i) * plane;
    const uint v = x[gb_binding(i)];
    if (kind == GB_STATE_SUM_INT) {
      const uint high = int(v) < 0 ? 0xffffffffu : 0u;
      if (own) {
        const uint low = s_table[at];
        const uint sum = low + v;
        s_table[at] = sum;
        s_table[at + plane] += high + (sum < low ? 1u : 0u);
      } else {
        const uint old = atomicAdd(s_table[at], v);
        const uint up = high + (old + v < old ? 1u : 0u);
        if (up != 0u) atomicAdd(s_table[at + plane], up);
      }
    } else if (kind == GB_STATE_MIN || kind == GB_STATE_MAX) {
      const uint key = gb_value_key(gb_binding(i), v);
      const uint m = kind == GB_STATE_MIN ? ~key : key;
      if (own)
        s_table[at] = max(s_table[at], m);
      else
        atomicMax(s_table[at], m);
    } else if (kind == GB_STATE_SUM_FLOAT) {
      uint w, lo, hi;
      bool negative;
      const uint t = gbf_float_at(id, i);
      const uint flag = gb_float_addend(v, w, lo, hi, negative);
      if (flag != 0u)
        atomicOr(s_table[t + GB_F320_WORDS], flag);
      else if ((lo | hi) != 0u)
        gbp_f320_add(t, w, lo, hi, negative);
    }
  }
}

// The 4 rows of one load.
void gbf_rows(uvec4 k0, uvec4 k1, uvec4 v[GB_MAX_VALUE_BINDINGS], bvec4 valid) {
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    if (!valid[j]) continue;
    uint x[GB_MAX_VALUE_BINDINGS];
    gb_values_of(v, j, x);
    gbf_add_row(k0[j], k1[j], x);
  }
}

// Group `id`'s copies added up and merged into the global table (the copies read from a rotated
// start, so that neighbouring invocations read distinct banks).
void gbf_merge(uint id) {
  const uint k0 = s_table[gbf_key_base() + id];
  const uint k1 = GB_TWO_KEYS ? s_table[gbf_key_base() + pc.ids + id] : 0u;
  const uint g = gbg_find(k0, k1);
  if (g == GB_NO_SLOT) return;
  const uint copies = pc.copies;
  const uint plane = pc.ids * copies;
  const uint column = gbf_acc_base() + id * copies;
  if (GB_COUNTS) {
    uint count = 0u;
    for (uint c = 0u; c < copies; ++c) count += s_table[column + ((c + id) & (copies - 1u))];
    gbg_add_count(g, count);
  }
  const uint gbase = g * gb_slot_words();
  [[unroll]] for (uint i = 0u; i < GB_MAX_STATES; ++i) {
    const uint kind = gb_kind(i);
    const uint at = column + gbf_offset(i) * plane;
    const uint to = gbase + gb_state_offset(i);
    if (kind == GB_STATE_SUM_INT) {
      uint64_t total = 0ul;
      for (uint c = 0u; c < copies; ++c) {
        const uint a = at + ((c + id) & (copies - 1u));
        total += pack64(uvec2(s_table[a], s_table[a + plane]));
      }
      if (total != 0ul) {
        const uvec2 words = unpack32(total);
        gbg_add_int64(to, words.x, words.y);
      }
    } else if (kind == GB_STATE_MIN || kind == GB_STATE_MAX) {
      uint m = 0u;
      for (uint c = 0u; c < copies; ++c) m = max(m, s_table[at + ((c + id) & (copies - 1u))]);
      if (m != 0u) atomicMax(gb_table[to], m);
    } else if (kind == GB_STATE_SUM_FLOAT) {
      const uint t = gbf_float_at(id, i);
      for (uint w = 0u; w < GB_F320_WORDS; ++w) gbg_f320_add_word(to, w, s_table[t + w]);
      const uint flags = s_table[t + GB_F320_WORDS];
      if (flags != 0u) atomicOr(gb_table[to + GB_F320_WORDS], flags);
    }
  }
}

void main() {
  const uint words = gbf_float_at(pc.ids, 0u);
  for (uint i = gl_LocalInvocationIndex; i < words; i += GB_WG) s_table[i] = 0u;
  if (gl_LocalInvocationIndex == 0u) {
    s_claims = 0u;
    s_ids_used = 0u;
  }
  barrier();
  const uint group = gl_WorkGroupID.x + pc.group_offset;
  const uint first = group * pc.rows_per_group;
  const uint last = min(first + pc.rows_per_group, pc.count);
  // Two steps' loads issued before their rows are processed (more bytes in flight); steps wholly
  // below `last` without the guards (the branch is uniform).
  for (uint step = first; step < last; step += 2u * GB_STEP) {
    const uint q = step / 4u + gl_LocalInvocationIndex;
    uvec4 a0, a1, av[GB_MAX_VALUE_BINDINGS], b0, b1, bv[GB_MAX_VALUE_BINDINGS];
    if (step + 2u * GB_STEP <= last) {
      gb_load4_full(q, a0, a1, av);
      gb_load4_full(q + GB_STEP / 4u, b0, b1, bv);
      gbf_rows(a0, a1, av, bvec4(true));
      gbf_rows(b0, b1, bv, bvec4(true));
    } else {
      bvec4 va, vb;
      gb_load4(q, last, a0, a1, av, va);
      gb_load4(q + GB_STEP / 4u, last, b0, b1, bv, vb);
      gbf_rows(a0, a1, av, va);
      gbf_rows(b0, b1, bv, vb);
    }
  }
  barrier();
  const uint used = min(s_ids_used, pc.ids);
  for (uint id = gl_LocalInvocationIndex; id < used; id += GB_WG) gbf_merge(id);
  barrier();
  if (gl_LocalInvocationIndex == 0u && s_claims != 0u) atomicAdd(gb_ctrl[GB_CTRL_GROUPS], s_claims);
}

#else

void main() {
  const uint words = (pc.shared_cap + 1u) * gbs_words();
  for (uint i = gl_LocalInvocationIndex; i < words; i += GB_KWG) s_table[i] = 0u;
  if (gl_LocalInvocationIndex == 0u) {
    s_claims = 0u;
    s_empty_rows = 0u;
  }
  barrier();
  const uint group = gl_WorkGroupID.x + pc.group_offset;
  const uint first = group * pc.rows_per_group;
  const uint last = min(first + pc.rows_per_group, pc.count);
  // The next step's rows are loaded before this step's are added (their loads in flight while the
  // table is updated).
  uvec4 k0, k1, v[GB_MAX_VALUE_BINDINGS];
  bvec4 valid;
  gb_load4(first / 4u + gl_LocalInvocationIndex, last, k0, k1, v, valid);
  for (uint step = first; step < last; step += GB_KSTEP) {
    uvec4 n0, n1, nv[GB_MAX_VALUE_BINDINGS];
    bvec4 nvalid;
    gb_load4((step + GB_KSTEP) / 4u + gl_LocalInvocationIndex, last, n0, n1, nv, nvalid);
    gbs_add_rows4(k0, k1, v, valid);
    k0 = n0;
    k1 = n1;
    v = nv;
    valid = nvalid;
  }
  barrier();
  for (uint s = gl_LocalInvocationIndex; s < pc.shared_cap + 1u; s += GB_KWG) gbs_merge(s);
  barrier();
  if (gl_LocalInvocationIndex == 0u && s_claims != 0u) atomicAdd(gb_ctrl[GB_CTRL_GROUPS], s_claims);
}

#endif  // GB_PRIVATE

#endif
