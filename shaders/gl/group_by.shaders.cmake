# Shaders of the raster GROUP BY (src/gl/group_by.cpp): one point per record at its group's pixel
# (group_by.vert: group id from the key columns or an id texture, selection from a kept stencil),
# and the record's channels (counts, bit planes, 24-bit key parts) for additive or min/max
# blending into RGBA32F targets (group_by.frag).
gfxq_gl_shader(group_by.vert)
gfxq_gl_shader(group_by.frag)
