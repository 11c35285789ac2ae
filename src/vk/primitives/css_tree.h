#pragma once
// A CSS-tree (cache-sensitive search tree, Rao & Ross 1999; He et al. 2008 build it on the GPU for
// their indexed nested-loop join) over n sorted 32-bit keys: a directory of levels whose nodes are
// CSS_NODE_KEYS keys (one 64-byte line), level k holding the last key of every node of level k - 1,
// level 0 being the sorted keys themselves. A search (shaders/common/css_tree.glsl) reads one node per
// level, log16(n) lines, where a binary search reads log2(n) scattered words. Built level by level,
// one dispatch each, in the caller's command buffer; barrier rules: see radix_sort.h.

#include <cstdint>
#include <string>
#include <vector>

#include "vk/device.h"

namespace gfxq::vk {

//! Where the levels of a CSS-tree over n keys live.
struct CssTreeLayout {
  uint64_t n = 0;               //!< keys (level 0)
  uint32_t levels = 0;          //!< directory levels above level 0 (0 when n <= CSS_NODE_KEYS)
  std::vector<uint64_t> len;    //!< entries of level 0..levels (len[0] = n)
  std::vector<uint64_t> start;  //!< word offset of level k >= 1 in the directory buffer (start[0] = 0)
  //! Words of the directory: every level padded to whole nodes, each starting at a 256-byte boundary.
  uint64_t directory_words = 0;
  //! Words the level-0 keys range must hold: n rounded up to whole nodes (the build pads it).
  uint64_t padded_keys() const noexcept;
  //! E.g. "CSS-tree of 1000000 keys, 5 levels of 16-key nodes".
  std::string describe() const;
};

//! The layout for n keys (n < 2^32; Error(Unsupported) beyond).
CssTreeLayout css_tree_layout(uint64_t n);

//! Records the build over `keys` (n ascending uint32 keys, in a range of layout.padded_keys() words
//! whose tail past n the build fills with 0xFFFFFFFF) into `directory` (layout.directory_words words,
//! at least 4 bytes). Keys and directory must each fit one storage binding.
void record_css_tree_build(Device& device, VkCommandBuffer cmd, const CssTreeLayout& layout, const BufferRange& keys,
                           const BufferRange& directory);

}  // namespace gfxq::vk
