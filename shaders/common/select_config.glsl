// Constants of radix select (src/vk/primitives/radix_select.cpp, shaders/vk/select_*.comp),
// shared by C++ and GLSL. Plain #defines only, so both languages read it.
#ifndef GFXQ_SELECT_CONFIG_GLSL
#define GFXQ_SELECT_CONFIG_GLSL

// Digit levels of the sort key, MSB first: 12, 12 and 8 bits (shifts 20, 8 and 0). Each scan
// decides one level: at most three scans, the first over all keys.
#define SELECT_LEVELS 3
#define SELECT_BINS 4096
// Grid-stride scans over tiles of SELECT_WG x SELECT_KPT keys by at most SELECT_MAX_GROUPS
// workgroups.
#define SELECT_WG 256
#define SELECT_KPT 16
#define SELECT_TILE 4096
#define SELECT_MAX_GROUPS 1024
// Added to the pass push constant of the follow-up dispatch after scan 1 (select_histogram.comp):
// count the candidates scan 1 copied.
#define SELECT_FOLLOWUP 16u

// The state words at the start of the scratch.
#define SELECT_PREFIX 0     // the decided high bits of the k-th sort key
#define SELECT_MASK 1       // which bits are decided
#define SELECT_K 2          // rank among the candidates (keys whose bits under MASK equal PREFIX)
#define SELECT_LESS 3       // keys below every candidate
#define SELECT_COUNT 4      // candidates
#define SELECT_SRC 5        // where the next scan reads: 0 the keys, 1 the candidate regions
#define SELECT_DST 6        // 1: the next scan copies its candidates into the regions
// Histograms: level l at SELECT_HIST + l * SELECT_BINS; the header ends after level 2's.
#define SELECT_HIST 16
#define SELECT_HEADER_WORDS 8464

#endif
