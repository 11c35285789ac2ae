# Kernels of GROUP BY on the compute backend (src/vk/operators/group_by/): the table kernels of
# the hash variants (global table; workgroup-private shared tables of three sizes, also run by the
# partitioned variant; the few-groups (private) kernels of the same three sizes), each also with 64-bit buffer
# atomics (_a64), the table's collection and ordered gather, the optimizer's sample and
# HyperLogLog passes, and the per-group quantiles of the sort-based variant.
foreach(_a64 "" _a64)
  set(_defs "")
  if(_a64)
    set(_defs GB_ATOMIC64)
  endif()
  gfxq_vk_shader(group_by_global${_a64} group_by_table.comp DEFINES GB_KERNEL_GLOBAL ${_defs})
  foreach(_size S M L)
    string(TOLOWER ${_size} _lower)
    gfxq_vk_shader(group_by_shared_${_lower}${_a64} group_by_table.comp
                   DEFINES GB_SHARED_WORDS=GB_SHARED_WORDS_${_size} ${_defs})
  endforeach()
  foreach(_size S M L)
    string(TOLOWER ${_size} _lower)
    gfxq_vk_shader(group_by_private_${_lower}${_a64} group_by_table.comp
                   DEFINES GB_SHARED_WORDS=GB_SHARED_WORDS_${_size} GB_PRIVATE ${_defs})
  endforeach()
endforeach()
gfxq_vk_shader(group_by_collect group_by_collect.comp)
gfxq_vk_shader(group_by_gather group_by_gather.comp)
gfxq_vk_shader(group_by_sample group_by_estimate.comp DEFINES GB_SAMPLE_INSERT)
gfxq_vk_shader(group_by_sample_stats group_by_estimate.comp DEFINES GB_SAMPLE_STATS)
gfxq_vk_shader(group_by_hll group_by_estimate.comp DEFINES GB_HLL)
gfxq_vk_shader(group_by_quantile group_by_quantile.comp)
