// The selection bitmask of the three-stage selection: cnf_flags (shaders/vk/cnf_scan.comp,
// MODE_FLAGS) writes it with a count per block, cnf_compact (shaders/vk/cnf_compact.comp) reads
// it, src/vk/relational/select.cpp sizes it. Plain #defines only, so C++ and GLSL both read it.
#ifndef GFXQ_CNF_MASK_CONFIG_GLSL
#define GFXQ_CNF_MASK_CONFIG_GLSL

// A chunk's rows are cut into blocks of CNF_MASK_BLOCK rows, the rows one group of 32 invocations
// of cnf_flags tests: CNF_MASK_BLOCK_VECS vectors of 128 rows, lane b of the group holding rows
// 4b .. 4b + 3 of each. A block has CNF_MASK_BLOCK_WORDS mask words: word 4v + j is the ballot of
// component j of vector v over the group's lanes, so row r of the block is bit (r >> 2) & 31 of
// word (r >> 7) * 4 + (r & 3). Lane i of the group stores words 2i and 2i + 1 (one coalesced
// 256-byte store per block). Chunks start at multiples of CNF_MASK_BLOCK rows, so a chunk's mask
// starts at a multiple of 256 bytes.
#define CNF_MASK_BLOCK 2048
#define CNF_MASK_BLOCK_VECS 16
#define CNF_MASK_BLOCK_WORDS 64
// cnf_compact: rows each invocation stages per piece; a subgroup of S invocations stages the
// marked rows among 16 S rows at a time in its own region of shared memory (16 KiB for a
// 256-invocation workgroup, whatever S is).
#define CNF_COMPACT_LANE_ROWS 16

#endif
