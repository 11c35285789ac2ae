#version 450
// set_mark: the marks of DISTINCT and the set operations over rows sorted by their key, in one pass
// over the sorted arrays (no heads, scan or runs array in memory). keys[i] is non-decreasing and
// equal exactly where the rows are (the sorted packed keys, or the run numbers of an inclusive scan
// of run heads); perm[i] is the row id at position i. A stable sort puts each run's left rows (ids
// below left_n) first, each side in row order, so perm ascends within a run. Bit perm[i] of `bits`
// is set (atomicOr; zeroed before) for each row the operation keeps, so that a compaction of the
// bitmap gives the kept rows in row order, left rows first. For a run [s, e) whose left rows end at
// p (its first right row, or e), the rules (SET_OP_*) are: DISTINCT, UNION: position s; INTERSECT:
// s when p > s and p < e; EXCEPT: s when p > s and p == e; INTERSECT ALL: the left rows i with
// i - s < e - p; EXCEPT ALL: the left rows with i - s >= e - p.
// SET_HEADS (DISTINCT, UNION): position i is kept iff it heads its run (keys[i] != keys[i - 1]).
//   Workgroup w takes the SET_TILE positions from w * SET_TILE, invocation t those at t, t +
//   SKELETON_WG, ...; the neighbour's key is a second load of the same or the previous line (cached).
// SET_RUNS (the others): workgroup w loads its tile of keys and row ids into shared memory
//   (coalesced), invocation t then takes the SET_ITEMS consecutive positions from t * SET_ITEMS. A
//   position's run start s is the last head at or before it, its end e the first tail at or after
//   it (plus one), and for a left row p is the first "marker" at or after it: a run's first right
//   row (value: its position) or, in a run without right rows, its last row (value: position + 1).
//   Each invocation reduces its positions to these three, one workgroup scan in shared memory
//   (Hillis-Steele: max from the left for s, min from the right for e and p) gives each invocation
//   the values of the positions before and after its own. Runs crossing the tile's edges take theirs
//   from halos of SKELETON_WG positions loaded with the tile (after it: keys and row ids; before it,
//   ALL variants only: keys), each invocation testing one halo position (shared atomicMin), and from
//   the sorted arrays when an edge run is longer than its halo: invocation 0 finds the start of the
//   tile's first run, invocation SKELETON_WG - 1 the end of its last run and that run's first right
//   row (galloping then binary search in keys, binary search in perm: at most 64 and 32 loads).
// No subgroup operation: the workgroup shares through shared memory and barriers in uniform
// control flow (docs/COMPUTE.md, "Subgroup operations").
// Bindings: 0 = keys, 1 = perm, 2 = bits; all uint[].
// Push constants: n (< 2^31), left_n, op (SET_OP_*), group_offset.
#include "skeleton_config.glsl"
layout(local_size_x = SKELETON_WG) in;
layout(std430, binding = 0) restrict readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) restrict readonly buffer Perm { uint perm[]; };
layout(std430, binding = 2) restrict buffer Bits { uint bits[]; };
layout(push_constant) uniform Push {
  uint n;
  uint left_n;
  uint op;
  uint group_offset;
} pc;

void mark(uint row) {
  atomicOr(bits[row >> 5u], 1u << (row & 31u));
}

#if defined(SET_HEADS)
// The loads in phases (keys, then the heads' row ids, then the atomics), so that each invocation
// has all its loads of a phase in flight at once.
void main() {
  const uint base = (gl_WorkGroupID.x + pc.group_offset) * SET_TILE + gl_LocalInvocationIndex;
  bool head[SET_ITEMS];
  for (uint j = 0u; j < SET_ITEMS; ++j) {
    const uint i = base + j * SKELETON_WG;
    head[j] = i < pc.n && (i == 0u || keys[i] != keys[i - 1u]);
  }
  uint row[SET_ITEMS];
  for (uint j = 0u; j < SET_ITEMS; ++j) row[j] = head[j] ? perm[base + j * SKELETON_WG] : 0u;
  for (uint j = 0u; j < SET_ITEMS; ++j)
    if (head[j]) mark(row[j]);
}
#else
#define NONE 0xffffffffu
// Shared-memory index of tile position k: one word of padding per 32, so that the invocations of a
// subgroup reading position t * SET_ITEMS + j hit distinct banks.
#define PAD(k) ((k) + ((k) >> 5u))
shared uint s_key[PAD(SET_TILE)];
shared uint s_perm[PAD(SET_TILE)];
// The halos: keys and row ids of the SKELETON_WG positions after the tile, keys of those before it
// (ALL variants; else only the last) and the row id of the last one.
shared uint s_after_key[SKELETON_WG], s_after_perm[SKELETON_WG], s_before_key[SKELETON_WG];
shared uint s_before_perm;
// Where the halos end the tile's edge runs (SKELETON_WG: not within them): 0 = the first position of
// the before-halo in the tile's first run, 1 = the first of the after-halo past its last run, 2 = the
// first right row of the after-halo in its last run.
shared uint s_halo[3];
// The edge runs' facts: 0 = the first run's start (ALL variants), 1 = the last run's end, 2 = its
// first right row at or past the tile's end (or its end).
shared uint s_edge[3];
shared uint s_start[SKELETON_WG], s_end[SKELETON_WG], s_split[SKELETON_WG];

