// Workgroup- and subgroup-level helpers of the sort-family kernels. The including shader enables
// GL_KHR_shader_subgroup_basic, _ballot, _arithmetic and _shuffle and
// GL_EXT_control_flow_attributes, and includes sort_config.glsl.
// Invocations are numbered by sort_tid() (subgroup-major), the order every sort kernel uses for
// "thread t handles digit t"; subgroups must be full (the host checks that the subgroup size
// divides the workgroup size).

// SORT_WG_SUBGROUPS (defined before the include): the most subgroups of the including kernel's
// workgroup, for workgroups of more than SORT_WG invocations.
#ifndef SORT_WG_SUBGROUPS
#define SORT_WG_SUBGROUPS SORT_MAX_SUBGROUPS
#endif
shared uint sort_scan_sg[SORT_WG_SUBGROUPS];
shared uint sort_scan_total;

// This invocation's index in subgroup-major order.
uint sort_tid() { return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID; }

// Exclusive prefix sum of v over the workgroup in sort_tid() order; `total` receives the sum.
// Call from uniform control flow; contains barriers.
uint wg_exclusive_scan(uint v, out uint total) {
  uint incl = subgroupInclusiveAdd(v);
  uint sg_sum = subgroupAdd(v);
  if (subgroupElect()) sort_scan_sg[gl_SubgroupID] = sg_sum;
  barrier();
  if (gl_SubgroupID == 0u) {
    uint carry = 0u;
    for (uint first = 0u; first < gl_NumSubgroups; first += gl_SubgroupSize) {
      uint i = first + gl_SubgroupInvocationID;
      uint t = i < gl_NumSubgroups ? sort_scan_sg[i] : 0u;
      uint e = subgroupExclusiveAdd(t);
      if (i < gl_NumSubgroups) sort_scan_sg[i] = carry + e;
      carry += subgroupAdd(t);
    }
    if (subgroupElect()) sort_scan_total = carry;
  }
  barrier();
  total = sort_scan_total;
  uint result = sort_scan_sg[gl_SubgroupID] + incl - v;
  barrier();
  return result;
}

// The lanes of this subgroup with `take` set whose digit d (of `bits` bits) equals this lane's:
// one ballot per digit bit. Call from subgroup-uniform control flow.
uvec4 subgroup_peers(uint d, uint bits, bool take) {
  uvec4 peers = subgroupBallot(take);
  for (uint b = 0u; b < bits; ++b) {
    bool set = ((d >> b) & 1u) != 0u;
    uvec4 votes = subgroupBallot(set);
    peers &= set ? votes : ~votes;
  }
  return peers;
}

// subgroup_peers for subgroups of at most 32 lanes, every lane taking: the ballots' first word
// only (fewer instructions than the four-word form; the onesweep digit pass).
uint subgroup_peers_word(uint d, uint bits) {
  uint peers = gl_SubgroupSize == 32u ? 0xffffffffu : (1u << gl_SubgroupSize) - 1u;
  [[unroll]] for (uint b = 0u; b < bits; ++b) {
    bool set = ((d >> b) & 1u) != 0u;
    uint votes = subgroupBallot(set).x;
    peers &= set ? votes : ~votes;
  }
  return peers;
}

// What this lane adds to shared histogram bin d (0: nothing) so that a subgroup counts the digits
// of its `take` lanes with few same-address atomics: the lanes sharing the first taking lane's
// digit are counted by that lane at once (all of them for sorted, narrow or all-equal keys, and
// often the hot key of skewed ones); every other taking lane counts itself. Two ballots and a
// shuffle. Call from subgroup-uniform control flow.
uint subgroup_bin_add(uint d, bool take) {
  uvec4 takers = subgroupBallot(take);
  uint first = subgroupBallotBitCount(takers) == 0u ? 0u : subgroupBallotFindLSB(takers);
  bool with_first = take && d == subgroupShuffle(d, first);
  uint count = subgroupBallotBitCount(subgroupBallot(with_first));
  if (with_first) return gl_SubgroupInvocationID == first ? count : 0u;
  return take ? 1u : 0u;
}
