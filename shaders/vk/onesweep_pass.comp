#version 450
// onesweep_pass: digit pass `pass` (bits 8 pass .. 8 pass + 7 of the sort key) of the onesweep
// radix sort. A workgroup takes the next tile id from ctrl's counter of this pass (dynamic ids: a
// tile only waits on tiles whose workgroups started earlier), loads the tile's keys, counts them
// per subgroup and digit (32-bit counters in shared memory, one row per subgroup), publishes the
// tile's digit counts at once (AGGREGATE descriptors) and turns the rows into each subgroup's first
// position per digit in the tile. Then the invocations owning a digit look back over the
// descriptors of earlier tiles, ONESWEEP_LOOKBACK_BATCH descriptors per step (independent loads,
// consumed in order up to the first PREFIX or unpublished one), adding AGGREGATE counts until a
// PREFIX one, and publish their PREFIX, while the other subgroups already rank their keys; the
// owners rank theirs after. Ranking (peers by ballots, as radix_downsweep) takes each key straight
// to its position in the tile, stably. The keys are written to
//   keys_out[keys of smaller digits + keys of this digit in earlier tiles + position - first
//   position of the digit in the tile].
// Descriptors live in ONESWEEP_DESC_REGIONS = 2 regions of ntiles x SORT_BINS words, pass p using
// region p % 2: only region 0 is zeroed before the sort; pass p zeroes its tiles' rows of region
// (p + 1) % 2 (pass p - 1's, read by no one any more) for pass p + 1.
// Tile 0 scans the global histogram (ctrl[ONESWEEP_HIST...]) and publishes PREFIX = keys of
// smaller digits + its own count, so every other tile's look-back ends with its output offsets.
// The look-back reads at most lookback_limit descriptors per digit (rounded up to whole steps).
// When the bound is hit (or an earlier tile failed), the tile publishes FAILED, sets status bit
// `pass` and writes no key, so nothing it computed can be read as a result; the passes after a
// failed pass write nothing either, and the host reruns the sort from the failed pass's input by
// reduce-then-scan.
// Keys move with their bits unchanged; KEY_VALUE also moves a uint32 value per key (flags bit 0:
// values are generated as the keys' input positions instead of read).
// Tiles (sort_config.glsl): keys only, ONESWEEP_WG_K x ONESWEEP_KPT_K keys; KEY_VALUE,
// ONESWEEP_WG_KV x ONESWEEP_KPT_KV. The tile is staged in rounds of at most ONESWEEP_STAGE keys
// (lavapipe's 32 KiB of shared memory) in the words that held the counter rows, of which there are
// ONESWEEP_COUNTER_WORDS / SORT_BINS: with more subgroups than rows (lavapipe: 64 subgroups of 8),
// ONESWEEP_WAVES consecutive subgroups share a row and rank in turn (waves), so each finds the
// row's counters where the previous one left them.
// Defines: KEY_VALUE; SORT_KEY_TYPE (SORT_KEY_U32, _I32 or _F32: one kernel per key type, so no key
// pays a branch on the type; at 2^28 int32 keys on the H200 the sort took 7.77 ms against 8.23 with
// the type and the order as push constants).
// Bindings: 0 = keys_in (uint[], read), 1 = keys_out (uint[], written), 2 = ctrl (uint[], read and
// written; see sort_config.glsl), KEY_VALUE: 3 = values_in (uint[], read unless generated),
// 4 = values_out (uint[], written).
// Push constants: n, ntiles, key_flip (sort_key_flip), pass, flags, lookback_limit, group_offset.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#include "sort_config.glsl"
#include "sort_keys.glsl"

#ifdef KEY_VALUE
#define OS_WG ONESWEEP_WG_KV
#define OS_KPT ONESWEEP_KPT_KV
#else
#define OS_WG ONESWEEP_WG_K
#define OS_KPT ONESWEEP_KPT_K
#endif
#define OS_TILE (OS_WG * OS_KPT)
// The tile is staged in OS_ROUNDS rounds of OS_STAGE keys.
#define OS_ROUNDS ((OS_TILE + ONESWEEP_STAGE - 1) / ONESWEEP_STAGE)
#define OS_STAGE (OS_TILE / OS_ROUNDS)
// Workgroup scans over up to OS_WG / SORT_MIN_SUBGROUP subgroups.
#define SORT_WG_SUBGROUPS (OS_WG / SORT_MIN_SUBGROUP)

