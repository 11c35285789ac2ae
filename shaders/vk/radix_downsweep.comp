#version 450
// radix_downsweep: the scatter of one counting pass (radix sort, split). Workgroup b takes block b
// (up to SORT_BLOCK_TILES tiles of SORT_TILE keys, one after another), ranks each tile's keys by
// digit, stably, in shared memory (per-subgroup 16-bit digit counters filled by ballot-based
// peer matching and a shuffle), stages them in digit order and writes them to
//   keys_out[digit start + keys of this digit in earlier blocks and tiles + rank in the tile].
// Keys move with their bits unchanged; KEY_VALUE also moves a uint32 value per key (flags bit 0:
// values are generated as the keys' input positions instead of read). MORE_VALUES (with
// KEY_VALUE, without OUT_WINDOWS) moves up to SORT_MORE_VALUES further value columns with the
// same keys in the same pass (flags >> 8 of them; none generated), each staged like the first.
// OUT_WINDOWS (a sort over several binding windows, dispatched once per input window): keys_in and
// values_in are the window (n keys, its first block is block block_base of all), output position p
// goes to output window p / window_keys at p % window_keys; windows 1..SORT_OUT_WINDOWS-1 are
// extra bindings.
// Bindings: 0 = keys_in (uint[], read), 1 = keys_out (uint[], written; OUT_WINDOWS: window 0),
// 2 = block_hist (uint[], read: radix_scan's exclusive sums), 3 = totals (uint[], read),
// KEY_VALUE: 4 = values_in (uint[], read unless generated), 5 = values_out (uint[], written;
// OUT_WINDOWS: window 0). OUT_WINDOWS: then keys_out windows 1..7, then (KEY_VALUE) values_out
// windows 1..7, at the next bindings (4..10, or 6..19 with KEY_VALUE). MORE_VALUES: 6..9 = value
// columns 1..4 in, 10..13 = value columns 1..4 out (columns past flags >> 8 never touched).
// Push constants: as radix_upsweep (n, nblocks, key_type, descending, hash, shift, mask, fanout,
// seed, flags, block_base, window_keys, group_offset).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#include "sort_config.glsl"
#include "sort_keys.glsl"

layout(local_size_x = SORT_WG) in;
layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 2) readonly buffer BlockHist { uint block_hist[]; };
layout(std430, binding = 3) readonly buffer Totals { uint totals[]; };
#ifdef KEY_VALUE
layout(std430, binding = 4) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 5) writeonly buffer ValuesOut { uint values_out[]; };
#define OUT_BASE 6
#ifdef MORE_VALUES
#ifdef OUT_WINDOWS
#error "MORE_VALUES binds one output window"
#endif
#if SORT_MORE_VALUES != 4
#error "radix_downsweep binds exactly 4 more value columns"
#endif
layout(std430, binding = 6) readonly buffer ValuesIn1 { uint more_in1[]; };
layout(std430, binding = 7) readonly buffer ValuesIn2 { uint more_in2[]; };
layout(std430, binding = 8) readonly buffer ValuesIn3 { uint more_in3[]; };
layout(std430, binding = 9) readonly buffer ValuesIn4 { uint more_in4[]; };
layout(std430, binding = 10) writeonly buffer MoreOut1 { uint more_out1[]; };
layout(std430, binding = 11) writeonly buffer MoreOut2 { uint more_out2[]; };
layout(std430, binding = 12) writeonly buffer MoreOut3 { uint more_out3[]; };
layout(std430, binding = 13) writeonly buffer MoreOut4 { uint more_out4[]; };
#endif
#else
#define OUT_BASE 4
#endif
#ifdef OUT_WINDOWS
#if SORT_OUT_WINDOWS != 8
#error "radix_downsweep binds exactly 8 output windows"
#endif
layout(std430, binding = OUT_BASE + 0) writeonly buffer KeysOut1 { uint keys_out1[]; };
layout(std430, binding = OUT_BASE + 1) writeonly buffer KeysOut2 { uint keys_out2[]; };
layout(std430, binding = OUT_BASE + 2) writeonly buffer KeysOut3 { uint keys_out3[]; };
layout(std430, binding = OUT_BASE + 3) writeonly buffer KeysOut4 { uint keys_out4[]; };
layout(std430, binding = OUT_BASE + 4) writeonly buffer KeysOut5 { uint keys_out5[]; };
layout(std430, binding = OUT_BASE + 5) writeonly buffer KeysOut6 { uint keys_out6[]; };
layout(std430, binding = OUT_BASE + 6) writeonly buffer KeysOut7 { uint keys_out7[]; };
#ifdef KEY_VALUE
layout(std430, binding = OUT_BASE + 7) writeonly buffer ValuesOut1 { uint values_out1[]; };
layout(std430, binding = OUT_BASE + 8) writeonly buffer ValuesOut2 { uint values_out2[]; };
layout(std430, binding = OUT_BASE + 9) writeonly buffer ValuesOut3 { uint values_out3[]; };
layout(std430, binding = OUT_BASE + 10) writeonly buffer ValuesOut4 { uint values_out4[]; };
layout(std430, binding = OUT_BASE + 11) writeonly buffer ValuesOut5 { uint values_out5[]; };
layout(std430, binding = OUT_BASE + 12) writeonly buffer ValuesOut6 { uint values_out6[]; };
layout(std430, binding = OUT_BASE + 13) writeonly buffer ValuesOut7 { uint values_out7[]; };
#endif
#endif
layout(push_constant) uniform Params {
  uint n, nblocks, key_type, descending, hash, shift, mask, fanout, seed, flags, block_base, window_keys, group_offset;
} pc;

