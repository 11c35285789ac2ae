#include "visual/app.h"

#include <algorithm>

namespace gfxq::visual {

App::App(gl::Context& context, Catalog catalog, GeneratorSettings generator, std::string query)
    : context_(context),
      session_(context, std::move(catalog)),
      generator_(generator),
      query_(query.empty() ? examples().front().sql : std::move(query)) {
  run_query();
}

void App::run_query() {
  run_ = session_.run(query_);
  select_step(step_);
  select_tile(tile_);
}

void App::regenerate() {
  add_generated_tables(session_.catalog(), generator_);
  run_query();
}

void App::apply(Command command) {
  if (command != Command::Play) playing_ = false;
  switch (command) {
    case Command::Next: select_step(step_ + 1); break;
    case Command::Prev: select_step(step_ > 0 ? step_ - 1 : 0); break;
    case Command::First: select_step(0); break;
    case Command::Last: select_step(steps() > 0 ? steps() - 1 : 0); break;
    case Command::Play:
      select_step(0);
      playing_ = steps() > 1;
      break;
    case Command::Rerun: run_query(); break;
    case Command::Quit: quit_ = true; break;
  }
}

bool App::tick() {
  if (!playing_) return false;
  select_step(step_ + 1);
  playing_ = step_ + 1 < steps();
  return true;
}

void App::select_step(size_t step) {
  step_ = steps() > 0 ? std::min(step, steps() - 1) : 0;
  stale_ = true;
  select_tile(tile_);
}

void App::select_tile(uint64_t tile) {
  const size_t tiles = steps() > 0 ? run_.passes[step_].tiles.size() : 0;
  tile_ = tiles > 0 ? std::min<uint64_t>(tile, tiles - 1) : 0;
  stale_ = true;
}

const TileView* App::tile_view() const {
  if (steps() == 0 || run_.passes[step_].tiles.empty()) return nullptr;
  return &run_.passes[step_].tiles[tile_];
}

App::Textures App::textures() {
  if (stale_) {
    const TileView* view = tile_view();
    depth_.upload(view ? view->depth : Image{});
    stencil_.upload(view ? view->stencil : Image{});
    passed_.upload(view ? view->passed : Image{});
    stale_ = false;
  }
  return {depth_.id(), stencil_.id(), passed_.id()};
}

std::string App::status_line() const {
  if (run_.path == Path::None) return "error: " + run_.error;
  if (run_.path != Path::Raster)
    return std::string(run_.path == Path::Compute ? "compute" : "cpu") + ": " +
           std::to_string(run_.report.passes.size()) + " stages, " + (run_.ok() ? "ok" : "DIFFERS: " + run_.difference);
  const TileView* v = tile_view();
  if (!v) return "raster: no GPU pass (" + run_.report.algorithm + "), " + (run_.ok() ? "ok" : "DIFFERS");
  const PassView& p = run_.passes[step_];
  std::string line = "pass " + std::to_string(step_ + 1) + "/" + std::to_string(steps()) + " " + p.kind + ": tile " +
                     std::to_string(v->tile + 1) + "/" + std::to_string(p.tiles.size()) + ", " +
                     std::to_string(v->satisfied) + " satisfied, " + std::to_string(v->pending) + " pending, " +
                     std::to_string(v->rejected) + " rejected, " + std::to_string(v->passed_records) + " passed";
  if (v->occlusion) line += ", occlusion " + std::to_string(*v->occlusion);
  return line + (run_.ok() ? "; result ok" : "; result DIFFERS: " + run_.difference);
}

}  // namespace gfxq::visual
