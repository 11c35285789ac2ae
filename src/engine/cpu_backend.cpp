// The CPU reference engine as a backend: it claims every node alone and runs it with its operator
// (cpu/exec/ops.h).

#include <cctype>
#include <chrono>

#include "cpu/exec/ops.h"
#include "engine/backend.h"
#include "gfxq/error.h"

namespace gfxq::engine {

namespace {

class CpuBackend final : public BackendImpl {
 public:
  Backend kind() const noexcept override { return Backend::Cpu; }

  std::optional<Fragment> claim(const plan::Node& node, const Catalog&, std::string&) override {
    Fragment f;
    f.root = &node;
    f.nodes = {&node};
    for (const auto& c : node.children) f.inputs.push_back(c.get());
    f.algorithm = "cpu-reference " + std::string(plan::to_string(node.kind));
    return f;
  }

  FragmentRun run(const Fragment& f, const Catalog&, std::vector<Relation> inputs) override {
    // The executor hands the CPU engine host rows only.
    std::vector<cpu::HostRelation> in;
    for (const Relation& r : inputs) in.push_back(r.host());
    const plan::Node& n = *f.root;
    const auto start = std::chrono::steady_clock::now();
    NodeRun r;
    std::string how;
    FragmentRun out;
    switch (n.kind) {
      case plan::NodeKind::Scan: out.result = cpu::run_scan(n, how); break;
      case plan::NodeKind::Filter: out.result = cpu::run_filter(n, in.at(0), how); break;
      case plan::NodeKind::Project: out.result = cpu::run_project(n, in.at(0), how); break;
      case plan::NodeKind::Join: out.result = cpu::run_join(n, in.at(0), in.at(1), how); break;
      case plan::NodeKind::Aggregate: out.result = cpu::run_aggregate(n, in.at(0), how); break;
      case plan::NodeKind::Sort: out.result = cpu::run_sort(n, in.at(0), how); break;
      case plan::NodeKind::Limit: out.result = cpu::run_limit(n, in.at(0), how); break;
      case plan::NodeKind::Distinct: out.result = cpu::run_distinct(n, in.at(0), how); break;
      case plan::NodeKind::SetOp: out.result = cpu::run_set_op(n, in.at(0), in.at(1), how); break;
    }
    for (const auto& i : in) r.rows_in += i.rows();
    if (n.kind == plan::NodeKind::Scan) r.rows_in = out.result.rows();
    r.rows_out = out.result.rows();
    r.algorithm = "cpu-reference: " + how;
    r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    PassRecord pass;
    pass.kind = plan::to_string(n.kind);
    for (auto& ch : pass.kind) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    pass.detail = how;
    pass.items = r.rows_in;
    pass.passed = r.rows_out;
    pass.wall_ms = r.wall_ms;
    out.passes.push_back(std::move(pass));
    out.nodes[&n] = std::move(r);
    return out;
  }
};

}  // namespace

std::unique_ptr<BackendImpl> create_cpu_backend(const EngineOptions&) {
  return std::make_unique<CpuBackend>();
}

}  // namespace gfxq::engine
