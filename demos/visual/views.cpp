#include "visual/views.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "gl/context.h"

namespace gfxq::visual {

namespace {

const ImVec4 kGrey{0.65f, 0.67f, 0.72f, 1.0f};
const ImVec4 kRed{1.0f, 0.42f, 0.42f, 1.0f};
const ImVec4 kAmber{1.0f, 0.75f, 0.3f, 1.0f};
const ImVec4 kGreen{0.4f, 0.85f, 0.5f, 1.0f};

ImVec4 colour(const Rgb& c) {
  return {c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, 1.0f};
}

std::string with_commas(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string ms_text(const std::optional<double>& ms) {
  if (!ms) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", *ms);
  return buf;
}

// A small square of colour `c` followed by `label` on the same line.
void swatch(const Rgb& c, const std::string& label) {
  ImGui::ColorButton(label.c_str(), colour(c), ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoDragDrop,
                     ImVec2(12, 12));
  ImGui::SameLine();
  ImGui::TextUnformatted(label.c_str());
}

// A green check mark drawn as two lines (the default font has no U+2713), then `label`.
void check_mark(const char* label) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 green = ImGui::GetColorU32(kGreen);
  draw->AddLine(ImVec2(p.x + 1, p.y + h * 0.55f), ImVec2(p.x + h * 0.4f, p.y + h * 0.9f), green, 2.5f);
  draw->AddLine(ImVec2(p.x + h * 0.4f, p.y + h * 0.9f), ImVec2(p.x + h, p.y + h * 0.1f), green, 2.5f);
  ImGui::Dummy(ImVec2(h + 2, h));
  ImGui::SameLine();
  ImGui::TextColored(kGreen, "%s", label);
}

// ---------------------------------------------------------------------------------------------
// Left: tables and the generator.

void draw_controls(App& app) {
  ImGui::TextUnformatted("gfxq: a query, pass by pass");
  const GlCapabilities& caps = app.context().caps();
  ImGui::PushStyleColor(ImGuiCol_Text, kGrey);
  ImGui::TextWrapped("%s, OpenGL %d.%d", caps.renderer.c_str(), caps.major, caps.minor);
  ImGui::PopStyleColor();
  ImGui::Separator();

  ImGui::TextUnformatted("Tables");
  for (const auto& name : app.catalog().names()) {
    const Table& t = app.catalog().get(name);
    ImGui::BulletText("%s: %s rows", name.c_str(), with_commas(t.rows()).c_str());
    ImGui::TextColored(kGrey, "    %s", t.schema().c_str());
  }
  GeneratorSettings& g = app.generator();
  ImGui::PushItemWidth(-90);
  if (ImGui::InputScalar("rows", ImGuiDataType_U64, &g.rows)) g.rows = std::min(g.rows, kMaxGeneratedRows);
  constexpr Distribution kDists[] = {Distribution::Uniform, Distribution::Skewed, Distribution::Sorted,
                                     Distribution::AllEqual};
  if (ImGui::BeginCombo("distribution", to_string(g.dist))) {
    for (Distribution d : kDists)
      if (ImGui::Selectable(to_string(d), d == g.dist)) g.dist = d;
    ImGui::EndCombo();
  }
  ImGui::InputScalar("seed", ImGuiDataType_U64, &g.seed);
  ImGui::PopItemWidth();
  if (ImGui::Button("Generate t and s")) app.regenerate();
  ImGui::Separator();

  ImGui::TextColored(
      kGrey, "keys:\n  space      next pass\n  backspace  previous pass\n  R          rerun\n  Esc        quit");
}

// The query line across the top: examples, the editable text (Enter runs it), Run.
void draw_query_bar(App& app) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Query");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(220);
  if (ImGui::BeginCombo("##examples", "examples...")) {
    for (const Example& e : examples())
      if (ImGui::Selectable(e.title)) {
        app.query() = e.sql;
        app.run_query();
      }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 80);
  if (ImGui::InputText("##query", &app.query(), ImGuiInputTextFlags_EnterReturnsTrue)) app.run_query();
  ImGui::SameLine();
  if (ImGui::Button("Run (R)", ImVec2(-1, 0))) app.run_query();
}

// ---------------------------------------------------------------------------------------------
// Middle: the shown pass, or the stage list of another engine.

// Draws `image` (cells of `texture`) as large as fits in `avail`, at whole framebuffer pixels and
// an integer zoom when it is enlarged (so every cell is a square of identical pixels); returns
// where it went.
ViewRect draw_image(unsigned texture, const Image& image, ImVec2 avail) {
  float zoom = std::min(avail.x / float(image.width), avail.y / float(image.height));
  if (zoom >= 1) zoom = std::floor(zoom);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::SetCursorScreenPos(ImVec2(std::floor(p.x), std::floor(p.y)));
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 size(image.width * zoom, image.height * zoom);
  ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(texture)), size);
  return {at.x, at.y, size.x, size.y, zoom};
}

