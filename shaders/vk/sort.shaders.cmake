# Shaders of the sort family: radix sort, split, radix select, bitonic chunk sort
# (src/vk/primitives/{radix_sort,split,radix_select,bitonic_sort}.cpp).
gfxq_vk_shader(radix_upsweep radix_upsweep.comp)
gfxq_vk_shader(radix_scan radix_scan.comp)
gfxq_vk_shader(radix_downsweep_k radix_downsweep.comp)
gfxq_vk_shader(radix_downsweep_kv radix_downsweep.comp DEFINES KEY_VALUE)
gfxq_vk_shader(radix_downsweep_kw radix_downsweep.comp DEFINES OUT_WINDOWS)
gfxq_vk_shader(radix_downsweep_kvw radix_downsweep.comp DEFINES KEY_VALUE OUT_WINDOWS)
gfxq_vk_shader(bitonic_chunks_k bitonic_chunks.comp)
gfxq_vk_shader(bitonic_chunks_kv bitonic_chunks.comp DEFINES KEY_VALUE)
gfxq_vk_shader(select_first select_histogram.comp DEFINES SELECT_FIRST)
gfxq_vk_shader(select_pass select_histogram.comp)
gfxq_vk_shader(select_choose select_choose.comp)
gfxq_vk_shader(split_offsets split_offsets.comp)
gfxq_vk_shader(split_bounds split_bounds.comp)
gfxq_vk_shader(onesweep_histogram onesweep_histogram.comp)
gfxq_vk_shader(onesweep_pass_k onesweep_pass.comp)
gfxq_vk_shader(onesweep_pass_kv onesweep_pass.comp DEFINES KEY_VALUE)
# Onesweep digit-pass variants, selected by GFXQ_ONESWEEP_VARIANT=1..6 (radix_sort.cpp) to be
# timed against the kept kernel. 1 and 2 are diagnostics with wrong results (timing floors):
# 1: no look-back (offsets guessed from the histogram), 2: no ranking (keys written back in place).
# 3 / 4: 16 / 32 look-back descriptors per step. 5: 256 x 12 keys (3072-key tiles, fewer
# registers). 6: 512 x 16 keys (8192-key tiles, half the tiles; ranked in waves of subgroups and
# staged in two rounds of 4096 keys, which keeps it within lavapipe's 32 KiB of shared memory).
# 7: 6 with 16 look-back descriptors per step.
foreach(kv k kv)
  if(kv STREQUAL "kv")
    set(_kv KEY_VALUE)
  else()
    set(_kv "")
  endif()
  gfxq_vk_shader(onesweep_pass_${kv}_v1 onesweep_pass.comp DEFINES ${_kv} OS_DIAG_NO_LOOKBACK)
  gfxq_vk_shader(onesweep_pass_${kv}_v2 onesweep_pass.comp DEFINES ${_kv} OS_DIAG_NO_RANK)
  gfxq_vk_shader(onesweep_pass_${kv}_v3 onesweep_pass.comp DEFINES ${_kv} OS_LOOKBACK_BATCH=16)
  gfxq_vk_shader(onesweep_pass_${kv}_v4 onesweep_pass.comp DEFINES ${_kv} OS_LOOKBACK_BATCH=32)
  gfxq_vk_shader(onesweep_pass_${kv}_v5 onesweep_pass.comp DEFINES ${_kv} OS_KPT=12)
  gfxq_vk_shader(onesweep_pass_${kv}_v6 onesweep_pass.comp DEFINES ${_kv} OS_WG=512 OS_STAGE=4096 OS_WAVES)
  gfxq_vk_shader(onesweep_pass_${kv}_v7 onesweep_pass.comp DEFINES ${_kv} OS_WG=512 OS_STAGE=4096 OS_WAVES
                 OS_LOOKBACK_BATCH=16)
endforeach()
