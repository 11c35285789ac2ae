// The raster backend's pass observer (gl::RasterOptions::observer), which the visual demo draws
// from: it sees every pass of every tile with the tile's depth and stencil, and changes no answer.
// Then gfxq-visual (demos/visual) in headless screenshot mode, where it is built: the PNG has the
// asked size and is not blank, and its stencil view shows exactly the records the CPU reference
// engine selects, counted in the image's pixels and in the demo's sidecar. The windowed mode is
// tested under Xvfb by ctest (visual_window_script, tests/CMakeLists.txt).
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "gfxq/cpu.h"
#include "gfxq/sql.h"
#include "gl/execute.h"
#include "gpu_support.h"
#include "random_queries.h"

using namespace gfxq;

namespace {

// What a test keeps of each snapshot.
struct Seen {
  gl::PassSnapshot head;    // without depth and stencil
  uint64_t in_state = 0;    // records whose stencil state is `satisfied`
  bool sized = false;       // depth and stencil hold width * height pixels
  bool beyond_zero = true;  // every pixel past the last record has stencil 0
};

class Watcher final : public gl::PassObserver {
 public:
  void on_pass(const gl::PassSnapshot& s) override {
    Seen seen;
    seen.head = s;
    seen.head.depth.clear();
    seen.head.stencil.clear();
    const size_t pixels = size_t(s.width) * s.height;
    seen.sized = s.depth.size() == pixels && s.stencil.size() == pixels;
    for (size_t i = 0; i < s.stencil.size(); ++i) {
      if (i < s.records && (s.stencil[i] & 0x3) == s.satisfied) ++seen.in_state;
      if (i >= s.records && s.stencil[i] != 0) seen.beyond_zero = false;
    }
    all.push_back(std::move(seen));
  }
  std::vector<Seen> all;
};

}  // namespace

TEST_CASE("raster: the pass observer sees every pass of every tile and changes no answer") {
  Catalog catalog;
  catalog.add("t", test::random_table(7 * 35 + 2, Distribution::Uniform, 77));  // 8 tiles of 7x5, the last partial
  constexpr gl::RasterOptions kTiles{.tile_width = 7, .tile_height = 5};
  const uint64_t tiles = 8;
  for (const char* sql : {"SELECT COUNT(*) FROM t WHERE (a < 0 OR y > 0.5) AND b >= -500 AND x <> 0",
                          "SELECT * FROM t WHERE (a < 0 OR y > 0.5) AND b >= -500 AND x <> 0",
                          "SELECT b, y FROM t WHERE b BETWEEN -300 AND 300 LIMIT 9"}) {
    CAPTURE(sql);
    const Query q = sql::parse(sql);
    const Result want = cpu::execute(q, catalog);
    const Result plain = gl::execute(test::gl_context(), q, catalog, kTiles);
    Watcher watcher;
    gl::RasterOptions watched = kTiles;
    watched.observer = &watcher;
    const Result got = gl::execute(test::gl_context(), q, catalog, watched);
    CHECK(test::table_difference(want.table, got.table) == "");
    CHECK(test::table_difference(plain.table, got.table) == "");

    // The report's GPU passes run from stencil-init to count or readback, each summed over tiles.
    const auto& report = got.report.passes;
    size_t first = 0;
    while (first < report.size() && report[first].kind != "stencil-init") ++first;
    REQUIRE(first < report.size());
    size_t n = first;
    while (n < report.size() && report[n].kind != "count" && report[n].kind != "readback") ++n;
    REQUIRE(n < report.size());
    n = n - first + 1;
    REQUIRE(watcher.all.size() == tiles * n);
    std::vector<uint64_t> passed(n, 0);
    uint64_t final_records = 0, records = 0;
    for (size_t i = 0; i < watcher.all.size(); ++i) {
      const Seen& s = watcher.all[i];
      const size_t pass = i % n;
      CAPTURE(i);
      CHECK(s.head.tile == i / n);
      CHECK(s.head.pass == pass);
      CHECK(s.head.record.kind == report[first + pass].kind);
      CHECK(s.head.record.detail == report[first + pass].detail);
      CHECK(s.head.width == 7);
      CHECK(s.sized);
      CHECK(s.beyond_zero);
      if (s.head.record.passed) passed[pass] += *s.head.record.passed;
      if (pass == 0) {
        records += s.head.records;
        CHECK(s.in_state == s.head.records);  // stencil-init: every record alive
      }
      if (pass + 1 == n) final_records += s.in_state;
    }
    CHECK(records == catalog.get("t").rows());
    // Each pass's per-tile occlusion counts add up to the report's; the last pass's valid records
    // are the qualifying rows.
    for (size_t p = 1; p + 1 < n; ++p) {
      CAPTURE(p);
      CHECK(report[first + p].passed == passed[p]);
    }
    const uint64_t qualifying = cpu::select_rows(catalog.get("t"), "t", q.where).size();
    CHECK(final_records == qualifying);
    if (report[first + n - 1].kind == "count") CHECK(passed[n - 1] == qualifying);
  }
  GFXQ_CHECK_NO_GL_MESSAGES();
}

#ifdef GFXQ_VISUAL_EXE

#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "visual/pass_view.h"

