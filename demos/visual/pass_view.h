#pragma once
// What the demo shows of one raster pass: the depth buffer as a heat map, the stencil buffer by
// clause state, the records the pass let through, each as an image of the tile (record 0 at the
// top left, rows of the tile top to bottom; at most kMaxCells cells a side, a cell averaging
// scale x scale pixels), and the exact counts beside them. Built from the raster backend's pass
// observer (gl::PassSnapshot).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gl/select.h"

namespace gfxq::visual {

//! Largest image side in cells: larger tiles are downsampled.
constexpr uint32_t kMaxCells = 512;

//! An 8-bit RGB colour.
struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

//! Colours of the views (the legend and the screenshot test read the same ones).
namespace palette {
constexpr Rgb kEmpty{28, 30, 38};        //!< pixels past the tile's last record
constexpr Rgb kRejected{150, 45, 50};    //!< stencil state 0: rejected by an earlier clause
constexpr Rgb kPending{225, 160, 40};    //!< alive, not (yet) satisfying the pass's clause
constexpr Rgb kSatisfied{70, 200, 100};  //!< satisfying every clause so far (valid)
constexpr Rgb kPassed{90, 220, 255};     //!< let through by the pass
constexpr Rgb kNotPassed{55, 62, 80};    //!< a record the pass did not let through
}  // namespace palette

//! An image, rows top to bottom, 4 bytes (R, G, B, A = 255) per cell.
struct Image {
  uint32_t width = 0;         //!< cells per row
  uint32_t height = 0;        //!< rows
  std::vector<uint8_t> rgba;  //!< width * height * 4 bytes
};

//! One tile after one pass.
struct TileView {
  uint64_t tile = 0;                  //!< tile index
  uint32_t width = 0;                 //!< tile width in pixels
  uint32_t height = 0;                //!< pixel rows of the tile
  uint64_t records = 0;               //!< records in the tile
  uint32_t scale = 1;                 //!< tile pixels per image cell side (1: every pixel shown)
  Image depth;                        //!< heat map of the depth buffer over [depth_lo, depth_hi]
  Image stencil;                      //!< records by stencil state (palette kRejected, kPending, kSatisfied)
  Image passed;                       //!< records the pass let through (kPassed) or not (kNotPassed)
  uint64_t rejected = 0;              //!< records with stencil state 0
  uint64_t pending = 0;               //!< records alive but not satisfying the pass's clause
  uint64_t satisfied = 0;             //!< records satisfying every clause so far
  uint64_t passed_records = 0;        //!< records in `passed`: stencil changed by the pass, or counted
  double depth_lo = 0;                //!< smallest depth over the records (a depth value k is k * 2^-24)
  double depth_hi = 0;                //!< largest depth over the records
  std::optional<uint64_t> occlusion;  //!< the pass's occlusion query result on this tile
};

//! One pass over every tile.
struct PassView {
  std::string kind;    //!< e.g. "compare"
  std::string detail;  //!< the GL state, as in the report
  //! "passed" means the stencil changed (false) or the record is counted or read back (true).
  bool counts_final = false;
  std::vector<TileView> tiles;  //!< in tile order
};

//! The observer the demo hands to the raster backend: turns every snapshot into a TileView.
class PassRecorder final : public gl::PassObserver {
 public:
  //! Records one pass of one tile.
  void on_pass(const gl::PassSnapshot& snapshot) override;
  //! The passes recorded so far, in pass order; leaves the recorder empty.
  std::vector<PassView> take();

 private:
  std::vector<PassView> passes_;
  std::vector<uint8_t> previous_;  // the current tile's stencil before the pass
};

}  // namespace gfxq::visual
