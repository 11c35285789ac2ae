// The compute backend (Vulkan, after He et al. 2008). Its operators arrive with the
// "Compute path" issues; until then it reports, for every query, the first operator it lacks.
#include "gfxq/error.h"
#include "plan/backend.h"
#include "plan/engine_state.h"

namespace gfxq {

namespace {

class ComputeBackend final : public BackendImpl {
 public:
  explicit ComputeBackend(EngineState& state) : state_(state) {}
  Backend kind() const noexcept override { return Backend::Compute; }
  Result execute(const Query& query, const Catalog&) override {
    if (!state_.vk())
      throw Error(ErrorCode::Unsupported, "compute backend unavailable: " + state_.vk_caps.unavailable_reason);
    throw Error(ErrorCode::Unsupported,
                "compute backend cannot run " + required_operators(query).front() + " yet (not implemented)");
  }

 private:
  EngineState& state_;
};

}  // namespace

std::unique_ptr<BackendImpl> create_compute_backend(EngineState& state) {
  return std::make_unique<ComputeBackend>(state);
}

}  // namespace gfxq
