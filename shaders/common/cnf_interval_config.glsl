// The float test of one-column interval programs on a FLOAT column (cnf_eval.glsl,
// src/vk/relational/select.cpp), shared by C++ and GLSL. Plain #defines only, so both languages
// read it.
// A program whose rows form one interval of order keys, with bounds that are normal floats or
// infinite, is tested by float compares against the bounds instead of by raw-bit intervals: one
// compare for a one-sided interval, where the raw bits of a FLOAT interval that spans zero need two
// subtractions and two compares. On the H200 at 2^28 rows `SUM(a) WHERE a < 0.5` took 0.270 ms
// with the compare against 0.355 with the raw bits, MIN 0.243 against 0.299. Denormal bounds and
// zero bounds keep the raw-bit test: a device that flushes denormals to zero in compares would
// compare a denormal row wrongly against them, whereas against a normal bound b a denormal or zero
// row compares as any value of magnitude below |b| does, whatever the device does with denormals.
// The kernel's test, its specialization constant 0 (the bounds: two words after the raw intervals):
#define CNF_FLOAT_RAW 0     // the raw-bit intervals
#define CNF_FLOAT_LE 1      // x <= hi (no NaN)
#define CNF_FLOAT_GE 2      // x >= lo (no NaN)
#define CNF_FLOAT_RANGE 3   // lo <= x <= hi (no NaN)
#define CNF_FLOAT_GE_NAN 4  // x >= lo or x is NaN (NaN's key is the largest)
