#version 450
// cnf_scan: the fused WHERE kernel of the compute backend. Each row is tested against the whole
// CNF term table (encoding: src/vk/relational/cnf_program.h) in one pass that reads each slot
// column once; the result is counted, marked in a bitmask or aggregated in the same pass.
//
// Variants (defines):
//   MODE_COUNT  per-group count of the rows that pass
//   MODE_FLAGS  one bit per row and a count per block of 2048 rows (the mask and block counts of
//               the three-stage selection; layout in cnf_mask_config.glsl)
//   MODE_AGG    per-group COUNT and, with WANT_MIN=1 / WANT_MAX=1, the MIN / MAX order keys and, with
//               WANT_SUM=1, the SUM of the value slot over the rows that pass; VALUE_FLOAT=0: int64
//               sum of int32 values; VALUE_FLOAT=1: exact sum of float32 values as 16 fixed-point
//               bins (see the sum section) plus NaN/+inf/-inf flags
//   SLOTS       1 (single-column programs, no slot selection), 2, 4 or 8 (programs of up to that
//               many slot columns)
//   CNF_INTERVALS_ONLY  (SLOTS=1) the raw-bit interval test only, no term code (cnf_eval.glsl)
// Layout: the chunk is cut into tiles of TILE rows and workgroup g takes tiles g, g + G, g + 2G ...
// (G = workgroups in the dispatch), so all workgroups stream through one window of the column
// together. The host dispatches G = ceil(rows / rows_per_group) with rows_per_group a multiple of
// 4096 and at most 2^24, so a workgroup sees at most ceil(rows_per_group / TILE) * TILE <= 2^24
// rows (the bound of the exact FLOAT sum). A tile is TILE / ROUND steps of ROUND = VEC * 1024
// rows: each invocation first loads its uvec4 of every slot for the step's VEC vectors (loads in
// flight), then tests them (VEC: see below).
//   MODE_COUNT, MODE_AGG: TILE = ROUND; in vector v of a step invocation t tests rows
//     1024v + 4t .. 1024v + 4t + 3.
//   MODE_FLAGS: TILE = 16384 rows, 8 mask blocks; invocation t tests rows 4(t & 31) .. + 3 of the
//     16 vectors of 128 rows of block t / 32 (vector q * VEC + v in step q). On subgroups of 32 or
//     more invocations in invocation order (NVIDIA, AMD) each group of 32 keeps its block's mask
//     words in registers (lane i: words 2i, 2i + 1, from the ballots) and stores them, and the
//     block's count, once per tile: no barrier, no atomic. Otherwise (lavapipe's 8-wide subgroups)
//     the words are gathered in shared memory (atomicOr) and stored after a barrier.
//
// Bindings: 0 = program (uint[]: 2 words per term), 1..8 = slot columns 0..7 (uvec4[]: raw int32 /
//   float32 bits of the chunk's rows; unused slots may be any buffer), 9 = partials (MODE_COUNT:
//   uint per group; MODE_FLAGS: uint per block; MODE_AGG: AggPartial per group), 10 = mask
//   (uvec2[]: the chunk's blocks, 32 per block; MODE_FLAGS only). Partials are indexed group_base
//   + workgroup (MODE_FLAGS: group_base + block of the chunk); the mask from the chunk's start.
// Push constants: rows (in this chunk), group_base, terms
//   (0: every row passes), float_slots (bit s: slot s is FLOAT), slot_count, value_slot (MODE_AGG),
//   intervals (0, or 1..4: test raw-bit intervals instead of the terms).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require
#if defined(MODE_FLAGS)
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#if defined(MODE_AGG) && VALUE_FLOAT && WANT_SUM
#extension GL_EXT_shader_atomic_int64 : require
#endif
#if defined(SUM_DOUBLE)
#extension GL_ARB_gpu_shader_fp64 : enable
#endif
#include "gfxq_constants.h"
#if defined(MODE_FLAGS)
#include "cnf_mask_config.glsl"
// mark_step's ballots follow cnf_test: its loop is left by the whole subgroup at once.
#define CNF_UNIFORM_EXIT
#endif

