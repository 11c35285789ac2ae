#include "visual/pass_view.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace gfxq::visual {

namespace {

// A perceptual heat map (viridis at five stops), t in [0, 1].
Rgb heat(double t) {
  static constexpr std::array<Rgb, 5> kStops{Rgb{68, 1, 84}, Rgb{59, 82, 139}, Rgb{33, 145, 140}, Rgb{94, 201, 98},
                                             Rgb{253, 231, 37}};
  t = std::clamp(t, 0.0, 1.0) * double(kStops.size() - 1);
  const size_t i = std::min(size_t(t), kStops.size() - 2);
  const double f = t - double(i);
  const auto mix = [&](uint8_t a, uint8_t b) { return uint8_t(std::lround(a + (b - a) * f)); };
  return {mix(kStops[i].r, kStops[i + 1].r), mix(kStops[i].g, kStops[i + 1].g), mix(kStops[i].b, kStops[i + 1].b)};
}

// Paints an image of the tile: cell (cx, cy) averages the colours `colour(i)` of the pixels it
// covers (i = the record index in the tile; pixels past the last record are kEmpty).
template <class Colour>
Image paint(const TileView& v, const Colour& colour) {
  Image img;
  img.width = (v.width + v.scale - 1) / v.scale;
  img.height = (v.height + v.scale - 1) / v.scale;
  img.rgba.assign(size_t(img.width) * img.height * 4, 255);
  for (uint32_t cy = 0; cy < img.height; ++cy)
    for (uint32_t cx = 0; cx < img.width; ++cx) {
      uint32_t r = 0, g = 0, b = 0, n = 0;
      for (uint32_t y = cy * v.scale; y < std::min(v.height, (cy + 1) * v.scale); ++y)
        for (uint32_t x = cx * v.scale; x < std::min(v.width, (cx + 1) * v.scale); ++x) {
          const uint64_t i = uint64_t(y) * v.width + x;
          const Rgb c = i < v.records ? colour(i) : palette::kEmpty;
          r += c.r;
          g += c.g;
          b += c.b;
          ++n;
        }
      uint8_t* p = &img.rgba[(size_t(cy) * img.width + cx) * 4];
      p[0] = uint8_t((r + n / 2) / n);
      p[1] = uint8_t((g + n / 2) / n);
      p[2] = uint8_t((b + n / 2) / n);
    }
  return img;
}

}  // namespace

void PassRecorder::on_pass(const gl::PassSnapshot& s) {
  if (s.pass == passes_.size()) {
    PassView pass;
    pass.kind = s.record.kind;
    pass.detail = s.record.detail;
    pass.counts_final = s.record.kind == "count" || s.record.kind == "readback";
    passes_.push_back(std::move(pass));
  }
  PassView& pass = passes_.at(s.pass);
  if (s.pass == 0) previous_.assign(s.stencil.size(), 0);  // stencil-init: every record it sets

  TileView v;
  v.tile = s.tile;
  v.width = s.width;
  v.height = s.height;
  v.records = s.records;
  v.scale = std::max<uint32_t>(1, (std::max(s.width, s.height) + kMaxCells - 1) / kMaxCells);
  v.occlusion = s.record.passed;

  const auto state = [&](uint64_t i) { return uint8_t(s.stencil[i] & 0x3); };
  const auto passed = [&](uint64_t i) {
    return pass.counts_final ? state(i) == s.satisfied : s.stencil[i] != previous_[i];
  };
  v.depth_lo = 1;
  v.depth_hi = 0;
  for (uint64_t i = 0; i < s.records; ++i) {
    const uint8_t st = state(i);
    if (st == 0)
      ++v.rejected;
    else if (st == s.satisfied)
      ++v.satisfied;
    else
      ++v.pending;
    if (passed(i)) ++v.passed_records;
    v.depth_lo = std::min(v.depth_lo, double(s.depth[i]));
    v.depth_hi = std::max(v.depth_hi, double(s.depth[i]));
  }
  const double span = v.depth_hi > v.depth_lo ? v.depth_hi - v.depth_lo : 1.0;
  v.depth = paint(v, [&](uint64_t i) { return heat((double(s.depth[i]) - v.depth_lo) / span); });
  v.stencil = paint(v, [&](uint64_t i) {
    const uint8_t st = state(i);
    return st == 0 ? palette::kRejected : st == s.satisfied ? palette::kSatisfied : palette::kPending;
  });
  v.passed = paint(v, [&](uint64_t i) { return passed(i) ? palette::kPassed : palette::kNotPassed; });
  pass.tiles.push_back(std::move(v));
  previous_ = s.stencil;
}

std::vector<PassView> PassRecorder::take() {
  previous_.clear();
  return std::exchange(passes_, {});
}

}  // namespace gfxq::visual
