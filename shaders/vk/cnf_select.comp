#version 450
// cnf_select: the row ids of a WHERE in one pass (single-pass stream compaction with decoupled
// look-back). A workgroup takes the next tile id from the counter in ctrl (dynamic ids: a tile only
// waits on tiles whose workgroups started earlier), loads the tile's rows of every slot column,
// tests the whole CNF per row (cnf_eval.glsl), ranks its passing rows in row order (subgroup and
// workgroup prefix sums of per-invocation counts), publishes its count (AGGREGATE; tile 0 of a
// chunk: PREFIX at once), and looks back over the descriptors of the chunk's earlier tiles, one
// subgroup reading one descriptor per invocation per step, adding AGGREGATE counts up to the
// nearest PREFIX. It then publishes its own PREFIX and writes the ids of its passing rows at
// chunk-local positions from there, staged in shared memory so that the stores are coalesced;
// positions at or past `limit` are not written.
// The look-back takes at most lookback_limit steps. When the bound is hit (or an earlier tile
// failed) the tile publishes FAILED, sets the status word and writes nothing: the host then reruns
// the selection by the three-kernel path (cnf_flags, scan, cnf_compact).
// Layout: a tile is VEC sub-rounds of SUB = 4 * WG rows; in sub-round v invocation of rank r
// (subgroup by subgroup, lane by lane: the order of the subgroup scans) tests rows SUB * v + 4r ..
// SUB * v + 4r + 3.
// Variants (defines): SLOTS (1 or 8), CNF_INTERVALS_ONLY; the shape follows from them
// (cnf_select_config.glsl): WG invocations x VEC uvec4 loads per invocation and slot, 512 x 8 for
// a one-column interval program, 256 x 8 for other one-column programs, 256 x 2 with several.
// Bindings: 0 = program (uint[]: 2 words per term, then the raw-bit intervals), 1..8 = slot columns
//   0..7 (uvec4[]: raw int32 / float32 bits from the chunk's row 0; unused slots may be any
//   buffer), 9 = ctrl (uint[]: cnf_select_config.glsl, zeroed before the first chunk),
//   10 = ids (uint[]: the chunk's output, indexed by chunk-local position).
// Push constants: rows (in this chunk), first_row (row id of the chunk's row 0), first_tile (index
//   of the chunk's tile 0 among all chunks' tiles), terms (0: every row passes), float_slots (bit s:
//   slot s is FLOAT), slot_count, intervals (0, or 1..4: test raw-bit intervals), limit, lookback_limit,
//   group_offset (written by split grids; unused, tiles come from the counter).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#include "cnf_select_config.glsl"

#if SLOTS == 1 && defined(CNF_INTERVALS_ONLY)
#define WG_SIZE CNF_SELECT_WG_S1_IV
#define VEC CNF_SELECT_VEC_S1_IV
#elif SLOTS == 1
#define WG_SIZE CNF_SELECT_WG_S1
#define VEC CNF_SELECT_VEC_S1
#else
#define WG_SIZE CNF_SELECT_WG_S8
#define VEC CNF_SELECT_VEC_S8
#endif
#define WG uint(WG_SIZE)
#define SUB (4u * WG)
#define TILE (SUB * uint(VEC))
// Sub-rounds whose ids are staged at once.
#if VEC * 4 * WG_SIZE > CNF_SELECT_STAGE
#define STAGE_SUBS (CNF_SELECT_STAGE / (4 * WG_SIZE))
#else
#define STAGE_SUBS VEC
#endif
// Per-invocation counts of two sub-rounds share a word (16 bits each; a sub-round passes <= SUB,
// at most 2048).
#define PACKS ((VEC + 1) / 2)
// Subgroups hold at least 8 invocations (vk::prim::require_features).
#define MAX_SUBGROUPS (WG_SIZE / 8)

layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) readonly buffer Program { uint program[]; };
layout(std430, binding = 1) readonly buffer Slot0 { uvec4 slot0[]; };
layout(std430, binding = 2) readonly buffer Slot1 { uvec4 slot1[]; };
layout(std430, binding = 3) readonly buffer Slot2 { uvec4 slot2[]; };
layout(std430, binding = 4) readonly buffer Slot3 { uvec4 slot3[]; };
layout(std430, binding = 5) readonly buffer Slot4 { uvec4 slot4[]; };
layout(std430, binding = 6) readonly buffer Slot5 { uvec4 slot5[]; };
layout(std430, binding = 7) readonly buffer Slot6 { uvec4 slot6[]; };
layout(std430, binding = 8) readonly buffer Slot7 { uvec4 slot7[]; };
layout(std430, binding = 9) volatile coherent buffer Ctrl { uint ctrl[]; };
layout(std430, binding = 10) writeonly buffer Ids { uint ids[]; };

layout(push_constant) uniform Params {
  uint rows;
  uint first_row;
  uint first_tile;
  uint terms;
  uint float_slots;
  uint slot_count;
  uint intervals;
  uint limit;
  uint lookback_limit;
  uint group_offset;
} pc;

#include "cnf_eval.glsl"

shared uint s_ids[STAGE_SUBS * SUB];
shared uint s_sums[PACKS * MAX_SUBGROUPS];
shared uint s_tile, s_before, s_failed;

void select_tile(uint tile, const bool full);

void main() {
  if (gl_SubgroupID == 0u && gl_SubgroupInvocationID == 0u)
    s_tile = atomicAdd(ctrl[CNF_SELECT_COUNTER], 1u) - pc.first_tile;
  cnf_load_intervals();
  barrier();
  // Tiles wholly inside the chunk (all but its last) test no row index.
  const uint tile = s_tile;
  if ((tile + 1u) * TILE <= pc.rows) {
    select_tile(tile, true);
  } else {
    select_tile(tile, false);
  }
}

