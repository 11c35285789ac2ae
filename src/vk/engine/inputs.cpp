#include "vk/engine/inputs.h"

#include <chrono>
#include <numeric>

#include "core/bind.h"
#include "cpu/exec/ops.h"
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

bool columns_only(const plan::Node& p) {
  for (const auto& e : p.exprs)
    if (!e.is_column()) return false;
  return true;
}

const plan::Node* column_source(const plan::Node* node, size_t& c) {
  for (;;) {
    if (node->kind == plan::NodeKind::Project && columns_only(*node)) {
      c = node->exprs.at(c).column;
      node = node->children[0].get();
    } else if (node->kind == plan::NodeKind::Filter) {
      node = node->children[0].get();
    } else {
      return node;
    }
  }
}

Table apply_layers(Table t, uint64_t& rows, const std::vector<const plan::Node*>& layers) {
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
    const plan::Node& l = **it;
    if (l.kind == plan::NodeKind::Project) {
      // A column is moved at its last use and copied before (a million groups' columns copied cost
      // milliseconds).
      std::vector<size_t> uses(t.columns.size(), 0);
      for (const auto& e : l.exprs) ++uses.at(e.column);
      Table next;
      for (size_t i = 0; i < l.exprs.size(); ++i) {
        Column& from = t.columns.at(l.exprs[i].column);
        next.columns.push_back(--uses[l.exprs[i].column] == 0 ? std::move(from) : from);
        next.columns.back().name = l.schema[i].name;
      }
      t = std::move(next);
    } else if (l.kind == plan::NodeKind::Limit) {
      const uint64_t first = std::min(l.offset, rows);
      const uint64_t count = std::min(l.limit, rows - first);
      std::vector<uint64_t> keep(count);
      for (uint64_t i = 0; i < count; ++i) keep[i] = first + i;
      for (auto& c : t.columns) c = cpu::gather_column(c, keep, c.name);
      rows = count;
    }
  }
  return t;
}

bool device_type(Type type) noexcept {
  return type == Type::Int32 || type == Type::Float32 || type == Type::Date || type == Type::String;
}

namespace {

// The Filter's condition as a bound query over its table and the compiled CNF program; throws what
// bind() and compile_cnf() throw.
// Else, when the condition compiles as an expression program over NULL-free columns, that program.
std::optional<FilterProgram> filter_program(const plan::Node& filter, const Catalog& catalog) {
  std::string why;
  if (auto q = engine::scan_filter_spec(filter, why)) {
    try {
      FilterProgram p;
      p.query = std::move(*q);
      p.bound = bind(p.query, catalog, /*codes_as_int=*/true);
      p.program = compile_cnf(p.bound.where);
      return p;
    } catch (const Error&) {
      // not for the CNF kernels: the expression program below, if any
    }
  }
  FilterProgram p;
  p.expression = compile_condition(*filter.predicate, why);
  if (!p.expression) return std::nullopt;
  for (size_t c : p.expression->columns)
    if (may_be_null(*filter.children[0], c)) return std::nullopt;
  return p;
}

}  // namespace

bool claim_input(const plan::Node& child, const Catalog& catalog, std::vector<const plan::Node*>& covered,
                 std::vector<const plan::Node*>& inputs, CoveredFilters* filters) {
  if (child.kind == plan::NodeKind::Scan) {
    covered.push_back(&child);
    return true;
  }
  if (child.kind == plan::NodeKind::Filter && child.children[0]->kind == plan::NodeKind::Scan) {
    std::optional<FilterProgram> program;
    try {
      program = filter_program(child, catalog);
    } catch (const Error&) {
      program.reset();  // neither the CNF kernels nor a program take it: the Filter is an input
    }
    if (program) {
      if (filters) filters->programs[&child] = std::make_shared<const FilterProgram>(std::move(*program));
      covered.push_back(&child);
      covered.push_back(child.children[0].get());
      return true;
    }
  }
  inputs.push_back(&child);
  return false;
}

bool device_schema(const plan::Node& node, std::string* why) {
  for (size_t c = 0; c < node.schema.size(); ++c) {
    const plan::SchemaColumn& s = node.schema[c];
    const bool type_ok = device_type(s.type);
    if (type_ok && !may_be_null(node, c)) continue;
    if (why)
      *why = "column " + s.name + (type_ok ? " may be NULL" : std::string(" is ") + to_string(s.type)) +
             " (device relations hold NULL-free 32-bit columns)";
    return false;
  }
  return true;
}

