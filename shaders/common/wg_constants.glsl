// Tile constants of the data-parallel primitives (src/vk/primitives, shaders/vk/{map,reduce,scan,
// compact,gather,scatter}_*.comp). Plain #defines only: C++ includes this file too.
#ifndef GFXQ_WG_CONSTANTS_GLSL
#define GFXQ_WG_CONSTANTS_GLSL

// Invocations per workgroup of every primitive kernel.
#define GFXQ_PRIM_WG_SIZE 256
// uvec4 loads per invocation per tile: a tile is GFXQ_PRIM_ROWS rows of GFXQ_PRIM_WG_SIZE uvec4.
#define GFXQ_PRIM_ROWS 4
// Elements (4-byte) per tile: GFXQ_PRIM_WG_SIZE * GFXQ_PRIM_ROWS * 4.
#define GFXQ_PRIM_TILE 4096
// Bitmask words (one bit per element) per tile: GFXQ_PRIM_TILE / 32.
#define GFXQ_PRIM_TILE_WORDS 128
// Default upper bound on the workgroups of a tiled pass (reduce, scan, compact): each workgroup
// takes a run of whole tiles, so the spine over the per-workgroup partials stays one workgroup.
#define GFXQ_PRIM_MAX_GROUPS 8192

#endif
