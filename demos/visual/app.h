#pragma once
// The demo's state and commands, shared by the window and the headless renderer: the session,
// the query text, the current run, which pass and tile are shown, and their textures. Drawing is
// in views.h; keys and scripts are turned into Commands by the front ends.

#include <cstdint>
#include <string>

#include "visual/options.h"
#include "visual/session.h"
#include "visual/texture.h"

namespace gfxq::visual {

//! Where the stencil view was last drawn, in framebuffer pixels (origin top left).
struct ViewRect {
  float x = 0, y = 0;           //!< top left corner
  float width = 0, height = 0;  //!< size
  float zoom = 0;               //!< framebuffer pixels per image cell side
};

//! State and commands of the demo. Needs the GL context current on the calling thread.
class App {
 public:
  //! An app over `catalog`; `query` is run at once (the first example when empty).
  App(gl::Context& context, Catalog catalog, GeneratorSettings generator, std::string query);

  //! Does what `command` asks (Quit only sets quit_requested()).
  void apply(Command command);
  //! Per-frame work: one step of a Play in progress; true when it stepped.
  bool tick();
  //! True while a Play command is stepping.
  bool playing() const noexcept { return playing_; }
  //! True once Quit was applied.
  bool quit_requested() const noexcept { return quit_; }

  //! Runs query() now, keeping the shown pass and tile where they still exist.
  void run_query();
  //! Replaces the generated tables t and s with generator() and runs the query again.
  void regenerate();
  //! The editable query text.
  std::string& query() noexcept { return query_; }
  //! The editable generator settings.
  GeneratorSettings& generator() noexcept { return generator_; }
  //! The tables.
  Catalog& catalog() { return session_.catalog(); }
  //! The GL context (for its capability record).
  const gl::Context& context() const noexcept { return context_; }

  //! The last run.
  const Run& run() const noexcept { return run_; }
  //! The raster passes of the last run (0 when it did not run on the raster backend).
  size_t steps() const noexcept { return run_.passes.size(); }
  //! The shown pass, 0-based (meaningless when steps() is 0).
  size_t step() const noexcept { return step_; }
  //! Shows pass `step` (clamped).
  void select_step(size_t step);
  //! The shown tile, 0-based.
  uint64_t tile() const noexcept { return tile_; }
  //! Shows tile `tile` (clamped).
  void select_tile(uint64_t tile);
  //! The shown pass's tile view, or null when there is none.
  const TileView* tile_view() const;

  //! Textures of tile_view(): depth, stencil, passed (uploaded when the pass or tile changed).
  struct Textures {
    unsigned depth = 0, stencil = 0, passed = 0;  //!< GL texture names
  };
  //! See Textures.
  Textures textures();
  //! Records where the stencil view was drawn (views.cpp), for the screenshot sidecar.
  void set_stencil_rect(const ViewRect& rect) noexcept { stencil_rect_ = rect; }
  //! Where the stencil view was drawn in the last frame (zoom 0: not drawn).
  const ViewRect& stencil_rect() const noexcept { return stencil_rect_; }

  //! One line saying what is shown, e.g. "pass 3/9 compare: tile 1/2, 4567 satisfied, ...".
  std::string status_line() const;

 private:
  gl::Context& context_;
  Session session_;
  GeneratorSettings generator_;
  std::string query_;
  Run run_;
  size_t step_ = 0;
  uint64_t tile_ = 0;
  bool playing_ = false;
  bool quit_ = false;
  Texture depth_, stencil_, passed_;
  bool stale_ = true;  // the textures do not hold tile_view()
  ViewRect stencil_rect_;
};

}  // namespace gfxq::visual
