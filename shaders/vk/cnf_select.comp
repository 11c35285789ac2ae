#version 450
// cnf_select: the row ids of a WHERE in one pass (single-pass stream compaction with decoupled
// look-back). A workgroup's tile is its workgroup id (CNF_SELECT_LAUNCH_TILES: on devices that
// start workgroups in id order, so that a tile waits on tiles whose workgroups started earlier) or
// the next id from the counter in ctrl (dynamic ids, which guarantee that order on any device). It
// loads the tile's rows of every slot column, tests the whole CNF per row (cnf_eval.glsl), counts
// its passing rows (subgroup sums, then the subgroups' totals), publishes its count (AGGREGATE;
// tile 0 of a chunk: PREFIX at once), ranks its passing rows in row order (subgroup prefix sums of
// per-invocation counts) and looks back over the descriptors of the chunk's earlier tiles, one
// subgroup reading one descriptor per invocation per step, adding AGGREGATE counts up to the
// nearest PREFIX. It then publishes its own PREFIX, and each subgroup writes the ids of its
// passing rows at chunk-local positions from there, staged in a ring of shared memory of its own
// so that the stores are coalesced, with no workgroup barrier; positions at or past `limit` are
// not written.
// The look-back takes at most lookback_limit steps. When the bound is hit (or an earlier tile
// failed) the tile publishes FAILED, sets the status word and writes nothing: the host then reruns
// the selection by the three-kernel path (cnf_flags, scan, cnf_compact).
// Layout: subgroup g (S invocations) takes the tile's rows [g C, (g + 1) C), C = 4 VEC S, so its
// passing rows go to one run of positions; in sub-round v lane l tests rows 4 (v S + l) .. + 3 of
// them. (On the H200 at 2^28 rows, `a < 0.5`, this took 0.490-0.497 ms against 0.523-0.530 with
// sub-rounds spanning the workgroup, staged workgroup-wide in four rounds with two barriers each.)
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
//   group_offset (written by split grids).
// Specialization constant 1: CNF_SELECT_LAUNCH_TILES (1: the tile is the workgroup id, 0: taken
//   from the counter; constant 0 is cnf_eval.glsl's float test).
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
#define TILE (4u * WG * uint(VEC))
// Each subgroup's ring of staged ids: CNF_SELECT_STAGE / (subgroups) = CNF_SELECT_STAGE S / WG
// words, at least 8 S, so that it holds the unwritten half of the ring plus one sub-round (4 S).
#if CNF_SELECT_STAGE < 8 * WG_SIZE
#error "cnf_select: CNF_SELECT_STAGE must hold 8 ids per invocation"
#endif
// Per-invocation and per-subgroup counts of two sub-rounds share a word (16 bits each; a
// subgroup's sub-round passes at most 4 S rows).
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

// select_tile's subgroup sums follow cnf_test: its loop is left by the whole subgroup at once.
#define CNF_UNIFORM_EXIT
#include "cnf_eval.glsl"

layout(constant_id = 1) const uint CNF_SELECT_LAUNCH_TILES = 0u;

shared uint s_ids[CNF_SELECT_STAGE];
shared uint s_sums[MAX_SUBGROUPS];
shared uint s_tile, s_before, s_failed;

void select_tile(uint tile, const bool full);

// The first of the 4 rows lane `lane` tests in sub-round v of its subgroup's run from run_row.
uint lane_row(uint run_row, uint v, uint lane) { return run_row + 4u * (v * gl_SubgroupSize + lane); }

void main() {
  cnf_load_intervals();
  uint tile = gl_WorkGroupID.x + pc.group_offset;
  // (On the H200 at 2^28 rows the workgroup ids took 0.491-0.493 ms against 0.494-0.499 with the
  // counter: no atomic and no barrier before the loads; as a push constant instead of a
  // specialization constant the choice cost 0.491 against 0.485-0.487 in one run.)
  if (CNF_SELECT_LAUNCH_TILES == 0u) {
    if (gl_SubgroupID == 0u && gl_SubgroupInvocationID == 0u)
      s_tile = atomicAdd(ctrl[CNF_SELECT_COUNTER], 1u) - pc.first_tile;
    barrier();
    tile = s_tile;
  }
  // Tiles wholly inside the chunk (all but its last) test no row index.
  if ((tile + 1u) * TILE <= pc.rows) {
    select_tile(tile, true);
  } else {
    select_tile(tile, false);
  }
}

