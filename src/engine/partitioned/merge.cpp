#include "engine/partitioned/merge.h"

#include "core/bind.h"
#include "gfxq/error.h"

namespace gfxq::engine::partitioned {

namespace {

using plan::Node;
using plan::NodeKind;

// A Scan of catalog table `name` with `schema` (the table's columns in order).
std::unique_ptr<Node> scan_of(const Catalog& catalog, const std::string& name, const plan::Schema& schema) {
  auto n = std::make_unique<Node>();
  n->kind = NodeKind::Scan;
  n->table_name = name;
  n->table = &catalog.get(name);
  n->schema = schema;
  for (size_t c = 0; c < schema.size(); ++c) n->scan_columns.push_back(c);
  return n;
}

// The partials aggregated again by their key columns: SUM of COUNTs and SUMs, MIN of MINs, MAX of MAXes.
std::unique_ptr<Node> merge_aggregate(const Split& split, std::unique_ptr<Node> scan) {
  auto n = std::make_unique<Node>();
  n->kind = NodeKind::Aggregate;
  const plan::Schema& in = split.partial_schema;
  for (size_t k = 0; k < split.group_keys; ++k) {
    n->group_keys.push_back(plan::column_expr(k, in[k].type, in[k].name, in[k].dictionary));
    n->schema.push_back(in[k]);
  }
  for (size_t j = 0; j < split.partial_aggs.size(); ++j) {
    const PartialAgg& pa = split.partial_aggs[j];
    const size_t c = split.group_keys + j;
    plan::AggCall call;
    call.kind = pa.merge;
    call.arg = plan::column_expr(c, pa.type, in[c].name, in[c].dictionary);
    call.type = plan::agg_result_type(pa.merge, pa.type);
    call.text = std::string(pa.merge == AggKind::Sum   ? "SUM"
                            : pa.merge == AggKind::Min ? "MIN"
                                                       : "MAX") +
                "(" + in[c].name + ")";
    plan::SchemaColumn col;
    col.name = call.text;
    col.type = call.type;
    col.dictionary = in[c].dictionary;
    n->schema.push_back(col);
    n->aggs.push_back(std::move(call));
  }
  n->children.push_back(std::move(scan));
  return n;
}

// The split Aggregate's output (`schema`) from the merged partials `m`: keys and merged aggregates as
// they are, AVG as the merged SUM over the merged COUNT rounded once as one device rounds it.
Table finish_aggregates(const Split& split, const Table& m, const plan::Schema& schema) {
  Table out;
  auto named = [](Column c, size_t i) {
    c.name = "c" + std::to_string(i);
    return c;
  };
  for (size_t k = 0; k < split.group_keys; ++k) out.columns.push_back(named(m.columns[k], k));
  for (const AggFinish& f : split.finish) {
    const size_t i = out.columns.size();
    if (f.kind != AggKind::Avg) {
      out.columns.push_back(named(m.columns[f.column], i));
      continue;
    }
    const Column& sum = m.columns[f.column];
    const Column& count = m.columns[f.count_column];
    Column avg = Column::make("c" + std::to_string(i), Type::Float64);
    auto& values = avg.as<double>();
    for (uint64_t r = 0; r < m.rows(); ++r) {
      const int64_t n = count.as<int64_t>()[r];
      if (count.is_null(r) || sum.is_null(r) || n == 0) {
        if (avg.nulls.empty()) avg.nulls.assign(values.size(), 0);
        values.push_back(0);
        avg.nulls.push_back(1);
        continue;
      }
      values.push_back(plan::is_integer(f.arg) ? int_average(__int128(sum.as<int64_t>()[r]), uint64_t(n))
                                               : canonical_double(sum.as<double>()[r] / double(n)));
      if (!avg.nulls.empty()) avg.nulls.push_back(0);
    }
    out.columns.push_back(std::move(avg));
  }
  if (out.columns.size() != schema.size())
    throw Error(ErrorCode::Internal, "the aggregate merge made " + std::to_string(out.columns.size()) +
                                         " columns, the plan expects " + std::to_string(schema.size()));
  return out;
}

void append_passes(std::vector<PassRecord>& to, std::vector<PassRecord>& from) {
  for (auto& p : from) to.push_back(std::move(p));
}

}  // namespace

Result merge_partials(const plan::Node& root, const Split& split, Table partials, Backends& backends, Backend on) {
  Catalog catalog;
  catalog.add("partials", std::move(partials));
  std::unique_ptr<Node> top = plan::clone(root);
  Node& replaced = node_at(*top, split.replaced_path);
  const plan::Schema schema = replaced.schema;
  std::vector<PassRecord> passes;
  std::unique_ptr<Node> leaf = scan_of(catalog, "partials", split.partial_schema);
  if (split.kind == MergeKind::Aggregate) {
    const auto merge = merge_aggregate(split, std::move(leaf));
    Result merged = execute_plan(*merge, catalog, on, backends);
    append_passes(passes, merged.report.passes);
    catalog.add("merged", finish_aggregates(split, merged.table, schema));
    leaf = scan_of(catalog, "merged", schema);
  }
  if (split.replaced_path.empty())
    top = std::move(leaf);
  else
    node_at(*top, {split.replaced_path.begin(), split.replaced_path.end() - 1}).children[split.replaced_path.back()] =
        std::move(leaf);
  Result result = execute_plan(*top, catalog, on, backends);
  append_passes(passes, result.report.passes);
  result.report.passes = std::move(passes);
  return result;
}

}  // namespace gfxq::engine::partitioned
