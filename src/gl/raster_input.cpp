#include "gl/raster_input.h"

#include <glad/gl.h>

#include <algorithm>
#include <chrono>

#include "core/trace_text.h"
#include "gfxq/error.h"
#include "gl/context.h"
#include "gl/texture_cache.h"

namespace gfxq::gl {

namespace {

constexpr uint32_t kDefaultTile = 8192;

}  // namespace

void restore_default_state(bool depth_bounds) {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glBindVertexArray(0);
  glUseProgram(0);
  glBindTextureUnit(0, 0);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glDisable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_STENCIL_TEST);
  glStencilFunc(GL_ALWAYS, 0, ~0u);
  glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
  glStencilMask(~0u);
  glDisable(GL_SCISSOR_TEST);
  if (depth_bounds) {
    glDisable(GL_DEPTH_BOUNDS_TEST_EXT);
    glDepthBoundsEXT(0.0, 1.0);
  }
  glClipControl(GL_LOWER_LEFT, GL_NEGATIVE_ONE_TO_ONE);
}

void init_stencil(unsigned framebuffer, uint32_t width, uint32_t height, uint64_t records) {
  glStencilMask(0xff);
  const GLint one = 1, zero = 0;
  if (records == uint64_t(width) * height) {
    glClearNamedFramebufferiv(framebuffer, GL_STENCIL, 0, &one);
    return;
  }
  glClearNamedFramebufferiv(framebuffer, GL_STENCIL, 0, &zero);
  glEnable(GL_SCISSOR_TEST);
  const auto full_rows = static_cast<GLsizei>(records / width);
  const auto rest = static_cast<GLsizei>(records % width);
  if (full_rows > 0) {
    glScissor(0, 0, GLsizei(width), full_rows);
    glClearNamedFramebufferiv(framebuffer, GL_STENCIL, 0, &one);
  }
  if (rest > 0) {
    glScissor(0, full_rows, rest, 1);
    glClearNamedFramebufferiv(framebuffer, GL_STENCIL, 0, &one);
  }
  glDisable(GL_SCISSOR_TEST);
}

KeptStencil::~KeptStencil() {
  if (!framebuffers.empty()) glDeleteFramebuffers(GLsizei(framebuffers.size()), framebuffers.data());
  if (!textures.empty()) glDeleteTextures(GLsizei(textures.size()), textures.data());
  if (!renderbuffers.empty()) glDeleteRenderbuffers(GLsizei(renderbuffers.size()), renderbuffers.data());
}

std::pair<uint32_t, uint32_t> tile_size(const GlCapabilities& caps, const RasterOptions& options) {
  const int max_width = std::min({caps.max_texture_size, caps.max_framebuffer_width, caps.max_renderbuffer_size});
  const int max_height = std::min({caps.max_texture_size, caps.max_framebuffer_height, caps.max_renderbuffer_size});
  const uint32_t width =
      options.tile_width ? options.tile_width : std::min<uint32_t>(kDefaultTile, uint32_t(max_width));
  const uint32_t height =
      options.tile_height ? options.tile_height : std::min<uint32_t>(kDefaultTile, uint32_t(max_height));
  if (width > uint32_t(max_width) || height > uint32_t(max_height))
    throw Error(ErrorCode::InvalidQuery, "raster: tile " + std::to_string(width) + "x" + std::to_string(height) +
                                             " is larger than the driver allows (" + std::to_string(max_width) + "x" +
                                             std::to_string(max_height) + ")");
  return {width, height};
}

RasterInput::RasterInput(Context& context, const Table& table, const std::vector<size_t>& columns,
                         const RasterOptions& options)
    : RasterInput(context, table, std::string(), columns, options) {}

RasterInput::RasterInput(Context& context, const Table& table, const std::string& name,
                         const std::vector<size_t>& columns, const RasterOptions& options)
    : table_(&table), store_(context, [&] {
        const auto [w, h] = tile_size(context.caps(), options);
        return tile_layout(table.rows(), w, h);
      }()) {
  const auto start = std::chrono::steady_clock::now();
  const bool cached = options.textures && options.catalog && !name.empty();
  std::string uploaded, resident;
  uint64_t uploads = 0;
  for (size_t c : columns) {
    const TextureKey key{{name, cached ? options.catalog->version(name) : 0, c}, store_.layout()};
    std::shared_ptr<const ColumnTextures> kept = cached ? options.textures->find(key) : nullptr;
    std::string& names = kept ? resident : uploaded;
    names += (names.empty() ? "" : ", ") + table.columns[c].name;
    if (kept) {
      store_.add(std::move(kept));
    } else {
      const size_t slot = store_.add(table.columns[c]);
      ++uploads;
      if (cached) options.textures->insert(key, store_.column(slot));
    }
    columns_.push_back(c);
  }
  const TileLayout& layout = store_.layout();
  upload_.kind = uploaded.empty() && !resident.empty() ? "resident" : "upload";
  upload_.detail = (uploaded.empty() && resident.empty() ? std::string("no columns") : uploaded) +
                   (resident.empty() ? "" : std::string(uploaded.empty() ? "" : "; ") + "resident: " + resident) +
                   " as R32UI tiles of " + std::to_string(layout.width) + "x" + std::to_string(layout.height) + " (" +
                   std::to_string(layout.tiles()) + " tile" + (layout.tiles() == 1 ? "" : "s") + ", " +
                   std::to_string(store_.bytes() >> 10) + " KiB)" +
                   (uploaded.empty() ? "" : ", key ranges scanned on the host") +
                   (cached ? "; texture cache " + std::to_string(options.textures->bytes() >> 10) + " KiB, " +
                                 std::to_string(options.textures->evictions()) + " evicted so far"
                           : "");
  upload_.items = table.rows() * uploads;
  upload_.wall_ms = ms_since(start);
}

size_t RasterInput::slot(size_t index) const {
  for (size_t s = 0; s < columns_.size(); ++s)
    if (columns_[s] == index) return s;
  throw Error(ErrorCode::Internal, "raster: column " + std::to_string(index) + " was not uploaded");
}

}  // namespace gfxq::gl
