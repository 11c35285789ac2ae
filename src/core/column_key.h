#pragma once
// Which version of which catalog column a backend's cached copy holds (the compute backend's
// resident columns, vk/engine/resident.h; the raster backend's textures, gl/texture_cache.h).
// Replacing a table in the catalog gives it a new version, so a copy under an older one never
// answers again.

#include <compare>
#include <cstdint>
#include <string>

namespace gfxq {

//! A catalog column at one table version.
struct ColumnKey {
  std::string table;     //!< catalog name
  uint64_t version = 0;  //!< Catalog::version of the table
  size_t column = 0;     //!< column index in the table
  auto operator<=>(const ColumnKey&) const = default;
};

}  // namespace gfxq
