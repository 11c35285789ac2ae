// The compute backend (Vulkan, after He et al. 2008): WHERE with any CNF in one fused pass,
// COUNT/SUM/AVG/MIN/MAX fused with it, quantiles by radix select, stable ORDER BY [LIMIT] by radix
// sort or top-k, projections and LIMIT (fragments of the Query spec's shape, engine/spec_fragment.h);
// joins on keys and bands, GROUP BY, Projects of expressions and aggregates of expressions of plan
// fragments whose inputs may come from any backend (vk/engine/fragments.h; expressions:
// vk/relational/expression.h); ORDER BY of several keys over any input, DISTINCT, UNION / INTERSECT /
// EXCEPT and CROSS JOIN by Red Fox's skeletons (vk/operators/skeletons). Catalog columns stay resident
// on the device between queries within a byte budget (vk/engine/resident.h). Other nodes are refused
// with the reason. How each operator runs: docs/COMPUTE.md and src/vk/relational/*.h,
// src/vk/operators/*/.
// Its knobs are EngineOptions::compute (ComputeOptions), with the environment's overrides read when
// the Engine was made (engine/options.h); they reach the operators as arguments.
#include <algorithm>
#include <chrono>
#include <string>

#include "core/bind.h"
#include "engine/backend.h"
#include "engine/spec_fragment.h"
#include "gfxq/error.h"
#include "vk/engine/column_facts.h"
#include "vk/engine/fragments.h"
#include "vk/engine/inputs.h"
#include "vk/engine/resident.h"
#include "vk/primitives/scratch.h"
#include "vk/relational/aggregate.h"
#include "vk/relational/order_by.h"
#include "vk/relational/select.h"

namespace gfxq {

namespace {

// The scan limits of ComputeOptions (tests force many chunks, rounds per workgroup and each way of
// the one-pass row-id kernel on small tables with them).
vk::ScanLimits scan_limits(const ComputeOptions& o) {
  return {.chunk_rows = o.chunk_rows,
          .max_groups = o.max_groups,
          .select_lookback = o.select_lookback,
          .select_tiles = o.select_tiles,
          .float_sum_int64 = o.float_sum_int64};
}

// The sort and select limits of ComputeOptions (ORDER BY's radix sort and top-k select, the
// quantiles' radix select).
vk::SortLimits sort_limits(const ComputeOptions& o) {
  return {.window = o.sort_window, .select_sample = o.select_sample};
}

// The default budget of resident columns: half of the largest device-local heap.
uint64_t default_resident_bytes(const VkCapabilities& caps) {
  uint64_t largest = 0;
  for (const auto& h : caps.heaps)
    if (h.device_local) largest = std::max(largest, h.size);
  return largest / 2;
}

// A spec fragment's query, bound when it was claimed.
struct SpecState final : engine::FragmentState {
  BoundQuery bound;
};

class ComputeBackend final : public engine::BackendImpl {
 public:
  explicit ComputeBackend(EngineOptions options) : options_(std::move(options)) {}
  Backend kind() const noexcept override { return Backend::Compute; }

  // The device, started on first use; nullptr when none can be created (caps_ says why).
  vk::Device* device() {
    if (!tried_) {
      tried_ = true;
      try {
        device_ = vk::Device::create({.validation = options_.debug,
                                      .sync_validation = false,
                                      .choice = options_.vk_device,
                                      .pipeline_statistics = options_.pipeline_statistics,
                                      .wait_timeout_ns = uint64_t(options_.gpu_timeout_ms) * 1000000,
                                      .faults = options_.faults});
        device_->set_pass_timing(options_.gpu_timing);
        caps_ = device_->caps();
        resident_ = std::make_unique<vk::ResidentColumns>(options_.resident_bytes ? *options_.resident_bytes
                                                                                  : default_resident_bytes(caps_));
      } catch (const Error& e) {
        caps_ = {};
        caps_.unavailable_reason = e.what();
      }
    }
    return device_.get();
  }
  const VkCapabilities& caps() {
    device();
    return caps_;
  }

