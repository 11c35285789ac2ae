#version 450
// group_by_gather: the groups of a hash table in output order, as result arrays: for output
// position i, slot slots[i] (or slots[perm[i]] when pc.permuted) of the table is copied to the
// regions of `out` (word offsets in the push constants): key 0, key 1, count (one word per group),
// then per state: SUM_INT two words (low, high) per group, MIN and MAX the order key, SUM_FLOAT
// GB_SUM_FLOAT_WORDS words per group. The segmented reduction writes the same format.
// Specialization constants: GB_STATES, GB_CONFIG (group_by_common.glsl: the slot layout).
// Bindings: 0 = table (uint[]), 1 = slot numbers (uint[]), 2 = permutation (uint[]; bound to the
//           slots when unused), 3 = out (uint[]).
// Push constants: groups, permuted, key0, key1, count, state[GB_MAX_STATES] (region offsets in
//                 words), group_offset.
#extension GL_EXT_control_flow_attributes : require
#include "group_by_config.glsl"
#include "group_by_common.glsl"
layout(local_size_x = GB_WG) in;
layout(std430, binding = 0) readonly buffer Table { uint table[]; };
layout(std430, binding = 1) readonly buffer Slots { uint slot_ids[]; };
layout(std430, binding = 2) readonly buffer Perm { uint perm[]; };
layout(std430, binding = 3) writeonly buffer Out { uint out_words[]; };
layout(push_constant) uniform Push {
  uint groups;
  uint permuted;
  uint key0;
  uint key1;
  uint count;
  uint state[GB_MAX_STATES];
  uint group_offset;
} pc;

void main() {
  const uint i = (gl_WorkGroupID.x + pc.group_offset) * GB_WG + gl_LocalInvocationIndex;
  if (i >= pc.groups) return;
  const uint s = pc.permuted != 0u ? slot_ids[perm[i]] : slot_ids[i];
  const uint base = s * gb_slot_words();
  out_words[pc.key0 + i] = table[base];
  if (GB_TWO_KEYS) out_words[pc.key1 + i] = table[base + 1u];
  out_words[pc.count + i] = table[base + GB_COUNT];
  [[unroll]] for (uint j = 0u; j < GB_MAX_STATES; ++j) {
    const uint kind = gb_kind(j);
    const uint at = base + gb_state_offset(j);
    if (kind == GB_STATE_SUM_INT) {
      out_words[pc.state[j] + 2u * i] = table[at];
      out_words[pc.state[j] + 2u * i + 1u] = table[at + 1u];
    } else if (kind == GB_STATE_MIN) {
      out_words[pc.state[j] + i] = ~table[at];
    } else if (kind == GB_STATE_MAX) {
      out_words[pc.state[j] + i] = table[at];
    } else if (kind == GB_STATE_SUM_FLOAT) {
      for (uint w = 0u; w < GB_SUM_FLOAT_WORDS; ++w)
        out_words[pc.state[j] + GB_SUM_FLOAT_WORDS * i + w] = table[at + w];
    }
  }
}
