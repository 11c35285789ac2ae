// Constants of the GROUP BY kernels (shaders/vk/group_by_*.comp) shared by C++
// (src/vk/operators/group_by/) and GLSL. Plain #defines only, so both languages read it.
#ifndef GFXQ_GROUP_BY_CONFIG_GLSL
#define GFXQ_GROUP_BY_CONFIG_GLSL

// Aggregate states of a hash-table slot (3 bits each in specialization constant 0, state i at
// bits 3i; at most GB_MAX_STATES). Every slot also holds its group's key(s) and row count.
#define GB_STATE_NONE 0u
// int64 sum of an INT column: 2 words (low, high), 8-byte aligned in the slot.
#define GB_STATE_SUM_INT 1u
// smallest order key of the column (INT or FLOAT), kept inverted (~key) so that a fresh slot is
// all zeros: 1 word, atomicMax.
#define GB_STATE_MIN 2u
// largest order key of the column: 1 word, atomicMax.
#define GB_STATE_MAX 3u
// exact sum of a FLOAT column: GB_F320_WORDS words of a two's-complement fixed point in units of
// 2^-149 (word w holds bits 32w..32w+31), then one word of flags (GB_FLAG_*).
#define GB_STATE_SUM_FLOAT 4u
#define GB_MAX_STATES 8u
#define GB_F320_WORDS 10u
#define GB_SUM_FLOAT_WORDS 11u
#define GB_FLAG_NAN 1u
#define GB_FLAG_POS_INF 2u
#define GB_FLAG_NEG_INF 4u

// Specialization constant 1 (GB_CONFIG): bits 2i..2i+1 the value binding (0..3) state i reads;
// bit 16 + c: value binding c is FLOAT; GB_CFG_TWO_KEYS: two key columns (a 64-bit key);
// GB_CFG_KEY0_FLOAT / GB_CFG_KEY1_FLOAT: the key column is FLOAT; GB_CFG_SELECTION: rows come
// through a list of row ids; GB_CFG_COUNT: the slots count their rows (COUNT or AVG asked; the
// GB_EMPTY key's slot counts always, its count tells whether it holds a group).
#define GB_MAX_VALUE_BINDINGS 4u
#define GB_CFG_VALUE_FLOAT_SHIFT 16u
#define GB_CFG_TWO_KEYS 0x100000u
#define GB_CFG_KEY0_FLOAT 0x200000u
#define GB_CFG_KEY1_FLOAT 0x400000u
#define GB_CFG_SELECTION 0x800000u
#define GB_CFG_COUNT 0x2000000u

// The key word of an empty slot: a fresh table is all zeros (keys empty, counts and sums zero, MIN
// and MAX at their identities). Rows whose order key is GB_EMPTY (INT -2147483648; both words for
// two key columns; no FLOAT value has it) update the table's last slot, which no hash reaches,
// instead of being hashed.
#define GB_EMPTY 0u

// Control words of a table (a buffer of its own): GB_CTRL_OVERFLOW is nonzero once some row found
// no slot within the probe limit (its row was not counted: resize and rerun); GB_CTRL_GROUPS
// counts the slots claimed (the groups of the table; each workgroup adds its claims once);
// GB_CTRL_COLLECTED counts the slots group_by_collect has listed. A slot holds a group when its
// key word(s) are not all GB_EMPTY, the last slot when its count is not zero.
#define GB_CTRL_OVERFLOW 0u
#define GB_CTRL_GROUPS 1u
#define GB_CTRL_COLLECTED 2u
#define GB_CTRL_WORDS 4u

// Workgroups of every group-by kernel; rows are loaded as uvec4, so a step of a workgroup covers
// GB_STEP rows.
#define GB_WG 256u
#define GB_STEP 1024u
// Invocations of a workgroup of the shared-table kernels (group_by_shared_*).
#define GB_SHARED_WG 1024u
// Rows per workgroup of the global-table kernel (4 steps).
#define GB_GLOBAL_ROWS 4096u
// Linear probing gives up after this many slots (an overflow). Bounded for lavapipe, which ends a
// shader run's loops after 65,535 iterations in all: a workgroup's invocation handles at most 16
// rows of the global kernel per call.
#define GB_PROBE_LIMIT 1024u

// Shared-memory table sizes (words of the whole table, keys, counts and states) of the
// workgroup-private variants, one kernel each: 4096 words (16 KiB), 7168 (28 KiB: devices with
// 32 KiB of shared memory, lavapipe), 11264 (44 KiB: NVIDIA's 48 KiB).
#define GB_SHARED_WORDS_S 4096u
#define GB_SHARED_WORDS_M 7168u
#define GB_SHARED_WORDS_L 11264u

// The few-groups kernels (group_by_private_{s,m,l}) take the shared tables' sizes; each lays its
// memory out at run time (key table, group ids, GB_WG or fewer copies of each group's accumulators).

// HyperLogLog sketch of the group count: 2^GB_HLL_BITS registers, each the largest rank
// (leading zeros + 1) of a second 32-bit hash among the keys whose first hash selects it.
#define GB_HLL_BITS 12u
#define GB_HLL_REGISTERS 4096u
// The seed of the fingerprints' second hash (group_by_estimate.comp).
#define GB_HASH_SEED_HLL 0x9e3779b9u

// The sample of the optimizer: at most GB_SAMPLE_MAX rows at evenly spaced positions counted in a
// table of twice as many slots; group_by_sample_stats writes (distinct, f1, f2, top) to its
// control. 2^16: the rows of a few groups' keys add into a few slots of the sample table, which
// serializes their atomics (2^18 rows took 0.08 ms over 16 groups on the H200, a tenth of the
// aggregate itself).
#define GB_SAMPLE_MAX 65536u
#define GB_SAMPLE_DISTINCT 0u
#define GB_SAMPLE_F1 1u
#define GB_SAMPLE_F2 2u
// The largest count of one key in the sample (the hottest key).
#define GB_SAMPLE_TOP 3u

#endif
