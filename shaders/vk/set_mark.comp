#version 450
// set_mark: DISTINCT and the set operations over rows sorted by all their key planes (perm; left rows
// have ids below left_n, and a stable sort keeps them first in each run of equal rows, each side in
// row order). gid[i] is the inclusive scan of the heads (heads[i] = 1 where a run starts), so row i
// is in run gid[i] - 1.
// SET_RUNS: per run g, runs[3g] = its first position, runs[3g + 1] = its first right row's position
//           (its end when it has none), runs[3g + 2] = its end; exactly one position writes each word.
// SET_MARK: bit perm[i] of the bitmap `bits` set (atomicOr; zeroed before) for the rows the
//           operation keeps, so that a compaction of the bitmap gives the kept rows in row order,
//           left rows first.
// SET_HEADS: heads[i] = 1 where the sorted packed keys (bound as perm) differ from the previous one.
// Bindings: 0 = perm (SET_HEADS: the sorted packed keys), 1 = gid, 2 = heads (SET_RUNS) or runs
//           (SET_MARK), 3 = runs (SET_RUNS), bits (SET_MARK) or heads (SET_HEADS); all uint[].
// Push constants: n, left_n, op (SET_OP_*), group_offset.
#include "skeleton_config.glsl"
layout(local_size_x = SKELETON_WG) in;
layout(std430, binding = 0) readonly buffer Perm { uint perm[]; };
layout(std430, binding = 1) readonly buffer Gid { uint gid[]; };
#if defined(SET_RUNS)
layout(std430, binding = 2) readonly buffer Heads { uint heads[]; };
layout(std430, binding = 3) writeonly buffer Runs { uint runs[]; };
#elif defined(SET_HEADS)
layout(std430, binding = 3) writeonly buffer Heads { uint heads[]; };
#else
layout(std430, binding = 2) readonly buffer Runs { uint runs[]; };
layout(std430, binding = 3) buffer Bits { uint bits[]; };
#endif
layout(push_constant) uniform Push {
  uint n;
  uint left_n;
  uint op;
  uint group_offset;
} pc;

void main() {
  const uint i = (gl_WorkGroupID.x + pc.group_offset) * SKELETON_WG + gl_LocalInvocationIndex;
  if (i >= pc.n) return;
#ifdef SET_HEADS
  heads[i] = i == 0u || perm[i] != perm[i - 1u] ? 1u : 0u;
#else
  const uint g = gid[i] - 1u;
#ifdef SET_RUNS
  const bool left = perm[i] < pc.left_n;
  const bool head = heads[i] != 0u;
  const bool last = i + 1u == pc.n || heads[i + 1u] != 0u;
  if (head) runs[3u * g] = i;
  if (last) runs[3u * g + 2u] = i + 1u;
  if (!left && (head || perm[i - 1u] < pc.left_n)) runs[3u * g + 1u] = i;
  if (left && last) runs[3u * g + 1u] = i + 1u;
#else
  const uint s = runs[3u * g], split = runs[3u * g + 1u], e = runs[3u * g + 2u];
  const uint l = split - s, r = e - split, rank = i - s;
  const bool left = i < split;
  bool keep;
  if (pc.op == SET_OP_DISTINCT)
    keep = rank == 0u;
  else if (pc.op == SET_OP_INTERSECT)
    keep = rank == 0u && l > 0u && r > 0u;
  else if (pc.op == SET_OP_INTERSECT_ALL)
    keep = left && rank < r;
  else if (pc.op == SET_OP_EXCEPT)
    keep = rank == 0u && l > 0u && r == 0u;
  else
    keep = left && rank >= r;
  if (keep) atomicOr(bits[perm[i] >> 5u], 1u << (perm[i] & 31u));
#endif
#endif
}
