#pragma once
// Columns of the raster path as textures, tile by tile. Record r of a column lives in tile
// r / (W*H) at pixel (r % W, (r / W) % H): a tile is W*H consecutive records in row-major order,
// so uploading a tile is one copy of a contiguous slice of the column (plus the last partial row).
// Textures are R32UI holding the cells' raw bits (int32 or float32): the order keys are computed
// in the shaders with integer operations, so no float conversion (denormal flushing, NaN payload
// changes) can ever touch a value.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gfxq/table.h"
#include "gl/key_compare.h"

namespace gfxq::gl {

class Context;

//! How records map to tiles of at most width x height pixels.
struct TileLayout {
  uint32_t width = 1;   //!< tile width W in pixels
  uint32_t height = 1;  //!< full tile height H in pixels
  uint64_t rows = 0;    //!< records

  //! Records in a full tile (W*H).
  uint64_t tile_records() const noexcept { return uint64_t(width) * height; }
  //! Number of tiles (0 for no records).
  uint64_t tiles() const noexcept { return (rows + tile_records() - 1) / tile_records(); }
  //! Records in tile `t`: W*H except in the last tile.
  uint64_t records(uint64_t t) const noexcept;
  //! Pixel rows tile `t` needs: ceil(records(t) / W); the largest is tile 0's.
  uint32_t pixel_rows(uint64_t t) const noexcept;
};

//! The layout of `rows` records in tiles of at most `width` x `height` pixels. The width is
//! kept; the height is trimmed to what the records need, so small tables get small textures.
TileLayout tile_layout(uint64_t rows, uint32_t width, uint32_t height);

//! Which bits of the exact fixed point a FLOAT column's values use, and which non-finite values it
//! holds (a host scan at upload): a finite float32 is +-M * 2^s units of 2^-149 (M < 2^24 the
//! significand, s = max(biased exponent, 1) - 1 <= 253), so |x| / 2^-149 = M << s has bits below 277.
//! SUM/AVG of FLOAT (gl/aggregate.h) run only the planes set here.
struct FloatBits {
  static constexpr int kPositions = 277;  //!< fixed-point bit positions of a finite float32
  std::array<uint64_t, 5> positive{};     //!< bit q: some value > 0 has bit q of M << s set
  std::array<uint64_t, 5> negative{};     //!< bit q: some value < 0 has bit q of M << s set
  bool nan = false;                       //!< some value is NaN
  bool positive_inf = false;              //!< some value is +inf
  bool negative_inf = false;              //!< some value is -inf

  //! The positions q set for values of sign `negative_values`, ascending.
  std::vector<int> positions(bool negative_values) const;
};

//! What the planner knows of an input column (a host scan at upload).
struct ColumnInfo {
  std::string name;         //!< column name
  Type type = Type::Int32;  //!< Int32 or Float32
  KeyRange keys;            //!< range of its order keys (cell_key)
  int32_t min_int = 0;      //!< smallest value (INT columns)
  int32_t max_int = 0;      //!< largest value (INT columns)
  FloatBits float_bits;     //!< FLOAT columns: fixed-point planes and non-finite values present
};

//! The ColumnInfo of a non-empty Int32 or Float32 column.
ColumnInfo column_info(const Column& column);

//! One column's R32UI tile textures and its ColumnInfo, deleted with the last owner (a store,
//! or the texture cache, gl/texture_cache.h; the context must be current then).
struct ColumnTextures {
  std::vector<unsigned> tiles;  //!< per tile (GLuint)
  ColumnInfo info;              //!< what the host scan found
  uint64_t bytes = 0;           //!< texture memory held
  ColumnTextures() = default;
  ColumnTextures(const ColumnTextures&) = delete;
  ColumnTextures& operator=(const ColumnTextures&) = delete;
  ~ColumnTextures();
};

//! R32UI textures of columns, one per column per tile, shared with the texture cache.
class TextureStore {
 public:
  //! An empty store for columns of `layout.rows` records, allocated in `context` (gl/storage.h).
  TextureStore(Context& context, const TileLayout& layout) : context_(&context), layout_(layout) {}

  //! Uploads `column` (layout().rows cells, Int32 or Float32) tile by tile and scans it for its
  //! ColumnInfo; returns its slot. Error(OutOfDeviceMemory) naming the bytes, the tile and the
  //! texture memory already held when GL runs out (or a FaultInjection fails the allocation).
  size_t add(const Column& column);
  //! Adds a column uploaded before in this layout (from the texture cache); returns its slot.
  size_t add(std::shared_ptr<const ColumnTextures> column);
  //! The textures and ColumnInfo of the column in `slot`.
  const std::shared_ptr<const ColumnTextures>& column(size_t slot) const { return columns_[slot]; }
  //! The texture holding tile `tile` of the column in `slot`.
  unsigned texture(size_t slot, uint64_t tile) const { return columns_[slot]->tiles[tile]; }
  //! The ColumnInfo of the column in `slot`.
  const ColumnInfo& info(size_t slot) const { return columns_[slot]->info; }
  //! The tile layout.
  const TileLayout& layout() const noexcept { return layout_; }
  //! Bytes of texture memory held.
  uint64_t bytes() const noexcept;

 private:
  Context* context_;
  TileLayout layout_;
  std::vector<std::shared_ptr<const ColumnTextures>> columns_;  // by slot
};

}  // namespace gfxq::gl
