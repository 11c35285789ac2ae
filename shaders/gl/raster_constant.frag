#version 450
// Writes one constant depth for every fragment: gl_FragDepth = value, where value = k * 2^-24
// (k < 2^24) is exact in float32, so the depth test compares k with the stored values exactly
// whatever the rasteriser's depth interpolation does. Used with fullscreen.vert (its `depth`,
// location 0, set to the same value).
// Inputs: location 1: float value - the depth to write.
layout(location = 1) uniform float value;
void main() { gl_FragDepth = value; }
