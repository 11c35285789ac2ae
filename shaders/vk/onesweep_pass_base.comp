#version 450
// onesweep_pass_base: the digit pass before onesweep_pass, kept while GFXQ_ONESWEEP_VARIANT=base
// times it against the candidates. Digit pass `pass` (bits 8 pass .. 8 pass + 7 of the sort key) of the onesweep
// radix sort. A workgroup takes the next tile id from ctrl's counter of this pass (dynamic ids: a
// tile only waits on tiles whose workgroups started earlier), loads the tile's SORT_TILE keys,
// publishes its digit counts at once (AGGREGATE descriptors), ranks the keys by digit, stably, in
// shared memory (per-subgroup 16-bit digit counters filled by ballot-based peer matching, as
// radix_downsweep), and looks back over the descriptors of earlier tiles, one invocation per
// digit, adding AGGREGATE counts until a PREFIX one; it then publishes its own PREFIX and writes
// its keys to
//   keys_out[keys of smaller digits (global histogram) + keys of this digit in earlier tiles + rank].
// The look-back reads at most lookback_limit descriptors per digit. When the bound is hit (or an
// earlier tile failed), the tile publishes FAILED, sets status bit `pass` and writes no key, so
// nothing it computed can be read as a result; the passes after a failed pass write nothing
// either, and the host reruns the sort from the failed pass's input by reduce-then-scan.
// Keys move with their bits unchanged; KEY_VALUE also moves a uint32 value per key (flags bit 0:
// values are generated as the keys' input positions instead of read).
// Bindings: 0 = keys_in (uint[], read), 1 = keys_out (uint[], written), 2 = ctrl (uint[], read and
// written; see sort_config.glsl), KEY_VALUE: 3 = values_in (uint[], read unless generated),
// 4 = values_out (uint[], written).
// Push constants: n, ntiles, key_type, descending, pass, flags, lookback_limit, group_offset.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "sort_config.glsl"
#include "sort_keys.glsl"

layout(local_size_x = SORT_WG) in;
layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 2) volatile coherent buffer Ctrl { uint ctrl[]; };
#ifdef KEY_VALUE
layout(std430, binding = 3) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };
#endif
layout(push_constant) uniform Params {
  uint n, ntiles, key_type, descending, pass, flags, lookback_limit, group_offset;
} pc;

#include "sort_workgroup.glsl"

// Ranking: gl_NumSubgroups x 128 words of two 16-bit digit counters each; afterwards the staging
// area of the tile's keys (and values) in digit order.
shared uint s_mem[SORT_TILE];
shared uint s_goff[SORT_BINS];  // output position of the tile's first key of each digit
shared uint s_loff[SORT_BINS];  // position in the tile of its first key of each digit
shared uint s_count[SORT_BINS];  // the tile's keys of each digit
shared uint s_tile, s_status, s_failed;

const uint HALF_BINS = SORT_BINS / 2;

uint digit(uint raw) {
  return (sort_key(raw, pc.key_type, pc.descending) >> (pc.pass * SORT_RADIX_BITS)) & (SORT_BINS - 1u);
}

// The 16-bit counter of digit d in subgroup row `row`.
uint counter(uint row, uint d) {
  return (s_mem[row * HALF_BINS + (d >> 1)] >> ((d & 1u) * 16u)) & 0xffffu;
}

