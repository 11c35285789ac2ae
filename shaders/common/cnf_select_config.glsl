// Constants of the one-pass selection (shaders/vk/cnf_select.comp, src/vk/relational/select.cpp),
// shared by C++ and GLSL. Plain #defines only, so both languages read it.
#ifndef GFXQ_CNF_SELECT_CONFIG_GLSL
#define GFXQ_CNF_SELECT_CONFIG_GLSL

// 256 invocations; a tile is VEC sub-rounds of 1024 rows (invocation r: rows 4r .. 4r + 3 of each).
#define CNF_SELECT_WG 256
#define CNF_SELECT_SUB 1024
// uvec4 loads per invocation and slot column in a tile (VEC): 16 for a one-column interval
// program (16384-row tiles), 8 for other one-column programs (8192-row tiles, the term loop
// inlined per vector), 2 with several columns (2048-row tiles). On the H200 at 2^28 rows (a < 0.5)
// the interval kernel took 0.70 ms with 16, 0.81 with 8 and 1.06 with 4 or 32; loading 4 or 8
// look-back descriptors per lane and step instead of one was slower (0.71-0.87 ms).
#define CNF_SELECT_VEC_S1_IV 16
#define CNF_SELECT_VEC_S1 8
#define CNF_SELECT_VEC_S8 2
// Row ids staged in shared memory at once (a tile writes its ids in stages of this many rows).
#define CNF_SELECT_STAGE 4096
// Control words (zeroed before the pass): the status (nonzero: a tile's look-back hit its bound),
// the tile counter (over all chunks), then one descriptor per tile over all chunks:
// flag << 30 | count, the count being the tile's passing rows (AGGREGATE) or those of its chunk's
// tiles up to it (PREFIX).
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
