// The raster backend's router: binds a query and runs it on the raster operators (select.h,
// aggregate.h, sort.h, join.h), gathering projections on the host at the row ids they return.
#include "gl/execute.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>

#include "core/order_key.h"
#include "core/trace_text.h"
#include "gfxq/error.h"
#include "gl/aggregate.h"
#include "gl/group_by.h"
#include "gl/join.h"
#include "gl/select.h"
#include "gl/sort.h"

namespace gfxq::gl {

namespace {

using Clock = std::chrono::steady_clock;

// Values of a FLOAT column as a function of their order keys over some rows: the bits of the
// zero and NaN values present (every other key decodes to one value). Empty when -0.0 sits next
// to 0.0 or NaNs of different bits appear: then the keys do not give back the stored bits.
struct KeyDecoder {
  Type type = Type::Int32;
  std::optional<uint32_t> zero_bits, nan_bits;
  Value value(uint32_t key) const {
    if (type == Type::Int32) return int_from_key(key);
    if (zero_bits && key == float_key(0.0f)) return std::bit_cast<float>(*zero_bits);
    if (nan_bits && key == float_key(std::bit_cast<float>(0x7fc00000u))) return std::bit_cast<float>(*nan_bits);
    return float_from_key(key);
  }
};

std::optional<KeyDecoder> key_decoder(const Column& column, const std::vector<uint64_t>* rows) {
  KeyDecoder d{column.type, std::nullopt, std::nullopt};
  if (column.type == Type::Int32) return d;
  const auto& values = column.as<float>();
  const uint64_t n = rows ? rows->size() : values.size();
  for (uint64_t i = 0; i < n; ++i) {
    const float v = values[rows ? (*rows)[i] : i];
    const uint32_t bits = std::bit_cast<uint32_t>(v);
    std::optional<uint32_t>* seen = v == 0.0f ? &d.zero_bits : (std::isnan(v) ? &d.nan_bits : nullptr);
    if (!seen) continue;
    if (*seen && **seen != bits) return std::nullopt;
    *seen = bits;
  }
  return d;
}

// ORDER BY: the WHERE's row ids (stencil readback), then the sort of those rows by the order
// column; the blending network where the result is only the order column and its values are a
// function of their keys, else the pair network and a host gather at the sorted row ids.
Result execute_order_by(Context& context, const BoundQuery& bq, const RasterOptions& options,
                        std::chrono::steady_clock::time_point start) {
  const BoundOrder& order = *bq.order_by;
  std::vector<size_t> columns = where_columns(bq.where);
  if (std::find(columns.begin(), columns.end(), order.column.index) == columns.end())
    columns.push_back(order.column.index);
  const RasterInput input(context, *bq.left, bq.left_name, columns, options);
  const size_t slot = input.slot(order.column.index);
  // No WHERE: no row list (WhereOutput::Count runs no pass then).
  WhereResult where =
      evaluate_where(context, input, bq.where, bq.where.empty() ? WhereOutput::Count : WhereOutput::Rows, options);
  // Every row selected: the sort builds its records from the column's textures on the GPU;
  // otherwise from the selected rows' keys, uploaded.
  const std::vector<uint64_t>* rows = where.count == bq.left->rows() ? nullptr : &where.rows;

  Result result;
  result.report.backend = Backend::Raster;
  result.report.passes.push_back(input.upload());
  for (auto& p : where.passes) result.report.passes.push_back(std::move(p));

  const Column& key_column = bq.column(order.column);
  const bool keys_only = std::all_of(bq.items.begin(), bq.items.end(), [&](const BoundItem& item) {
    return std::get<BoundColumn>(item).index == order.column.index;
  });
  const std::optional<KeyDecoder> decoder = keys_only ? key_decoder(key_column, rows) : std::nullopt;
  const ColumnInfo& info = input.store().info(slot);
  const bool span_fits = where.count == 0 || blend_applicable(order.descending ? ~info.keys.hi : info.keys.lo,
                                                              order.descending ? ~info.keys.lo : info.keys.hi);
  std::string why;
  if (!keys_only)
    why = "pairs: the result has columns other than the order column";
  else if (!decoder)
    why = "pairs: the order column holds -0.0 and 0.0 or NaNs of different bits, so keys do not give back values";
  else if (!span_fits)
    why = "pairs: the key span exceeds the 2^32 - 2^25 normal floats blending compares exactly";

  Table& out = result.table;
  for (const auto& c : bq.output) out.columns.push_back(Column::make(c.name, c.type));
  std::string sort_algorithm;
  Clock::time_point gather_start;
  PassRecord gather;
  gather.kind = "gather";
  if (why.empty()) {
    // The column's key span bounds the selection's; sort_keys_blend checks the selection's again.
    KeySortOutput sorted = sort_keys_blend(context, input, slot, order.descending, options, rows, bq.limit);
    sort_algorithm = sorted.algorithm;
    for (auto& p : sorted.passes) result.report.passes.push_back(std::move(p));
    gather_start = Clock::now();
    for (auto& c : out.columns)
      for (uint32_t key : sorted.keys) c.push(decoder->value(key));
    gather.detail = "values decoded from the sorted keys on the host (the result is the order column only)";
    gather.items = sorted.keys.size();
  } else {
    SortOutput sorted = sort_rows(context, input, slot, order.descending, options, rows, bq.limit);
    sort_algorithm = sorted.algorithm + " [" + why + "]";
    for (auto& p : sorted.passes) result.report.passes.push_back(std::move(p));
    gather_start = Clock::now();
    for (size_t i = 0; i < bq.items.size(); ++i) {
      const Column& src = bq.column(std::get<BoundColumn>(bq.items[i]));
      std::visit(
          [&](const auto& values) {
            using V = std::decay_t<decltype(values)>;
            V& d = std::get<V>(out.columns[i].data);
            d.reserve(sorted.rows.size());
            for (uint64_t r : sorted.rows) d.push_back(values[r]);
          },
          src.data);
    }
    gather.detail = "host gather of " + std::to_string(out.columns.size()) + " column(s) at the sorted row ids";
    gather.items = sorted.rows.size();
  }
  if (bq.limit) gather.detail += " (LIMIT " + std::to_string(*bq.limit) + ": the first of the sorted order)";
  gather.wall_ms = ms_since(gather_start);
  result.report.passes.push_back(std::move(gather));
  result.report.algorithm = where.algorithm + "; ORDER BY " + order.column.name +
                            (order.descending ? " DESC" : " ASC") + ": " + sort_algorithm;
  result.report.total_ms = ms_since(start);
  return result;
}

// GROUP BY: the WHERE's kept stencil (select.h, WhereOutput::Keep), then the groups by blending
// (group_by.h), ordered (ASC as they come, DESC reversed: group keys are distinct) and limited on
// the host; the group column's values are decoded from the groups' keys.
Result execute_group_by(Context& context, const BoundQuery& bq, const RasterOptions& options, Clock::time_point start) {
  const BoundColumn& key = *bq.group_by;
  std::vector<size_t> columns = where_columns(bq.where);
  const auto use = [&](size_t c) {
    if (std::find(columns.begin(), columns.end(), c) == columns.end()) columns.push_back(c);
  };
  use(key.index);
  for (const auto& item : bq.items)
    if (const auto* a = std::get_if<BoundAggregate>(&item); a && a->column) use(a->column->index);
  const RasterInput input(context, *bq.left, bq.left_name, columns, options);

  Result result;
  result.report.backend = Backend::Raster;
  result.report.passes.push_back(input.upload());
  std::vector<GroupAggregate> aggregates;
  for (const auto& item : bq.items)
    if (const auto* a = std::get_if<BoundAggregate>(&item))
      aggregates.push_back(
          {a->kind, a->column ? std::optional<size_t>(input.slot(a->column->index)) : std::nullopt, a->name});
  check_group_aggregates(aggregates);  // before any GPU pass

  GroupSelection selection;
  WhereResult where;
  std::vector<uint64_t> none;
  if (!bq.where.empty()) {
    where = evaluate_where(context, input, bq.where, WhereOutput::Keep, options);
    for (auto& p : where.passes) result.report.passes.push_back(std::move(p));
    selection.stencil = where.kept.get();
    if (!where.kept) selection.rows = &none;  // no row qualifies for certain
  }
  GroupByOutput groups = group_by(context, input, {input.slot(key.index)}, aggregates, selection, options);
  where.kept.reset();
  for (auto& p : groups.passes) result.report.passes.push_back(std::move(p));

  const auto gather_start = Clock::now();
  std::vector<size_t> order(groups.groups());
  for (size_t g = 0; g < order.size(); ++g) order[g] = g;
  if (bq.order_by && bq.order_by->descending) std::reverse(order.begin(), order.end());
  if (bq.limit && order.size() > *bq.limit) order.resize(*bq.limit);
  Table& out = result.table;
  for (const auto& c : bq.output) out.columns.push_back(Column::make(c.name, c.type));
  for (size_t g : order) {
    size_t a = 0;
    for (size_t i = 0; i < bq.items.size(); ++i) {
      if (std::holds_alternative<BoundColumn>(bq.items[i])) {
        const uint32_t k = groups.keys[0][g];
        out.columns[i].push(key.type == Type::Float32 ? Value(float_from_key(k)) : Value(int_from_key(k)));
      } else {
        out.columns[i].push(groups.value(a++, g));
      }
    }
  }
  PassRecord gather;
  gather.kind = "gather";
  gather.detail = "groups ascending by key" +
                  std::string(bq.order_by && bq.order_by->descending ? ", reversed (DESC)" : "") +
                  (bq.limit ? ", LIMIT " + std::to_string(*bq.limit) : "") +
                  "; group values decoded from their keys, aggregates from the blended counts on the host";
  gather.items = order.size();
  gather.wall_ms = ms_since(gather_start);
  result.report.passes.push_back(std::move(gather));
  result.report.algorithm =
      (bq.where.empty() ? std::string("raster: no WHERE, every row qualifies") : where.algorithm) + "; GROUP BY " +
      key.name + ": " + groups.algorithm;
  result.report.total_ms = ms_since(start);
  return result;
}

}  // namespace

std::string unsupported_operator(const Query& query, const Catalog& catalog) {
  const BoundQuery bq = bind(query, catalog);
  if (bq.join) return join_unsupported(bq);
  if (bq.group_by)
    for (const auto& item : bq.items)
      if (const auto* a = std::get_if<BoundAggregate>(&item);
          a && (a->kind == AggKind::Median || a->kind == AggKind::Quantile || a->kind == AggKind::KthLargest))
        return "raster backend cannot run " + a->name +
               " per group in GROUP BY (the raster GROUP BY blends COUNT, "
               "SUM, AVG, MIN and MAX)";
  return {};
}

Result execute(Context& context, const Query& query, const Catalog& catalog, const RasterOptions& given) {
  const auto start = Clock::now();
  RasterOptions options = given;
  options.catalog = &catalog;  // the versions that key the texture cache
  const BoundQuery bq = bind(query, catalog);
  if (bq.join) return execute_join(context, bq, options);
  if (bq.group_by) return execute_group_by(context, bq, options, start);
  if (bq.aggregate)
    for (const auto& item : bq.items)
      if (const auto* a = std::get_if<BoundAggregate>(&item); a && a->kind != AggKind::Count)
        return execute_aggregates(context, bq, options);

  if (bq.order_by) return execute_order_by(context, bq, options, start);

  // The columns the WHERE reads, each uploaded once.
  const std::vector<size_t> columns = where_columns(bq.where);
  const RasterInput input(context, *bq.left, bq.left_name, columns, options);
  const std::optional<uint64_t> limit = bq.aggregate ? std::nullopt : bq.limit;
  WhereResult where =
      evaluate_where(context, input, bq.where, bq.aggregate ? WhereOutput::Count : WhereOutput::Rows, options, limit);

  Result result;
  result.report.backend = Backend::Raster;
  result.report.algorithm = where.algorithm;
  if (!columns.empty()) result.report.passes.push_back(input.upload());
  for (auto& p : where.passes) result.report.passes.push_back(std::move(p));

  const auto gather_start = Clock::now();
  Table& out = result.table;
  for (const auto& c : bq.output) out.columns.push_back(Column::make(c.name, c.type));
  if (bq.aggregate) {
    // COUNT(*) and COUNT(c) (no NULLs) are the qualifying rows; LIMIT 0 removes the one row.
    if (!bq.limit || *bq.limit > 0)
      for (auto& c : out.columns) c.push(static_cast<int64_t>(where.count));
  } else {
    for (size_t i = 0; i < bq.items.size(); ++i) {
      const Column& src = bq.column(std::get<BoundColumn>(bq.items[i]));
      Column& dst = out.columns[i];
      std::visit(
          [&](const auto& values) {
            using V = std::decay_t<decltype(values)>;
            V& d = std::get<V>(dst.data);
            d.reserve(where.rows.size());
            for (uint64_t r : where.rows) d.push_back(values[r]);
          },
          src.data);
    }
    PassRecord gather;
    gather.kind = "gather";
    gather.detail = "host gather of " + std::to_string(out.columns.size()) + " column(s) at the qualifying row ids" +
                    (bq.limit ? " (LIMIT " + std::to_string(*bq.limit) + ": the first ids)" : "");
    gather.items = where.rows.size();
    gather.wall_ms = ms_since(gather_start);
    result.report.passes.push_back(std::move(gather));
  }
  result.report.total_ms = ms_since(start);
  return result;
}

}  // namespace gfxq::gl