// The tile's work; `full` (a constant at each call site): every row of the tile is in the chunk.
void select_tile(uint tile, const bool full) {
  const uint lane = gl_SubgroupInvocationID;
  const uint rank = gl_SubgroupID * gl_SubgroupSize + lane;
  const uint base = tile * TILE;
  const uint end = pc.rows;

  // Every load of the tile first (clamped, unconditional: many in flight, no divergent branch).
  uvec4 raw[VEC][SLOTS];
  [[unroll]] for (uint v = 0u; v < VEC; ++v) {
    const uint row = base + v * SUB + 4u * rank;
    [[unroll]] for (uint s = 0u; s < SLOTS; ++s) {
      const uvec4 value = s < pc.slot_count ? load_slot(s, (full ? row : min(row, end - 1u)) / 4u) : uvec4(0u);
      raw[v][s] = full || row < end ? value : uvec4(0u);
    }
  }

  // The passing rows: 4 bits per sub-round, and their counts two sub-rounds per word.
  uint bits[(VEC + 7) / 8];
  uint packed[PACKS];
  [[unroll]] for (uint i = 0u; i < (VEC + 7) / 8; ++i) bits[i] = 0u;
  [[unroll]] for (uint k = 0u; k < PACKS; ++k) packed[k] = 0u;
  [[unroll]] for (uint v = 0u; v < VEC; ++v) {
    const uint row = base + v * SUB + 4u * rank;
    const bvec4 pass =
        cnf_test(raw[v], full ? bvec4(true) : lessThan(uvec4(row) + uvec4(0u, 1u, 2u, 3u), uvec4(end)));
    const uint nibble = uint(pass.x) | uint(pass.y) << 1 | uint(pass.z) << 2 | uint(pass.w) << 3;
    bits[v / 8u] |= nibble << (4u * (v % 8u));
    packed[v / 2u] += uint(bitCount(nibble)) << (16u * (v % 2u));
  }

  // Exclusive prefix sums in rank order: within the subgroup, then over the subgroups before.
  uint prefix[PACKS], totals[PACKS];
  [[unroll]] for (uint k = 0u; k < PACKS; ++k) {
    prefix[k] = subgroupExclusiveAdd(packed[k]);
    const uint sum = subgroupAdd(packed[k]);
    if (subgroupElect()) s_sums[k * MAX_SUBGROUPS + gl_SubgroupID] = sum;
  }
  barrier();
  [[unroll]] for (uint k = 0u; k < PACKS; ++k) {
    uint before = 0u, total = 0u;
    for (uint i = 0u; i < gl_NumSubgroups; ++i) {
      if (i == gl_SubgroupID) before = total;
      total += s_sums[k * MAX_SUBGROUPS + i];
    }
    prefix[k] += before;
    totals[k] = total;
  }
  // start[v]: the tile's passing rows before sub-round v; off[v]: this invocation's first there.
  uint start[VEC + 1], off[VEC];
  start[0] = 0u;
  [[unroll]] for (uint v = 0u; v < VEC; ++v) {
    const uint shift = 16u * (v % 2u);
    off[v] = start[v] + ((prefix[v / 2u] >> shift) & 0xffffu);
    start[v + 1u] = start[v] + ((totals[v / 2u] >> shift) & 0xffffu);
  }
  const uint tile_count = start[VEC];
  const uint desc = CNF_SELECT_DESC + pc.first_tile + tile;
  if (rank == 0u)
    atomicExchange(ctrl[desc], ((tile == 0u ? CNF_SELECT_FLAG_PREFIX : CNF_SELECT_FLAG_AGGREGATE) << 30) | tile_count);

  // Look-back by subgroup 0: in each step lane i reads the descriptor of tile next - 1 - i; the
  // AGGREGATE counts up to the nearest other descriptor are added, and that one ends the walk
  // (PREFIX: add it, done; FAILED: fail) or, not yet published, is read again in the next step.
  if (gl_SubgroupID == 0u) {
    uint before = 0u;
    bool done = tile == 0u, failed = false;
    uint next = tile;
    for (uint step = 0u; !done && !failed && step < pc.lookback_limit; ++step) {
      // Lanes past tile 0 see an empty PREFIX (never reached: tile 0 is PREFIX).
      const uint d = lane < next ? ctrl[CNF_SELECT_DESC + pc.first_tile + next - 1u - lane]
                                 : CNF_SELECT_FLAG_PREFIX << 30;
      const uint flag = d >> 30;
      const bool stop = flag != CNF_SELECT_FLAG_AGGREGATE;
      const uint first = subgroupAny(stop) ? subgroupBallotFindLSB(subgroupBallot(stop)) : gl_SubgroupSize;
      before += subgroupAdd(lane <= first ? d & CNF_SELECT_COUNT_MASK : 0u);
      const uvec4 prefix_lanes = subgroupBallot(flag == CNF_SELECT_FLAG_PREFIX);
      const uvec4 failed_lanes = subgroupBallot(flag == CNF_SELECT_FLAG_FAILED);
      if (first < gl_SubgroupSize) {
        done = subgroupBallotBitExtract(prefix_lanes, first);
        failed = subgroupBallotBitExtract(failed_lanes, first);
      }
      next -= first;
    }
    // Out of steps, after a failed tile, or the loop cut short by the driver: no offset.
    if (lane == 0u) {
      s_before = before;
      s_failed = done ? 0u : 1u;
      if (tile != 0u) {
        atomicExchange(ctrl[desc], done ? (CNF_SELECT_FLAG_PREFIX << 30) | (before + tile_count)
                                        : CNF_SELECT_FLAG_FAILED << 30);
        if (!done) atomicOr(ctrl[CNF_SELECT_STATUS], 1u);
      }
    }
  }
  barrier();
  if (s_failed != 0u) return;
  const uint before = s_before;

  // The ids of STAGE_SUBS sub-rounds at a time: staged in row order, then stored contiguously.
  [[unroll]] for (uint g = 0u; g < VEC / STAGE_SUBS; ++g) {
    const uint g0 = start[g * STAGE_SUBS], g1 = start[(g + 1u) * STAGE_SUBS];
    if (g1 == g0 || before + g0 >= pc.limit) continue;
    [[unroll]] for (uint u = 0u; u < STAGE_SUBS; ++u) {
      const uint v = g * STAGE_SUBS + u;
      const uint nibble = (bits[v / 8u] >> (4u * (v % 8u))) & 15u;
      const uint row = pc.first_row + base + v * SUB + 4u * rank;
      uint o = off[v] - g0;
      [[unroll]] for (uint j = 0u; j < 4u; ++j)
        if (((nibble >> j) & 1u) != 0u) s_ids[o++] = row + j;
    }
    barrier();
    for (uint i = gl_LocalInvocationID.x; i < g1 - g0; i += WG) {
      const uint pos = before + g0 + i;
      if (pos < pc.limit) ids[pos] = s_ids[i];
    }
    barrier();
  }
}
