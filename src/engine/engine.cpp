// The Engine: statements bound into logical plans (plan/binder.h), placed on and run by the
// backends (engine/executor.h).

#include "gfxq/engine.h"

#include <chrono>

#include "engine/executor.h"
#include "gfxq/error.h"
#include "plan/binder.h"
#include "sql/parse_statement.h"

namespace gfxq {

struct Engine::Impl {
  explicit Impl(EngineOptions options) : backends(std::move(options)) {}
  engine::Backends backends;
};

Engine::Engine(EngineOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

Engine::~Engine() = default;

Result Engine::execute(const Query& query, const Catalog& catalog, Backend backend) {
  const auto start = std::chrono::steady_clock::now();
  const auto root = plan::bind(plan::to_ast(query), catalog);
  Result result = engine::execute_plan(*root, catalog, backend, impl_->backends);
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
    Column lines = Column::make("plan", Type::String);
    std::string text = result.report.text();
    for (size_t at = 0; at < text.size();) {
      const size_t end = text.find('\n', at);
      lines.push(text.substr(at, end - at));
      at = end == std::string::npos ? text.size() : end + 1;
    }
    result.table.columns.push_back(std::move(lines));
  } else {
    result = engine::execute_plan(*root, catalog, backend, impl_->backends);
  }
  result.report.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

ExecutionReport Engine::explain_sql(std::string_view text, const Catalog& catalog, Backend backend) {
  const sql::ast::Statement statement = sql::parse_statement(text);
  const auto root = plan::bind(statement.query, catalog);
  return engine::explain_plan(*root, catalog, backend, impl_->backends);
}

const GlCapabilities& Engine::gl_capabilities() {
  return engine::raster_capabilities(impl_->backends.get(Backend::Raster));
}

const VkCapabilities& Engine::vk_capabilities() {
  return engine::compute_capabilities(impl_->backends.get(Backend::Compute));
}

std::vector<std::string> Engine::take_debug_messages() {
  return impl_->backends.take_debug_messages();
}

}  // namespace gfxq