void main() {
  const uint tid = sort_tid();
  const uint sgs = gl_SubgroupSize;
  const uint sg = gl_SubgroupID;
  const uint lane = gl_SubgroupInvocationID;

  if (tid == 0u) {
    s_status = ctrl[ONESWEEP_STATUS];
    s_tile = atomicAdd(ctrl[ONESWEEP_COUNTERS + pc.pass], 1u);
    s_failed = 0u;
  }
  for (uint i = tid; i < gl_NumSubgroups * HALF_BINS; i += SORT_WG) s_mem[i] = 0u;
  s_count[tid] = 0u;
  barrier();
  if ((s_status & ((1u << pc.pass) - 1u)) != 0u) return;  // an earlier pass failed: write nothing
  const uint tile = s_tile;
  const uint tile_base = tile * SORT_TILE;
  const uint valid = min(uint(SORT_TILE), pc.n - tile_base);

  // Subgroup sg ranks tile keys [seg, seg + sgs * SORT_KPT) in order: j-th round, lane order.
  // All loads are issued first. Keys past n get the largest digit, so they rank last and are
  // never written. In each round the lanes of one digit (peers) take consecutive ranks after the
  // digit's count so far; the lowest peer adds them to the subgroup's counter and shuffles the
  // previous count to the others.
  const uint seg = sg * sgs * SORT_KPT;
  uint key[SORT_KPT];
  for (uint j = 0u; j < SORT_KPT; ++j) {
    const uint li = seg + j * sgs + lane;
    key[j] = li < valid ? keys_in[tile_base + li] : 0u;
  }
#ifdef KEY_VALUE
  uint value[SORT_KPT];
  for (uint j = 0u; j < SORT_KPT; ++j) {
    const uint li = seg + j * sgs + lane;
    value[j] = tile_base + li;
    if ((pc.flags & 1u) == 0u && li < valid) value[j] = values_in[tile_base + li];
  }
#endif

  // Early counts (as CUB's onesweep): the tile's digit counts, straight from the loaded keys, are
  // published before the ranking (invocation tid owns digit tid), so that later tiles seldom
  // wait on this one.
  for (uint j = 0u; j < SORT_KPT; ++j)
    if (seg + j * sgs + lane < valid) atomicAdd(s_count[digit(key[j])], 1u);
  barrier();
  const uint count_d = s_count[tid];
  const uint desc = ONESWEEP_DESC + (pc.pass * pc.ntiles + tile) * SORT_BINS + tid;
  atomicExchange(ctrl[desc], ((tile == 0u ? ONESWEEP_FLAG_PREFIX : ONESWEEP_FLAG_AGGREGATE) << 30) | count_d);

  uint slot[SORT_KPT];  // rank | digit << 16, then the key's position in the tile
  for (uint j = 0u; j < SORT_KPT; ++j) {
    const uint d = seg + j * sgs + lane < valid ? digit(key[j]) : SORT_BINS - 1u;
    const uvec4 peers = subgroup_peers(d, SORT_RADIX_BITS, true);
    const uint below = subgroupBallotExclusiveBitCount(peers);
    const uint count = subgroupBallotBitCount(peers);
    const uint sh = (d & 1u) * 16u;
    uint earlier = 0u;
    if (below == 0u) earlier = atomicAdd(s_mem[sg * HALF_BINS + (d >> 1)], count << sh);
    earlier = subgroupShuffle(earlier, subgroupBallotFindLSB(peers));
    slot[j] = (((earlier >> sh) & 0xffffu) + below) | (d << 16);
  }
  barrier();

  // The tile-local offsets first, which gives the earlier tiles time to publish. Where the keys
  // of each digit start among all keys and in the tile (keys past n rank last, after these):
  uint all_keys;
  const uint digit_start = wg_exclusive_scan(ctrl[ONESWEEP_HIST + pc.pass * SORT_BINS + tid], all_keys);
  uint tile_keys;
  s_loff[tid] = wg_exclusive_scan(count_d, tile_keys);
  // Counters -> exclusive sums over subgroups, both 16-bit halves at once (sums stay < 2^16).
  if (tid < HALF_BINS) {
    uint run = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; ++s) {
      const uint c = s_mem[s * HALF_BINS + tid];
      s_mem[s * HALF_BINS + tid] = run;
      run += c;
    }
  }

  // Look-back: keys of this digit in all earlier tiles. Descriptor reads are volatile loads (the
  // block is volatile), so a spinning reader does not contend with the writer's atomics.
  uint before = 0u;
  if (tile > 0u) {
    uint j = tile - 1u;
    bool done = false;
    for (uint r = 0u; r < pc.lookback_limit; ++r) {
      const uint v = ctrl[ONESWEEP_DESC + (pc.pass * pc.ntiles + j) * SORT_BINS + tid];
      const uint flag = v >> 30;
      if (flag == ONESWEEP_FLAG_FAILED) break;
      if (flag == 0u) continue;  // not published yet
      before += v & ONESWEEP_COUNT_MASK;
      if (flag == ONESWEEP_FLAG_PREFIX) {
        done = true;
        break;
      }
      --j;
    }
    // Out of reads, after a failed tile, or the loop cut short by the driver: no offset.
    atomicExchange(ctrl[desc], done ? (ONESWEEP_FLAG_PREFIX << 30) | (before + count_d) : ONESWEEP_FLAG_FAILED << 30);
    if (!done) {
      s_failed = 1u;
      atomicOr(ctrl[ONESWEEP_STATUS], 1u << pc.pass);
    }
  }
  s_goff[tid] = digit_start + before;
  barrier();  // also: subgroups reconverge after the divergent look-back before any subgroup op
  if (s_failed != 0u) return;
  for (uint j = 0u; j < SORT_KPT; ++j) {
    const uint d = slot[j] >> 16;
    slot[j] = s_loff[d] + counter(sg, d) + (slot[j] & 0xffffu);
  }
  barrier();
  for (uint j = 0u; j < SORT_KPT; ++j) s_mem[slot[j]] = key[j];
  barrier();

  // Write the staged keys: consecutive invocations, consecutive positions of a digit's run.
  uint dst[SORT_KPT];
  for (uint j = 0u; j < SORT_KPT; ++j) {
    const uint i = j * SORT_WG + tid;
    if (i < valid) {
      const uint k = s_mem[i];
      dst[j] = s_goff[digit(k)] + i - s_loff[digit(k)];
      keys_out[dst[j]] = k;
    }
  }
#ifdef KEY_VALUE
  barrier();
  for (uint j = 0u; j < SORT_KPT; ++j) s_mem[slot[j]] = value[j];
  barrier();
  for (uint j = 0u; j < SORT_KPT; ++j) {
    const uint i = j * SORT_WG + tid;
    if (i < valid) values_out[dst[j]] = s_mem[i];
  }
#endif
}
