# Shaders of the joins (src/vk/operators/join) and of the primitives they brought: the merge-path
# partition (src/vk/primitives/merge_path.cpp) and the CSS-tree build (src/vk/primitives/css_tree.cpp).
# Kernels that test terms come twice: plain, and _band (JOIN_BAND: band terms in double arithmetic,
# for devices with shaderFloat64). The global hash join's build comes twice: 32-bit atomics, and _a64
# (JOIN_ATOMIC64: one 64-bit compare-and-swap per entry, for devices with shaderBufferInt64Atomics).
gfxq_vk_shader(merge_path merge_path.comp)
gfxq_vk_shader(css_build css_build.comp)
gfxq_vk_shader(join_prepare join_prepare.comp)
gfxq_vk_shader(join_search join_search.comp)
gfxq_vk_shader(join_hash_global join_hash_global.comp)
gfxq_vk_shader(join_hash_global_a64 join_hash_global.comp DEFINES JOIN_ATOMIC64)
gfxq_vk_shader(join_probe_tiles join_probe_tiles.comp)
gfxq_vk_shader(join_inlj join_inlj.comp)
gfxq_vk_shader(join_inlj_band join_inlj.comp DEFINES JOIN_BAND)
foreach(_kernel join_expand join_ninlj join_hash_part)
  gfxq_vk_shader(${_kernel} ${_kernel}.comp)
  gfxq_vk_shader(${_kernel}_band ${_kernel}.comp DEFINES JOIN_BAND)
endforeach()
