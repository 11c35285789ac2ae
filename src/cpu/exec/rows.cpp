// Row-level helpers of the CPU operators: gathering cells, order keys of cells, string re-coding;
// and the operators that only move rows: scan, filter, project, limit.

#include <bit>

#include "core/order_key.h"
#include "cpu/exec/eval.h"
#include "cpu/exec/ops.h"
#include "gfxq/error.h"

namespace gfxq::cpu {

Column gather_column(const Column& src, const std::vector<uint64_t>& rows, const std::string& name) {
  Column out = Column::make(name, src.type);
  out.dictionary = src.dictionary;
  std::visit(
      [&](const auto& values) {
        using V = std::decay_t<decltype(values)>;
        V dst(rows.size());
        for (size_t i = 0; i < rows.size(); ++i) dst[i] = values[rows[i]];
        out.data = std::move(dst);
      },
      src.data);
  if (!src.nulls.empty()) {
    out.nulls.resize(rows.size());
    bool any = false;
    for (size_t i = 0; i < rows.size(); ++i) any |= (out.nulls[i] = src.nulls[rows[i]]) != 0;
    if (!any) out.nulls.clear();
  }
  return out;
}

int CellKeys::compare(uint64_t r, uint64_t s) const noexcept {
  const bool nr = is_null(r), ns = is_null(s);
  if (nr || ns) return nr == ns ? 0 : (nr ? -1 : 1);
  return key[r] < key[s] ? -1 : (key[r] > key[s] ? 1 : 0);
}

CellKeys cell_keys(const Column& c) {
  CellKeys k;
  const uint64_t n = c.size();
  k.key.resize(n);
  switch (c.type) {
    case Type::Int32:
    case Type::Date:
    case Type::String: {
      const auto& v = c.as<int32_t>();
      for (uint64_t r = 0; r < n; ++r) k.key[r] = int_key(v[r]);
      break;
    }
    case Type::Int64: {
      const auto& v = c.as<int64_t>();
      for (uint64_t r = 0; r < n; ++r) k.key[r] = std::bit_cast<uint64_t>(v[r]) ^ (uint64_t(1) << 63);
      break;
    }
    case Type::Float32: {
      const auto& v = c.as<float>();
      for (uint64_t r = 0; r < n; ++r) k.key[r] = float_key(v[r]);
      break;
    }
    case Type::Float64: {
      const auto& v = c.as<double>();
      for (uint64_t r = 0; r < n; ++r) {
        double d = v[r];
        if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
        if (d == 0) d = 0.0;
        const uint64_t bits = std::bit_cast<uint64_t>(d);
        k.key[r] = (bits >> 63) ? ~bits : (bits | (uint64_t(1) << 63));
      }
      break;
    }
  }
  if (!c.nulls.empty()) {
    k.null = c.nulls;
    for (uint64_t r = 0; r < n; ++r)
      if (k.null[r]) k.key[r] = 0;
  }
  return k;
}

Column recode(const Column& c, const std::shared_ptr<const Dictionary>& dictionary) {
  if (c.type != Type::String || c.dictionary == dictionary) return c;
  std::vector<int32_t> map(c.dictionary->size());
  for (size_t i = 0; i < map.size(); ++i) {
    const auto code = dictionary->find(c.dictionary->value(i));
    if (!code)
      throw Error(ErrorCode::Internal, "recode: '" + std::string(c.dictionary->value(i)) + "' missing from the target");
    map[i] = *code;
  }
  Column out = c;
  out.dictionary = dictionary;
  auto& codes = out.as<int32_t>();
  for (uint64_t r = 0; r < codes.size(); ++r)
    if (!out.is_null(r)) codes[r] = map[size_t(codes[r])];
  return out;
}

HostRelation run_scan(const plan::Node& node, std::string& how) {
  how = "table " + node.table_name + " in host memory, " + std::to_string(node.scan_columns.size()) + " of " +
        std::to_string(node.table->columns.size()) + " columns";
  return HostRelation::view(*node.table, node.scan_columns);
}

HostRelation run_filter(const plan::Node& node, const HostRelation& in, std::string& how) {
  const std::vector<uint64_t> rows = true_rows(*node.predicate, in);
  Table out;
  for (size_t i = 0; i < node.schema.size(); ++i)
    out.columns.push_back(gather_column(in.column(i), rows, node.schema[i].name));
  how = "expression evaluated a column at a time, rows gathered";
  HostRelation r = HostRelation::of(std::move(out));
  r.row_count = rows.size();
  return r;
}

HostRelation run_project(const plan::Node& node, const HostRelation& in, std::string& how) {
  Table out;
  for (size_t i = 0; i < node.exprs.size(); ++i) {
    const plan::Expr& e = node.exprs[i];
    if (e.is_column()) {
      Column c = in.column(e.column);
      c.name = node.schema[i].name;
      out.columns.push_back(std::move(c));
    } else {
      out.columns.push_back(evaluate(e, in, node.schema[i].name));
    }
  }
  how = std::to_string(node.exprs.size()) + " expressions evaluated a column at a time";
  HostRelation r = HostRelation::of(std::move(out));
  r.row_count = in.rows();
  return r;
}

HostRelation run_limit(const plan::Node& node, const HostRelation& in, std::string& how) {
  const uint64_t first = std::min(node.offset, in.rows());
  const uint64_t count = std::min(node.limit, in.rows() - first);
  std::vector<uint64_t> rows(count);
  for (uint64_t i = 0; i < count; ++i) rows[i] = first + i;
  Table out;
  for (size_t i = 0; i < node.schema.size(); ++i)
    out.columns.push_back(gather_column(in.column(i), rows, node.schema[i].name));
  how = "rows " + std::to_string(first) + " to " + std::to_string(first + count) + " kept";
  HostRelation r = HostRelation::of(std::move(out));
  r.row_count = count;
  return r;
}

}  // namespace gfxq::cpu
