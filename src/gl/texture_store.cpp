#include "gl/texture_store.h"

#include <glad/gl.h>

#include <algorithm>
#include <bit>

#include "core/order_key.h"
#include "gfxq/error.h"
#include "gl/check.h"
#include "gl/storage.h"

namespace gfxq::gl {

namespace {

// The raw 32-bit cells of an Int32 or Float32 column.
const uint32_t* cell_bits(const Column& column) {
  if (column.type == Type::Int32) return reinterpret_cast<const uint32_t*>(column.as<int32_t>().data());
  if (column.type == Type::Float32) return reinterpret_cast<const uint32_t*>(column.as<float>().data());
  throw Error(ErrorCode::Internal,
              "raster: column '" + column.name + "' is " + to_string(column.type) + ", not a query input type");
}

// The FloatBits of n float32 cells: per sign and exponent the OR of the significands, then
// each OR shifted into place.
FloatBits float_bits(const uint32_t* bits, uint64_t n) {
  FloatBits fb;
  std::array<std::array<uint32_t, 254>, 2> significands{};  // [sign][s]
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t b = bits[i];
    const uint32_t e = (b >> 23) & 0xff, sign = b >> 31, f = b & 0x7fffff;
    if (e == 0xff) {
      if (f != 0)
        fb.nan = true;
      else
        (sign ? fb.negative_inf : fb.positive_inf) = true;
      continue;
    }
    significands[sign][std::max<uint32_t>(e, 1) - 1] |= f | (e != 0 ? 0x800000u : 0u);
  }
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (int s = 0; s < 254; ++s)
      for (uint32_t m = significands[sign][size_t(s)]; m != 0; m &= m - 1) {
        const int q = s + std::countr_zero(m);
        (sign ? fb.negative : fb.positive)[size_t(q) / 64] |= uint64_t(1) << (q % 64);
      }
  return fb;
}

}  // namespace

uint64_t TileLayout::records(uint64_t t) const noexcept {
  const uint64_t before = t * tile_records();
  return std::min(tile_records(), rows - before);
}

uint32_t TileLayout::pixel_rows(uint64_t t) const noexcept {
  return static_cast<uint32_t>((records(t) + width - 1) / width);
}

TileLayout tile_layout(uint64_t rows, uint32_t width, uint32_t height) {
  if (width == 0 || height == 0) throw Error(ErrorCode::Internal, "raster: tile of zero size");
  TileLayout layout{width, height, rows};
  // Fewer records than a tile: only the pixel rows they need.
  if (rows < layout.tile_records()) layout.height = std::max<uint32_t>(1, layout.pixel_rows(0));
  return layout;
}

ColumnInfo column_info(const Column& column) {
  ColumnInfo info{column.name, column.type, {}, 0, 0, {}};
  const uint32_t* bits = cell_bits(column);
  const uint64_t n = column.size();
  if (n == 0) return info;
  info.keys = {~0u, 0u};
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t k = cell_key(column.type, bits[i]);
    info.keys.lo = std::min(info.keys.lo, k);
    info.keys.hi = std::max(info.keys.hi, k);
  }
  if (column.type == Type::Int32) {
    info.min_int = int_from_key(info.keys.lo);
    info.max_int = int_from_key(info.keys.hi);
  } else {
    info.float_bits = float_bits(bits, n);
  }
  return info;
}

std::vector<int> FloatBits::positions(bool negative_values) const {
  const auto& set = negative_values ? negative : positive;
  std::vector<int> q;
  for (int i = 0; i < kPositions; ++i)
    if (set[size_t(i) / 64] >> (i % 64) & 1) q.push_back(i);
  return q;
}

ColumnTextures::~ColumnTextures() {
  if (!tiles.empty()) glDeleteTextures(GLsizei(tiles.size()), tiles.data());
}

size_t TextureStore::add(const Column& column) {
  if (column.size() != layout_.rows)
    throw Error(ErrorCode::Internal, "raster: column '" + column.name + "' has " + std::to_string(column.size()) +
                                         " rows, the store " + std::to_string(layout_.rows));
  const uint32_t* bits = cell_bits(column);
  // Filled tile by tile: a failure leaves the textures made so far to its destructor.
  auto made = std::make_shared<ColumnTextures>();
  made->info = column_info(column);
  auto& tiles = made->tiles;
  const uint32_t w = layout_.width;
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);  // the pointers below are client memory
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  for (uint64_t t = 0; t < layout_.tiles(); ++t) {
    const uint32_t h = layout_.pixel_rows(t);
    const std::string what = "tile " + std::to_string(t) + " of column '" + column.name + "' (" +
                             std::to_string((bytes() + made->bytes) >> 10) + " KiB of column textures held)";
    GLuint texture = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &texture);
    tiles.push_back(texture);
    texture_storage(*context_, texture, GL_R32UI, w, h, what);
    made->bytes += uint64_t(w) * h * 4;
    // Integer textures are incomplete (and read as 0) under the default linear-mipmap filter.
    glTextureParameteri(texture, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(texture, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    // Full pixel rows straight from the column, then the last partial row.
    const uint64_t first = t * layout_.tile_records();
    const uint64_t records = layout_.records(t);
    const uint32_t full_rows = static_cast<uint32_t>(records / w);
    const uint32_t rest = static_cast<uint32_t>(records % w);
    if (full_rows > 0)
      glTextureSubImage2D(texture, 0, 0, 0, GLsizei(w), GLsizei(full_rows), GL_RED_INTEGER, GL_UNSIGNED_INT,
                          bits + first);
    if (rest > 0)
      glTextureSubImage2D(texture, 0, 0, GLint(full_rows), GLsizei(rest), 1, GL_RED_INTEGER, GL_UNSIGNED_INT,
                          bits + first + uint64_t(full_rows) * w);
  }
  check_error(("uploading column '" + column.name + "'").c_str());
  return add(std::move(made));
}

size_t TextureStore::add(std::shared_ptr<const ColumnTextures> column) {
  if (column->tiles.size() != layout_.tiles())
    throw Error(ErrorCode::Internal, "raster: a cached column of " + std::to_string(column->tiles.size()) +
                                         " tiles in a store of " + std::to_string(layout_.tiles()));
  columns_.push_back(std::move(column));
  return columns_.size() - 1;
}

uint64_t TextureStore::bytes() const noexcept {
  uint64_t bytes = 0;
  for (const auto& c : columns_) bytes += c->bytes;
  return bytes;
}

}  // namespace gfxq::gl
