// Constants of radix select (src/vk/primitives/radix_select.cpp, shaders/vk/select_*.comp),
// shared by C++ and GLSL. Plain #defines only, so both languages read it.
#ifndef GFXQ_SELECT_CONFIG_GLSL
#define GFXQ_SELECT_CONFIG_GLSL

// Digit levels of the sort key, MSB first: 12, 12 and 8 bits (shifts 20, 8 and 0). Each scan
// decides one level: at most three scans, the first over all keys.
#define SELECT_LEVELS 3
#define SELECT_BINS 4096
// Grid-stride scans over tiles of SELECT_WG x SELECT_KPT keys by at most SELECT_MAX_GROUPS
// workgroups. On the H200 (132 SMs) the median of 2^28 floats took 0.705-0.709 ms with 396 or 264
// workgroups against 0.745 with 1024, 0.752 with 330, 0.825 with 198 and 0.997 with 132; the
// unsampled median of 2^24 took 0.1225 ms with 396, 0.1385 with 264, 0.1455 with 1024 (eighth round).
#define SELECT_WG 256
#define SELECT_KPT 16
#define SELECT_TILE 4096
#define SELECT_MAX_GROUPS 396
// Added to the pass push constant of the follow-up dispatch after scan 1 (select_histogram.comp):
// count the candidates scan 1 copied.
#define SELECT_FOLLOWUP 16u
// Added to the pass push constant of a scan or choice of the sampled select (radix_select.h): run
// only when state[SELECT_PATH] is SELECT_PATH_CANDIDATES (the select over the candidate regions)
// or SELECT_PATH_FALLBACK (the whole select over the keys); return at once otherwise.
#define SELECT_GATE_CANDIDATES 256u
#define SELECT_GATE_FALLBACK 512u
#define SELECT_LEVEL_MASK 3u

// Sampled select: SELECT_SAMPLE keys at evenly strided positions, sorted by one workgroup; the
// bracket [lo, hi] is SELECT_SAMPLE_MARGIN sample ranks either side of rank k's place in the
// sample: 3 standard deviations of that place at the median (sqrt(S) / 2 = 32 ranks), so random
// keys miss the bracket, and take the exact fallback, about 0.3% of the time at the median and
// less elsewhere. A wider bracket copies more keys: 128 ranks timed 0.84 ms for the median of 2^28
// keys on the H200 (BENCHMARKS.md, fifth round). Below
// SELECT_SAMPLE_MIN keys the select is never sampled; by default (RadixSelectArgs::Sample::Auto)
// it is sampled from SELECT_SAMPLE_AUTO keys, where it was faster on the H200 (BENCHMARKS.md).
#define SELECT_SAMPLE 4096
#define SELECT_SAMPLE_MARGIN 96
#define SELECT_SAMPLE_MIN 16384
#define SELECT_SAMPLE_AUTO 33554432
#define SELECT_SAMPLE_WG 256
// state[SELECT_PATH] after the check (select_check.comp): what runs next.
#define SELECT_PATH_CANDIDATES 1u  // rank k lies strictly inside (lo, hi): select over the copies
#define SELECT_PATH_FALLBACK 2u    // rank k is outside [lo, hi]: the whole select over the keys
#define SELECT_PATH_BOUND 3u       // the k-th key is lo or hi: the check wrote the result

// The state words at the start of the scratch.
#define SELECT_PREFIX 0     // the decided high bits of the k-th sort key
#define SELECT_MASK 1       // which bits are decided
#define SELECT_K 2          // rank among the candidates (keys whose bits under MASK equal PREFIX)
#define SELECT_LESS 3       // keys below every candidate
#define SELECT_COUNT 4      // candidates
#define SELECT_SRC 5        // where the next scan reads: 0 the keys, 1 the candidate regions
#define SELECT_DST 6        // 1: the next scan copies its candidates into the regions
// Sampled select (words 7..15 are not touched by the unsampled select):
#define SELECT_PATH 7       // SELECT_PATH_*; 0 before the check (or when not sampled)
#define SELECT_LO 8         // lower bracket sort key
#define SELECT_HI 9         // upper bracket sort key
#define SELECT_BELOW 10     // keys below lo
#define SELECT_AT_LO 11     // keys equal to lo
#define SELECT_AT_HI 12     // keys equal to hi (when hi != lo)
#define SELECT_INSIDE 13    // keys strictly between lo and hi: copied into the candidate regions
// Histograms: level l at SELECT_HIST + l * SELECT_BINS; the header ends after level 2's.
#define SELECT_HIST 16
// The sample's sort keys follow at SELECT_SAMPLE_AT; the header ends after them.
#define SELECT_SAMPLE_AT 8464
#define SELECT_HEADER_WORDS 12560

#endif