#if GFXQ_WORKGROUP_SIZE != 256
#error "cnf_scan's tiles assume 256 invocations per workgroup"
#endif
#define WG 256u
#define SUB 1024u
// Vectors (of 4 rows) per invocation and step: all are loaded before any is tested. Measured on
// the H200 at 2^28 rows (interval programs, GPU busy at full clock, full steps without row
// checks): COUNT 0.256 ms with 4 (40 registers) against 0.263 / 0.257 / 0.309 / 0.275 with 2 / 6 /
// 8 / 16 (29 / 48 / 48 / 128 registers), range COUNT 0.253 against 0.262 with 16; MIN and MAX
// 0.301 with 4 against 0.313 / 0.377 / 0.309 with 2 / 8 / 16; the FLOAT SUM with the double
// register bin 0.357 with 4 (0.405 with 2; the int64 register bin, before the full-step split:
// 0.57 with 4, 0.59 with 8, 0.69 with 16). The occupancy that few registers allow matters more
// than the loads in flight; so for MODE_FLAGS with an interval program too: 4 steps of 4 vectors
// per mask block took cnf_flags from 0.326 ms (one step of 16, 128 registers) to 0.305 (48). Any
// divisor of 16 keeps the mask layout: TILE / ROUND steps per tile. Term programs: 4 vectors (the
// term loop is inlined once per vector); several slots: 16 / SLOTS (about the same registers for
// the loaded words: 4 vectors of 2 slots, 2 of 4, 1 of 8).
#if SLOTS == 1 && defined(CNF_INTERVALS_ONLY) && defined(MODE_FLAGS)
#define VEC 4u
#elif SLOTS == 1 && defined(CNF_INTERVALS_ONLY) && defined(MODE_AGG) && WANT_SUM && !defined(SUM_DOUBLE)
#define VEC 8u
#elif SLOTS == 1
#define VEC 4u
#elif SLOTS == 2
#define VEC 4u
#elif SLOTS == 4
#define VEC 2u
#else
#define VEC 1u
#endif
#define ROUND (SUB * VEC)
// Rows a workgroup takes at a time: MODE_FLAGS one mask block per 32 invocations, in TILE / ROUND
// steps.
#if defined(MODE_FLAGS)
#define BLOCK uint(CNF_MASK_BLOCK)
#define TILE (WG / 32u * BLOCK)
#if CNF_MASK_BLOCK != 32 * 4 * CNF_MASK_BLOCK_VECS || CNF_MASK_BLOCK_WORDS != 4 * CNF_MASK_BLOCK_VECS
#error "cnf_scan's MODE_FLAGS takes a block as 32 invocations x CNF_MASK_BLOCK_VECS vectors"
#endif
#else
#define TILE ROUND
#endif