namespace {

// The number after `"key": ` in `json` (from `from` on); fails the test when there is none.
double json_number(const std::string& json, const std::string& key, size_t from = 0) {
  const std::string tag = "\"" + key + "\": ";
  const size_t at = json.find(tag, from);
  REQUIRE_MESSAGE(at != std::string::npos, "sidecar has no " << key << ": " << json);
  return std::stod(json.substr(at + tag.size()));
}

struct Png {
  int width = 0, height = 0;
  std::unique_ptr<unsigned char, decltype(&stbi_image_free)> rgba{nullptr, stbi_image_free};
  const unsigned char* at(int x, int y) const { return rgba.get() + (size_t(y) * width + x) * 4; }
};

Png load_png(const std::string& path) {
  Png png;
  int channels = 0;
  png.rgba.reset(stbi_load(path.c_str(), &png.width, &png.height, &channels, 4));
  REQUIRE_MESSAGE(png.rgba, "cannot decode " << path << ": " << stbi_failure_reason());
  return png;
}

}  // namespace

TEST_CASE("visual: headless screenshot of the count pass shows the CPU reference's records as valid") {
  const auto dir = std::filesystem::temp_directory_path() / ("gfxq_visual_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "t.csv").string(), png_path = (dir / "shot.png").string(),
                    json_path = (dir / "shot.json").string();
  // b spans negative values, so `b < 0` runs on the GPU instead of folding on the host.
  const uint64_t rows = 3000;
  const Table table = generate_table({{"a", Type::Int32, Distribution::Uniform, 0, 1000000},
                                      {"b", Type::Int32, Distribution::Uniform, -1000, 1000},
                                      {"c", Type::Float32, Distribution::Uniform, 0, 1}},
                                     rows, 7);
  write_csv_file(csv, table);
  const std::string query = "SELECT COUNT(*) FROM t WHERE b < 0 AND (a > 500000 OR c < 0.25)";
  Catalog catalog;
  catalog.add("t", table);
  const Result reference = cpu::execute(sql::parse(query), catalog);
  const int64_t expected = reference.table.columns.at(0).as<int64_t>().at(0);
  REQUIRE(expected > 0);
  REQUIRE(uint64_t(expected) < rows);

  const std::string command = std::string("'") + GFXQ_VISUAL_EXE + "' --debug --table 't=" + csv + "' --query '" +
                              query + "' --screenshot '" + png_path + "' --sidecar '" + json_path + "' --pass last";
  INFO("command: " << command);
  REQUIRE(std::system(command.c_str()) == 0);

  std::ifstream in(json_path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  INFO("sidecar: " << json);
  CHECK(json.find("\"path\": \"raster\"") != std::string::npos);
  CHECK(json.find("\"kind\": \"count\"") != std::string::npos);
  CHECK(json_number(json, "pass") == json_number(json, "passes"));
  CHECK(json_number(json, "records") == double(rows));
  CHECK(json_number(json, "valid_pixels") == double(expected));
  CHECK(json_number(json, "valid_all_tiles") == double(expected));
  CHECK(json_number(json, "occlusion") == double(expected));

  const Png png = load_png(png_path);
  CHECK(png.width == 1280);
  CHECK(png.height == 800);
  bool varied = false;
  for (int y = 0; y < png.height && !varied; ++y)
    for (int x = 0; x < png.width && !varied; ++x) varied = std::memcmp(png.at(x, y), png.at(0, 0), 4) != 0;
  CHECK(varied);

  // The stencil view: one cell per record (scale 1), each cell zoom x zoom identical pixels.
  const size_t view = json.find("\"stencil_view\"");
  REQUIRE(view != std::string::npos);
  REQUIRE(json_number(json, "scale", view) == 1);
  const int x0 = int(json_number(json, "x", view)), y0 = int(json_number(json, "y", view));
  const int w = int(json_number(json, "width", view)), h = int(json_number(json, "height", view));
  const int zoom = int(json_number(json, "zoom", view));
  REQUIRE(zoom >= 1);
  REQUIRE(x0 >= 0);
  REQUIRE(y0 >= 0);
  REQUIRE(x0 + w <= png.width);
  REQUIRE(y0 + h <= png.height);
  const size_t rgb = json.find("\"valid_rgb\": [", view);
  REQUIRE(rgb != std::string::npos);
  int valid_rgb[3] = {0, 0, 0};
  REQUIRE(std::sscanf(json.c_str() + rgb + 14, "%d, %d, %d", &valid_rgb[0], &valid_rgb[1], &valid_rgb[2]) == 3);
  CHECK(visual::Rgb{uint8_t(valid_rgb[0]), uint8_t(valid_rgb[1]), uint8_t(valid_rgb[2])} ==
        visual::palette::kSatisfied);
  // Every record is one cell: valid (the CPU's rows), or rejected / failed the last clause (the rest).
  uint64_t valid = 0, invalid = 0;
  for (int y = y0; y < y0 + h; ++y)
    for (int x = x0; x < x0 + w; ++x) {
      const unsigned char* p = png.at(x, y);
      const visual::Rgb c{p[0], p[1], p[2]};
      if (c == visual::palette::kSatisfied) ++valid;
      if (c == visual::palette::kRejected || c == visual::palette::kPending) ++invalid;
    }
  const uint64_t cell = uint64_t(zoom) * uint64_t(zoom);
  CHECK(valid == uint64_t(expected) * cell);
  CHECK(invalid == (rows - uint64_t(expected)) * cell);
  std::filesystem::remove_all(dir);
}

#endif  // GFXQ_VISUAL_EXE
