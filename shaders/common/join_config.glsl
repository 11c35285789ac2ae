// Constants of the join operators (src/vk/operators/join, shaders/vk/join_*.comp) and of the CSS-tree
// and merge-path primitives they use. Plain #defines only: C++ includes this file too.
#ifndef GFXQ_JOIN_CONFIG_GLSL
#define GFXQ_JOIN_CONFIG_GLSL

// Invocations per workgroup of every join kernel.
#define JOIN_WG 256
// Key columns one side of a join binds (and terms one condition holds).
#define JOIN_MAX_COLUMNS 4
#define JOIN_MAX_TERMS 4
// Words of one term in the term table (a storage buffer): a column, b column, op, a type | b type << 8,
// lo (double bits: low, high word), hi (low, high word).
#define JOIN_TERM_WORDS 8

// Term operators: a is the probe side's value, b the build side's (the host orients terms).
#define JOIN_OP_EQ 0u
#define JOIN_OP_LT 1u
#define JOIN_OP_LE 2u
#define JOIN_OP_GT 3u
#define JOIN_OP_GE 4u
#define JOIN_OP_BAND 5u  // a + lo <= b <= a + hi in double arithmetic (kernels compiled with JOIN_BAND)

// Column types.
#define JOIN_TYPE_INT 0u
#define JOIN_TYPE_FLOAT 1u

// How join_prepare turns a key column into a 32-bit key.
#define JOIN_NORM_RAW 0u           // the raw bits
#define JOIN_NORM_ORDER_INT 1u     // int_key: INT order
#define JOIN_NORM_ORDER_FLOAT 2u   // float_key: FLOAT total order (-0.0 = +0.0, NaN = NaN, largest)
#define JOIN_NORM_INT_OF_FLOAT 3u  // a FLOAT's int_key when it is an int32 value; other rows dropped

// join_prepare: rows per invocation (consecutive) and per workgroup.
#define JOIN_PREPARE_ITEMS 4
#define JOIN_PREPARE_TILE 1024
// join_prepare modes.
#define JOIN_PREPARE_COUNT 0u  // per tile: rows that are kept
#define JOIN_PREPARE_WRITE 1u  // every row kept: row i to position i
#define JOIN_PREPARE_PACK 2u   // kept rows to their tile's offset + rank, in row order

// join_expand (the output routine's load-balanced write): positions per invocation, per workgroup.
#define JOIN_EXPAND_ITEMS 8
#define JOIN_EXPAND_TILE 2048
// join_expand modes.
#define JOIN_EXPAND_WRITE 0u   // every candidate is a pair: write the positions of the chunk window
#define JOIN_EXPAND_COUNT 1u   // per candidate tile: candidates passing the residual terms
#define JOIN_EXPAND_PACK 2u    // passing candidates at their tile's offset + rank (chunk window only)
#define JOIN_EXPAND_UNITS 3u   // every candidate is a pair: one invocation per unit writes its run (chunk window only)
// The longest run JOIN_EXPAND_UNITS is used for (each invocation loops over its run).
#define JOIN_UNIT_RUNS 16u

// Nested loop join: probe rows per workgroup (one per invocation) and build rows one workgroup
// compares them with (a multiple of JOIN_WG; lavapipe ends a shader's loops after 65,535 iterations).
#define JOIN_NINLJ_BLOCK 8192
// Per-slot kernels (nested loop, partitioned hash): modes.
#define JOIN_SLOT_COUNT 0u
#define JOIN_SLOT_WRITE 1u

// Partitioned hash join: probe rows one work item holds at most (JOIN_WG x 16).
#define JOIN_HASH_PROBE_CHUNK 4096
// Words per work item: build start, build rows, probe start, probe rows.
#define JOIN_HASH_ITEM_WORDS 4
// The empty marker of hash tables and chains.
#define JOIN_EMPTY 0xFFFFFFFFu
// Global hash join modes.
#define JOIN_GLOBAL_INSERT 0u   // build rows: claim a slot per distinct key (key, row id); flag duplicates
#define JOIN_GLOBAL_COUNT 1u    // (duplicate build keys) build rows: rows per slot
#define JOIN_GLOBAL_SCATTER 2u  // (duplicate build keys) build rows: row ids grouped by slot (after the scan)
#define JOIN_GLOBAL_PROBE 3u    // probe rows: the match (unique build keys) or the run (grouped) of their key

// join_probe_tiles (the global hash join's probe of one key column, by tiles): rows per invocation
// (consecutive) and per workgroup, and modes.
#define JOIN_PROBE_ITEMS 4
#define JOIN_PROBE_TILE 1024
#define JOIN_PROBE_COUNT 0u  // per tile: pairs (each run capped at JOIN_UNIT_RUNS + 1); the longest run
#define JOIN_PROBE_WRITE 1u  // each row's run at its tile's offset + its rank (chunk window only)

// Indexed nested loop: how a probe finds its interval of build keys.
#define JOIN_INLJ_KEYED 0u  // the probe's key is in the build keys' domain: the interval [key, key]
#define JOIN_INLJ_TERM 1u   // from the probe's raw value through the primary term (any operator)

// Sort-merge join: merge-path tile (elements of both sequences) of the sorted search.
#define JOIN_SEARCH_TILE 2048
#define JOIN_SEARCH_LOWER 0u  // first build key >= the probe key (merge ties: probe first)
#define JOIN_SEARCH_UPPER 1u  // first build key > the probe key (merge ties: build first)

// CSS-tree: keys per node (a 64-byte line) and the most directory levels (16^8 = 2^32 keys).
#define CSS_NODE_KEYS 16
#define CSS_MAX_LEVELS 8

// Merge path: diagonals per workgroup of the partition kernel.
#define MERGE_PATH_WG 256
#define MERGE_TIES_A_FIRST 0u
#define MERGE_TIES_B_FIRST 1u

#endif