layout(local_size_x = GFXQ_WORKGROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer Program { uint program[]; };
layout(std430, binding = 1) readonly buffer Slot0 { uvec4 slot0[]; };
layout(std430, binding = 2) readonly buffer Slot1 { uvec4 slot1[]; };
layout(std430, binding = 3) readonly buffer Slot2 { uvec4 slot2[]; };
layout(std430, binding = 4) readonly buffer Slot3 { uvec4 slot3[]; };
layout(std430, binding = 5) readonly buffer Slot4 { uvec4 slot4[]; };
layout(std430, binding = 6) readonly buffer Slot5 { uvec4 slot5[]; };
layout(std430, binding = 7) readonly buffer Slot6 { uvec4 slot6[]; };
layout(std430, binding = 8) readonly buffer Slot7 { uvec4 slot7[]; };
#if defined(MODE_AGG)
struct AggPartial {
  uint count;
  uint min_key;
  uint max_key;
  uint special;  // bit 0: a NaN was summed, bit 1: +inf, bit 2: -inf (VALUE_FLOAT)
  int64_t bins[16];  // VALUE_FLOAT=0: bins[0] is the int64 sum
};
layout(std430, binding = 9) writeonly buffer Partials { AggPartial partials[]; };
#else
layout(std430, binding = 9) writeonly buffer Partials { uint counts[]; };
#endif
#if defined(MODE_FLAGS)
layout(std430, binding = 10) writeonly buffer Mask { uvec2 mask[]; };
#endif

layout(push_constant) uniform Params {
  uint rows;
  uint group_base;
  uint terms;
  uint float_slots;
  uint slot_count;
  uint value_slot;
  uint intervals;  // raw-bit interval tests instead of the terms (cnf_eval.glsl; vk::detail::interval_word); 0: run the terms
} pc;

#include "cnf_eval.glsl"

// The first of the four rows this invocation tests in vector v of step q of the tile from `base`.
uint row_of(uint base, uint q, uint v) {
  const uint lid = gl_LocalInvocationID.x;
#if defined(MODE_FLAGS)
  return base + (lid >> 5) * BLOCK + (q * VEC + v) * 128u + 4u * (lid & 31u);
#else
  return base + q * ROUND + v * SUB + 4u * lid;
#endif
}

// The raw vectors of every slot for step q of the tile from `base` (zeros past `end`).
void load_step(uint base, uint q, uint end, out uvec4 raw[VEC][SLOTS]) {
  [[unroll]] for (uint v = 0u; v < VEC; ++v) {
    const uint row = row_of(base, q, v);
    // Clamped, unconditional loads: no divergent branch before the ballots of MODE_FLAGS.
    [[unroll]] for (uint s = 0u; s < SLOTS; ++s) {
      const uvec4 value = s < pc.slot_count ? load_slot(s, min(row, end - 1u) / 4u) : uvec4(0u);
      raw[v][s] = row < end ? value : uvec4(0u);
    }
  }
}

#if defined(MODE_AGG)
shared uint s_count[WG], s_min[WG], s_max[WG], s_special[WG];
shared int64_t s_sum[WG];
#if !defined(WANT_MIN)
#define WANT_MIN 0
#endif
#if !defined(WANT_MAX)
#define WANT_MAX 0
#endif
uint min_key = 0xffffffffu, max_key = 0u;
int64_t sum = 0;  // WANT_SUM, VALUE_FLOAT=0

// MIN/MAX: a key from the raw bits that orders like the order key and costs 2-3 operations:
// INT bits ^ 2^31; FLOAT the sign flip less 0x007fffff (the flip of -inf), so that every NaN
// (either sign) wraps above +inf. Only -0.0 and NaNs differ from the order key; the workgroup's
// result is made canonical once at the end (canonical_key). Measured at 2^28 rows on the H200:
// MIN/MAX 0.354 ms against 0.385 ms for the flip with a NaN select per value.
uvec4 minmax_key(uvec4 raw) {
#if VALUE_FLOAT
  return (raw ^ (uvec4(ivec4(raw) >> 31) | 0x80000000u)) - 0x007fffffu;
#else
  return raw ^ 0x80000000u;
#endif
}

// The order key of a workgroup's extreme (minmax_key of a passing row, or a neutral value).
uint canonical_key(uint k) {
#if VALUE_FLOAT
  if (k >= 0xff000002u) return 0xffc00000u;  // a NaN: the canonical NaN's key
  k += 0x007fffffu;
  if (k == 0x7fffffffu) return 0x80000000u;  // -0.0: +0.0's key
#endif
  return k;
}

#if VALUE_FLOAT && WANT_SUM
// Exact float sum: a finite float is (-1)^s * M * 2^(t - 149) with M < 2^24 and t = max(e, 1) - 1
// in 0..253. Bin b = t >> 4 counts units of 2^(16b - 149); the value adds M << (t & 15) < 2^39
// there. A workgroup adds at most 2^24 values per bin (see Layout), so |bin| < 2^63.
// Each invocation keeps one of bins 0..14 in a register: the normal values with |bits| in
// [lo_bits, lo_bits + 16 * 2^23), exponents base .. base + 15 (base = lo_bits >> 23 = 16b + 1);
// bin 15, which holds the exponent of inf and NaN, never is the register bin. A value in it costs
// an AND, a subtraction and a compare before it is added. Other values (other bins, subnormals, inf,
// NaN: rare in most data) go to the workgroup's shared bins by an atomic; zeros take that path and
// add nothing. An invocation moves its register bin to the bin of such a value when its register bin
// is empty or after 32 such values, so data in any exponent range takes the fast path.
// SUM_DOUBLE (devices with shaderFloat64): the register bin's values are added as doubles in
// `accd`. Each is an integer multiple of the bin's unit 2^(base - 150) below 2^39 units, so a
// double holds the sum of up to 2^14 of them exactly; accd moves into the shared bin (exactly, as
// int64 units) every 256 steps (4096 values at most), at a bin change and at the end. Otherwise
// `acc` adds M << (e - base) as int64 units (|acc| < 2^39 x 2^16 rows per invocation) and moves
// into the shared bin at a bin change and at the end.
shared int64_t s_bins[16];
uint lo_bits = 113u << 23;  // bin 7: exponents 113 .. 128, |x| in [2^-14, 2^2)
uint misses = 0u;
uint special = 0u;
#if defined(SUM_DOUBLE)
double accd = 0.0;
#else
int64_t acc = 0;
#endif

// Moves the register bin into its shared bin; it is empty afterwards.
void flush_register_bin() {
  const uint base = lo_bits >> 23;
#if defined(SUM_DOUBLE)
  if (accd != 0.0) atomicAdd(s_bins[(base - 1u) >> 4], int64_t(accd * ldexp(1.0lf, int(150u - base))));
  accd = 0.0;
#else
  if (acc != 0) atomicAdd(s_bins[(base - 1u) >> 4], acc);
  acc = 0;
#endif
}

// One passing value outside the register bin (zeros add nothing).
void add_other(uint bits) {
  if ((bits & 0x7fffffffu) == 0u) return;
  const uint e = (bits >> 23) & 0xffu;
  if (e == 0xffu) {
    special |= (bits & 0x7fffffu) != 0u ? 1u : ((bits >> 31) != 0u ? 4u : 2u);
    return;
  }
  const uint t = max(e, 1u) - 1u;
  const uint bin = t >> 4;
  int64_t v = int64_t((e != 0u ? 0x800000u : 0u) | (bits & 0x7fffffu)) << (t & 15u);
  if ((bits >> 31) != 0u) v = -v;
#if defined(SUM_DOUBLE)
  const bool empty = accd == 0.0;
#else
  const bool empty = acc == 0;
#endif
  if (e != 0u && bin != 15u && (empty || ++misses > 32u)) {
    flush_register_bin();
    lo_bits = (16u * bin + 1u) << 23;
    misses = 0u;
#if defined(SUM_DOUBLE)
    accd = double(uintBitsToFloat(bits));
#else
    acc = v;
#endif
  } else {
    atomicAdd(s_bins[bin], v);
  }
}

// Four rows' raw bits, those in `pass` summed.
void add_floats(uvec4 bits, bvec4 pass) {
  const uvec4 d = (bits & 0x7fffffffu) - lo_bits;  // (e - base) << 23 + mantissa for the bin's values
  const bvec4 other = bvec4(uvec4(pass) & uvec4(not(lessThan(d, uvec4(16u << 23)))));
  const bvec4 take = bvec4(uvec4(pass) & ~uvec4(other));
#if defined(SUM_DOUBLE)
  const vec4 f = uintBitsToFloat(mix(uvec4(0u), bits, take));
  accd += (double(f.x) + double(f.y)) + (double(f.z) + double(f.w));
#else
  const uvec4 mant = mix(uvec4(0u), (bits & 0x7fffffu) | 0x800000u, take);
  const ivec4 sm = mix(ivec4(mant), -ivec4(mant), lessThan(ivec4(bits), ivec4(0)));
  const uvec4 sh = d >> 23;
  [[unroll]] for (uint j = 0u; j < 4u; ++j) acc += int64_t(sm[j]) << sh[j];
#endif
  if (any(other)) {
    // One call site: the rare path stays small.
    [[dont_unroll]] for (uint j = 0u; j < 4u; ++j)
      if (other[j]) add_other(bits[j]);
  }
}
#endif
#elif defined(MODE_FLAGS)
// The staged path: the tile's mask words (block k: words 64k ..) and block counts.
shared uint s_mask[TILE / 32u];
shared uint s_count[WG / 32u];
shared uint s_linear;

// The word of `ballot` that holds this invocation's group of 32 (subgroups of 32 or more).
uint group_word(uvec4 ballot) {
  return gl_SubgroupSize == 32u ? ballot.x : ballot[gl_SubgroupInvocationID >> 5];
}

// The sum of `value` over this invocation's group of 32 (subgroups of 32 or more).
uint group_add(uint value) {
  if (gl_SubgroupSize == 32u) return subgroupAdd(value);
  uint sum = 0u;
  for (uint g = 0u; g < gl_SubgroupSize / 32u; ++g) {
    const uint s = subgroupAdd((gl_SubgroupInvocationID >> 5) == g ? value : 0u);
    if ((gl_SubgroupInvocationID >> 5) == g) sum = s;
  }
  return sum;
}
#else
shared uint s_count[WG];
#endif

#if defined(MODE_AGG)
// The raw bits of slot `slot` (uniform) for sub-round v.
uvec4 raw_of(uint v, uint slot, const uvec4 raw[VEC][SLOTS]) {
#if SLOTS == 1
  return raw[v][0];
#else
  uvec4 r = raw[v][0];
  [[unroll]] for (uint i = 1u; i < SLOTS; ++i)
    if (slot == i) r = raw[v][i];
  return r;
#endif
}

// Adds the passing rows of four rows to this invocation's aggregates.
void aggregate(uvec4 x, bvec4 pass) {
#if WANT_MIN || WANT_MAX
  const uvec4 k = minmax_key(x);
#endif
#if WANT_MIN
  const uvec4 kmin = mix(uvec4(0xffffffffu), k, pass);
  min_key = min(min_key, min(min(kmin.x, kmin.y), min(kmin.z, kmin.w)));
#endif
#if WANT_MAX
  const uvec4 kmax = mix(uvec4(0u), k, pass);
  max_key = max(max_key, max(max(kmax.x, kmax.y), max(kmax.z, kmax.w)));
#endif
#if WANT_SUM && VALUE_FLOAT
  add_floats(x, pass);
#elif WANT_SUM
  const ivec4 iv = mix(ivec4(0), ivec4(x), pass);
  sum += int64_t(iv.x) + int64_t(iv.y) + int64_t(iv.z) + int64_t(iv.w);
#endif
}
#endif

#if !defined(MODE_FLAGS)
// One step's rows counted (and aggregated), the row checks compiled in only when `check` (a
// constant at both call sites): full steps, all but a chunk's last, test no row index. Measured on
// the H200 at 2^28 rows: MIN 0.309 ms against 0.328 with a per-vector select of the checks, the
// FLOAT SUM 0.409 against 0.495; COUNT unchanged (0.276).
void count_step(const uvec4 raw[VEC][SLOTS], bool check, uint base, uint q, inout uint count) {
  [[unroll]] for (uint v = 0u; v < VEC; ++v) {
    const uint row = row_of(base, q, v);
    const bvec4 valid = check ? lessThan(uvec4(row) + uvec4(0u, 1u, 2u, 3u), uvec4(pc.rows)) : bvec4(true);
    const bvec4 pass = cnf_test(raw[v], valid);
    count += uint(pass.x) + uint(pass.y) + uint(pass.z) + uint(pass.w);
#if defined(MODE_AGG)
    aggregate(raw_of(v, pc.value_slot, raw), pass);
#endif
  }
}
#else
// One step's rows marked, the row checks compiled in only when `check` (as in count_step). Linear
// subgroups: this lane keeps words 2i and 2i + 1 of its group's block in `kept` (i = lane & 31),
// taken from the group's ballots (word 4u + j: component j of vector u); else the words are
// gathered in s_mask.
void mark_step(const uvec4 raw[VEC][SLOTS], bool check, uint base, uint q, bool linear, inout uvec2 kept) {
  const uint lid = gl_LocalInvocationID.x, lane = lid & 31u;
  [[unroll]] for (uint v = 0u; v < VEC; ++v) {
    const uint row = row_of(base, q, v);
    const bvec4 valid = check ? lessThan(uvec4(row) + uvec4(0u, 1u, 2u, 3u), uvec4(pc.rows)) : bvec4(true);
    const bvec4 pass = cnf_test(raw[v], valid);
    const uint u = q * VEC + v;  // the vector's index in the block: mask words 4u .. 4u + 3
    if (linear) {
      const uvec4 words = uvec4(group_word(subgroupBallot(pass.x)), group_word(subgroupBallot(pass.y)),
                                group_word(subgroupBallot(pass.z)), group_word(subgroupBallot(pass.w)));
      if ((lane >> 1) == u) kept = (lane & 1u) != 0u ? words.zw : words.xy;
    } else {
      [[unroll]] for (uint j = 0u; j < 4u; ++j)
        if (pass[j]) atomicOr(s_mask[(lid >> 5) * uint(CNF_MASK_BLOCK_WORDS) + 4u * u + j], 1u << lane);
    }
  }
}
#endif

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint group = gl_WorkGroupID.x;
  // The workgroups walk the chunk together, tile g + r * groups in round r, so the rows being
  // read at any moment lie in one narrow window of the column (DRAM pages and TLB entries shared
  // by all workgroups) instead of one stream per workgroup spread over the whole chunk. MODE_FLAGS
  // counts per block, so the compaction keeps row order all the same.
  const uint groups = gl_NumWorkGroups.x;
  const uint end = pc.rows;
  const uint tiles = (pc.rows + TILE - 1u) / TILE;
  const uint rounds = tiles > group ? (tiles - group + groups - 1u) / groups : 0u;
  uint count = 0u;
  cnf_load_intervals();
#if defined(MODE_AGG)
#if VALUE_FLOAT && WANT_SUM
  if (lid < 16u) s_bins[lid] = 0;
  barrier();
#endif
#endif
#if defined(MODE_FLAGS)
  // Whether subgroups hold consecutive invocations in whole groups of 32 (true on common GPUs),
  // the same for the whole workgroup.
  if (lid == 0u) s_linear = gl_SubgroupSize >= 32u ? 1u : 0u;
  s_mask[2u * lid] = 0u;
  s_mask[2u * lid + 1u] = 0u;
  if (lid < WG / 32u) s_count[lid] = 0u;
  barrier();
  if (!subgroupAll(lid == gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID)) s_linear = 0u;
  barrier();
  const bool linear = s_linear != 0u;
  const uint lane = lid & 31u;  // in the group of 32 (linear: the subgroup's lane & 31)
  uvec2 kept = uvec2(0u);       // linear: this lane's two mask words of its group's block
#endif
  uvec4 raw[VEC][SLOTS];
  for (uint r = 0u; r < rounds; ++r) {
    const uint base = (group + r * groups) * TILE;
    // Only the chunk's last tile has rows past its end: the others skip the row checks.
    const bool full = base + TILE <= end;
    for (uint q = 0u; q < TILE / ROUND; ++q) {
      load_step(base, q, end, raw);
#if !defined(MODE_FLAGS)
      if (full) {
        count_step(raw, false, base, q, count);
      } else {
        count_step(raw, true, base, q, count);
      }
#else
      if (full) {
        mark_step(raw, false, base, q, linear, kept);
      } else {
        mark_step(raw, true, base, q, linear, kept);
      }
#endif
#if VALUE_FLOAT && WANT_SUM && defined(SUM_DOUBLE)
      // One step per round (TILE == ROUND): at most 4 VEC values per step enter accd.
      if ((r & 255u) == 255u) flush_register_bin();
#endif
    }
#if defined(MODE_FLAGS)
    // The tile's 8 blocks (those that hold rows): each group of 32 stores its block's 64 words in
    // one coalesced store and its count. The linear path needs no barrier: the workgroup's
    // subgroups run ahead independently. Else the staged words and counts go out after barriers.
    const uint block = base / BLOCK + (lid >> 5);
    const bool block_here = block * BLOCK < end;
    if (linear) {
      const uint block_count = group_add(bitCount(kept.x) + bitCount(kept.y));  // before any branch
      if (block_here) mask[block * 32u + lane] = kept;
      if (lane == 0u && block_here) counts[pc.group_base + block] = block_count;
    } else {
      barrier();
      const uvec2 words = uvec2(s_mask[2u * lid], s_mask[2u * lid + 1u]);
      s_mask[2u * lid] = 0u;
      s_mask[2u * lid + 1u] = 0u;
      if (block_here) mask[block * 32u + lane] = words;
      const uint c = bitCount(words.x) + bitCount(words.y);
      if (c != 0u) atomicAdd(s_count[lid >> 5], c);
      barrier();
      if (lid < WG / 32u) {
        if ((base / BLOCK + lid) * BLOCK < end) counts[pc.group_base + base / BLOCK + lid] = s_count[lid];
        s_count[lid] = 0u;
      }
    }
#endif
  }
#if defined(MODE_FLAGS)
}
#else

  // Workgroup reduction of the per-invocation results.
  s_count[lid] = count;