// One of the four cells of the pass view: title, image, then `caption` lines.
template <class Caption>
ViewRect image_cell(const char* id, const char* title, unsigned texture, const Image& image, ImVec2 size,
                    int caption_lines, const Caption& caption) {
  ViewRect rect;
  ImGui::BeginChild(id, size, false, ImGuiWindowFlags_NoScrollbar);
  ImGui::TextUnformatted(title);
  const float line = ImGui::GetTextLineHeightWithSpacing();
  rect = draw_image(texture, image, ImVec2(size.x, size.y - line * float(caption_lines + 1) - 4));
  caption();
  ImGui::EndChild();
  return rect;
}

void draw_stage_table(const ExecutionReport& report) {
  if (!ImGui::BeginTable("stages", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollY))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("stage", ImGuiTableColumnFlags_WidthFixed, 110);
  ImGui::TableSetupColumn("detail", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("items", ImGuiTableColumnFlags_WidthFixed, 80);
  ImGui::TableSetupColumn("GPU ms", ImGuiTableColumnFlags_WidthFixed, 60);
  ImGui::TableSetupColumn("wall ms", ImGuiTableColumnFlags_WidthFixed, 60);
  ImGui::TableHeadersRow();
  for (const PassRecord& p : report.passes) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(p.kind.c_str());
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", p.detail.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(with_commas(p.items).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(ms_text(p.gpu_ms).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(ms_text(p.wall_ms).c_str());
  }
  ImGui::EndTable();
}

void draw_other_engine(const Run& run) {
  ImGui::TextColored(kAmber, "The raster backend cannot run this query:");
  ImGui::PushStyleColor(ImGuiCol_Text, kAmber);
  ImGui::TextWrapped("Unsupported: %s", run.raster_error.c_str());
  ImGui::PopStyleColor();
  if (!run.compute_error.empty()) {
    ImGui::Spacing();
    ImGui::TextColored(kAmber, "Nor can the compute backend:");
    ImGui::PushStyleColor(ImGuiCol_Text, kAmber);
    ImGui::TextWrapped("%s", run.compute_error.c_str());
    ImGui::PopStyleColor();
    ImGui::TextUnformatted("The CPU reference engine answered; its stages:");
  } else {
    ImGui::TextUnformatted("The compute backend (Vulkan) ran it; its stages:");
  }
  ImGui::Spacing();
  draw_stage_table(run.report);
}

