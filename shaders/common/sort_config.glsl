// Constants of the sort-family kernels (radix sort, split, radix select, bitonic chunk sort),
// shared by C++ (src/vk/primitives/) and GLSL. Plain #defines only, so both languages read it.
#ifndef GFXQ_SORT_CONFIG_GLSL
#define GFXQ_SORT_CONFIG_GLSL

// Key types (SortKeyType) as the kernels receive them.
#define SORT_KEY_U32 0
#define SORT_KEY_I32 1
#define SORT_KEY_F32 2

// Counting passes (radix sort, split): 256 invocations x 16 keys = a 4096-key tile ranked in
// shared memory; one workgroup scatters a block of 4 tiles, one after another, so the per-block
// histograms are a quarter the size of per-tile ones.
#define SORT_WG 256
#define SORT_KPT 16
#define SORT_TILE 4096
#define SORT_BLOCK_TILES 4
#define SORT_BLOCK 16384
#define SORT_RADIX_BITS 8
#define SORT_BINS 256
// Ranking keeps 16-bit digit counters per subgroup: subgroups of at least 8 invocations.
#define SORT_MIN_SUBGROUP 8
#define SORT_MAX_SUBGROUPS 32

// Bitonic chunk sort: one workgroup sorts a 2048-key tile (chunks of up to 2048 keys).
#define BITONIC_WG 256
#define BITONIC_TILE 2048

#endif