cpu::HostRelation download_relation(Device& device, const DeviceRelation& relation, const std::string& what,
                                    std::vector<PassRecord>& passes) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<uint64_t> ids;
  if (relation.selection) {
    std::vector<uint32_t> selected(relation.selected);
    device.download(*relation.selection, selected.data(), selected.size() * 4);
    ids.assign(selected.begin(), selected.end());
  }
  Table t;
  uint64_t bytes = relation.selection ? relation.selected * 4 : 0;
  for (size_t c = 0; c < relation.columns.size(); ++c) {
    const plan::SchemaColumn& s = relation.schema.at(c);
    const DeviceColumn& d = *relation.columns[c];
    Column col = Column::make(s.name, s.type);
    if (s.type == Type::Float32) {
      std::vector<float> v(d.rows);
      device.download(d.buffer, v.data(), v.size() * 4);
      col.data = std::move(v);
    } else {
      std::vector<int32_t> v(d.rows);
      device.download(d.buffer, v.data(), v.size() * 4);
      col.data = std::move(v);
    }
    if (s.type == Type::String) col.dictionary = s.dictionary;
    bytes += d.rows * 4;
    t.columns.push_back(relation.selection ? cpu::gather_column(col, ids, s.name) : std::move(col));
  }
  PassRecord p;
  p.kind = "download";
  p.detail = what + ": " + std::to_string(relation.columns.size()) + " columns of " + std::to_string(relation.rows()) +
             " rows (" + std::to_string(bytes) + " bytes)";
  p.items = relation.rows();
  p.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  passes.push_back(std::move(p));
  cpu::HostRelation out = cpu::HostRelation::of(std::move(t));
  out.row_count = relation.rows();
  return out;
}

InputRows::InputRows(FragmentEnv& env, const plan::Node& child, const engine::Relation* relation,
                     std::vector<PassRecord>& passes)
    : env_(env), child_(child), passes_(passes), columns_(child.schema.size(), nullptr) {
  if (relation && relation->on_host()) {
    host_ = relation->host();
    rows_ = host_->rows();
    describe_ = plan::to_string(child.kind) + std::string(" result in host memory");
    return;
  }
  if (relation) {
    device_ = dynamic_cast<const DeviceRelation*>(relation->data().get());
    if (!device_ || relation->owner() != Backend::Compute)
      throw Error(ErrorCode::Internal, "compute fragment input: another backend's data reached it undownloaded");
    rows_ = device_->row_count;
    describe_ = plan::to_string(child.kind) + std::string(" result on the device");
    return;
  }
  scan_ = child.kind == plan::NodeKind::Scan ? &child : child.children.at(0).get();
  version_ = env.catalog.version(scan_->table_name);
  host_ = cpu::HostRelation::view(env.catalog.get(scan_->table_name), scan_->scan_columns);
  rows_ = host_->rows();
  describe_ = "table " + scan_->table_name;
  if (&child == scan_) return;
  std::shared_ptr<const FilterProgram> claimed;
  if (env.filters)
    if (auto it = env.filters->programs.find(&child); it != env.filters->programs.end()) claimed = it->second;
  if (!claimed) claimed = std::make_shared<const FilterProgram>(*filter_program(child, env.catalog));
  const FilterProgram& p = *claimed;
  if (p.expression) {
    ExprInput x;
    for (size_t c : p.expression->columns) x.columns.push_back(&column(c));
    x.rows = rows_;
    ExprSelection s = select_rows(env.device, *p.expression, x, passes);
    if (s.error) throw *s.error;
    selected_ = DeviceRowIds{std::move(s.ids), s.count, false};
    describe_ += " where " + child.predicate->text + " (an expression program selecting row ids on the device)";
    return;
  }
  const uint64_t terms = p.program.terms.size();
  QueryContext ctx(env.device, p.bound, fit_shader_loop_limit(env.device, p.bound.left->rows(), terms, env.limits),
                   ResidentTables{&env.resident, version_, 0});
  std::string how;
  DeviceRowIds ids = select_row_ids_on_device(ctx, p.program, UINT64_MAX, &how);
  for (auto& pass : ctx.passes()) passes.push_back(std::move(pass));
  if (!ids.all) {
    // No row passes: an empty selection, which is not "every row".
    if (ids.count == 0 && ids.ids.size() == 0) ids.ids = env.device.create_buffer(padded_bytes(0), MemoryKind::Device);
    selected_ = std::move(ids);
  }
  describe_ += " where " + child.predicate->text + " (" + how + ")";
}

InputRows::~InputRows() = default;

uint64_t InputRows::count() const noexcept {
  if (selected_) return selected_->count;
  return device_ ? device_->rows() : rows_;
}