layout(local_size_x = OS_WG) in;
// Subgroups per counter row (onesweep_waves() on the host): 1 where every subgroup has a row of
// its own, more with many small subgroups (lavapipe: 64 subgroups of 8 share 16 rows, 4 to a row).
// A constant, so that with 1 the ranking has no wave loop (on the H200 at 2^28 int32 keys 7.13 ms
// per sort against 7.38 with the count of waves computed in the shader).
layout(constant_id = 0) const uint ONESWEEP_WAVES = 1u;
layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 2) volatile coherent buffer Ctrl { uint ctrl[]; };
#ifdef KEY_VALUE
layout(std430, binding = 3) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };
#endif
layout(push_constant) uniform Params {
  uint n, ntiles, key_flip, pass, flags, lookback_limit, group_offset;
} pc;

#include "sort_workgroup.glsl"

// Ranking: a row of SORT_BINS digit counters per subgroup (or per `waves` consecutive subgroups);
// afterwards the staging area of one round of the tile's keys (then values) in digit order. (Two
// 16-bit counters per word, added to by atomics, took 7.15 ms per sort at 2^28 int32 keys on the
// H200 against 6.56 with these, in the same run.)
shared uint s_mem[OS_STAGE > ONESWEEP_COUNTER_WORDS ? OS_STAGE : ONESWEEP_COUNTER_WORDS];
shared uint s_delta[SORT_BINS];  // output position minus position in the tile, per digit
shared uint s_tile, s_status, s_failed;

uint digit(uint raw) {
  const uint key = sort_key_flip(raw, SORT_KEY_TYPE, pc.key_flip);
  return bitfieldExtract(key, int(pc.pass * SORT_RADIX_BITS), SORT_RADIX_BITS);
}

// Invocation tid < SORT_BINS owns digit tid (workgroups have at least SORT_BINS invocations).
#define OWNER (tid < SORT_BINS)
#define IF_OWNER if (OWNER)
#define OWNER_OR_ZERO(x) (OWNER ? (x) : 0u)

// The position in the tile of this lane's key of digit d, from counter row `row` (the next free
// position of each digit there): the lanes of one digit (peers) take consecutive positions; the
// highest peer reads the row's counter, moves it past them and shuffles the value it read to the
// others. A digit has one such leader, and the row one subgroup, so the update needs no atomic; the
// subgroup barrier orders it before the next key's read. On the H200 at 2^28 int32 keys: 6.56 ms
// per sort against 6.66 without the barrier and 6.63 with an atomic add (one run); 6.51 against
// 6.56 with every peer reading the counter instead of the shuffle (another). Subgroup-uniform.
// Peers by one ballot per digit bit (subgroups of up to 32 lanes: the ballots' first word only):
// subgroupPartitionNV (VK_NV_shader_subgroup_partitioned) was slower on the H200, the one device
// measured that has it (3.78 ms per digit pass at 2^28 int32 keys against 2.79 with ballots,
// 256 x 16-key tiles).
uint position(uint row, uint d) {
  uint below, leader;
  if (gl_SubgroupSize <= 32u) {
    // One word of each ballot: at 512 x 16 on the H200 1.97 ms per pass against 2.00 with uvec4s.
    const uint peers = subgroup_peers_word(d, SORT_RADIX_BITS);
    below = bitCount(peers & gl_SubgroupLtMask.x);
    leader = findMSB(peers);
  } else {
    const uvec4 peers = subgroup_peers(d, SORT_RADIX_BITS, true);
    below = subgroupBallotExclusiveBitCount(peers);
    leader = subgroupBallotFindMSB(peers);
  }
  uint first = 0u;
  if (gl_SubgroupInvocationID == leader) {
    first = s_mem[row * SORT_BINS + d];
    s_mem[row * SORT_BINS + d] = first + below + 1u;
  }
  subgroupBarrier();  // the next key's leader reads what this one wrote
  return subgroupShuffle(first, leader) + below;
}

