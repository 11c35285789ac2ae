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
# TEMPORARY (GFXQ_ONESWEEP_VARIANT=1, radix_sort.cpp): the 512 x 16-key pairs candidate, to be
# timed against onesweep_pass_kv on the H200, then kept as onesweep_pass_kv or removed.
gfxq_vk_shader(onesweep_pass_kv_wide onesweep_pass.comp DEFINES KEY_VALUE ONESWEEP_KV_WIDE)
