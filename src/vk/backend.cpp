// The compute backend (Vulkan, after He et al. 2008): WHERE with any CNF in one fused pass,
// COUNT/SUM/AVG/MIN/MAX fused with it, quantiles by radix select, stable ORDER BY [LIMIT] by radix
// sort or top-k, projections and LIMIT. GROUP BY and joins are Error(Unsupported), named.
// How each operator runs: docs/COMPUTE.md and src/vk/relational/*.h.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/bind.h"
#include "gfxq/error.h"
#include "plan/backend.h"
#include "plan/engine_state.h"
#include "vk/primitives/scratch.h"
#include "vk/relational/aggregate.h"
#include "vk/relational/order_by.h"
#include "vk/relational/select.h"

namespace gfxq {

namespace {

// An unsigned number from the environment variable `name`, or 0 when it is unset.
uint64_t env_number(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  try {
    return std::stoull(v);
  } catch (const std::exception&) {
    throw Error(ErrorCode::InvalidInput, std::string(name) + "='" + v + "' is not a number");
  }
}

// The scan limits: GFXQ_COMPUTE_CHUNK_ROWS (rows per chunk) and GFXQ_COMPUTE_MAX_GROUPS
// (workgroups per chunk) when set; tests force many chunks and many rounds per workgroup on small
// tables with them. Unset: the defaults. GFXQ_COMPUTE_SORT_WINDOW (keys per binding window of the
// sort and select primitives: ORDER BY's radix sort and top-k select, the quantiles' radix select)
// likewise forces a sort or select over several windows. GFXQ_COMPUTE_SELECT_LOOKBACK bounds the
// look-back of the one-pass row-id kernel: 0 forces its three-kernel fallback on every chunk of
// several tiles (the tests' way to run it); GFXQ_COMPUTE_SELECT_TILES=counter / launch / auto
// picks how its workgroups find their tiles (vk::SelectTiles). GFXQ_COMPUTE_FLOAT_SUM_INT64=1 makes the exact FLOAT
// SUM keep its register bin in int64, as on devices without shaderFloat64.
vk::ScanLimits scan_limits() {
  vk::ScanLimits limits;
  limits.chunk_rows = env_number("GFXQ_COMPUTE_CHUNK_ROWS");
  limits.max_groups = uint32_t(std::min<uint64_t>(env_number("GFXQ_COMPUTE_MAX_GROUPS"), UINT32_MAX));
  if (const char* v = std::getenv("GFXQ_COMPUTE_SELECT_LOOKBACK"); v && *v)
    limits.select_lookback = uint32_t(std::min<uint64_t>(env_number("GFXQ_COMPUTE_SELECT_LOOKBACK"), UINT32_MAX));
  if (const char* v = std::getenv("GFXQ_COMPUTE_SELECT_TILES"); v && *v) {
    const std::string tiles = v;
    if (tiles == "counter")
      limits.select_tiles = vk::SelectTiles::Counter;
    else if (tiles == "launch")
      limits.select_tiles = vk::SelectTiles::Launch;
    else if (tiles != "auto")
      throw Error(ErrorCode::InvalidInput,
                  "GFXQ_COMPUTE_SELECT_TILES='" + tiles + "': expected counter, launch or auto");
  }
  limits.float_sum_int64 = env_number("GFXQ_COMPUTE_FLOAT_SUM_INT64") != 0;
  return limits;
}

class ComputeBackend final : public BackendImpl {
 public:
  explicit ComputeBackend(EngineState& state) : state_(state) {}
  Backend kind() const noexcept override { return Backend::Compute; }

  Result execute(const Query& query, const Catalog& catalog) override {
    vk::Device* device = state_.vk();
    if (!device)
      throw Error(ErrorCode::Unsupported, "compute backend unavailable: " + state_.vk_caps.unavailable_reason);
    const BoundQuery bound = bind(query, catalog);
    if (bound.join || bound.group_by) {
      const std::string op = bound.join ? (bound.join->equi() ? "join (equi)" : "join (band)") : "GROUP BY";
      throw Error(ErrorCode::Unsupported, "compute backend cannot run " + op + " yet (not implemented)");
    }
    vk::prim::require_features(*device, "the compute backend", true);
    const uint64_t terms = vk::compile_cnf(bound.where).terms.size();
    vk::QueryContext ctx(*device, bound, vk::fit_shader_loop_limit(*device, bound.left->rows(), terms, scan_limits()));
    Result result;
    std::string algorithm;
    if (bound.aggregate)
      result.table = vk::run_aggregates(ctx, algorithm, env_number("GFXQ_COMPUTE_SORT_WINDOW"));
    else if (bound.order_by)
      result.table = vk::run_order_by(ctx, algorithm, env_number("GFXQ_COMPUTE_SORT_WINDOW"));
    else
      result.table = vk::run_selection(ctx, algorithm);
    result.report.backend = Backend::Compute;
    result.report.algorithm = std::move(algorithm);
    result.report.passes = std::move(ctx.passes());
    return result;
  }

 private:
  EngineState& state_;
};

}  // namespace

std::unique_ptr<BackendImpl> create_compute_backend(EngineState& state) {
  return std::make_unique<ComputeBackend>(state);
}

}  // namespace gfxq
