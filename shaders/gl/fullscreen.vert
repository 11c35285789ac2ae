#version 450
// A full-screen triangle at depth `depth` (NDC z, so with glClipControl zero-to-one z = depth).
// No vertex buffers: gl_VertexID 0..2 spans the viewport.
layout(location = 0) uniform float depth;
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
  gl_Position = vec4(p, depth, 1.0);
}
