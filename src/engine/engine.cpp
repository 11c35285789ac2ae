// The Engine: statements bound into logical plans (plan/binder.h), placed on and run by the
// backends (engine/executor.h).

#include "gfxq/engine.h"

#include <chrono>

#include "engine/executor.h"
#include "engine/partitioned/device_set.h"
#include "gfxq/error.h"
#include "plan/binder.h"
#include "sql/parse_statement.h"

namespace gfxq {

namespace {

// `options` for device 0 of `entries` (its one Vulkan device choice).
EngineOptions first_device(EngineOptions options, const std::vector<std::string>& entries) {
  if (!entries.empty()) options.vk_device = entries[0];
  options.vk_devices.clear();
  return options;
}

}  // namespace

struct Engine::Impl {
  Impl(EngineOptions options, std::vector<std::string> entries, std::string source)
      : partitioning(options.partitioning), backends(first_device(options, entries)) {
    if (entries.size() >= 2)
      set = std::make_unique<engine::partitioned::DeviceSet>(std::move(entries), std::move(source), backends, options);
  }
  static std::unique_ptr<Impl> make(EngineOptions options) {
    std::string source;
    std::vector<std::string> entries = engine::partitioned::device_entries(options, source);
    return std::make_unique<Impl>(std::move(options), std::move(entries), std::move(source));
  }
  // One device's plan, or the device set's partitioned run.
  Result run(const plan::Node& root, const Catalog& catalog, Backend backend) {
    return set ? set->execute(root, catalog, backend, partitioning)
               : engine::execute_plan(root, catalog, backend, backends);
  }
  Partitioning partitioning;
  engine::Backends backends;                            // device 0 (the only one without a set)
  std::unique_ptr<engine::partitioned::DeviceSet> set;  // two or more devices
};

Engine::Engine(EngineOptions options) : impl_(Impl::make(std::move(options))) {}

Engine::~Engine() = default;

Result Engine::execute(const Query& query, const Catalog& catalog, Backend backend) {
  const auto start = std::chrono::steady_clock::now();
  const auto root = plan::bind(plan::to_ast(query), catalog);
  Result result = impl_->run(*root, catalog, backend);
  result.report.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

Result Engine::execute_sql(std::string_view text, const Catalog& catalog, Backend backend) {
  const auto start = std::chrono::steady_clock::now();
  const sql::ast::Statement statement = sql::parse_statement(text);
  const auto root = plan::bind(statement.query, catalog);
  Result result;
  if (statement.explain) {
    // EXPLAIN: the placed plan, one line per table row, without running it.
    result.report = engine::explain_plan(*root, catalog, backend, impl_->backends);
    if (impl_->set) result.report.partitioning = impl_->set->describe(*root, backend);
    Column lines = Column::make("plan", Type::String);
    std::string text = result.report.text();
    for (size_t at = 0; at < text.size();) {
      const size_t end = text.find('\n', at);
      lines.push(text.substr(at, end - at));
      at = end == std::string::npos ? text.size() : end + 1;
    }
    result.table.columns.push_back(std::move(lines));
  } else {
    result = impl_->run(*root, catalog, backend);
  }
  result.report.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

ExecutionReport Engine::explain_sql(std::string_view text, const Catalog& catalog, Backend backend) {
  const sql::ast::Statement statement = sql::parse_statement(text);
  const auto root = plan::bind(statement.query, catalog);
  ExecutionReport report = engine::explain_plan(*root, catalog, backend, impl_->backends);
  if (impl_->set) report.partitioning = impl_->set->describe(*root, backend);
  return report;
}

const GlCapabilities& Engine::gl_capabilities() {
  return engine::raster_capabilities(impl_->backends.get(Backend::Raster));
}

const VkCapabilities& Engine::vk_capabilities() {
  return engine::compute_capabilities(impl_->backends.get(Backend::Compute));
}

void Engine::set_gpu_timing(bool on) {
  impl_->backends.set_gpu_timing(on);
  if (impl_->set) impl_->set->set_gpu_timing(on);
}

std::vector<std::string> Engine::take_debug_messages() {
  std::vector<std::string> all = impl_->backends.take_debug_messages();
  if (impl_->set)
    for (auto& m : impl_->set->take_debug_messages()) all.push_back(std::move(m));
  return all;
}

}  // namespace gfxq