  // A fragment the Query spec expresses and the fused operators run (vk/relational): WHERE, COUNT,
  // SUM, AVG, MIN, MAX, quantiles, ORDER BY one column, LIMIT, projections, over one table. Else a
  // join or GROUP BY fragment (vk/engine/fragments.h).
  std::optional<engine::Fragment> claim(const plan::Node& node, const Catalog& catalog, std::string& why) override {
    if (!device()) {
      why = "compute backend unavailable: " + caps_.unavailable_reason;
      return std::nullopt;
    }
    std::string spec_why;
    if (auto sf = engine::spec_fragment(node, spec_why)) {
      // The fused operators run one table without GROUP BY; joins and GROUP BY are the join and GROUP
      // BY fragments' (checked before binding: no bind for a shape the spec path refuses anyway).
      if (!sf->query.join && !sf->query.group_by) {
        auto state = std::make_shared<SpecState>();
        state->bound = bind(sf->query, catalog);
        sf->fragment.algorithm = "compute: " + sf->query.text();
        sf->fragment.spec = std::move(sf->query);
        sf->fragment.state = std::move(state);
        return std::move(sf->fragment);
      }
      if (!sf->query.group_by)
        spec_why =
            "it computes over the output of a join (aggregates, ORDER BY or LIMIT), which the compute backend "
            "does not fuse (under auto the join runs on compute, the rest on the CPU engine)";
    }
    std::string star_why, join_why, group_why, sort_why, set_why, project_why, aggregate_why, filter_why;
    if (options_.compute.star_aggregate)
      if (auto f = vk::claim_star(node, catalog, caps_, facts_, star_why)) return f;
    if (auto f = vk::claim_join(node, catalog, caps_, facts_, join_why)) return f;
    if (auto f = vk::claim_product(node, catalog)) return f;
    if (auto f = vk::claim_group_by(node, catalog, group_why)) return f;
    if (auto f = vk::claim_sort(node, catalog, sort_why)) return f;
    if (auto f = vk::claim_set(node, catalog, facts_, set_why)) return f;
    if (auto f = vk::claim_project(node, catalog, project_why)) return f;
    if (auto f = vk::claim_scalar_aggregate(node, catalog, aggregate_why)) return f;
    if (auto f = vk::claim_filter(node, catalog, filter_why)) return f;
    // A Filter neither path takes: both reasons (the CNF kernels' first).
    if (!filter_why.empty() && !spec_why.empty()) filter_why = spec_why + "; as an expression program: " + filter_why;
    for (const std::string* w :
         {&sort_why, &set_why, &join_why, &group_why, &aggregate_why, &project_why, &filter_why, &star_why, &spec_why})
      if (!w->empty()) {
        why = *w;
        break;
      }
    return std::nullopt;
  }

