// The raster backend (OpenGL, after Govindaraju et al. 2004). Its operators arrive with the
// "Raster path" issues; until then it reports, for every query, the first operator it lacks.
#include "gfxq/error.h"
#include "plan/backend.h"
#include "plan/engine_state.h"

namespace gfxq {

namespace {

class RasterBackend final : public BackendImpl {
 public:
  explicit RasterBackend(EngineState& state) : state_(state) {}
  Backend kind() const noexcept override { return Backend::Raster; }
  Result execute(const Query& query, const Catalog&) override {
    if (!state_.gl())
      throw Error(ErrorCode::Unsupported, "raster backend unavailable: " + state_.gl_caps.unavailable_reason);
    throw Error(ErrorCode::Unsupported,
                "raster backend cannot run " + required_operators(query).front() + " yet (not implemented)");
  }

 private:
  EngineState& state_;
};

}  // namespace

std::unique_ptr<BackendImpl> create_raster_backend(EngineState& state) { return std::make_unique<RasterBackend>(state); }

}  // namespace gfxq
