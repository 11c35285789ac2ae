# Kernels of the compute backend's relational operators (src/vk/relational) and its benchmarks.
# cnf_scan: the fused WHERE pass; one source, variants by mode, value type and slot count.
# Suffix _iv: the raw-bit interval variant of a one-slot kernel (CNF_INTERVALS_ONLY, no term code).
foreach(_variant s1 s1_iv s8)
  set(_defs SLOTS=1)
  if(_variant STREQUAL "s8")
    set(_defs SLOTS=8)
  elseif(_variant STREQUAL "s1_iv")
    set(_defs SLOTS=1 CNF_INTERVALS_ONLY)
  endif()
  gfxq_vk_shader(cnf_count_${_variant} cnf_scan.comp DEFINES MODE_COUNT ${_defs})
  gfxq_vk_shader(cnf_flags_${_variant} cnf_scan.comp DEFINES MODE_FLAGS ${_defs})
  # COUNT/MIN/MAX, COUNT/SUM and COUNT/SUM/MIN/MAX of an INT or FLOAT value slot.
  foreach(_what "" _sum _sum_minmax)
    set(_sum 0)
    set(_minmax 1)
    if(_what STREQUAL "_sum")
      set(_sum 1)
      set(_minmax 0)
    elseif(_what STREQUAL "_sum_minmax")
      set(_sum 1)
    endif()
    foreach(_type int float)
      set(_float 0)
      if(_type STREQUAL "float")
        set(_float 1)
      endif()
      gfxq_vk_shader(cnf_agg_${_type}${_what}_${_variant} cnf_scan.comp DEFINES MODE_AGG VALUE_FLOAT=${_float}
                     WANT_SUM=${_sum} WANT_MINMAX=${_minmax} ${_defs})
    endforeach()
  endforeach()
endforeach()
# cnf_compact: the marked rows in row order, as row ids, keys, or both.
gfxq_vk_shader(cnf_compact_ids cnf_compact.comp DEFINES WRITE_IDS)
gfxq_vk_shader(cnf_compact_keys cnf_compact.comp DEFINES WRITE_KEYS)
gfxq_vk_shader(cnf_compact_pairs cnf_compact.comp DEFINES WRITE_IDS WRITE_KEYS)
# The copy-bandwidth ceiling of the compute benchmarks.
gfxq_vk_shader(copy_u32x4 copy_u32x4.comp)
gfxq_vk_shader(copy_u32x4_x4 copy_u32x4.comp DEFINES PER_THREAD=4u)
gfxq_vk_shader(copy_u32x4_gs copy_u32x4.comp DEFINES PER_THREAD=4u GRID_STRIDE)
gfxq_vk_shader(read_u32x4_x8 copy_u32x4.comp DEFINES PER_THREAD=8u READ_ONLY)
gfxq_vk_shader(read_u32x4_gs copy_u32x4.comp DEFINES PER_THREAD=8u GRID_STRIDE READ_ONLY)
# cnf_select: row ids of a WHERE in one pass (decoupled look-back): 8192-row tiles with one slot
# column, 2048-row tiles with eight (cnf_select_config.glsl).
gfxq_vk_shader(cnf_select_s1 cnf_select.comp DEFINES SLOTS=1)
gfxq_vk_shader(cnf_select_s1_iv cnf_select.comp DEFINES SLOTS=1 CNF_INTERVALS_ONLY)
gfxq_vk_shader(cnf_select_s8 cnf_select.comp DEFINES SLOTS=8)