  engine::FragmentRun run(const engine::Fragment& f, const Catalog& catalog,
                          std::vector<engine::Relation> inputs) override {
    vk::Device& dev = *device();
    vk::prim::require_features(dev, "the compute backend", true);
    // Between fragments, the resident columns are trimmed to their budget (whether the fragment ran or
    // failed): no fragment holds a column then.
    struct Trim {
      vk::ResidentColumns& resident;
      ~Trim() { resident.trim(); }
    } trim{*resident_};
    if (!f.spec) {
      const ComputeOptions& o = options_.compute;
      vk::FragmentEnv env{dev,
                          catalog,
                          *resident_,
                          scan_limits(o),
                          o.join_chunk_pairs,
                          dynamic_cast<const vk::CoveredFilters*>(f.state.get()),
                          o.product_chunk_pairs,
                          o.host_sort_rows};
      auto has = [&](auto test) { return std::any_of(f.nodes.begin(), f.nodes.end(), test); };
      auto has_kind = [&](plan::NodeKind kind) { return has([&](const plan::Node* n) { return n->kind == kind; }); };
      // A fragment's kind is that of its core node (the one below its layers of Projects and Limits).
      const auto core = std::find_if(f.nodes.begin(), f.nodes.end(), [](const plan::Node* n) {
        return !(n->kind == plan::NodeKind::Project && vk::columns_only(*n)) && n->kind != plan::NodeKind::Limit;
      });
      if (vk::is_star_fragment(f)) return vk::run_star_fragment(env, f, std::move(inputs));
      if (core != f.nodes.end() && (*core)->kind == plan::NodeKind::Filter)
        return vk::run_filter_fragment(env, f, std::move(inputs));
      if (has_kind(plan::NodeKind::Join)) {
        const bool product = vk::claim_product(*f.root, catalog).has_value();
        return product ? vk::run_product_fragment(env, f, std::move(inputs))
                       : vk::run_join_fragment(env, f, std::move(inputs));
      }
      if (has([](const plan::Node* n) { return n->kind == plan::NodeKind::Aggregate && !n->group_keys.empty(); }))
        return vk::run_group_by_fragment(env, f, std::move(inputs));
      if (has_kind(plan::NodeKind::Aggregate)) return vk::run_scalar_aggregate_fragment(env, f, std::move(inputs));
      if (has_kind(plan::NodeKind::Distinct) || has_kind(plan::NodeKind::SetOp))
        return vk::run_set_fragment(env, f, std::move(inputs));
      if (has_kind(plan::NodeKind::Sort)) return vk::run_sort_fragment(env, f, std::move(inputs));
      return vk::run_project_fragment(env, f, std::move(inputs));
    }
    const auto start = std::chrono::steady_clock::now();
    const BoundQuery& bound = static_cast<const SpecState&>(*f.state).bound;
    const uint64_t terms = vk::compile_cnf(bound.where).terms.size();
    const vk::ResidentTables resident{resident_.get(), catalog.version(bound.left_name),
                                      bound.right ? catalog.version(bound.right_name) : 0};
    vk::QueryContext ctx(
        dev, bound, vk::fit_shader_loop_limit(dev, bound.left->rows(), terms, scan_limits(options_.compute)), resident);
    engine::FragmentRun out;
    std::string algorithm;
    Table table;
    if (bound.aggregate)
      table = vk::run_aggregates(ctx, algorithm, sort_limits(options_.compute));
    else if (bound.order_by)
      table = vk::run_order_by(ctx, algorithm, sort_limits(options_.compute));
    else
      table = vk::run_selection(ctx, algorithm);
    engine::NodeRun r;
    r.algorithm = algorithm;
    r.rows_in = bound.left->rows();
    r.rows_out = table.rows();
    double gpu = 0;
    bool any = false;
    for (const auto& p : ctx.passes())
      if (p.gpu_ms) gpu += *p.gpu_ms, any = true;
    if (any) r.gpu_ms = gpu;
    r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out.nodes[f.root] = std::move(r);
    out.passes = std::move(ctx.passes());
    out.result = cpu::HostRelation::of(std::move(table));
    return out;
  }

  cpu::HostRelation download(const engine::Relation& relation, const std::string& what,
                             std::vector<PassRecord>& passes) override {
    const auto* data = dynamic_cast<const vk::DeviceRelation*>(relation.data().get());
    if (!data || !device_) return engine::BackendImpl::download(relation, what, passes);
    return vk::download_relation(*device_, *data, what, passes);
  }

  std::vector<std::string> take_debug_messages() override {
    if (!device_) return {};
    std::vector<std::string> out;
    for (auto& m : device_->take_debug_messages()) out.push_back("Vulkan: " + m);
    return out;
  }
  std::vector<std::pair<std::string, std::string>> pipeline_statistics() override {
    std::vector<std::pair<std::string, std::string>> out;
    if (!device_ || !options_.pipeline_statistics) return out;
    for (const std::string& name : device_->pipeline_names())
      out.emplace_back(name, device_->pipeline_statistics(name));
    return out;
  }
  void set_gpu_timing(bool on) override {
    options_.gpu_timing = on;
    if (device_) device_->set_pass_timing(on);
  }
  engine::GpuSubmits submits() const noexcept override {
    if (!device_) return {};
    const vk::SubmitStats s = device_->submit_stats();
    return {s.submissions, s.waits};
  }
  void finish() override {
    if (device_) device_->finish();
  }

 private:
  EngineOptions options_;
  bool tried_ = false;
  std::unique_ptr<vk::Device> device_;
  VkCapabilities caps_;
  std::unique_ptr<vk::ResidentColumns> resident_;  // declared after device_: freed before it
  vk::ColumnFactsCache facts_;                     // ranges and uniqueness of catalog columns
};

}  // namespace

namespace engine {

std::unique_ptr<BackendImpl> create_compute_backend(const EngineOptions& options) {
  return std::make_unique<ComputeBackend>(options);
}

const VkCapabilities& compute_capabilities(BackendImpl& compute) {
  return static_cast<ComputeBackend&>(compute).caps();
}

}  // namespace engine

}  // namespace gfxq
