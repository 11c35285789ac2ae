#include "engine/placement.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/order_key.h"
#include "cpu/exec/eval.h"
#include "engine/executor.h"
#include "gfxq/error.h"
#include "gfxq/placement.h"
#include "gl/calibration.h"

namespace gfxq::engine {

namespace {

using plan::Expr;
using plan::ExprKind;
using plan::Node;
using plan::NodeKind;
using Kind = gl::PlanNodeShape::Kind;

constexpr uint64_t kSample = uint64_t(1) << 16;        // values sampled per column for a key span
constexpr uint64_t kWindow = uint64_t(1) << 24;        // keys one 24-bit depth part compares
constexpr uint64_t kDirectGroups = uint64_t(1) << 26;  // the raster GROUP BY's default group target
constexpr uint64_t kSampleRows = 4096;                 // rows sampled for a filter's selectivity

std::string figure(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string ms_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g ms", seconds * 1e3);
  return buf;
}

// The order-key span (largest - smallest + 1) of a strided sample of `c`, or nullopt for columns
// without 32-bit order keys or with NULLs.
std::optional<uint64_t> sampled_span(const Column& c) {
  if (!c.nulls.empty() || c.size() == 0) return std::nullopt;
  const uint64_t n = c.size();
  const uint64_t stride = std::max<uint64_t>(1, n / kSample);
  uint32_t lo = UINT32_MAX, hi = 0;
  const auto take = [&](uint32_t key) {
    lo = std::min(lo, key);
    hi = std::max(hi, key);
  };
  if (const auto* v = std::get_if<std::vector<int32_t>>(&c.data)) {
    for (uint64_t i = 0; i < n; i += stride) take(int_key((*v)[i]));
  } else if (const auto* f = std::get_if<std::vector<float>>(&c.data)) {
    for (uint64_t i = 0; i < n; i += stride) take(float_key((*f)[i]));
  } else {
    return std::nullopt;
  }
  return uint64_t(hi) - lo + 1;
}

// The base column behind output column `col` of `node`, when it is a plain column of a table.
const Column* base_column(const Node& node, size_t col) {
  switch (node.kind) {
    case NodeKind::Scan: return col < node.scan_columns.size() ? &node.table->columns[node.scan_columns[col]] : nullptr;
    case NodeKind::Filter:
    case NodeKind::Sort:
    case NodeKind::Limit:
    case NodeKind::Distinct: return base_column(*node.children[0], col);
    case NodeKind::Project:
      return col < node.exprs.size() && node.exprs[col].is_column()
                 ? base_column(*node.children[0], node.exprs[col].column)
                 : nullptr;
    case NodeKind::Join: {
      const size_t left = node.children[0]->schema.size();
      return col < left ? base_column(*node.children[0], col) : base_column(*node.children[1], col - left);
    }
    default: return nullptr;
  }
}

// The span of column `col` of `node`'s output, when known.
std::optional<uint64_t> span_of(const Node& node, size_t col) {
  const Column* c = base_column(node, col);
  return c ? sampled_span(*c) : std::nullopt;
}

// Estimated groups of an Aggregate: the product of its column keys' spans, at most its input's rows.
uint64_t groups_of(const Node& agg, uint64_t input_rows) {
  double groups = 1;
  for (const Expr& k : agg.group_keys) {
    const auto span = k.is_column() ? span_of(*agg.children[0], k.column) : std::nullopt;
    groups *= span ? double(*span) : double(input_rows);
  }
  return uint64_t(std::min(groups, double(std::max<uint64_t>(input_rows, 1))));
}

// The fraction of a Filter-over-Scan's rows its condition keeps, on a strided sample of at most
// kSampleRows rows (all rows of a smaller table); 1 for other filters or when the sample cannot be
// evaluated.
double selectivity(const Node& filter) {
  const Node& scan = *filter.children[0];
  if (scan.kind != NodeKind::Scan || !scan.table || scan.table->rows() == 0) return 1;
  const uint64_t n = scan.table->rows();
  const uint64_t stride = (n + kSampleRows - 1) / kSampleRows;
  Table sample;
  for (size_t c : scan.scan_columns) {
    const Column& from = scan.table->columns[c];
    Column to = Column::make(from.name, from.type);
    to.dictionary = from.dictionary;
    std::visit(
        [&](const auto& values) {
          using V = std::decay_t<decltype(values)>;
          V& out = std::get<V>(to.data);
          for (uint64_t r = 0; r < n; r += stride) out.push_back(values[r]);
        },
        from.data);
    if (!from.nulls.empty())
      for (uint64_t r = 0; r < n; r += stride) to.nulls.push_back(from.nulls[r]);
    sample.columns.push_back(std::move(to));
  }
  try {
    const cpu::HostRelation rel = cpu::HostRelation::of(std::move(sample));
    return double(cpu::true_rows(*filter.predicate, rel).size()) / double(rel.rows());
  } catch (const Error&) {
    return 1;  // e.g. an overflow on a sampled row: no estimate
  }
}

// Rows `node` produces: a Filter over a Scan keeps its sampled selectivity, other filters every row.
uint64_t rows_of(const Node& node) {
  switch (node.kind) {
    case NodeKind::Scan: return node.table ? node.table->rows() : 0;
    case NodeKind::Filter: return uint64_t(std::ceil(double(rows_of(*node.children[0])) * selectivity(node)));
    case NodeKind::Limit: return std::min(node.limit, rows_of(*node.children[0]));
    case NodeKind::Join: return std::max(rows_of(*node.children[0]), rows_of(*node.children[1]));
    case NodeKind::Aggregate: return node.group_keys.empty() ? 1 : groups_of(node, rows_of(*node.children[0]));
    case NodeKind::SetOp: return rows_of(*node.children[0]) + rows_of(*node.children[1]);
    default: return node.children.empty() ? 0 : rows_of(*node.children[0]);
  }
}

// Comparisons and the widest 24-bit part count of a filter's condition.
void count_comparisons(const Expr& e, const Node& input, uint32_t& comparisons, uint32_t& parts) {
  if (e.kind == ExprKind::Compare) {
    ++comparisons;
    for (const Expr& side : e.args)
      if (side.is_column()) {
        const auto span = span_of(input, side.column);
        if (!span || *span > kWindow) parts = 2;
      }
    return;
  }
  for (const Expr& a : e.args) count_comparisons(a, input, comparisons, parts);
}

}  // namespace

gl::CostEstimate ComputeCostModel::estimate(const gl::PlanNodeShape& node) const {
  const double n = double(node.rows);
  double bytes = 0, kernels = 1;
  std::string what;
  switch (node.kind) {
    case Kind::Scan:
      bytes = n * node.columns * 4 * 2;
      what = "columns read and written";
      break;
    case Kind::Filter:
      bytes = n * 4 * (double(node.columns) + (node.row_ids ? 1 : 0));
      kernels = node.row_ids ? 2 : 1;
      what = "fused CNF kernel over the columns" + std::string(node.row_ids ? ", row ids written" : "");
      break;
    case Kind::Aggregate:
      bytes = n * 4 * (double(node.columns) + 3.0 * node.searches);
      kernels = 1 + 3.0 * node.searches;
      what = "fused aggregate kernel, radix-select scans for quantiles";
      break;
    case Kind::GroupBy:
      bytes = n * 4 * (double(node.columns) + 2.0 * (1 + node.sums + node.searches));
      kernels = 3;
      what = "hash GROUP BY (inserts and atomic updates)";
      break;
    case Kind::Sort:
      bytes = n * 8 * 2 * 4;
      kernels = 12;
      what = "radix sort of (key, row id), 4 digit passes";
      break;
    case Kind::Join:
      bytes = (n + double(node.inner_rows)) * 8 * 2 * 3 + n * 8;
      kernels = 10;
      what = "partitioned hash join, pairs written";
      break;
  }
  gl::CostEstimate e;
  e.seconds = bytes / std::max(f_.bytes_per_s, 1.0) + kernels * f_.dispatch_s + f_.submit_s;
  e.passes = uint64_t(kernels);
  e.fragments = node.rows;
  e.basis = what + ": " + figure(bytes) + " bytes, " + figure(kernels) + " kernel(s), one submission; " + figures();
  return e;
}

std::string ComputeCostModel::figures() const {
  return figure(f_.bytes_per_s) + " B/s, " + figure(f_.dispatch_s * 1e6) + " us per kernel, " +
         figure(f_.submit_s * 1e3) + " ms per submission (" + f_.source + ")";
}

gl::CostEstimate CpuCostModel::estimate(const gl::PlanNodeShape& node) const {
  const double n = double(node.rows);
  const double values = std::max(f_.values_per_s, 1.0), hashes = std::max(f_.hash_rows_per_s, 1.0);
  gl::CostEstimate e;
  std::string what;
  switch (node.kind) {
    case Kind::Scan:
      e.seconds = n * node.columns / values;
      what = figure(n * node.columns) + " values copied";
      break;
    case Kind::Filter:
      e.seconds = n * std::max<uint32_t>(node.comparisons, 1) / values;
      what = figure(n * node.comparisons) + " comparisons";
      break;
    case Kind::Aggregate: {
      const double per_row = double(node.comparisons) + node.sums + node.searches + 1;
      e.seconds = n * per_row / values;
      what = figure(n * per_row) + " values evaluated";
      break;
    }
    case Kind::GroupBy:
      e.seconds = n * (1.0 + node.sums + node.searches) / hashes;
      what = figure(n) + " rows hashed, " + figure(double(node.sums + node.searches + 1)) + " aggregate(s)";
      break;
    case Kind::Sort: {
      const double steps = n * std::max(1.0, std::log2(std::max(n, 2.0)));
      e.seconds = steps / std::max(f_.sort_steps_per_s, 1.0);
      what = figure(steps) + " sort steps";
      break;
    }
    case Kind::Join:
      e.seconds = (n + double(node.inner_rows)) / hashes;
      what = figure(n + double(node.inner_rows)) + " rows built or probed";
      break;
  }
  e.passes = 1;
  e.fragments = node.rows;
  e.basis = what + "; " + figures();
  return e;
}

std::string CpuCostModel::figures() const {
  return figure(f_.values_per_s) + " values/s, " + figure(f_.hash_rows_per_s) + " hashed rows/s, " +
         figure(f_.sort_steps_per_s) + " sort steps/s (" + f_.source + ")";
}

std::string CostTable::text() const {
  const auto line = [](const char* name, const std::shared_ptr<const gl::CostModel>& m, const std::string& absent) {
    return std::string("  ") + name + ": " + (m ? m->figures() : "no candidate for auto: " + absent) + "\n";
  };
  return "placement cost models (auto picks the cheapest predicted backend per plan fragment):\n" +
         line("compute", compute, compute_absent) + line("raster", raster, raster_absent) + line("cpu", cpu, "none");
}

CpuFigures default_cpu_figures() {
  // The reference engine evaluates rows one at a time with three-valued logic on one core: measured
  // on the development machine (scan + filter + COUNT at 2^22 rows) and, for GROUP BY and joins, on the
  // H200 host (BENCHMARKS.md, engine round: GROUP BY of 2^24 rows in 2.5 s).
  return {.values_per_s = 1.0e8,
          .hash_rows_per_s = 6.7e6,
          .sort_steps_per_s = 5.0e7,
          .source = "defaults measured with the CPU reference engine"};
}

ComputeFigures default_compute_figures(const std::string& device_type) {
  // Vulkan reports no memory bandwidth. The submission figure is the warm query's host path measured
  // on the H200 (BENCHMARKS.md, engine round: about 1.7 ms per call); bandwidths are conservative
  // figures per device type (the H200's copy kernel measured 3.98e12 B/s).
  if (device_type == "discrete")
    return {.bytes_per_s = 1.0e12, .dispatch_s = 5e-6, .submit_s = 1.7e-3, .source = "defaults for a discrete GPU"};
  if (device_type == "integrated")
    return {.bytes_per_s = 1.0e11, .dispatch_s = 5e-6, .submit_s = 1.7e-3, .source = "defaults for an integrated GPU"};
  return {.bytes_per_s = 5.0e10,
          .dispatch_s = 5e-6,
          .submit_s = 1.7e-3,
          .source = "defaults for a " + device_type + " device"};
}

}  // namespace gfxq::engine

