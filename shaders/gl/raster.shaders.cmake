# Shaders of the raster path (src/gl/select.cpp, count.cpp). With fullscreen.vert they draw
# full-screen passes whose depth is a column's values (raster_value.frag), a constant written as
# fragment depth (raster_constant.frag), or fullscreen.vert's constant z (raster_empty.frag, also
# for stencil-only passes).
gfxq_gl_shader(raster_value.frag)
gfxq_gl_shader(raster_constant.frag)
gfxq_gl_shader(raster_empty.frag)
# Aggregates over the stencil selection (src/gl/aggregate.cpp): bit planes of an INT column
# (SUM/AVG) and "order key >= candidate" (bitwise search: MIN/MAX/KTH_LARGEST/QUANTILE).
gfxq_gl_shader(raster_bitplane.frag)
gfxq_gl_shader(raster_key_ge.frag)
# Bit planes of a FLOAT column's exact fixed point per sign (SUM/AVG of FLOAT).
gfxq_gl_shader(raster_float_plane.frag)
# Batched join probes (src/gl/join.cpp): count(key < c) per fragment by a bitwise search of the
# sorted inner keys.
gfxq_gl_shader(join_search.frag)
