// The raster backend (OpenGL, after Govindaraju et al. 2004): selections with a WHERE in CNF, every
// comparison done by depth and stencil tests; aggregates without GROUP BY over the WHERE's stencil
// (COUNT; SUM/AVG by bit planes; MIN/MAX/MEDIAN/QUANTILE/KTH_LARGEST by bitwise search); ORDER BY by
// sorting networks; equi and band joins by sorted inner keys and occlusion counts (src/gl/select.h,
// src/gl/aggregate.h, src/gl/sort.h, src/gl/join.h, docs/RASTER.md). Other operators are
// Error(Unsupported) naming the operator.
#include "plan/backend.h"
#include "gfxq/error.h"
#include "gl/select.h"
#include "plan/engine_state.h"

namespace gfxq {

namespace {

class RasterBackend final : public BackendImpl {
 public:
  explicit RasterBackend(EngineState& state) : state_(state) {}
  Backend kind() const noexcept override { return Backend::Raster; }
  Result execute(const Query& query, const Catalog& catalog) override {
    gl::Context* context = state_.gl();
    if (!context)
      throw Error(ErrorCode::Unsupported, "raster backend unavailable: " + state_.gl_caps.unavailable_reason);
    context->check_alive();
    Result result = gl::execute(*context, query, catalog);
    context->finish("raster query");
    return result;
  }

 private:
  EngineState& state_;
};

}  // namespace

std::unique_ptr<BackendImpl> create_raster_backend(EngineState& state) {
  return std::make_unique<RasterBackend>(state);
}

}  // namespace gfxq