// The tile's work; `full` (a constant at each call site): every row of the tile is in the chunk.
void select_tile(uint tile, const bool full) {
  const uint lane = gl_SubgroupInvocationID;
  // The first row of this subgroup's run of the tile's rows.
  const uint run_row = tile * TILE + gl_SubgroupID * (4u * uint(VEC) * gl_SubgroupSize);
  const uint end = pc.rows;

  // Every load of the tile first (clamped, unconditional: many in flight, no divergent branch).
  uvec4 raw[VEC][SLOTS];
  [[unroll]] for (uint v = 0u; v < VEC; ++v) {
    const uint row = lane_row(run_row, v, lane);
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
    const uint row = lane_row(run_row, v, lane);
    const bvec4 pass =
        cnf_test(raw[v], full ? bvec4(true) : lessThan(uvec4(row) + uvec4(0u, 1u, 2u, 3u), uvec4(end)));
    const uint nibble = uint(pass.x) | uint(pass.y) << 1 | uint(pass.z) << 2 | uint(pass.w) << 3;
    bits[v / 8u] |= nibble << (4u * (v % 8u));
    packed[v / 2u] += uint(bitCount(nibble)) << (16u * (v % 2u));
  }

  // The subgroup's passing rows, then the subgroups' totals over the workgroup.
  uint lane_count = 0u;
  [[unroll]] for (uint i = 0u; i < (VEC + 7) / 8; ++i) lane_count += uint(bitCount(bits[i]));
  const uint sub_total = subgroupAdd(lane_count);
  if (subgroupElect()) s_sums[gl_SubgroupID] = sub_total;
  barrier();
  uint sub_before = 0u, tile_count = 0u;
  for (uint i = 0u; i < gl_NumSubgroups; ++i) {
    const uint x = s_sums[i];
    sub_before += i < gl_SubgroupID ? x : 0u;
    tile_count += x;
  }
  const uint desc = CNF_SELECT_DESC + pc.first_tile + tile;
  if (gl_SubgroupID == 0u && lane == 0u)
    atomicExchange(ctrl[desc], ((tile == 0u ? CNF_SELECT_FLAG_PREFIX : CNF_SELECT_FLAG_AGGREGATE) << 30) | tile_count);

  // Exclusive prefix sums within the subgroup per sub-round and its totals, two per word, once the
  // count is out (on the H200: 0.485-0.489 ms against 0.491-0.493 with the sums before it).
  uint prefix[PACKS], totals[PACKS];
  [[unroll]] for (uint k = 0u; k < PACKS; ++k) {
    prefix[k] = subgroupExclusiveAdd(packed[k]);
    totals[k] = subgroupAdd(packed[k]);
  }

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

  // The subgroup's ids go to positions [out0, out0 + sub_total): staged in its ring of R words (a
  // power of two, as subgroups and workgroups are), in row order, and stored R / 2 at a time,
  // consecutive lanes to consecutive positions. Before a sub-round is staged fewer than R / 2 ids
  // wait in the ring and the sub-round adds at most 4 S <= R / 2, so no waiting id is overwritten.
  // (Aligning the stores to 32 positions took 0.498-0.502 ms against 0.490-0.492 on the H200.)
  const uint out0 = before + sub_before;
  if (sub_total != 0u && out0 < pc.limit) {
    const uint R = uint(CNF_SELECT_STAGE) / gl_NumSubgroups, half_r = R / 2u, ring = gl_SubgroupID * R;
    uint staged = 0u, stored = 0u;
    [[unroll]] for (uint v = 0u; v < VEC; ++v) {
      const uint shift = 16u * (v % 2u);
      const uint nibble = (bits[v / 8u] >> (4u * (v % 8u))) & 15u;
      const uint row = pc.first_row + lane_row(run_row, v, lane);
      uint o = staged + ((prefix[v / 2u] >> shift) & 0xffffu);
      [[unroll]] for (uint j = 0u; j < 4u; ++j)
        if (((nibble >> j) & 1u) != 0u) s_ids[ring + (o++ & (R - 1u))] = row + j;
      staged += (totals[v / 2u] >> shift) & 0xffffu;
      subgroupBarrier();  // the staged ids are visible to the lanes that store them
      if (staged - stored >= half_r) {
        for (uint i = lane; i < half_r; i += gl_SubgroupSize) {
          const uint pos = out0 + stored + i;
          if (pos < pc.limit) ids[pos] = s_ids[ring + ((stored + i) & (R - 1u))];
        }
        stored += half_r;
        subgroupBarrier();  // those slots are read before the next sub-round reuses them
      }
    }
    for (uint i = lane; i < staged - stored; i += gl_SubgroupSize) {
      const uint pos = out0 + stored + i;
      if (pos < pc.limit) ids[pos] = s_ids[ring + ((stored + i) & (R - 1u))];
    }
  }
}
