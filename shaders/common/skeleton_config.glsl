// Constants of the relational skeletons (src/vk/operators/skeletons, shaders/vk/row_key.comp,
// set_mark.comp, product.comp), shared by C++ and GLSL. Plain #defines only.
#ifndef GFXQ_SHADERS_COMMON_SKELETON_CONFIG_GLSL
#define GFXQ_SHADERS_COMMON_SKELETON_CONFIG_GLSL

// How row_key.comp turns a column's words into one 32-bit key word of the row order (a "plane"):
// equal values give equal keys (FLOAT/DOUBLE -0.0 = +0.0, every NaN equal and largest), and the
// unsigned order of the keys is gfxq's total order, plane by plane.
#define ROW_KEY_I32 0u     // INT, DATE days, STRING codes: word ^ 2^31
#define ROW_KEY_F32 1u     // FLOAT: the order key of the float
#define ROW_KEY_I64_LO 2u  // BIGINT, low word (unsigned)
#define ROW_KEY_I64_HI 3u  // BIGINT, high word ^ 2^31
#define ROW_KEY_F64_LO 4u  // DOUBLE: low word of the 64-bit order key
#define ROW_KEY_F64_HI 5u  // DOUBLE: high word of the 64-bit order key
#define ROW_KEY_NULL 6u    // the NULL flags: 0 for NULL, 1 for a value (NULL first ascending)

// What set_mark.comp keeps of each run of equal rows (l left rows, then r right rows).
#define SET_OP_DISTINCT 0u       // the run's first row (DISTINCT, UNION)
#define SET_OP_INTERSECT 1u      // the first row when l > 0 and r > 0
#define SET_OP_INTERSECT_ALL 2u  // the first min(l, r) left rows
#define SET_OP_EXCEPT 3u         // the first row when l > 0 and r == 0
#define SET_OP_EXCEPT_ALL 4u     // the left rows after the first r

// row_key.comp's ROW_INSERT: where the packed keys come from (the dense table's key slices).
#define ROW_INSERT_KEYS_COMPUTE 0u  // from the planes (and the packed terms before them): one slice
#define ROW_INSERT_KEYS_STORE 1u    // from the planes, stored whole for the later slices (the first)
#define ROW_INSERT_KEYS_READ 2u     // the stored whole keys (the later slices)

#define SKELETON_WG 256u
// set_mark.comp: positions per invocation and per workgroup (its tile).
#define SET_ITEMS 8u
#define SET_TILE (SET_ITEMS * SKELETON_WG)
// row_key.comp's ROW_RANGE: positions per invocation (a workgroup takes SKELETON_WG times as many).
#define ROW_RANGE_ROWS 16u

// product.comp: vectors of 4 output positions per invocation (workgroup w takes PRODUCT_VECS *
// SKELETON_WG vectors), and the positions between an invocation's vectors.
#define PRODUCT_VECS 4u
#define PRODUCT_STEP (4u * SKELETON_WG)

// Hash DISTINCT (distinct_hash.comp): the most key planes a row may have, the empty slot, and the
// most slots one insert probes before it gives up (the table is at most half full, so a probe
// sequence that long means a bad hash; within lavapipe's 65,535 loop iterations per invocation).
#define DISTINCT_HASH_PLANES 4u
#define DISTINCT_HASH_EMPTY 0xffffffffu
#define DISTINCT_HASH_MAX_PROBES 4096u

#endif