void draw_pass(App& app) {
  if (ImGui::Button("|<")) app.apply(Command::First);
  ImGui::SameLine();
  if (ImGui::Button("< prev")) app.apply(Command::Prev);
  ImGui::SameLine();
  if (ImGui::Button("next >")) app.apply(Command::Next);
  ImGui::SameLine();
  if (ImGui::Button(">|")) app.apply(Command::Last);
  ImGui::SameLine();
  const PassView& pass = app.run().passes[app.step()];
  ImGui::Text("pass %zu / %zu: %s", app.step() + 1, app.steps(), pass.kind.c_str());
  if (pass.tiles.size() > 1) {
    ImGui::SameLine();
    int tile = int(app.tile()) + 1;
    ImGui::SetNextItemWidth(160);
    if (ImGui::SliderInt("##tile", &tile, 1, int(pass.tiles.size()), "tile %d")) app.select_tile(uint64_t(tile - 1));
  }
  const TileView& v = *app.tile_view();
  ImGui::PushStyleColor(ImGuiCol_Text, kGrey);
  ImGui::TextWrapped("%s", pass.detail.c_str());
  ImGui::PopStyleColor();
  ImGui::Separator();

  const App::Textures tex = app.textures();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const ImVec2 cell((avail.x - gap) / 2, (avail.y - ImGui::GetStyle().ItemSpacing.y) / 2);
  const std::string cells = v.scale == 1
                                ? "one pixel per record"
                                : std::to_string(v.scale) + "x" + std::to_string(v.scale) + " records per pixel (mean)";

  image_cell("depth", "Depth buffer: heat map", tex.depth, v.depth, cell, 2, [&] {
    ImGui::Text("k = depth*2^24: %.0f .. %.0f", v.depth_lo * 16777216.0, v.depth_hi * 16777216.0);
    ImGui::TextColored(kGrey, "%s, record 0 top left", cells.c_str());
  });
  ImGui::SameLine();
  app.set_stencil_rect(image_cell("stencil", "Stencil buffer: clause state", tex.stencil, v.stencil, cell, 3, [&] {
    swatch(palette::kSatisfied, "valid so far: " + with_commas(v.satisfied));
    swatch(palette::kPending,
           (pass.counts_final ? "failed the last clause: " : "clause not yet satisfied: ") + with_commas(v.pending));
    swatch(palette::kRejected, "rejected: " + with_commas(v.rejected));
  }));
  image_cell("passed", pass.counts_final ? "Fragments counted (final stencil state)" : "Fragments that passed",
             tex.passed, v.passed, cell, 2, [&] {
               swatch(palette::kPassed,
                      (pass.counts_final ? "counted: " : "stencil changed: ") + with_commas(v.passed_records));
               if (v.occlusion)
                 ImGui::Text("occlusion query: %s passed", with_commas(*v.occlusion).c_str());
               else
                 ImGui::TextColored(kGrey, "no occlusion query on this pass");
             });
  ImGui::SameLine();
  ImGui::BeginChild("counts", cell, false);
  ImGui::TextUnformatted("Exact counts");
  ImGui::Separator();
  ImGui::Text("tile %" PRIu64 " of %zu: %u x %u pixels", v.tile + 1, pass.tiles.size(), v.width, v.height);
  ImGui::Text("records in the tile: %s", with_commas(v.records).c_str());
  uint64_t satisfied = 0, records = 0;
  std::optional<uint64_t> occlusion;
  for (const TileView& t : pass.tiles) {
    satisfied += t.satisfied;
    records += t.records;
    if (t.occlusion) occlusion = occlusion.value_or(0) + *t.occlusion;
  }
  ImGui::TextWrapped("all tiles: %s of %s records valid so far", with_commas(satisfied).c_str(),
                     with_commas(records).c_str());
  if (occlusion) ImGui::TextWrapped("all tiles: occlusion queries %s", with_commas(*occlusion).c_str());
  ImGui::Spacing();
  ImGui::PushStyleColor(ImGuiCol_Text, kGrey);
  ImGui::TextWrapped(
      "Record r of a tile of width W is its pixel (r mod W, r div W), shown from the top left. Stencil bits "
      "0-1 hold the clause state: records satisfying a clause flip between 1 and 2, so the valid value "
      "alternates per clause; 0 is rejected.");
  ImGui::PopStyleColor();
  ImGui::EndChild();
}

void draw_middle(App& app) {
  const Run& run = app.run();
  app.set_stencil_rect({});
  if (run.path == Path::None) {
    ImGui::TextColored(kRed, "No answer:");
    ImGui::PushStyleColor(ImGuiCol_Text, kRed);
    ImGui::TextWrapped("%s", run.error.c_str());
    ImGui::PopStyleColor();
  } else if (run.path != Path::Raster) {
    draw_other_engine(run);
  } else if (!app.tile_view()) {
    ImGui::TextUnformatted("No GPU pass ran:");
    ImGui::TextWrapped("%s", run.report.algorithm.c_str());
  } else {
    draw_pass(app);
  }
}

// ---------------------------------------------------------------------------------------------
// Right: the execution report and the result.