void sort_tile(uint tid, uint rows, uint waves, uint tile, uint valid, const bool full);

void main() {
  const uint tid = sort_tid();
  if (tid == 0u) {
    s_status = ctrl[ONESWEEP_STATUS];
    s_tile = atomicAdd(ctrl[ONESWEEP_COUNTERS + pc.pass], 1u);
    s_failed = 0u;
  }
  // Counter rows: one per subgroup, or per ONESWEEP_WAVES consecutive subgroups. If the
  // subgroups do not fit (the device ran another subgroup size than the host planned for), the
  // pass fails as a look-back past its bound does, and the host reruns it by reduce-then-scan.
  const uint waves = ONESWEEP_WAVES;
  const uint rows = gl_NumSubgroups / waves;
  if (rows * waves != gl_NumSubgroups || rows * SORT_BINS > uint(ONESWEEP_COUNTER_WORDS)) {
    if (tid == 0u) atomicOr(ctrl[ONESWEEP_STATUS], 1u << pc.pass);
    return;
  }
  for (uint i = tid; i < rows * SORT_BINS; i += OS_WG) s_mem[i] = 0u;
  barrier();
  if ((s_status & ((1u << pc.pass) - 1u)) != 0u) return;  // an earlier pass failed: write nothing
  const uint tile = s_tile;
  const uint valid = min(uint(OS_TILE), pc.n - tile * OS_TILE);
#ifdef KEY_VALUE
  sort_tile(tid, rows, waves, tile, valid, false);
#else
  // The keys-only kernel compiles the tile's work twice: full tiles test no key index (at 2^28
  // int32 keys on the H200 7.50 ms against 7.67; the key + value kernel went from 64 to 99
  // registers that way, 13.95 ms against 10.59, so it keeps one copy).
  if (valid == uint(OS_TILE)) {
    sort_tile(tid, rows, waves, tile, valid, true);
  } else {
    sort_tile(tid, rows, waves, tile, valid, false);
  }
#endif
}

