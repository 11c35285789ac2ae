// Constants of the one-pass selection (shaders/vk/cnf_select.comp, src/vk/relational/select.cpp),
// shared by C++ and GLSL. Plain #defines only, so both languages read it.
#ifndef GFXQ_CNF_SELECT_CONFIG_GLSL
#define GFXQ_CNF_SELECT_CONFIG_GLSL

// Kernel shapes: CNF_SELECT_WG_* invocations x CNF_SELECT_VEC_* uvec4 loads per invocation and
// slot column; a tile is 4 * WG * VEC rows, each subgroup a run of 4 * VEC * S of them (cnf_select.comp),
// CNF_SELECT_TILE_* rows. A one-column interval program (cnf_select_s1_iv): 512 x 8, 16384-row
// tiles; other one-column programs: 256 x 8, 8192-row tiles (the term loop inlined per vector);
// several columns: 256 x 2, 2048-row tiles. On the H200 at 2^28 rows (a < 0.5) the interval kernel
// took 0.625 ms as 512 x 8 against 0.703 ms as 256 x 16 (the same tile): half the registers per
// invocation (64 instead of 127), so two 512-wide workgroups fit on an SM.
#define CNF_SELECT_WG_S1_IV 512
#define CNF_SELECT_VEC_S1_IV 8
#define CNF_SELECT_WG_S1 256
#define CNF_SELECT_VEC_S1 8
#define CNF_SELECT_WG_S8 256
#define CNF_SELECT_VEC_S8 2
#define CNF_SELECT_TILE_S1_IV (4 * CNF_SELECT_WG_S1_IV * CNF_SELECT_VEC_S1_IV)
#define CNF_SELECT_TILE_S1 (4 * CNF_SELECT_WG_S1 * CNF_SELECT_VEC_S1)
#define CNF_SELECT_TILE_S8 (4 * CNF_SELECT_WG_S8 * CNF_SELECT_VEC_S8)
// Row ids staged in shared memory at once: each subgroup's ring is this many words over the
// workgroup's subgroups, at least 8 per invocation (16 KiB, within lavapipe's 32 KiB).
#define CNF_SELECT_STAGE 4096
// Control words (zeroed before the pass): the status (nonzero: a tile's look-back hit its bound),
// the tile counter (over all chunks; used when tiles are taken from it), then one descriptor per
// tile over all chunks: flag << 30 | count, the count being the tile's passing rows (AGGREGATE) or
// those of its chunk's tiles up to it (PREFIX).
#define CNF_SELECT_STATUS 0
#define CNF_SELECT_COUNTER 1
#define CNF_SELECT_DESC 4
#define CNF_SELECT_FLAG_AGGREGATE 1u
#define CNF_SELECT_FLAG_PREFIX 2u
#define CNF_SELECT_FLAG_FAILED 3u
#define CNF_SELECT_COUNT_MASK 0x3fffffffu
// Most look-back steps per tile (each reads one descriptor per invocation of a subgroup). lavapipe
// counts the iterations of ALL loops of one shader run against a budget of 65,535 and silently
// cuts every loop short once it is spent: the look-back leaves most of it to the other loops.
#define CNF_SELECT_MAX_LOOKBACK 16384

#endif
