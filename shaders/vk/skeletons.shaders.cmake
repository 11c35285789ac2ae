# Kernels of the relational skeletons (src/vk/operators/skeletons): key planes and run heads of the
# multi-column row sort, the fused marks of DISTINCT and the set operations, their key ranges, packed
# keys and dense tables, the PRODUCT's pairs.
gfxq_vk_shader(row_key row_key.comp)
gfxq_vk_shader(row_heads row_key.comp DEFINES ROW_HEADS)
gfxq_vk_shader(row_range row_key.comp DEFINES ROW_RANGE)
gfxq_vk_shader(row_pack row_key.comp DEFINES ROW_PACK)
gfxq_vk_shader(row_insert row_key.comp DEFINES ROW_INSERT)
gfxq_vk_shader(set_mark_heads set_mark.comp DEFINES SET_HEADS)
gfxq_vk_shader(set_mark_runs set_mark.comp DEFINES SET_RUNS)
gfxq_vk_shader(product_ids product.comp DEFINES PRODUCT_IDS)
gfxq_vk_shader(product_gather product.comp DEFINES PRODUCT_GATHER)
gfxq_vk_shader(distinct_hash_insert distinct_hash.comp DEFINES DISTINCT_INSERT)
gfxq_vk_shader(distinct_hash_mark distinct_hash.comp DEFINES DISTINCT_MARK)
gfxq_vk_shader(set_dense_mark set_dense.comp)