// Writes key k to output position p (store_value: value v).
void store_key(uint p, uint k) {
#ifdef OUT_WINDOWS
  const uint w = p / pc.window_keys, i = p - w * pc.window_keys;
  switch (w) {
    case 0u: keys_out[i] = k; break;
    case 1u: keys_out1[i] = k; break;
    case 2u: keys_out2[i] = k; break;
    case 3u: keys_out3[i] = k; break;
    case 4u: keys_out4[i] = k; break;
    case 5u: keys_out5[i] = k; break;
    case 6u: keys_out6[i] = k; break;
    default: keys_out7[i] = k; break;
  }
#else
  keys_out[p] = k;
#endif
}
#ifdef KEY_VALUE
void store_value(uint p, uint v) {
#ifdef OUT_WINDOWS
  const uint w = p / pc.window_keys, i = p - w * pc.window_keys;
  switch (w) {
    case 0u: values_out[i] = v; break;
    case 1u: values_out1[i] = v; break;
    case 2u: values_out2[i] = v; break;
    case 3u: values_out3[i] = v; break;
    case 4u: values_out4[i] = v; break;
    case 5u: values_out5[i] = v; break;
    case 6u: values_out6[i] = v; break;
    default: values_out7[i] = v; break;
  }
#else
  values_out[p] = v;
#endif
}
#endif
#ifdef MORE_VALUES
// Value column c (1..4) at input position i / to output position p.
uint load_more(uint c, uint i) {
  switch (c) {
    case 1u: return more_in1[i];
    case 2u: return more_in2[i];
    case 3u: return more_in3[i];
    default: return more_in4[i];
  }
}
void store_more(uint c, uint p, uint v) {
  switch (c) {
    case 1u: more_out1[p] = v; break;
    case 2u: more_out2[p] = v; break;
    case 3u: more_out3[p] = v; break;
    default: more_out4[p] = v; break;
  }
}
#endif

#include "sort_workgroup.glsl"

// Ranking: gl_NumSubgroups x (bins / 2) words of two 16-bit digit counters each; afterwards the
// staging area of the tile's keys (and values) in digit order.
shared uint s_mem[SORT_TILE];
shared uint s_goff[SORT_BINS];  // output position of the current tile's first key of each digit
shared uint s_loff[SORT_BINS];  // position in the tile of its first key of each digit

uint digit(uint raw) {
  return sort_digit(raw, pc.key_type, pc.descending, pc.hash, pc.shift, pc.mask, pc.fanout, pc.seed);
}

// The 16-bit counter of digit d in subgroup row `row` (words per row: half_bins).
uint counter(uint row, uint half_bins, uint d) {
  return (s_mem[row * half_bins + (d >> 1)] >> ((d & 1u) * 16u)) & 0xffffu;
}

