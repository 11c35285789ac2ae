#include "engine/executor.h"

#include <cctype>
#include <chrono>

#include "engine/placement.h"
#include "gfxq/error.h"

namespace gfxq::engine {

const cpu::HostRelation& Relation::host() const {
  if (data_)
    throw Error(ErrorCode::Internal, std::string("a relation held by the ") + to_string(owner_) +
                                         " backend was read as host rows without a download");
  return host_;
}

cpu::HostRelation BackendImpl::download(const Relation& relation, const std::string& what, std::vector<PassRecord>&) {
  if (relation.on_host()) return relation.host();
  throw Error(ErrorCode::Internal,
              std::string(to_string(kind())) + " backend holds no data of its own to download (" + what + ")");
}

BackendImpl& Backends::get(Backend b) {
  if (b == Backend::Auto) throw Error(ErrorCode::Internal, "Backends::get: Auto is not a concrete backend");
  using Creator = std::unique_ptr<BackendImpl> (*)(const EngineOptions&);
  // Indexed by gfxq::Backend; Auto is resolved by placement and has no creator.
  static constexpr Creator kCreators[] = {create_cpu_backend, create_raster_backend, create_compute_backend};
  static_assert(std::size(kCreators) == static_cast<size_t>(Backend::Auto), "one creator per concrete backend");
  auto& slot = slots_[static_cast<size_t>(b)];
  if (!slot) slot = kCreators[static_cast<size_t>(b)](options_);
  return *slot;
}

const CostTable& Backends::costs() {
  if (!costs_) costs_ = default_cost_table(*this);
  return *costs_;
}

std::vector<std::string> Backends::take_debug_messages() {
  std::vector<std::string> all;
  for (auto& s : slots_)
    if (s)
      for (auto& m : s->take_debug_messages()) all.push_back(std::move(m));
  return all;
}

void Backends::finish() {
  for (auto& s : slots_)
    if (s) s->finish();
}

void Backends::set_gpu_timing(bool on) {
  options_.gpu_timing = on;
  for (auto& s : slots_)
    if (s) s->set_gpu_timing(on);
}

GpuSubmits Backends::submits() const noexcept {
  GpuSubmits sum;
  for (const auto& s : slots_)
    if (s) {
      const GpuSubmits one = s->submits();
      sum.submissions += one.submissions;
      sum.waits += one.waits;
    }
  return sum;
}

// A fragment placed on a backend, with the placements of its inputs.
struct Placed {
  Backend backend = Backend::Cpu;
  Fragment fragment;
  std::string reason;
  std::vector<Placed> inputs;
};

struct PlacedPlan {
  Placed root;
  Backend requested = Backend::Auto;
};

std::vector<std::pair<std::string, std::string>> Backends::pipeline_statistics() {
  const auto& slot = slots_[size_t(Backend::Compute)];
  return slot ? slot->pipeline_statistics() : std::vector<std::pair<std::string, std::string>>{};
}

namespace {

// Why the compute backend takes no node under Placement::ComputeFirst, or empty: it is a GPU.
std::string compute_unusable(Backends& backends) {
  const VkCapabilities& caps = compute_capabilities(backends.get(Backend::Compute));
  if (!caps.available) return "no Vulkan device (" + caps.unavailable_reason + ")";
  if (caps.device_type == "cpu")
    return "the only Vulkan device, " + caps.device_name + ", is a CPU implementation (the CPU engine is faster there)";
  return {};
}

// Placement::ComputeFirst: compute when `no_gpu` is empty and it claims `node`, else the CPU engine.
AutoChoice compute_first(const plan::Node& node, const Catalog& catalog, Backends& backends,
                         const std::string& no_gpu) {
  std::string why;
  if (no_gpu.empty()) {
    if (auto f = backends.get(Backend::Compute).claim(node, catalog, why))
      return {Backend::Compute, std::move(*f), "auto: compute backend on a GPU"};
  }
  auto f = backends.get(Backend::Cpu).claim(node, catalog, why);
  if (!f) throw Error(ErrorCode::Internal, "the CPU engine cannot run " + node.label() + ": " + why);
  return {Backend::Cpu, std::move(*f),
          no_gpu.empty() ? "auto: CPU engine (compute cannot: " + why + ")" : "auto: CPU engine, since " + no_gpu};
}

// How Auto places: by `placer` (Placement::Cost), else compute first (`no_gpu`: why not).
struct AutoPolicy {
  AutoPlacer* placer = nullptr;
  std::string no_gpu;
};

// The Auto policy of `backends` (Placement::Cost: a placer over `catalog`, kept in `placer`).
AutoPolicy auto_policy(Backends& backends, const Catalog& catalog, Backend requested,
                       std::optional<AutoPlacer>& placer) {
  AutoPolicy policy;
  if (requested != Backend::Auto) return policy;
  if (backends.cost_placement()) {
    placer.emplace(backends, catalog, backends.costs());
    policy.placer = &*placer;
  } else {
    policy.no_gpu = compute_unusable(backends);
  }
  return policy;
}

// Places `node` on `requested`, or with Auto by `policy`.
Placed place(const plan::Node& node, const Catalog& catalog, Backend requested, Backends& backends,
             AutoPolicy& policy) {
  Placed p;
  std::string why;
  if (requested != Backend::Auto) {
    auto f = backends.get(requested).claim(node, catalog, why);
    if (!f)
      throw Error(ErrorCode::Unsupported,
                  std::string(to_string(requested)) + " backend cannot run " + node.label() + ": " + why);
    p.backend = requested;
    p.fragment = std::move(*f);
    p.reason = "requested";
  } else {
    AutoChoice c = policy.placer ? policy.placer->choose(node) : compute_first(node, catalog, backends, policy.no_gpu);
    p.backend = c.backend;
    p.fragment = std::move(c.fragment);
    p.reason = std::move(c.reason);
  }
  for (const plan::Node* in : p.fragment.inputs) p.inputs.push_back(place(*in, catalog, requested, backends, policy));
  return p;
}

struct Run {
  Backend backend;
  std::string reason;
  std::string algorithm;
  std::optional<NodeRun> run;  // empty when only placed
  const plan::Node* fused_into = nullptr;
};

// `r` (the result of `producer`) in host memory: downloaded by its owner when a backend holds it,
// for `consumer` (e.g. "the CPU engine's Aggregate", "the result").
Relation to_host(Relation r, const plan::Node& producer, const std::string& consumer, Backends& backends,
                 std::vector<PassRecord>& passes) {
  if (r.on_host()) return r;
  const std::string what = producer.label() + " result for " + consumer;
  return backends.get(r.owner()).download(r, what, passes);
}

Relation run_placed(const Placed& p, const Catalog& catalog, Backends& backends, std::map<const plan::Node*, Run>& runs,
                    std::vector<PassRecord>& passes) {
  std::vector<Relation> inputs;
  for (const Placed& in : p.inputs) {
    Relation r = run_placed(in, catalog, backends, runs, passes);
    // A backend reads its own data in place; any other consumer gets the rows in host memory.
    if (!r.on_host() && r.owner() != p.backend)
      r = to_host(std::move(r), *in.fragment.root,
                  std::string("the ") + to_string(p.backend) + " backend's " + p.fragment.root->label(), backends,
                  passes);
    inputs.push_back(std::move(r));
  }
  FragmentRun r = backends.get(p.backend).run(p.fragment, catalog, std::move(inputs));
  for (const plan::Node* n : p.fragment.nodes) {
    Run& entry = runs[n];
    entry.backend = p.backend;
    entry.reason = p.reason;
    if (auto it = r.nodes.find(n); it != r.nodes.end()) {
      entry.run = it->second;
      entry.algorithm = it->second.algorithm;
    } else {
      entry.fused_into = p.fragment.root;
      entry.algorithm = "fused into " + p.fragment.root->label();
    }
  }
  for (auto& pass : r.passes) passes.push_back(std::move(pass));
  return std::move(r.result);
}

void record_placement(const Placed& p, std::map<const plan::Node*, Run>& runs) {
  for (const plan::Node* n : p.fragment.nodes) {
    Run& entry = runs[n];
    entry.backend = p.backend;
    entry.reason = p.reason;
    entry.algorithm = n == p.fragment.root ? p.fragment.algorithm : "fused into " + p.fragment.root->label();
  }
  for (const Placed& in : p.inputs) record_placement(in, runs);
}

void report_nodes(const plan::Node& node, size_t depth, const std::map<const plan::Node*, Run>& runs,
                  std::vector<PlanNodeReport>& out) {
  PlanNodeReport r;
  r.depth = depth;
  r.node = node.label();
  if (auto it = runs.find(&node); it != runs.end()) {
    r.backend = it->second.backend;
    r.algorithm = it->second.algorithm;
    r.reason = it->second.reason;
    if (it->second.run) {
      r.rows_in = it->second.run->rows_in;
      r.rows_out = it->second.run->rows_out;
      r.wall_ms = it->second.run->wall_ms;
      r.gpu_ms = it->second.run->gpu_ms;
    }
  }
  out.push_back(std::move(r));
  for (const auto& c : node.children) report_nodes(*c, depth + 1, runs, out);
}

// The report's summary: the GPU backend when any node ran on one, and the algorithms bottom-up:
// "cpu-reference: scan + filter + aggregate" for CPU nodes, each GPU fragment's own algorithm.
void summarise(ExecutionReport& report, Backend requested) {
  report.backend = Backend::Cpu;
  for (const auto& n : report.plan)
    if (n.backend != Backend::Cpu) report.backend = n.backend;
  std::vector<std::string> parts;
  std::string cpu;
  for (auto it = report.plan.rbegin(); it != report.plan.rend(); ++it) {
    if (it->algorithm.rfind("fused into", 0) == 0) continue;
    if (it->backend == Backend::Cpu) {
      std::string kind = it->node.substr(0, it->node.find(' '));
      for (auto& ch : kind) ch = char(std::tolower(static_cast<unsigned char>(ch)));
      cpu += (cpu.empty() ? "cpu-reference: " : " + ") + kind;
      continue;
    }
    if (!cpu.empty()) parts.push_back(std::move(cpu)), cpu.clear();
    const std::string name = to_string(it->backend);
    parts.push_back(it->algorithm.rfind(name + ":", 0) == 0 ? it->algorithm : name + ": " + it->algorithm);
  }
  if (!cpu.empty()) parts.push_back(std::move(cpu));
  report.algorithm.clear();
  for (const auto& p : parts) report.algorithm += (report.algorithm.empty() ? "" : "; ") + p;
  report.reason = requested == Backend::Auto ? report.plan.front().reason : "requested";
}

}  // namespace

std::shared_ptr<const PlacedPlan> place_plan(const plan::Node& root, const Catalog& catalog, Backend requested,
                                             Backends& backends) {
  std::optional<AutoPlacer> placer;
  AutoPolicy policy = auto_policy(backends, catalog, requested, placer);
  auto placed = std::make_shared<PlacedPlan>();
  placed->root = place(root, catalog, requested, backends, policy);
  placed->requested = requested;
  return placed;
}

Result run_plan(const plan::Node& root, const PlacedPlan& placed, const Catalog& catalog, Backends& backends) {
  std::map<const plan::Node*, Run> runs;
  Result result;
  const GpuSubmits before = backends.submits();
  const Relation rel = to_host(run_placed(placed.root, catalog, backends, runs, result.report.passes), root,
                               "the query's result", backends, result.report.passes);
  backends.finish();
  const GpuSubmits after = backends.submits();
  result.report.gpu_submissions = after.submissions - before.submissions;
  result.report.gpu_waits = after.waits - before.waits;
  result.table = rel.host().to_table();
  for (size_t i = 0; i < root.schema.size() && i < result.table.columns.size(); ++i)
    result.table.columns[i].name = root.schema[i].name;
  report_nodes(root, 0, runs, result.report.plan);
  summarise(result.report, placed.requested);
  return result;
}

Result execute_plan(const plan::Node& root, const Catalog& catalog, Backend requested, Backends& backends) {
  return run_plan(root, *place_plan(root, catalog, requested, backends), catalog, backends);
}

ExecutionReport explain_plan(const plan::Node& root, const Catalog& catalog, Backend requested, Backends& backends) {
  const auto placed = place_plan(root, catalog, requested, backends);
  std::map<const plan::Node*, Run> runs;
  record_placement(placed->root, runs);
  ExecutionReport report;
  report_nodes(root, 0, runs, report.plan);
  summarise(report, requested);
  return report;
}

}  // namespace gfxq::engine