// The first position of the run holding q: gallop back by 1, 2, 4, ... while the key holds, then a
// binary search in the last step.
uint run_start(uint q) {
  const uint key = keys[q];
  uint hi = q, d = 1u;
  while (d <= hi && keys[hi - d] == key) {
    hi -= d;
    d <<= 1u;
  }
  uint lo = d <= hi ? hi - d + 1u : 0u;
  while (lo < hi) {
    const uint mid = (lo + hi) >> 1u;
    if (keys[mid] == key)
      hi = mid;
    else
      lo = mid + 1u;
  }
  return lo;
}

// One past the last position of the run holding q (galloping forward).
uint run_end(uint q) {
  const uint key = keys[q];
  uint lo = q, d = 1u;
  while (d < pc.n - lo && keys[lo + d] == key) {
    lo += d;
    d <<= 1u;
  }
  uint hi = d < pc.n - lo ? lo + d : pc.n;
  ++lo;
  while (lo < hi) {
    const uint mid = (lo + hi) >> 1u;
    if (keys[mid] == key)
      lo = mid + 1u;
    else
      hi = mid;
  }
  return lo;
}

// The first position in [lo, hi) (part of one run: perm ascends) holding a right row, or hi.
uint first_right(uint lo, uint hi) {
  while (lo < hi) {
    const uint mid = (lo + hi) >> 1u;
    if (perm[mid] >= pc.left_n)
      hi = mid;
    else
      lo = mid + 1u;
  }
  return lo;
}

