#include "vk/engine/inputs.h"

#include <chrono>

#include "core/bind.h"
#include "engine/spec_fragment.h"
#include "gfxq/error.h"
#include "vk/relational/cnf_program.h"

namespace gfxq::vk {

bool may_be_null(const plan::Node& node, size_t c) {
  using plan::NodeKind;
  const auto child = [&](size_t i) -> const plan::Node& { return *node.children.at(i); };
  switch (node.kind) {
    case NodeKind::Scan: return !node.table->columns.at(node.scan_columns.at(c)).nulls.empty();
    case NodeKind::Filter:
    case NodeKind::Sort:
    case NodeKind::Limit:
    case NodeKind::Distinct: return may_be_null(child(0), c);
    case NodeKind::Project: {
      const plan::Expr& e = node.exprs.at(c);
      if (e.is_column()) return may_be_null(child(0), e.column);
      return !(e.kind == plan::ExprKind::Literal && !std::holds_alternative<std::monostate>(e.literal));
    }
    case NodeKind::Join: {
      const size_t left_width = child(0).schema.size();
      return c < left_width ? may_be_null(child(0), c) : may_be_null(child(1), c - left_width);
    }
    case NodeKind::Aggregate: {
      if (c < node.group_keys.size()) {
        const plan::Expr& k = node.group_keys[c];
        return !k.is_column() || may_be_null(child(0), k.column);
      }
      return node.aggs.at(c - node.group_keys.size()).kind != AggKind::Count;
    }
    case NodeKind::SetOp: return may_be_null(child(0), c) || may_be_null(child(1), c);
  }
  return true;
}

bool device_type(Type type) noexcept {
  return type == Type::Int32 || type == Type::Float32 || type == Type::Date || type == Type::String;
}

namespace {

// The Filter's condition as a bound query over its table and the compiled CNF program; throws what
// bind() and compile_cnf() throw.
struct FilterProgram {
  Query query;
  BoundQuery bound;
  CnfProgram program;
};

std::optional<FilterProgram> filter_program(const plan::Node& filter, const Catalog& catalog) {
  std::string why;
  auto q = engine::scan_filter_spec(filter, why);
  if (!q) return std::nullopt;
  FilterProgram p;
  p.query = std::move(*q);
  p.bound = bind(p.query, catalog, /*codes_as_int=*/true);
  p.program = compile_cnf(p.bound.where);
  return p;
}

}  // namespace

bool claim_input(const plan::Node& child, const Catalog& catalog, std::vector<const plan::Node*>& covered,
                 std::vector<const plan::Node*>& inputs) {
  if (child.kind == plan::NodeKind::Scan) {
    covered.push_back(&child);
    return true;
  }
  if (child.kind == plan::NodeKind::Filter && child.children[0]->kind == plan::NodeKind::Scan) {
    bool runs = false;
    try {
      runs = filter_program(child, catalog).has_value();
    } catch (const Error&) {
      runs = false;  // a condition the CNF kernels cannot take: the Filter runs as its own fragment
    }
    if (runs) {
      covered.push_back(&child);
      covered.push_back(child.children[0].get());
      return true;
    }
  }
  inputs.push_back(&child);
  return false;
}

InputRows::InputRows(FragmentEnv& env, const plan::Node& child, const cpu::HostRelation* relation,
                     std::vector<PassRecord>& passes)
    : env_(env), child_(child), passes_(passes), columns_(child.schema.size(), nullptr) {
  if (relation) {
    rows_ = *relation;
    describe_ = plan::to_string(child.kind) + std::string(" result in host memory");
    return;
  }
  scan_ = child.kind == plan::NodeKind::Scan ? &child : child.children.at(0).get();
  version_ = env.catalog.version(scan_->table_name);
  rows_ = cpu::HostRelation::view(env.catalog.get(scan_->table_name), scan_->scan_columns);
  describe_ = "table " + scan_->table_name;
  if (&child == scan_) return;
  FilterProgram p = *filter_program(child, env.catalog);
  const uint64_t terms = p.program.terms.size();
  QueryContext ctx(env.device, p.bound, fit_shader_loop_limit(env.device, p.bound.left->rows(), terms, env.limits),
                   ResidentTables{&env.resident, version_, 0});
  std::string how;
  selection_ = select_row_ids(ctx, p.program, UINT64_MAX, &how);
  for (auto& pass : ctx.passes()) passes.push_back(std::move(pass));
  describe_ += " where " + child.predicate->text + " (" + how + ")";
}

InputRows::~InputRows() = default;

std::optional<std::vector<uint32_t>> InputRows::live(const std::vector<size_t>& columns) const {
  bool nulls = false;
  for (size_t c : columns) nulls |= !rows_.column(c).nulls.empty();
  if (!nulls) return selection_;
  std::vector<uint32_t> out;
  auto keep = [&](uint64_t r) {
    for (size_t c : columns)
      if (rows_.column(c).is_null(r)) return;
    out.push_back(uint32_t(r));
  };
  if (selection_)
    for (uint32_t r : *selection_) keep(r);
  else
    for (uint64_t r = 0; r < rows_.rows(); ++r) keep(r);
  return out;
}

const DeviceColumn& InputRows::column(size_t c) {
  if (columns_.at(c)) return *columns_[c];
  const Column& host = rows_.column(c);
  if (scan_) {
    const ResidentKey key{scan_->table_name, version_, scan_->scan_columns.at(c)};
    columns_[c] = &env_.resident.get(env_.device, key, host, passes_);
  } else {
    const auto start = std::chrono::steady_clock::now();
    owned_.push_back(std::make_unique<DeviceColumn>(upload_column(env_.device, host)));
    PassRecord p;
    p.kind = "upload";
    p.detail =
        host.name + " (" + std::to_string(host.size() * 4) + " bytes, a " + plan::to_string(child_.kind) + " result)";
    p.items = host.size();
    p.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    passes_.push_back(std::move(p));
    columns_[c] = owned_.back().get();
  }
  return *columns_[c];
}

Buffer upload_selection(Device& device, const std::vector<uint32_t>& ids, const std::string& what,
                        std::vector<PassRecord>& passes) {
  const auto start = std::chrono::steady_clock::now();
  Buffer b = device.create_buffer(padded_bytes(ids.size()), MemoryKind::Device);
  device.upload(b, ids.data(), ids.size() * 4);
  PassRecord p;
  p.kind = "upload";
  p.detail = what + " (" + std::to_string(ids.size() * 4) + " bytes)";
  p.items = ids.size();
  p.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  passes.push_back(std::move(p));
  return b;
}

}  // namespace gfxq::vk
