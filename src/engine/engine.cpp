// The Engine: statements bound into logical plans (plan/binder.h), placed on and run by the
// backends (engine/executor.h).

#include "gfxq/engine.h"

#include <algorithm>
#include <chrono>

#include "engine/executor.h"
#include "engine/partitioned/device_set.h"
#include "gfxq/error.h"
#include "plan/binder.h"
#include "sql/parse_statement.h"

namespace gfxq {

namespace {

// The catalog names of the tables `node`'s plan scans, each once.
void scanned_tables(const plan::Node& node, std::vector<std::string>& out) {
  if (node.kind == plan::NodeKind::Scan && std::find(out.begin(), out.end(), node.table_name) == out.end())
    out.push_back(node.table_name);
  for (const auto& c : node.children) scanned_tables(*c, out);
}

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

struct PreparedStatement::State {
  std::string sql;
  Backend backend = Backend::Auto;
  const Engine::Impl* engine = nullptr;
  const Catalog* catalog = nullptr;
  std::vector<std::pair<std::string, uint64_t>> versions;  // the tables the plan reads
  std::unique_ptr<plan::Node> root;
  std::shared_ptr<const engine::PlacedPlan> placed;  // null with a device set (it places per run)

  // Why the statement must be prepared again before a run over `c`, or empty.
  std::string stale(const Catalog& c) const {
    if (&c != catalog) return "another catalog";
    for (const auto& [name, version] : versions)
      if (!c.contains(name) || c.version(name) != version) return "table " + name + " changed";
    return {};
  }
};

PreparedStatement::PreparedStatement() = default;
PreparedStatement::~PreparedStatement() = default;
PreparedStatement::PreparedStatement(const PreparedStatement&) = default;
PreparedStatement& PreparedStatement::operator=(const PreparedStatement&) = default;
PreparedStatement::PreparedStatement(PreparedStatement&&) noexcept = default;
PreparedStatement& PreparedStatement::operator=(PreparedStatement&&) noexcept = default;

const std::string& PreparedStatement::sql() const {
  static const std::string none;
  return state_ ? state_->sql : none;
}

Backend PreparedStatement::backend() const {
  return state_ ? state_->backend : Backend::Auto;
}

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

PreparedStatement Engine::prepare(std::string_view sql, const Catalog& catalog, Backend backend) {
  const sql::ast::Statement statement = sql::parse_statement(sql);
  if (statement.explain)
    throw Error(ErrorCode::InvalidQuery, "EXPLAIN statements are not prepared: run them with execute_sql");
  auto state = std::make_shared<PreparedStatement::State>();
  state->sql = std::string(sql);
  state->backend = backend;
  state->engine = impl_.get();
  state->catalog = &catalog;
  state->root = plan::bind(statement.query, catalog);
  std::vector<std::string> tables;
  scanned_tables(*state->root, tables);
  for (std::string& t : tables) {
    const uint64_t version = catalog.version(t);
    state->versions.emplace_back(std::move(t), version);
  }
  if (!impl_->set) state->placed = engine::place_plan(*state->root, catalog, backend, impl_->backends);
  PreparedStatement out;
  out.state_ = std::move(state);
  return out;
}

Result Engine::execute(PreparedStatement& statement, const Catalog& catalog) {
  const auto start = std::chrono::steady_clock::now();
  if (!statement.state_) throw Error(ErrorCode::InvalidInput, "execute: the prepared statement is empty");
  if (statement.state_->engine != impl_.get())
    throw Error(ErrorCode::InvalidInput, "execute: the statement was prepared by another engine");
  std::string prepared = "plan reused";
  if (const std::string why = statement.state_->stale(catalog); !why.empty()) {
    statement = prepare(statement.state_->sql, catalog, statement.state_->backend);
    prepared = "prepared again (" + why + ")";
  }
  const PreparedStatement::State& st = *statement.state_;
  Result result = st.placed ? engine::run_plan(*st.root, *st.placed, catalog, impl_->backends)
                            : impl_->run(*st.root, catalog, st.backend);
  result.report.prepared = std::move(prepared);
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

std::vector<std::pair<std::string, std::string>> Engine::pipeline_statistics() {
  return impl_->backends.pipeline_statistics();
}

std::vector<std::string> Engine::take_debug_messages() {
  std::vector<std::string> all = impl_->backends.take_debug_messages();
  if (impl_->set)
    for (auto& m : impl_->set->take_debug_messages()) all.push_back(std::move(m));
  return all;
}

}  // namespace gfxq