// The tile's work after its id is known: `valid` keys (OS_TILE when `full`, a constant at each
// call site).
void sort_tile(uint tid, uint rows, uint waves, uint tile, uint valid, const bool full) {
  const uint sgs = gl_SubgroupSize;
  const uint sg = gl_SubgroupID;
  const uint lane = gl_SubgroupInvocationID;
  const uint tile_base = tile * OS_TILE;
  IF_OWNER if (pc.pass + 1u < ONESWEEP_PASSES)
    ctrl[ONESWEEP_DESC + (((pc.pass + 1u) % ONESWEEP_DESC_REGIONS) * pc.ntiles + tile) * SORT_BINS + tid] = 0u;

  // Subgroup sg ranks tile keys [seg, seg + sgs * OS_KPT) in order: j-th round, lane order.
  // All loads are issued first. Keys past n get the largest digit, so they rank last and are
  // never written.
  const uint seg = sg * sgs * OS_KPT;
  uint key[OS_KPT];
  [[unroll]] for (uint j = 0u; j < OS_KPT; ++j) {
    const uint li = seg + j * sgs + lane;
    key[j] = full || li < valid ? keys_in[tile_base + li] : 0u;
  }

  // Key j's digit (SORT_BINS - 1 past n), computed once: byte j % 4 of kd[j / 4]; counted in the
  // subgroup's counter row (keys past n too: they take the last positions of the tile).
  const uint row = sg / waves;
  uint kd[OS_KPT / 4];
  [[unroll]] for (uint q = 0u; q < OS_KPT / 4; ++q) kd[q] = 0u;
  [[unroll]] for (uint j = 0u; j < OS_KPT; ++j) {
    const uint d = full || seg + j * sgs + lane < valid ? digit(key[j]) : SORT_BINS - 1u;
    kd[j / 4u] |= d << ((j % 4u) * 8u);
    atomicAdd(s_mem[row * SORT_BINS + d], 1u);
  }
  barrier();
  // Early counts (as CUB's onesweep): the tile's digit counts are published before the ranking
  // (invocation tid owns digit tid, column tid of the rows), so that later tiles seldom wait on this
  // one. Tile 0 publishes its PREFIX at once, offset by the keys of smaller digits.
  uint all_d = 0u;
  IF_OWNER for (uint r = 0u; r < rows; ++r) all_d += s_mem[r * SORT_BINS + tid];
  const uint count_d = all_d - (tid == SORT_BINS - 1u ? uint(OS_TILE) - valid : 0u);  // without keys past n
  uint before = 0u;  // keys before this tile's first key of digit tid in the output
  if (tile == 0u) {
    uint all_keys;
    before = wg_exclusive_scan(OWNER_OR_ZERO(ctrl[ONESWEEP_HIST + pc.pass * SORT_BINS + tid]), all_keys);
  }
  const uint desc = ONESWEEP_DESC + ((pc.pass % ONESWEEP_DESC_REGIONS) * pc.ntiles + tile) * SORT_BINS + tid;
  IF_OWNER atomicExchange(ctrl[desc], tile == 0u ? (ONESWEEP_FLAG_PREFIX << 30) | (before + count_d)
                                                 : (ONESWEEP_FLAG_AGGREGATE << 30) | count_d);

  // Each row's counter of digit tid becomes that subgroup's first position of the digit in the
  // tile: the digit's start in the tile plus its keys in the rows before.
  uint tile_keys;
  const uint loff = wg_exclusive_scan(all_d, tile_keys);
  IF_OWNER {
    uint run = loff;
    for (uint r = 0u; r < rows; ++r) {
      const uint c = s_mem[r * SORT_BINS + tid];
      s_mem[r * SORT_BINS + tid] = run;
      run += c;
    }
  }
  barrier();

  // Key j's position in the tile: 16 bits, half j % 2 of slot[j / 2] (fewer registers). Subgroups
  // sharing a row rank in turn, in tile order. With one wave the loop is not compiled at all: on
  // the H200 at 2^28 int32 keys the loop with a constant count of 1 took 7.30 ms per sort against
  // 7.22 without it.
  uint slot[OS_KPT / 2];
  [[unroll]] for (uint q = 0u; q < OS_KPT / 2; ++q) slot[q] = 0u;
  if (ONESWEEP_WAVES == 1u) {
    [[unroll]] for (uint j = 0u; j < OS_KPT; ++j)
      slot[j / 2u] |= position(row, (kd[j / 4u] >> ((j % 4u) * 8u)) & 0xffu) << ((j % 2u) * 16u);
  } else {
    for (uint w = 0u; w < waves; ++w) {
      if (w > 0u) barrier();  // the previous wave's positions are taken
      if (sg % waves == w) {
        [[unroll]] for (uint j = 0u; j < OS_KPT; ++j)
          slot[j / 2u] |= position(row, (kd[j / 4u] >> ((j % 4u) * 8u)) & 0xffu) << ((j % 2u) * 16u);
      }
    }
  }

  // Look-back: keys of this digit in all earlier tiles, ONESWEEP_LOOKBACK_BATCH descriptors (tiles
  // next - 1, next - 2, ...) per step. Descriptor reads are volatile loads (the block is
  // volatile), so a spinning reader does not contend with the writer's atomics. Reads below
  // tile 0 are never needed (tile 0 is a PREFIX) and are skipped. Each lane leaves the loop when it
  // is done, so the look-back comes after the ranking's ballots: no subgroup operation follows it
  // before the barrier (COMPUTE.md, "Subgroup operations"). Before the ranking it was faster on
  // the H200 (at 2^28 int32 keys 7.12 ms per sort against 7.63 after it, an earlier version of
  // this kernel) but relied on the subgroup reconverging where the loop's if ends; a loop run
  // until every lane was done, tested by a vote per step, took 8.65 ms.
  if (tile > 0u && OWNER) {
    const uint desc_row = ONESWEEP_DESC + (pc.pass % ONESWEEP_DESC_REGIONS) * pc.ntiles * SORT_BINS + tid;
    uint next = tile;  // the descriptors of tiles < next remain to be added
    uint state = 0u;   // 0: looking, 1: done (PREFIX reached), 2: an earlier tile failed
    for (uint r = 0u; r < pc.lookback_limit && state == 0u; r += ONESWEEP_LOOKBACK_BATCH) {
      uint v[ONESWEEP_LOOKBACK_BATCH];
      [[unroll]] for (uint b = 0u; b < ONESWEEP_LOOKBACK_BATCH; ++b)
        v[b] = next > b ? ctrl[desc_row + (next - 1u - b) * SORT_BINS] : 0u;
      bool stop = false;  // an unpublished descriptor: read again from it
      [[unroll]] for (uint b = 0u; b < ONESWEEP_LOOKBACK_BATCH; ++b) {
        const uint flag = v[b] >> 30;
        if (!stop && state == 0u) {
          if (flag == 0u) {
            stop = true;
          } else if (flag == ONESWEEP_FLAG_FAILED) {
            state = 2u;
          } else {
            before += v[b] & ONESWEEP_COUNT_MASK;
            --next;
            if (flag == ONESWEEP_FLAG_PREFIX) state = 1u;
          }
        }
      }
    }
    // Out of reads, after a failed tile, or the loop cut short by the driver: no offset.
    const bool done = state == 1u;
    atomicExchange(ctrl[desc], done ? (ONESWEEP_FLAG_PREFIX << 30) | (before + count_d) : ONESWEEP_FLAG_FAILED << 30);
    if (!done) {
      s_failed = 1u;
      atomicOr(ctrl[ONESWEEP_STATUS], 1u << pc.pass);
    }
  }
  IF_OWNER s_delta[tid] = before - loff;
  barrier();
  if (s_failed != 0u) return;

#ifdef KEY_VALUE
  // Values are loaded only now (fewer registers through the ranking); the loads overlap the key
  // writes. Each written key's digit, 8 bits each, for its value's position.
  uint value[OS_KPT];
  [[unroll]] for (uint j = 0u; j < OS_KPT; ++j) {
    const uint li = seg + j * sgs + lane;
    value[j] = tile_base + li;
    if ((pc.flags & 1u) == 0u && (full || li < valid)) value[j] = values_in[tile_base + li];
  }
  uint digits[OS_KPT / 4];
  [[unroll]] for (uint q = 0u; q < OS_KPT / 4; ++q) digits[q] = 0u;
#endif
  // The tile staged in rounds of OS_STAGE positions: keys of positions [h S, (h + 1) S) in round
  // h, written by consecutive invocations (consecutive positions of a digit's run).
  const uint ROUND_KEYS = OS_STAGE / OS_WG;
  [[unroll]] for (uint h = 0u; h < OS_ROUNDS; ++h) {
    if (h > 0u) barrier();  // the previous round's keys are read (the counters are folded)
    [[unroll]] for (uint j = 0u; j < OS_KPT; ++j) {
      const uint p = (slot[j / 2u] >> ((j % 2u) * 16u)) & 0xffffu;
      if (p / OS_STAGE == h) s_mem[p % OS_STAGE] = key[j];
    }
    barrier();
    [[unroll]] for (uint j = 0u; j < ROUND_KEYS; ++j) {
      const uint i = h * OS_STAGE + j * OS_WG + tid;
      if (full || i < valid) {
        const uint k = s_mem[i - h * OS_STAGE];
        const uint d = digit(k);
        keys_out[s_delta[d] + i] = k;
#ifdef KEY_VALUE
        const uint jj = h * ROUND_KEYS + j;
        digits[jj / 4u] |= d << ((jj % 4u) * 8u);
#endif
      }
    }
  }
#ifdef KEY_VALUE
  [[unroll]] for (uint h = 0u; h < OS_ROUNDS; ++h) {
    barrier();  // the previous round's keys or values are read
    [[unroll]] for (uint j = 0u; j < OS_KPT; ++j) {
      const uint p = (slot[j / 2u] >> ((j % 2u) * 16u)) & 0xffffu;
      if (p / OS_STAGE == h) s_mem[p % OS_STAGE] = value[j];
    }
    barrier();
    [[unroll]] for (uint j = 0u; j < ROUND_KEYS; ++j) {
      const uint i = h * OS_STAGE + j * OS_WG + tid;
      const uint jj = h * ROUND_KEYS + j;
      if (full || i < valid) values_out[s_delta[(digits[jj / 4u] >> ((jj % 4u) * 8u)) & 0xffu] + i] = s_mem[i - h * OS_STAGE];
    }
  }
#endif
}
