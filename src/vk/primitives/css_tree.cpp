#include "vk/primitives/css_tree.h"

#include <algorithm>

#include "gfxq/error.h"
#include "join_config.glsl"
#include "vk/primitives/radix_sort.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk {

namespace {

//! Push constants of css_build.comp (group_offset last, set by dispatch).
struct BuildPush {
  uint32_t below_len, len, group_offset;
};

uint64_t whole_nodes(uint64_t entries) {
  return prim::align_up(entries, CSS_NODE_KEYS);
}

}  // namespace

uint64_t CssTreeLayout::padded_keys() const noexcept {
  return whole_nodes(n);
}

std::string CssTreeLayout::describe() const {
  return "CSS-tree of " + std::to_string(n) + " keys (" + std::to_string(levels) + " directory level" +
         (levels == 1 ? "" : "s") + " of " + std::to_string(CSS_NODE_KEYS) + "-key nodes)";
}

CssTreeLayout css_tree_layout(uint64_t n) {
  if (n >= (uint64_t(1) << 32))
    throw Error(ErrorCode::Unsupported, "CSS-tree over " + std::to_string(n) + " keys (at most 2^32 - 1)");
  CssTreeLayout t;
  t.n = n;
  t.len.push_back(n);
  t.start.push_back(0);
  // The same recurrence as css_tree() in css_tree.glsl.
  while (t.len.back() > CSS_NODE_KEYS) {
    t.start.push_back(t.directory_words);
    t.len.push_back(prim::div_up(t.len.back(), CSS_NODE_KEYS));
    // Levels start at 256-byte boundaries, so each can be bound as a range of its own.
    t.directory_words += prim::align_up(whole_nodes(t.len.back()), 64);
    ++t.levels;
  }
  return t;
}

void record_css_tree_build(Device& device, VkCommandBuffer cmd, const CssTreeLayout& layout, const BufferRange& keys,
                           const BufferRange& directory) {
  detail::check_range_holds(keys, layout.padded_keys() * 4, "CSS-tree keys");
  detail::check_range_holds(directory, std::max<uint64_t>(4, layout.directory_words * 4), "CSS-tree directory");
  detail::check_fits_binding(device, layout.padded_keys(), "CSS-tree keys");
  detail::check_fits_binding(device, layout.directory_words, "CSS-tree directory");
  // Padding: level 0's tail and the whole directory (the levels then overwrite their entries).
  if (layout.padded_keys() > layout.n)
    vkCmdFillBuffer(cmd, keys.buffer->handle(), keys.offset + layout.n * 4, (layout.padded_keys() - layout.n) * 4,
                    0xFFFFFFFFu);
  if (layout.levels == 0) return;
  vkCmdFillBuffer(cmd, directory.buffer->handle(), directory.offset, layout.directory_words * 4, 0xFFFFFFFFu);
  device.barrier(cmd);
  const Pipeline& p = device.pipeline("css_build", 2, sizeof(BuildPush), true);
  for (uint32_t k = 1; k <= layout.levels; ++k) {
    if (k > 1) device.barrier(cmd);
    const BufferRange below =
        k == 1 ? BufferRange{keys.buffer, keys.offset, layout.n * 4}
               : BufferRange{directory.buffer, directory.offset + layout.start[k - 1] * 4, layout.len[k - 1] * 4};
    const BufferRange level{directory.buffer, directory.offset + layout.start[k] * 4, layout.len[k] * 4};
    const BuildPush push{uint32_t(layout.len[k - 1]), uint32_t(layout.len[k]), 0};
    device.dispatch_ranges(cmd, p, {below, level}, &push, uint32_t(prim::div_up(layout.len[k], JOIN_WG)));
  }
}

}  // namespace gfxq::vk
