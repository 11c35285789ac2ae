// Constants of the segmented reduction (src/vk/primitives/segmented_reduce.h,
// shaders/vk/segmented_reduce.comp), shared by C++ and GLSL. Plain #defines only.
#ifndef GFXQ_SEGMENTED_CONFIG_GLSL
#define GFXQ_SEGMENTED_CONFIG_GLSL

// Workgroups of 256 invocations; each subgroup takes one chunk of SEG_CHUNK consecutive rows,
// SEG_CHUNK / subgroup size steps of one row per lane.
#define SEG_WG 256
#define SEG_CHUNK 1024
// Key columns that define the segments, and reductions per dispatch.
#define SEG_MAX_KEYS 4
#define SEG_MAX_REDUCTIONS 4
// Reductions (3 bits each in specialization constant 0, reduction r at bits 3r; value types as
// SORT_KEY_* at bits 16 + 2r): the int64 sum of int32 values (two words per segment), the
// smallest and largest order key (one word), the exact sum of float32 values (SEG_SUM_FLOAT_WORDS
// words per segment: a 320-bit two's-complement fixed point in units of 2^-149, then NaN / +inf /
// -inf flags, as GROUP BY's GB_STATE_SUM_FLOAT).
#define SEG_OP_NONE 0u
#define SEG_OP_SUM_INT 1u
#define SEG_OP_MIN 2u
#define SEG_OP_MAX 3u
#define SEG_OP_SUM_FLOAT 4u
#define SEG_SUM_FLOAT_WORDS 11u
#define SEG_TYPE_SHIFT 16u
// Specialization constant 1: the key columns (bits 0..2), their SORT_KEY_* types (2 bits each
// from bit 4), and which per-segment outputs are written.
#define SEG_CFG_TYPE_SHIFT 4u
#define SEG_CFG_COUNTS 0x10000u
#define SEG_CFG_FIRSTS 0x20000u
#define SEG_CFG_KEYS 0x40000u

#endif
