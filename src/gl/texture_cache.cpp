#include "gl/texture_cache.h"

#include <utility>

namespace gfxq::gl {

bool TextureKey::operator==(const TextureKey& o) const noexcept {
  return column == o.column && layout.width == o.layout.width && layout.height == o.layout.height &&
         layout.rows == o.layout.rows;
}

std::shared_ptr<const ColumnTextures> TextureCache::find(const TextureKey& key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->key == key) {
      entries_.splice(entries_.begin(), entries_, it);
      return entries_.front().column;
    }
  return nullptr;
}

void TextureCache::insert(const TextureKey& key, std::shared_ptr<const ColumnTextures> column) {
  std::erase_if(entries_, [&](const Entry& e) {
    return e.key == key || (e.key.column.table == key.column.table && e.key.column.version != key.column.version);
  });
  if (column->bytes > budget_) return;
  entries_.push_front({key, std::move(column)});
  while (bytes() > budget_) {
    entries_.pop_back();
    ++evictions_;
  }
}

uint64_t TextureCache::bytes() const noexcept {
  uint64_t total = 0;
  for (const Entry& e : entries_) total += e.column->bytes;
  return total;
}

}  // namespace gfxq::gl
