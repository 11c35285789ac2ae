#version 450
// Writes one constant colour.
layout(location = 1) uniform vec4 color;
layout(location = 0) out vec4 frag;
void main() { frag = color; }