std::string gfxq::placement_figures(const EngineOptions& options) {
  engine::Backends backends(options);
  engine::BackendImpl& raster = backends.get(Backend::Raster);
  const gl::RasterCalibration* c =
      engine::raster_capabilities(raster).available ? engine::raster_calibration(raster) : nullptr;
  return (c ? c->text() : "raster calibration: none (no OpenGL context, or RasterOptions::calibration \"off\")") +
         "\n" + backends.costs().text();
}

namespace gfxq::engine {

CostTable default_cost_table(Backends& backends) {
  CostTable t;
  t.cpu = std::make_shared<CpuCostModel>(default_cpu_figures());
  const VkCapabilities& vk = compute_capabilities(backends.get(Backend::Compute));
  if (!vk.available)
    t.compute_absent = "no Vulkan device (" + vk.unavailable_reason + ")";
  else if (vk.device_type == "cpu")
    t.compute_absent =
        "the only Vulkan device, " + vk.device_name + ", is a CPU implementation (the CPU engine is faster there)";
  else
    t.compute = std::make_shared<ComputeCostModel>(default_compute_figures(vk.device_type));
  BackendImpl& raster = backends.get(Backend::Raster);
  const GlCapabilities& gl = raster_capabilities(raster);
  const bool software = gl.renderer.find("llvmpipe") != std::string::npos ||
                        gl.renderer.find("softpipe") != std::string::npos ||
                        gl.renderer.find("swrast") != std::string::npos;
  if (!gl.available) {
    t.raster_absent = "no OpenGL context (" + gl.unavailable_reason + ")";
  } else if (software) {
    t.raster_absent = "the OpenGL renderer, " + gl.renderer + ", is a CPU implementation";
  } else if (const gl::RasterCalibration* c = raster_calibration(raster)) {
    t.raster = std::make_shared<gl::RasterCostModel>(*c);
  } else {
    t.raster_absent = "raster calibration is off (RasterOptions::calibration \"off\")";
  }
  return t;
}

gl::PlanNodeShape fragment_shape(const Fragment& fragment, const Catalog&) {
  const Node *join = nullptr, *agg = nullptr, *sort = nullptr;
  std::vector<const Node*> filters;
  uint32_t columns = 0;
  for (const Node* n : fragment.nodes) {
    switch (n->kind) {
      case NodeKind::Join: join = n; break;
      case NodeKind::Aggregate: agg = n; break;
      case NodeKind::Sort: sort = n; break;
      case NodeKind::Filter: filters.push_back(n); break;
      case NodeKind::Scan: columns += uint32_t(n->scan_columns.size()); break;
      default: break;
    }
  }
  gl::PlanNodeShape s;
  s.upload = true;
  if (columns == 0)
    columns = uint32_t(fragment.root->children.empty() ? fragment.root->schema.size()
                                                       : fragment.root->children[0]->schema.size());
  s.columns = std::max<uint32_t>(columns, 1);
  uint32_t comparisons = 0, parts = 1, clauses = 0;
  for (const Node* f : filters) {
    count_comparisons(*f->predicate, *f->children[0], comparisons, parts);
    clauses += f->predicate->kind == ExprKind::And ? uint32_t(f->predicate->args.size()) : 1;
  }
  s.comparisons = comparisons;
  s.parts = parts;
  s.clauses = clauses;
  // The rows a fused operator reads: a WHERE it covers runs over every row of its table.
  const auto read_rows = [&](const Node& input) {
    const bool covered = std::find(fragment.nodes.begin(), fragment.nodes.end(), &input) != fragment.nodes.end();
    return input.kind == NodeKind::Filter && covered ? rows_of(*input.children[0]) : rows_of(input);
  };
  if (join) {
    s.kind = Kind::Join;
    s.rows = rows_of(*join->children[0]);
    s.inner_rows = rows_of(*join->children[1]);
  } else if (agg) {
    s.rows = read_rows(*agg->children[0]);
    uint32_t planes = 0;
    for (const auto& a : agg->aggs) {
      const bool sum = a.kind == AggKind::Sum || a.kind == AggKind::Avg;
      if (sum) {
        ++s.sums;
        const Column* c = a.arg && a.arg->is_column() ? base_column(*agg->children[0], a.arg->column) : nullptr;
        const bool is_float = c && c->type == Type::Float32;
        const auto span = c ? sampled_span(*c) : std::nullopt;
        // INT: the bit planes of value - min (GROUP BY) or 32 (aggregates); FLOAT: tens of planes.
        planes += is_float ? 40u : (agg->group_keys.empty() || !span ? 32u : uint32_t(std::bit_width(*span)));
      } else if (a.kind != AggKind::Count) {
        ++s.searches;
      }
    }
    s.sum_planes = s.sums ? std::max<uint32_t>(1, planes / s.sums) : 32;
    if (agg->group_keys.empty()) {
      s.kind = Kind::Aggregate;
    } else {
      s.kind = Kind::GroupBy;
      s.groups = groups_of(*agg, rows_of(*agg->children[0]));
      double product = 1;
      for (const Expr& k : agg->group_keys) {
        const auto span = k.is_column() ? span_of(*agg->children[0], k.column) : std::nullopt;
        product *= span ? double(*span) : std::numeric_limits<double>::infinity();
      }
      s.rank_ids = product > double(kDirectGroups);
    }
  } else if (sort) {
    s.kind = Kind::Sort;
    s.rows = rows_of(*sort->children[0]);
  } else if (!filters.empty()) {
    s.kind = Kind::Filter;
    s.rows = rows_of(*filters.back()->children[0]);
    s.row_ids = true;
  } else {
    s.kind = Kind::Scan;
    s.rows = rows_of(*fragment.root);
  }
  return s;
}

std::vector<AutoPlacer::Option> AutoPlacer::options(const Node& node, std::string& refused) {
  std::vector<Option> out;
  // In tie order: compute, raster, CPU.
  const std::pair<Backend, const std::shared_ptr<const gl::CostModel>*> candidates[] = {
      {Backend::Compute, &costs_.compute}, {Backend::Raster, &costs_.raster}, {Backend::Cpu, &costs_.cpu}};
  for (const auto& [backend, model] : candidates) {
    const std::string name = to_string(backend);
    if (!*model) {
      if (backend != Backend::Cpu)
        refused += "; " + name + ": " + (backend == Backend::Raster ? costs_.raster_absent : costs_.compute_absent);
      continue;
    }
    std::string why;
    auto f = backends_.get(backend).claim(node, catalog_, why);
    if (!f) {
      refused += "; " + name + " cannot: " + why;
      continue;
    }
    Option o{backend, std::move(*f), {}, 0};
    const gl::PlanNodeShape shape = fragment_shape(o.fragment, catalog_);
    if (backend == Backend::Raster && shape.kind == Kind::GroupBy && shape.groups > kDirectGroups) {
      // A claim does not look at the data; the operator refuses more groups than its target holds.
      refused += "; raster cannot: about " + figure(double(shape.groups)) +
                 " groups estimated, more than its group target's 2^26 pixels";
      continue;
    }
    o.own = (*model)->estimate(shape);
    o.total = o.own.seconds;
    for (const Node* in : o.fragment.inputs) o.total += cheapest(*in);
    out.push_back(std::move(o));
  }
  return out;
}

double AutoPlacer::cheapest(const Node& node) {
  if (auto it = cheapest_.find(&node); it != cheapest_.end()) return it->second;
  std::string refused;
  double best = std::numeric_limits<double>::infinity();
  for (const Option& o : options(node, refused)) best = std::min(best, o.total);
  cheapest_[&node] = best;
  return best;
}

AutoChoice AutoPlacer::choose(const Node& node) {
  std::string refused;
  std::vector<Option> opts = options(node, refused);
  if (opts.empty()) throw Error(ErrorCode::Internal, "no backend can run " + node.label() + refused);
  size_t best = 0;
  for (size_t i = 1; i < opts.size(); ++i)
    if (opts[i].total < opts[best].total) best = i;
  cheapest_[&node] = opts[best].total;
  AutoChoice c;
  c.backend = opts[best].backend;
  std::string compared;
  for (const Option& o : opts)
    compared += std::string(compared.empty() ? "" : ", ") + to_string(o.backend) + " " + ms_text(o.total);
  c.reason = "auto: " + std::string(to_string(c.backend)) + " predicted cheapest (" + compared +
             (opts[best].fragment.inputs.empty() ? "" : " with the inputs") + "; this fragment " +
             ms_text(opts[best].own.seconds) + ")" + refused;
  c.fragment = std::move(opts[best].fragment);
  return c;
}

}  // namespace gfxq::engine