#if defined(MODE_AGG)
  s_min[lid] = min_key;
  s_max[lid] = max_key;
  s_sum[lid] = sum;
#if VALUE_FLOAT && WANT_SUM
  flush_register_bin();
  s_special[lid] = special;
#else
  s_special[lid] = 0u;
#endif
#endif
  barrier();
  for (uint half_size = WG / 2u; half_size > 0u; half_size /= 2u) {
    if (lid < half_size) {
      s_count[lid] += s_count[lid + half_size];
#if defined(MODE_AGG)
      s_min[lid] = min(s_min[lid], s_min[lid + half_size]);
      s_max[lid] = max(s_max[lid], s_max[lid + half_size]);
      s_special[lid] |= s_special[lid + half_size];
      s_sum[lid] += s_sum[lid + half_size];
#endif
    }
    barrier();
  }
  const uint slot = pc.group_base + group;
#if defined(MODE_AGG)
  if (lid == 0u) {
    partials[slot].count = s_count[0];
    // No row: the neutral keys; the minimum may be a NaN's key 0xffffffff otherwise.
    const bool any_row = s_count[0] != 0u;
    partials[slot].min_key = WANT_MIN != 0 && any_row ? canonical_key(s_min[0]) : 0xffffffffu;
    partials[slot].max_key = WANT_MAX != 0 && any_row ? canonical_key(s_max[0]) : 0u;
    partials[slot].special = s_special[0];
  }
#if VALUE_FLOAT && WANT_SUM
  if (lid < 16u) partials[slot].bins[lid] = s_bins[lid];
#else
  if (lid < 16u) partials[slot].bins[lid] = lid == 0u ? s_sum[0] : int64_t(0);
#endif
#else
  if (lid == 0u) counts[slot] = s_count[0];
#endif
}
#endif
