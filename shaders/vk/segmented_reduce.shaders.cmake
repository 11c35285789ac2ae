# The segmented reduction primitive (src/vk/primitives/segmented_reduce.h): segment heads per
# chunk, then the reduction (with 64-bit buffer atomics for INT sums: _a64).
gfxq_vk_shader(segmented_heads segmented_reduce.comp DEFINES SEG_HEADS)
gfxq_vk_shader(segmented_reduce segmented_reduce.comp DEFINES SEG_REDUCE)
gfxq_vk_shader(segmented_reduce_a64 segmented_reduce.comp DEFINES SEG_REDUCE SEG_ATOMIC64)
