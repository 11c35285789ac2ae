#version 450
// reduce_final_<op>: pass 2 of reduce. One workgroup combines `partial_count` partials (value,
// count) of reduce_partial into result[0] = (value, count). OP_MIN/OP_MAX turn the winning order
// key back into a value (zero-extended; TYPE_I32 sign-extended); value is 0 when count is 0.
// Defines: OP_SUM (also for COUNT) | OP_MIN | OP_MAX; with OP_MIN/OP_MAX TYPE_U32 | TYPE_I32 | TYPE_F32.
// Bindings: 0 = partials (u64vec2[]), 1 = result (u64vec2[1]).
// Push constants: partial_count.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "wg_tile.glsl"
#include "wg_key.glsl"
#include "wg_reduce.glsl"
layout(local_size_x = GFXQ_PRIM_WG_SIZE) in;
layout(std430, binding = 0) readonly buffer Partials { u64vec2 partials[]; };
layout(std430, binding = 1) writeonly buffer Result { u64vec2 result[]; };
layout(push_constant) uniform Push { uint partial_count; } pc;

void main() {
  const uint rank = wg_rank();
#if defined(OP_SUM)
  uint64_t acc = 0;
#elif defined(OP_MIN)
  uint acc = 0xFFFFFFFFu;
#elif defined(OP_MAX)
  uint acc = 0u;
#endif
  uint64_t count = 0;
  // Steps uniform in the workgroup (every lane leaves the loop together before the subgroup
  // reductions); the lanes past the partials keep their values.
  for (uint i0 = 0u; i0 < pc.partial_count; i0 += GFXQ_PRIM_WG_SIZE) {
    const uint i = i0 + rank;
    const bool here = i < pc.partial_count;
    const u64vec2 p = partials[min(i, pc.partial_count - 1u)];
#if defined(OP_SUM)
    acc += here ? p.x : 0ul;
#elif defined(OP_MIN)
    acc = here ? min(acc, uint(p.x)) : acc;
#elif defined(OP_MAX)
    acc = here ? max(acc, uint(p.x)) : acc;
#endif
    count += here ? p.y : 0ul;
  }
  count = wg_add_u64(count);
#if defined(OP_SUM)
  const uint64_t value = wg_add_u64(acc);
#else
#if defined(OP_MIN)
  const uint key = wg_min_u32(acc);
#else
  const uint key = wg_max_u32(acc);
#endif
#if defined(TYPE_I32)
  const uint64_t value = uint64_t(int64_t(int(i32_from_key(uvec4(key)).x)));
#elif defined(TYPE_F32)
  const uint64_t value = uint64_t(f32_from_key(uvec4(key)).x);
#else
  const uint64_t value = uint64_t(key);
#endif
#endif
  if (rank == 0u) result[0] = u64vec2(count == 0 ? 0 : value, count);
}
