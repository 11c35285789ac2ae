#pragma once
// Fixtures of the raster tests: forced small tiles, one-table catalogs, and the exact comparison
// of a raster answer with the CPU reference engine's.

#include <string>

#include "gfxq/cpu.h"
#include "gl/execute.h"
#include "gpu_support.h"
#include "random_queries.h"

namespace gfxq::test {

//! 7 x 5 tiles, so a few hundred rows span many tiles.
constexpr gl::RasterOptions kSmallTiles{.tile_width = 7, .tile_height = 5};
//! Records per small tile.
constexpr uint64_t kSmallTile = 35;
//! The six comparison operators.
constexpr CmpOp kCmpOps[] = {CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge, CmpOp::Eq, CmpOp::Ne};

//! Empty when the raster backend answers `q` exactly as the CPU reference does and its report
//! names the raster backend; otherwise what differs. `raster` receives the raster result.
inline std::string raster_difference(const Query& q, const Catalog& catalog, const gl::RasterOptions& options,
                                     Result* raster = nullptr) {
  const Result want = cpu::execute(q, catalog);
  Result got = gl::execute(gl_context(), q, catalog, options);
  if (got.report.backend != Backend::Raster)
    return "report names backend " + std::string(to_string(got.report.backend));
  if (got.report.algorithm.rfind("raster:", 0) != 0) return "algorithm '" + got.report.algorithm + "'";
  std::string diff = table_difference(want.table, got.table);
  if (raster) *raster = std::move(got);
  return diff;
}

}  // namespace gfxq::test