void main() {
  const uint t = gl_LocalInvocationIndex;
  const uint tile = (gl_WorkGroupID.x + pc.group_offset) * SET_TILE;
  const uint count = min(SET_TILE, pc.n - tile), tile_end = tile + count;
  const bool all_variant = pc.op == SET_OP_INTERSECT_ALL || pc.op == SET_OP_EXCEPT_ALL;
  for (uint j = 0u; j < SET_ITEMS; ++j) {
    const uint k = j * SKELETON_WG + t;
    if (k < count) {
      s_key[PAD(k)] = keys[tile + k];
      s_perm[PAD(k)] = perm[tile + k];
    }
  }
  const bool after = tile_end + t < pc.n;
  if (after) {
    s_after_key[t] = keys[tile_end + t];
    s_after_perm[t] = perm[tile_end + t];
  }
  // A tile but the first starts at SET_TILE or later: its before-halo is whole.
  if (tile > 0u && (all_variant || t == SKELETON_WG - 1u)) s_before_key[t] = keys[tile - SKELETON_WG + t];
  if (tile > 0u && t == SKELETON_WG - 1u) s_before_perm = perm[tile - 1u];
  if (t == 0u) {
    s_halo[0] = SKELETON_WG;
    s_halo[1] = SKELETON_WG;
    s_halo[2] = SKELETON_WG;
  }
  barrier();

  // Whether the tile's first run starts before it and its last one goes on past it.
  const uint first_key = s_key[PAD(0u)], last_key = s_key[PAD(count - 1u)];
  const bool joined = tile > 0u && s_before_key[SKELETON_WG - 1u] == first_key;
  const bool goes_on = tile_end < pc.n && s_after_key[0] == last_key;
  // Keys ascend, so the halo positions in an edge run are a suffix (before) or a prefix (after) of
  // the halo, and row ids ascend within a run.
  if (all_variant && joined && s_before_key[t] == first_key) atomicMin(s_halo[0], t);
  if (goes_on && (!after || s_after_key[t] != last_key)) atomicMin(s_halo[1], t);
  if (goes_on && after && s_after_key[t] == last_key && s_after_perm[t] >= pc.left_n) atomicMin(s_halo[2], t);

  // This invocation's positions: c0 .. c0 + SET_ITEMS - 1 of the tile (those below count).
  const uint c0 = t * SET_ITEMS;
  uint head_pos = 0u, tail_pos = NONE, marker_pos = NONE;  // head: position + 1 (0: none)
  bool head[SET_ITEMS], tail[SET_ITEMS];
  uint marker[SET_ITEMS];
  for (uint j = 0u; j < SET_ITEMS; ++j) {
    const uint k = c0 + j, g = tile + k;
    head[j] = false;
    tail[j] = false;
    marker[j] = NONE;
    if (k >= count) continue;
    const uint key = s_key[PAD(k)];
    const bool right = s_perm[PAD(k)] >= pc.left_n;
    head[j] = k == 0u ? !joined : key != s_key[PAD(k - 1u)];
    tail[j] = k + 1u == count ? !goes_on : key != s_key[PAD(k + 1u)];
    const bool prev_right = k == 0u ? tile > 0u && s_before_perm >= pc.left_n : s_perm[PAD(k - 1u)] >= pc.left_n;
    if (right && (head[j] || !prev_right))
      marker[j] = g;
    else if (!right && tail[j])
      marker[j] = g + 1u;
    if (head[j]) head_pos = g + 1u;
    if (tail[j] && tail_pos == NONE) tail_pos = g + 1u;
    if (marker_pos == NONE) marker_pos = marker[j];
  }
  s_start[t] = head_pos;
  s_end[t] = tail_pos;
  s_split[t] = marker_pos;
  barrier();

  // The edge runs past the halos: searched in the sorted arrays (before the scan's first barrier).
  if (t == 0u) {
    const uint h = s_halo[0];
    s_edge[0] = !all_variant || !joined ? tile : h > 0u ? tile - SKELETON_WG + h : run_start(tile - SKELETON_WG);
  }
  if (t == SKELETON_WG - 1u) {
    const uint h_end = s_halo[1], h_right = s_halo[2];
    const uint e = !goes_on ? tile_end : h_end < SKELETON_WG ? tile_end + h_end : run_end(tile_end + SKELETON_WG - 1u);
    s_edge[1] = e;
    s_edge[2] = !goes_on                 ? e
                : h_right < SKELETON_WG  ? tile_end + h_right
                : h_end < SKELETON_WG    ? e
                                         : first_right(tile_end + SKELETON_WG, e);
  }
  for (uint d = 1u; d < SKELETON_WG; d <<= 1u) {
    const uint a = t >= d ? s_start[t - d] : 0u;
    const uint b = t + d < SKELETON_WG ? s_end[t + d] : NONE;
    const uint c = t + d < SKELETON_WG ? s_split[t + d] : NONE;
    barrier();
    s_start[t] = max(s_start[t], a);
    s_end[t] = min(s_end[t], b);
    s_split[t] = min(s_split[t], c);
    barrier();
  }
  // The values of the positions before (start) and after (end, split) this invocation's.
  const uint before = t > 0u ? s_start[t - 1u] : 0u;
  uint e = t + 1u < SKELETON_WG ? s_end[t + 1u] : NONE;
  uint p = t + 1u < SKELETON_WG ? s_split[t + 1u] : NONE;
  if (e == NONE) e = s_edge[1];
  if (p == NONE) p = s_edge[2];
  uint ends[SET_ITEMS], splits[SET_ITEMS];
  for (uint jj = SET_ITEMS; jj-- > 0u;) {
    if (tail[jj]) e = tile + c0 + jj + 1u;
    if (marker[jj] != NONE) p = marker[jj];
    ends[jj] = e;
    splits[jj] = p;
  }
  uint s = before != 0u ? before - 1u : s_edge[0];
  for (uint j = 0u; j < SET_ITEMS; ++j) {
    const uint k = c0 + j, g = tile + k;
    if (k >= count) break;
    if (head[j]) s = g;
    const uint row = s_perm[PAD(k)];
    if (row >= pc.left_n) continue;
    const uint r = ends[j] - splits[j];
    bool keep;
    if (pc.op == SET_OP_INTERSECT)
      keep = head[j] && r > 0u;
    else if (pc.op == SET_OP_EXCEPT)
      keep = head[j] && r == 0u;
    else if (pc.op == SET_OP_INTERSECT_ALL)
      keep = g - s < r;
    else
      keep = g - s >= r;
    if (keep) mark(row);
  }
}
#endif
