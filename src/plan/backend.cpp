#include "plan/backend.h"

#include "gfxq/cpu.h"
#include "gfxq/error.h"

namespace gfxq {

std::unique_ptr<BackendImpl> create_cpu_backend(EngineState& state);
std::unique_ptr<BackendImpl> create_raster_backend(EngineState& state);
std::unique_ptr<BackendImpl> create_compute_backend(EngineState& state);

namespace {

using Creator = std::unique_ptr<BackendImpl> (*)(EngineState&);
// Indexed by gfxq::Backend; Auto is resolved by the planner and has no creator.
constexpr Creator kCreators[] = {create_cpu_backend, create_raster_backend, create_compute_backend};
static_assert(std::size(kCreators) == static_cast<size_t>(Backend::Auto), "one creator per concrete backend");

class CpuBackend final : public BackendImpl {
 public:
  Backend kind() const noexcept override { return Backend::Cpu; }
  Result execute(const Query& query, const Catalog& catalog) override { return cpu::execute(query, catalog); }
};

}  // namespace

std::unique_ptr<BackendImpl> create_cpu_backend(EngineState&) { return std::make_unique<CpuBackend>(); }

std::unique_ptr<BackendImpl> create_backend(Backend b, EngineState& state) {
  if (b == Backend::Auto) throw Error(ErrorCode::Internal, "create_backend: Auto is not a concrete backend");
  return kCreators[static_cast<size_t>(b)](state);
}

std::vector<std::string> required_operators(const Query& query) {
  std::vector<std::string> ops;
  if (query.join) ops.push_back(query.join->equi() ? "join (equi)" : "join (band)");
  if (!query.where.empty()) ops.push_back("selection (WHERE)");
  if (query.group_by) ops.push_back("GROUP BY");
  for (const auto& item : query.items)
    if (const auto* a = std::get_if<Aggregate>(&item)) ops.push_back(std::string("aggregate ") + to_string(a->kind));
  if (!query.has_aggregates()) ops.push_back("projection");
  if (query.order_by) ops.push_back("ORDER BY");
  if (query.limit) ops.push_back("LIMIT");
  return ops;
}

}  // namespace gfxq
