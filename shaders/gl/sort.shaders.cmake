# Shaders of the raster sort (src/gl/sort.cpp), with fullscreen.vert: records (order key, position)
# built from a column tile (pair network) or normal-float keys (blending network), one comparator
# step of the pair network, and one blended half-step of the blending network.
gfxq_gl_shader(sort_init_pairs.frag)
gfxq_gl_shader(sort_init_blend.frag)
gfxq_gl_shader(sort_pairs.frag)
gfxq_gl_shader(sort_blend.frag)
