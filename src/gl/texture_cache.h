#pragma once
// Catalog columns kept as raster tile textures between queries (issue 19's residency, as the
// compute backend's resident columns): keyed by table name, catalog version, column and tile
// layout, least recently used first out past a byte budget. A query holds the columns it uses
// (shared_ptr), so an eviction during it frees their textures only when it ends. A newer version
// of a table drops that table's older columns. The context must be current when the cache
// inserts, evicts or is cleared (textures are deleted then).

#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include "core/column_key.h"
#include "gl/texture_store.h"

namespace gfxq::gl {

//! What a cached column is.
struct TextureKey {
  ColumnKey column;   //!< the catalog column and its table's version
  TileLayout layout;  //!< the tile layout it was uploaded in
  bool operator==(const TextureKey& o) const noexcept;
};

//! The texture cache of one raster backend.
class TextureCache {
 public:
  //! A cache of at most `budget_bytes` of textures (0: none is kept).
  explicit TextureCache(uint64_t budget_bytes) : budget_(budget_bytes) {}
  //! The column under `key`, marked most recently used; null when absent.
  std::shared_ptr<const ColumnTextures> find(const TextureKey& key);
  //! Keeps `column` under `key` (dropping the table's columns of other versions), then evicts the
  //! least recently used past the budget; a column larger than the budget is not kept.
  void insert(const TextureKey& key, std::shared_ptr<const ColumnTextures> column);
  //! Drops every column.
  void clear() noexcept { entries_.clear(); }
  //! Bytes of the columns kept.
  uint64_t bytes() const noexcept;
  //! Columns evicted for the budget since creation.
  uint64_t evictions() const noexcept { return evictions_; }

 private:
  struct Entry {
    TextureKey key;
    std::shared_ptr<const ColumnTextures> column;
  };
  uint64_t budget_;
  uint64_t evictions_ = 0;
  std::list<Entry> entries_;  // most recently used first
};

}  // namespace gfxq::gl