void draw_report(App& app) {
  const Run& run = app.run();
  if (run.path == Path::None) return;
  const ExecutionReport& report = run.report;
  ImGui::Text("Execution report (%s, %.2f ms)", to_string(report.backend), report.total_ms);
  ImGui::PushStyleColor(ImGuiCol_Text, kGrey);
  ImGui::TextWrapped("%s", report.algorithm.c_str());
  ImGui::PopStyleColor();

  // The report's first stencil-init is pass 1 of the raster steps.
  size_t first_step = report.passes.size();
  if (run.path == Path::Raster)
    for (size_t i = 0; i < report.passes.size() && first_step == report.passes.size(); ++i)
      if (report.passes[i].kind == "stencil-init") first_step = i;
  const float table_height = std::min(ImGui::GetContentRegionAvail().y * 0.55f,
                                      ImGui::GetTextLineHeightWithSpacing() * float(report.passes.size() + 2));
  if (ImGui::BeginTable("passes", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersOuter,
                        ImVec2(0, table_height))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, 22);
    ImGui::TableSetupColumn("pass", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("GPU ms", ImGuiTableColumnFlags_WidthFixed, 56);
    ImGui::TableSetupColumn("passed", ImGuiTableColumnFlags_WidthFixed, 70);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < report.passes.size(); ++i) {
      const PassRecord& p = report.passes[i];
      const bool is_step = i >= first_step && i - first_step < app.steps();
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (is_step) ImGui::Text("%zu", i - first_step + 1);
      ImGui::TableNextColumn();
      ImGui::PushID(int(i));
      if (!is_step) ImGui::PushStyleColor(ImGuiCol_Text, kGrey);
      if (ImGui::Selectable(p.kind.c_str(), is_step && i - first_step == app.step(),
                            ImGuiSelectableFlags_SpanAllColumns) &&
          is_step)
        app.select_step(i - first_step);
      if (!is_step) ImGui::PopStyleColor();
      if (ImGui::IsItemHovered() && !p.detail.empty()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
        ImGui::TextUnformatted(p.detail.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(ms_text(p.gpu_ms).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(p.passed ? with_commas(*p.passed).c_str() : "");
    }
    ImGui::EndTable();
  }
  ImGui::Separator();

  ImGui::Text("Result (%s)", run.path == Path::Raster    ? "raster"
                             : run.path == Path::Compute ? "compute"
                                                         : "CPU reference");
  if (run.path == Path::Cpu) {
    ImGui::TextColored(kGrey, "the reference itself: nothing to check");
  } else if (run.ok()) {
    check_mark("matches the CPU reference");
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, kRed);
    ImGui::TextWrapped("differs from the CPU reference: %s", run.difference.c_str());
    ImGui::PopStyleColor();
  }
  const Table& t = run.table;
  if (t.columns.empty()) return;
  constexpr uint64_t kShown = 12;
  if (ImGui::BeginTable("result", int(t.columns.size()), ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter)) {
    for (const Column& c : t.columns) ImGui::TableSetupColumn(c.name.c_str());
    ImGui::TableHeadersRow();
    for (uint64_t r = 0; r < std::min(t.rows(), kShown); ++r) {
      ImGui::TableNextRow();
      for (const Column& c : t.columns) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(format_value(c.value(r)).c_str());
      }
    }
    ImGui::EndTable();
  }
  if (t.rows() > kShown) ImGui::TextColored(kGrey, "... %s rows in all", with_commas(t.rows()).c_str());
}

}  // namespace

void draw_ui(App& app, float width, float height) {
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(width, height));
  ImGui::Begin("gfxq-visual", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  draw_query_bar(app);
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float left = std::clamp(width * 0.2f, 230.0f, 340.0f);
  const float right = std::clamp(width * 0.26f, 300.0f, 440.0f);
  ImGui::BeginChild("controls", ImVec2(left, 0), true);
  draw_controls(app);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("pass", ImVec2(width - left - right - 2 * gap - 2 * ImGui::GetStyle().WindowPadding.x, 0), true);
  draw_middle(app);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("report", ImVec2(0, 0), true);
  draw_report(app);
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace gfxq::visual
