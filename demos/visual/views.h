#pragma once
// The demo's Dear ImGui layout: controls (tables, generator, query, examples) on the left, the
// shown pass in the middle (depth heat map, stencil by clause state, the records the pass let
// through, exact counts) or the compute stages for queries the raster backend cannot run, and the
// execution report and result check on the right.

#include "visual/app.h"

namespace gfxq::visual {

//! Draws the whole demo into a width x height display (between ImGui::NewFrame and ImGui::Render).
void draw_ui(App& app, float width, float height);

}  // namespace gfxq::visual
