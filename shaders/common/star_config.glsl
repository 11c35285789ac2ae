// Constants of the star aggregate (src/vk/operators/star, shaders/vk/star.comp), shared by C++ and
// GLSL. Plain #defines only.
#ifndef GFXQ_SHADERS_COMMON_STAR_CONFIG_GLSL
#define GFXQ_SHADERS_COMMON_STAR_CONFIG_GLSL

#define STAR_WG 256u
// Most dimensions one star aggregate probes, value columns its aggregates read, aggregates with a
// value, and group columns of one dimension.
#define STAR_MAX_DIMS 4u
#define STAR_MAX_VALUES 4u
#define STAR_MAX_AGGS 4u
#define STAR_MAX_DIM_KEYS 4u
// Copies of the group words the probe adds into when there are few groups (star.h kCopiesDomain).
#define STAR_ACC_COPIES 8u
// A dimension table slot no selected row filled.
#define STAR_EMPTY 0xffffffffu
// What an aggregate adds per row (StarAgg::op): x, x + y, x - y, x * y in int64 (int32 operands).
#define STAR_OP_X 0u
#define STAR_OP_ADD 1u
#define STAR_OP_SUB 2u
#define STAR_OP_MUL 3u
// An operand: value column 0..3, or the aggregate's literal.
#define STAR_OPERAND_LITERAL 4u

#endif
