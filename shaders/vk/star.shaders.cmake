# Kernels of the star aggregate on the compute backend (src/vk/operators/star/): a dimension's
# direct-address table filled with its selected rows' group codes, the fact rows probed and
# aggregated per group, and the non-empty groups collected.
gfxq_vk_shader(star_fill star.comp DEFINES STAR_FILL)
gfxq_vk_shader(star_probe star.comp DEFINES STAR_PROBE)
gfxq_vk_shader(star_collect star.comp DEFINES STAR_COLLECT)
gfxq_vk_shader(star_fold star.comp DEFINES STAR_FOLD)
# With a condition: variants for conditions of up to 2, 4 and 8 slot columns (fewer registers).
foreach(_slots 2 4 8)
  gfxq_vk_shader(star_probe_cnf_s${_slots} star.comp DEFINES STAR_CNF SLOTS=${_slots})
  gfxq_vk_shader(star_fill_cnf_s${_slots} star.comp DEFINES STAR_FILL_CNF SLOTS=${_slots})
endforeach()
