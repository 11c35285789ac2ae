#version 450
// group_by_collect: lists the groups of a hash table for sorting: for each slot holding a group (a
// claimed key; the last slot, the GB_EMPTY key's, when its count is not zero) its order key(s) and
// its slot number, at positions taken
// from the GB_CTRL_COLLECTED counter (one atomic per subgroup). The order of the list depends on
// the scheduling; the sort that follows makes the output deterministic (keys are distinct).
// Specialization constants: GB_STATES, GB_CONFIG (group_by_common.glsl: the slot layout).
// Bindings: 0 = table (uint[]), 1 = ctrl (uint[GB_CTRL_WORDS]), 2 = keys 0 (uint[]), 3 = keys 1
//           (uint[]; bound to keys 0 with one key column), 4 = slot numbers (uint[]).
// Push constants: slots (all slots, the last included), group_offset.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "group_by_config.glsl"
#include "group_by_common.glsl"
layout(local_size_x = GB_WG) in;
layout(std430, binding = 0) readonly buffer Table { uint table[]; };
layout(std430, binding = 1) buffer Ctrl { uint ctrl[]; };
layout(std430, binding = 2) writeonly buffer Keys0 { uint keys0[]; };
layout(std430, binding = 3) writeonly buffer Keys1 { uint keys1[]; };
layout(std430, binding = 4) writeonly buffer Slots { uint slot_ids[]; };
layout(push_constant) uniform Push { uint slots; uint group_offset; } pc;

void main() {
  const uint sw = gb_slot_words();
  const uint s = (gl_WorkGroupID.x + pc.group_offset) * GB_WG + gl_LocalInvocationIndex;
  const bool last = s + 1u == pc.slots;
  const bool used = s < pc.slots && (last ? table[s * sw + GB_COUNT] != 0u
                                          : (table[s * sw] != GB_EMPTY || (GB_TWO_KEYS && table[s * sw + 1u] != GB_EMPTY)));
  const uvec4 ballot = subgroupBallot(used);
  const uint n = subgroupBallotBitCount(ballot);
  if (n == 0u) return;
  uint base = 0u;
  if (subgroupElect()) base = atomicAdd(ctrl[GB_CTRL_COLLECTED], n);
  base = subgroupBroadcastFirst(base);
  const uint p = base + subgroupBallotExclusiveBitCount(ballot);  // before the lanes part
  if (!used) return;
  keys0[p] = table[s * sw];
  if (GB_TWO_KEYS) keys1[p] = table[s * sw + 1u];
  slot_ids[p] = s;
}
