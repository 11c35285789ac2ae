#version 450
// One step of the bitwise search (src/gl/aggregate.cpp, MIN/MAX/KTH_LARGEST/QUANTILE): keeps
// the fragments of the records whose 32-bit order key is >= `candidate` (exact unsigned integer
// compare), discards the others, so an occlusion query under the selection's stencil test counts
// the selected records with key >= candidate. Used with fullscreen.vert (its `depth`, location 0,
// is unused here). No outputs.
// Inputs:
//   location 1: uint candidate - the key compared with
//   location 2: uint is_float - 1: the column is FLOAT (key = float_key), 0: INT (key = int_key)
//   location 4, binding 0: usampler2D column - the tile's cells as raw bits, R32UI
layout(location = 1) uniform uint candidate;
layout(location = 2) uniform uint is_float;
layout(location = 4, binding = 0) uniform usampler2D column;

// core/order_key.h's int_key: unsigned order = int32 order.
uint int_key(uint bits) { return bits ^ 0x80000000u; }

// core/order_key.h's float_key of the canonical value (-0.0 as +0.0, every NaN as the quiet NaN).
uint float_key(uint bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u) bits = 0x7fc00000u;
  if (bits == 0x80000000u) bits = 0u;
  return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

void main() {
  uint bits = texelFetch(column, ivec2(gl_FragCoord.xy), 0).r;
  uint key = is_float != 0u ? float_key(bits) : int_key(bits);
  if (key < candidate) discard;
}
