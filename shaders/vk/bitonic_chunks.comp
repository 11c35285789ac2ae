#version 450
// bitonic_chunks: workgroup w sorts keys [w * BITONIC_TILE, (w + 1) * BITONIC_TILE) of n in shared
// memory as independent chunks of `chunk` keys (a power of two <= BITONIC_TILE), by (sort key,
// input position), so equal keys keep their input order, and writes the first `per` keys of
// global chunk c to keys_out[c * per ...]. Keys past n sort last and are never written. Raw key
// bits are copied unchanged (reread by position); all reads precede all writes of a workgroup,
// so keys_out may be keys_in when per == chunk.
// Bindings: 0 = keys_in (uint[], read), 1 = keys_out (uint[], written), KEY_VALUE: 2 = values_in
// (uint[], read unless generated), 3 = values_out (uint[], written).
// Push constants: n, key_type, descending, chunk, per (outputs per chunk, 1..chunk), flags (bit 0:
// values are the keys' input positions), group_offset (last word, set by dispatch).
#include "sort_config.glsl"
#include "sort_keys.glsl"

layout(local_size_x = BITONIC_WG) in;
layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) writeonly buffer KeysOut { uint keys_out[]; };
#ifdef KEY_VALUE
layout(std430, binding = 2) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 3) writeonly buffer ValuesOut { uint values_out[]; };
#endif
layout(push_constant) uniform Params { uint n, key_type, descending, chunk, per, flags, group_offset; } pc;

#define PER_THREAD (BITONIC_TILE / BITONIC_WG)

shared uint s_key[BITONIC_TILE];
shared uint s_pos[BITONIC_TILE];

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint base = (gl_WorkGroupID.x + pc.group_offset) * BITONIC_TILE;
  const uint valid = min(uint(BITONIC_TILE), pc.n - base);
  for (uint q = 0u; q < PER_THREAD; ++q) {
    const uint i = q * BITONIC_WG + tid;
    s_key[i] = i < valid ? sort_key(keys_in[base + i], pc.key_type, pc.descending) : 0xffffffffu;
    s_pos[i] = i;
  }
  barrier();

  // Bitonic network over each chunk: merges of size k, compare distance j. Below the chunk size
  // the merge directions alternate; the final merge of a chunk is ascending.
  for (uint k = 2u; k <= pc.chunk; k <<= 1) {
    for (uint j = k >> 1; j > 0u; j >>= 1) {
      for (uint q = 0u; q < PER_THREAD / 2u; ++q) {
        const uint c = q * BITONIC_WG + tid;
        const uint lo = ((c & ~(j - 1u)) << 1) | (c & (j - 1u));
        const uint hi = lo | j;
        const bool up = k == pc.chunk || (lo & k) == 0u;
        const uint ka = s_key[lo], kb = s_key[hi], pa = s_pos[lo], pb = s_pos[hi];
        const bool a_after_b = ka > kb || (ka == kb && pa > pb);
        if (a_after_b == up) {
          s_key[lo] = kb;
          s_key[hi] = ka;
          s_pos[lo] = pb;
          s_pos[hi] = pa;
        }
      }
      barrier();
    }
  }

  // Gather every output of this invocation before writing any (in-place use).
  uint out_key[PER_THREAD];
#ifdef KEY_VALUE
  uint out_value[PER_THREAD];
#endif
  for (uint q = 0u; q < PER_THREAD; ++q) {
    const uint i = q * BITONIC_WG + tid;
    if (i < valid && i % pc.chunk < pc.per) {
      const uint src = base + s_pos[i];
      out_key[q] = keys_in[src];
#ifdef KEY_VALUE
      out_value[q] = (pc.flags & 1u) != 0u ? src : values_in[src];
#endif
    }
  }
  memoryBarrierBuffer();
  barrier();
  for (uint q = 0u; q < PER_THREAD; ++q) {
    const uint i = q * BITONIC_WG + tid;
    if (i < valid && i % pc.chunk < pc.per) {
      const uint at = ((base + i) / pc.chunk) * pc.per + i % pc.chunk;
      keys_out[at] = out_key[q];
#ifdef KEY_VALUE
      values_out[at] = out_value[q];
#endif
    }
  }
}
