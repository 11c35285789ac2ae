# Kernels of the compute backend's relational operators (src/vk/relational) and its benchmarks.
# cnf_scan: the fused WHERE pass; one source, variants by mode, value type and slot count.
# Suffix _iv: the raw-bit interval variant of a one-slot kernel (CNF_INTERVALS_ONLY, no term code);
# s2, s4, s8: programs of up to 2, 4, 8 slot columns (fewer slots, fewer registers, more loads in flight).
foreach(_variant s1 s1_iv s2 s4 s8)
  set(_defs SLOTS=1)
  if(_variant MATCHES "^s[248]$")
    string(SUBSTRING ${_variant} 1 1 _slots)
    set(_defs SLOTS=${_slots})
  elseif(_variant STREQUAL "s1_iv")
    set(_defs SLOTS=1 CNF_INTERVALS_ONLY)
  endif()
  gfxq_vk_shader(cnf_count_${_variant} cnf_scan.comp DEFINES MODE_COUNT ${_defs})
  gfxq_vk_shader(cnf_flags_${_variant} cnf_scan.comp DEFINES MODE_FLAGS ${_defs})
  # COUNT with MIN, MAX or both, with or without SUM, of an INT or FLOAT value slot; a FLOAT SUM
  # also as _f64 (SUM_DOUBLE: the register bin in a double, for devices with shaderFloat64).
  foreach(_what _min _max _minmax _sum _sum_min _sum_max _sum_minmax)
    set(_sum 0)
    if(_what MATCHES "^_sum")
      set(_sum 1)
    endif()
    set(_min 0)
    set(_max 0)
    if(_what MATCHES "min")
      set(_min 1)
    endif()
    if(_what MATCHES "max")
      set(_max 1)
    endif()
    foreach(_type int float)
      set(_float 0)
      if(_type STREQUAL "float")
        set(_float 1)
      endif()
      set(_agg_defs MODE_AGG VALUE_FLOAT=${_float} WANT_SUM=${_sum} WANT_MIN=${_min} WANT_MAX=${_max} ${_defs})
      gfxq_vk_shader(cnf_agg_${_type}${_what}_${_variant} cnf_scan.comp DEFINES ${_agg_defs})
      if(_float AND _sum)
        gfxq_vk_shader(cnf_agg_${_type}${_what}_${_variant}_f64 cnf_scan.comp DEFINES ${_agg_defs} SUM_DOUBLE)
      endif()
    endforeach()
  endforeach()
endforeach()
# agg_combine: cnf_agg_*'s per-workgroup partials added up on the device (one total to read back).
gfxq_vk_shader(agg_combine agg_combine.comp)
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