DeviceRows InputRows::live(const std::vector<size_t>& columns, const std::string& what) {
  if (device_) return {device_->selection.get(), device_->rows()};  // NULL-free by construction
  bool nulls = false;
  for (size_t c : columns) nulls |= !host_->column(c).nulls.empty();
  if (!nulls) return selected_ ? DeviceRows{&selected_->ids, selected_->count} : DeviceRows{nullptr, rows_};
  // NULLs in a column the caller reads: the rows that take part, less those, chosen on the host.
  std::vector<uint32_t> from;
  if (selected_) {
    const auto start = std::chrono::steady_clock::now();
    from.resize(selected_->count);
    if (!from.empty()) env_.device.download(selected_->ids, from.data(), from.size() * 4);
    PassRecord p;
    p.kind = "download";
    p.detail = "row ids (" + std::to_string(from.size() * 4) + " bytes) to leave out NULLs";
    p.items = from.size();
    p.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    passes_.push_back(std::move(p));
  } else {
    from.resize(rows_);
    std::iota(from.begin(), from.end(), 0u);
  }
  std::vector<uint32_t> ids;
  for (uint32_t r : from) {
    bool keep = true;
    for (size_t c : columns) keep = keep && !host_->column(c).is_null(r);
    if (keep) ids.push_back(r);
  }
  owned_ids_.push_back(upload_selection(env_.device, ids, what, passes_));
  return {&owned_ids_.back(), ids.size()};
}

std::optional<std::vector<uint32_t>> InputRows::host_selection(const std::string& what) {
  const DeviceRows rows = live({}, what);
  if (!rows.selection) return std::nullopt;
  const auto start = std::chrono::steady_clock::now();
  std::vector<uint32_t> ids(rows.count);
  if (!ids.empty()) env_.device.download(*rows.selection, ids.data(), ids.size() * 4);
  PassRecord p;
  p.kind = "download";
  p.detail = what + " (" + std::to_string(ids.size() * 4) + " bytes)";
  p.items = ids.size();
  p.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  passes_.push_back(std::move(p));
  return ids;
}

const cpu::HostRelation& InputRows::host() {
  if (!host_) {
    DeviceRelation every_row = *device_;  // row ids index all rows of the columns
    every_row.selection.reset();
    every_row.selected = 0;
    host_ = download_relation(env_.device, every_row, describe_ + " (for the host)", passes_);
  }
  return *host_;
}

const DeviceColumn& InputRows::column(size_t c) {
  return *shared_column(c);
}

std::shared_ptr<const DeviceColumn> InputRows::shared_column(size_t c) {
  if (columns_.at(c)) return columns_[c];
  if (device_) {
    columns_[c] = device_->columns.at(c);
  } else if (scan_) {
    const ResidentKey key{scan_->table_name, version_, scan_->scan_columns.at(c)};
    columns_[c] = env_.resident.share(env_.device, key, host_->column(c), passes_);
  } else {
    const Column& host = host_->column(c);
    const auto start = std::chrono::steady_clock::now();
    owned_.push_back(std::make_shared<const DeviceColumn>(upload_column(env_.device, host)));
    PassRecord p;
    p.kind = "upload";
    p.detail =
        host.name + " (" + std::to_string(host.size() * 4) + " bytes, a " + plan::to_string(child_.kind) + " result)";
    p.items = host.size();
    p.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    passes_.push_back(std::move(p));
    columns_[c] = owned_.back();
  }
  return columns_[c];
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

void hand_over_groups(engine::FragmentRun& out, const engine::Fragment& f, const plan::Node& agg, Table t,
                      uint64_t groups, const std::vector<const plan::Node*>& layers) {
  const auto start = std::chrono::steady_clock::now();
  uint64_t rows = groups;
  t = apply_layers(std::move(t), rows, layers);
  if (f.root != &agg) {
    engine::NodeRun top;
    top.algorithm = "compute: select list, key order and LIMIT of the " + std::to_string(groups) +
                    " groups kept on the host (the groups come ascending by key)";
    top.rows_in = groups;
    top.rows_out = rows;
    top.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out.nodes[f.root] = top;
  }
  cpu::HostRelation result = cpu::HostRelation::of(std::move(t));
  result.row_count = rows;
  out.result = std::move(result);
}

std::string layers_keep_order(const plan::Node& agg, const std::vector<const plan::Node*>& layers) {
  std::vector<size_t> map(agg.schema.size());  // layer output column -> Aggregate output column
  for (size_t i = 0; i < map.size(); ++i) map[i] = i;
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
    const plan::Node& l = **it;
    if (l.kind == plan::NodeKind::Project) {
      std::vector<size_t> next;
      for (const auto& e : l.exprs) next.push_back(map.at(e.column));
      map = std::move(next);
    } else if (l.kind == plan::NodeKind::Sort) {
      for (size_t i = 0; i < l.sort_keys.size(); ++i) {
        const auto& k = l.sort_keys[i];
        if (k.descending || map.at(k.column) != i || i >= agg.group_keys.size())
          return "ORDER BY " + l.schema[k.column].name + (k.descending ? " DESC" : "") +
                 " is not the groups' key order (the compute GROUP BY gives groups ascending by key)";
      }
    }
  }
  return {};
}

}  // namespace gfxq::vk
