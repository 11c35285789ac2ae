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
// Radix sort of more keys than one binding holds: the keys are cut into at most SORT_OUT_WINDOWS
// windows of one binding each (a whole number of SORT_BLOCKs, all but the last full); a digit
// pass reads one input window per dispatch and scatters into all output windows, bound at once.
#define SORT_OUT_WINDOWS 8
// Value columns a counting pass moves besides the first (radix_downsweep's MORE_VALUES).
#define SORT_MORE_VALUES 4

// Onesweep radix sort: one histogram pass for all four 8-bit digits (ONESWEEP_HIST_GROUPS
// workgroups of ONESWEEP_HIST_WG invocations, ONESWEEP_HIST_TILE-key tiles), then one pass per
// digit that ranks a tile and finds its digits' output offsets by decoupled look-back over per-tile
// descriptors. Control words (in scratch): the tile counter of each pass, the status (bit p: pass
// p's look-back hit its bound), the four global histograms, then ONESWEEP_DESC_REGIONS regions of
// SORT_BINS descriptors per tile, pass p using region p % 2 (the fill before the sort zeroes
// everything up to region 1, which pass 0 zeroes as it goes). A descriptor is flag << 30 | count,
// where the count is the tile's keys of that digit (AGGREGATE) or those of all tiles up to it plus
// the keys of smaller digits (PREFIX).
// Tiles per kernel, chosen by occupancy (H200, 2^28 int32 keys, per digit pass; BENCHMARKS.md):
// keys only, 512 x 16 keys (2.00 ms; 64 registers, two workgroups per SM; 512 x 12 2.22, 384 x 16
// 2.28, 1024 x 8 2.62, 512 x 8 2.75, 256 x 16 2.79); key + value, 512 x 12 keys (2.75 ms at 64
// registers; 512 x 8 2.99, 384 x 8 3.05, 256 x 16 3.21 at 116 registers, 512 x 16 3.43 at 97).
#define ONESWEEP_WG_K 512
#define ONESWEEP_KPT_K 16
#define ONESWEEP_TILE_K 8192
#define ONESWEEP_WG_KV 512
#define ONESWEEP_KPT_KV 12
#define ONESWEEP_TILE_KV 6144
// Shared words of a digit pass: its counter rows, ONESWEEP_COUNTER_WORDS / SORT_BINS of them (one
// per subgroup, or per ONESWEEP_WAVES subgroups: lavapipe's 64 subgroups of 8 rank in 4 waves),
// then in the same words the tile, staged in rounds of at most ONESWEEP_STAGE keys; a workgroup
// stays within 32 KiB of shared memory.
#define ONESWEEP_STAGE 4096
#define ONESWEEP_COUNTER_WORDS 4096
#define ONESWEEP_COUNTERS 0
#define ONESWEEP_STATUS 4
#define ONESWEEP_HIST 16
#define ONESWEEP_DESC 1040
#define ONESWEEP_DESC_REGIONS 2
#define ONESWEEP_PASSES 4
// The histogram pass: 512 invocations x 4 uvec4s per tile, 132 workgroups (one per SM on the
// H200), each taking every 132nd tile; 8 copies of the counters (32 KiB, onesweep_histogram.comp).
// On the H200 the pass (with the fill before it) took 0.355 ms at 2^28 int32 keys with 132
// workgroups, 0.357 with 264, 0.360 with 396, 0.363 with 528, 0.367 with 792 and 0.373 with 1056
// (at 2^24: 0.040 ms against 0.046 with 528), so its shared atomics, not the workgroups in flight,
// set its pace.
#define ONESWEEP_HIST_WG 512
#define ONESWEEP_HIST_TILE 8192
#define ONESWEEP_HIST_GROUPS 132
// Descriptors one look-back step loads at once (independent loads, consumed in order). On the
// H200 at 2^28 int32 keys a digit pass took 4.09 ms with 1, 3.78 with 8 and 4.04 with 16 (all with
// subgroupPartitionNV peers); with ballot peers 16 and 32 were slower than 8 (keys 3.09 and 3.64
// ms against 2.79 at 256 x 16; 3.00 against 2.00 at 512 x 16); at 512 x 16, 4 took 1.96 ms against
// 2.01 with 8 (1.91 against 2.00 with one-word ballots, onesweep_pass.comp); with the kernels per
// key type, 2 took the sorts to 7.41 / 10.58 ms against 7.49 / 10.74 with 4 and 7.97 / 11.14 with
// 8 (keys / keys + row ids, seventh round); with the look-back before the ranking, 4 took 7.23 ms
// against 7.12 (ninth round).
#define ONESWEEP_LOOKBACK_BATCH 2
#define ONESWEEP_FLAG_AGGREGATE 1u
#define ONESWEEP_FLAG_PREFIX 2u
#define ONESWEEP_FLAG_FAILED 3u
#define ONESWEEP_COUNT_MASK 0x3fffffffu
// Most look-back descriptor reads per digit and tile. lavapipe counts the iterations of ALL loops
// of one shader run against a single budget of 65,535 and silently cuts every loop short once it
// is spent, so the look-back must leave most of it to the pass's other loops.
#define ONESWEEP_MAX_LOOKBACK 16384

// Bitonic chunk sort: one workgroup sorts a 2048-key tile (chunks of up to 2048 keys).
#define BITONIC_WG 256
#define BITONIC_TILE 2048

#endif