void main() {
  const uint tid = sort_tid();
  const uint block = gl_WorkGroupID.x + pc.group_offset;  // in this window
  const uint bins = pc.mask + 1u;
  const uint half_bins = (bins + 1u) / 2u;
  const uint bits = findMSB(bins);
  const uint sgs = gl_SubgroupSize;
  const uint sg = gl_SubgroupID;
  const uint lane = gl_SubgroupInvocationID;

  // Where this block's keys of each digit start: all keys of smaller digits, plus the keys of
  // this digit in earlier blocks.
  uint all_keys;
  const uint digit_start = wg_exclusive_scan(tid < bins ? totals[tid] : 0u, all_keys);
  if (tid < bins) s_goff[tid] = digit_start + block_hist[tid * pc.nblocks + pc.block_base + block];

  uint key[SORT_KPT];
  uint slot[SORT_KPT];  // rank | digit << 16, then the key's position in the tile
  for (uint t = 0u; t < SORT_BLOCK_TILES; ++t) {
    const uint tile_base = block * SORT_BLOCK + t * SORT_TILE;
    if (tile_base >= pc.n) break;
    const uint valid = min(uint(SORT_TILE), pc.n - tile_base);
    for (uint i = tid; i < gl_NumSubgroups * half_bins; i += SORT_WG) s_mem[i] = 0u;
    barrier();

    // Subgroup sg ranks tile keys [seg, seg + sgs * SORT_KPT) in order: j-th round, lane order.
    // All loads are issued first. Keys past n get the largest digit, so they rank last and are
    // never written. In each round the lanes of one digit (peers, found by one ballot per digit
    // bit) take consecutive ranks after the digit's count so far; the lowest peer adds them to
    // the subgroup's counter and shuffles the previous count to the others.
    const uint seg = sg * sgs * SORT_KPT;
    for (uint j = 0u; j < SORT_KPT; ++j) {
      const uint li = seg + j * sgs + lane;
      key[j] = li < valid ? keys_in[tile_base + li] : 0u;
    }
    for (uint j = 0u; j < SORT_KPT; ++j) {
      const uint d = seg + j * sgs + lane < valid ? digit(key[j]) : bins - 1u;
      const uvec4 peers = subgroup_peers(d, bits, true);
      const uint below = subgroupBallotExclusiveBitCount(peers);
      const uint count = subgroupBallotBitCount(peers);
      const uint sh = (d & 1u) * 16u;
      uint earlier = 0u;
      if (below == 0u) earlier = atomicAdd(s_mem[sg * half_bins + (d >> 1)], count << sh);
      earlier = subgroupShuffle(earlier, subgroupBallotFindLSB(peers));
      slot[j] = (((earlier >> sh) & 0xffffu) + below) | (d << 16);
    }
    barrier();

    // The tile's count of each digit and where its keys start in the tile.
    uint count_d = 0u;
    if (tid < bins)
      for (uint s = 0u; s < gl_NumSubgroups; ++s) count_d += counter(s, half_bins, tid);
    uint tile_keys;
    const uint tile_start = wg_exclusive_scan(count_d, tile_keys);
    if (tid < bins) s_loff[tid] = tile_start;
    // Counters -> exclusive sums over subgroups, both 16-bit halves at once (sums stay < 2^16).
    if (tid < half_bins) {
      uint run = 0u;
      for (uint s = 0u; s < gl_NumSubgroups; ++s) {
        const uint c = s_mem[s * half_bins + tid];
        s_mem[s * half_bins + tid] = run;
        run += c;
      }
    }
    barrier();
    for (uint j = 0u; j < SORT_KPT; ++j) {
      const uint d = slot[j] >> 16;
      slot[j] = s_loff[d] + counter(sg, half_bins, d) + (slot[j] & 0xffffu);
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
        const uint d = digit(k);
        dst[j] = s_goff[d] + i - s_loff[d];
        store_key(dst[j], k);
      }
    }
#ifdef KEY_VALUE
    barrier();
    for (uint j = 0u; j < SORT_KPT; ++j) {
      const uint li = seg + j * sgs + lane;
      uint v = pc.block_base * SORT_BLOCK + tile_base + li;
      if ((pc.flags & 1u) == 0u && li < valid) v = values_in[tile_base + li];
      s_mem[slot[j]] = v;
    }
    barrier();
    for (uint j = 0u; j < SORT_KPT; ++j) {
      const uint i = j * SORT_WG + tid;
      if (i < valid) store_value(dst[j], s_mem[i]);
    }
#endif
#ifdef MORE_VALUES
    for (uint c = 1u; c <= (pc.flags >> 8); ++c) {
      barrier();
      for (uint j = 0u; j < SORT_KPT; ++j) {
        const uint li = seg + j * sgs + lane;
        s_mem[slot[j]] = li < valid ? load_more(c, tile_base + li) : 0u;
      }
      barrier();
      for (uint j = 0u; j < SORT_KPT; ++j) {
        const uint i = j * SORT_WG + tid;
        if (i < valid) store_more(c, dst[j], s_mem[i]);
      }
    }
#endif
    barrier();
    if (tid < bins) s_goff[tid] += count_d;
  }
}
