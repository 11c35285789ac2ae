#version 450
// A fragment shader that writes nothing: with fullscreen.vert it draws a full-screen pass at the
// constant depth of fullscreen.vert's `depth` (location 0) for depth and stencil tests only.
// No inputs, no uniforms, no outputs (the raster framebuffer has no colour attachment).
void main() {}
