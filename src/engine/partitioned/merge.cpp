#include "engine/partitioned/merge.h"

#include <algorithm>

#include "core/bind.h"
#include "gfxq/error.h"

namespace gfxq::engine::partitioned {

namespace {

// Partials of at most this many rows merge on the host even under a forced compute backend: on the
// H200 their upload and one GPU GROUP BY took 0.2-0.4 ms (multi.sum's 2 partial rows), the host's
// merge microseconds.
constexpr uint64_t kHostMergeRows = 256;

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

// How a partial column reaches the merge: as it is; a BIGINT column merged by SUM whose values all
// fit in INT, narrowed to an INT column (one 32-bit column to sum); or one that does not, split into
// two INT columns of 32-bit words.
enum class Words { Same, Narrowed, Split };

// Where merge_aggregate's result has partial aggregate j: one column, or for a Split column its three
// merged columns (SUM of the high words, SUM of the biased low words, COUNT), joined back into it.
struct MergedColumn {
  bool split = false;
  size_t column = 0;  // the merge's output column (split: its SUM of the high words; +1, +2 the others)
};

// The partials with every BIGINT column merged by SUM (partial COUNTs and integer SUMs) in 32-bit
// columns, which the compute GROUP BY reads (it takes no BIGINT column): narrowed to INT when every
// value fits, else split into an INT column of high words (v >> 32) and one of low words biased by
// 2^31 ((v mod 2^32) - 2^31), so v = high * 2^32 + low + 2^31. NULL flags go with both words.
// `words` receives each partial column's treatment, `columns_of` its first column in the result.
Table split_words(const Split& split, Table partials, std::vector<Words>& words, std::vector<size_t>& columns_of) {
  Table out;
  for (size_t c = 0; c < partials.columns.size(); ++c) {
    Column& col = partials.columns[c];
    columns_of.push_back(out.columns.size());
    const bool sum64 = c >= split.group_keys && split.partial_aggs[c - split.group_keys].merge == AggKind::Sum &&
                       col.type == Type::Int64;
    if (!sum64) {
      words.push_back(Words::Same);
      out.columns.push_back(std::move(col));
      continue;
    }
    const auto& v = col.as<int64_t>();
    const bool fits = std::all_of(v.begin(), v.end(), [](int64_t x) { return x == int64_t(int32_t(x)); });
    if (fits) {
      words.push_back(Words::Narrowed);
      Column n = Column::ints(col.name, std::vector<int32_t>(v.begin(), v.end()));
      n.nulls = std::move(col.nulls);
      out.columns.push_back(std::move(n));
      continue;
    }
    words.push_back(Words::Split);
    std::vector<int32_t> high(v.size()), low(v.size());
    for (size_t r = 0; r < v.size(); ++r) {
      high[r] = int32_t(v[r] >> 32);
      low[r] = int32_t(int64_t(uint32_t(v[r])) - (int64_t(1) << 31));
    }
    Column h = Column::ints(col.name + "_high", std::move(high));
    Column l = Column::ints(col.name + "_low", std::move(low));
    h.nulls = col.nulls;
    l.nulls = std::move(col.nulls);
    out.columns.push_back(std::move(h));
    out.columns.push_back(std::move(l));
  }
  return out;
}

// The partials (split_words' table: `words` and `columns_of` say where each partial column went)
// aggregated again by their key columns: SUM of COUNTs and SUMs, MIN of MINs, MAX of MAXes; a split
// BIGINT SUM as SUM(high), SUM(low) and COUNT(high). `placed` receives where each partial aggregate's
// result is.
std::unique_ptr<Node> merge_aggregate(const Split& split, const plan::Schema& in, const std::vector<Words>& words,
                                      const std::vector<size_t>& columns_of, std::unique_ptr<Node> scan,
                                      std::vector<MergedColumn>& placed) {
  auto n = std::make_unique<Node>();
  n->kind = NodeKind::Aggregate;
  for (size_t k = 0; k < split.group_keys; ++k) {
    n->group_keys.push_back(plan::column_expr(k, in[k].type, in[k].name, in[k].dictionary));
    n->schema.push_back(in[k]);
  }
  auto add = [&](AggKind kind, size_t c) {
    plan::AggCall call;
    call.kind = kind;
    call.arg = plan::column_expr(c, in[c].type, in[c].name, in[c].dictionary);
    call.type = plan::agg_result_type(kind, in[c].type);
    call.text = std::string(kind == AggKind::Sum   ? "SUM"
                            : kind == AggKind::Min ? "MIN"
                            : kind == AggKind::Max ? "MAX"
                                                   : "COUNT") +
                "(" + in[c].name + ")";
    plan::SchemaColumn col;
    col.name = call.text;
    col.type = call.type;
    col.dictionary = in[c].dictionary;
    n->schema.push_back(col);
    n->aggs.push_back(std::move(call));
  };
  for (size_t j = 0; j < split.partial_aggs.size(); ++j) {
    const PartialAgg& pa = split.partial_aggs[j];
    const size_t c = columns_of[split.group_keys + j];
    const bool split64 = words[split.group_keys + j] == Words::Split;
    placed.push_back({split64, n->schema.size()});
    if (!split64) {
      add(pa.merge, c);
      continue;
    }
    add(AggKind::Sum, c);
    add(AggKind::Sum, c + 1);
    add(AggKind::Count, c);
  }
  n->children.push_back(std::move(scan));
  return n;
}

// merge_aggregate's result with each split BIGINT SUM joined back into one column (high * 2^32 + low
// + 2^31 * count, exact in int128; past BIGINT the Overflow one device raises for the aggregate, whose
// text names the partial column), so column group_keys + j is partial aggregate j merged.
Table join_words(const Split& split, Table m, const std::vector<MergedColumn>& placed,
                 const plan::Schema& partial_schema) {
  const uint64_t rows = m.rows();
  Table out;
  for (size_t k = 0; k < split.group_keys; ++k) out.columns.push_back(std::move(m.columns[k]));
  for (size_t j = 0; j < placed.size(); ++j) {
    const MergedColumn& p = placed[j];
    if (!p.split) {
      out.columns.push_back(std::move(m.columns[p.column]));
      continue;
    }
    const Column& high = m.columns[p.column];
    const Column& low = m.columns[p.column + 1];
    const auto& count = m.columns[p.column + 2].as<int64_t>();
    const std::string& text = partial_schema[split.group_keys + j].name;
    Column sum = Column::make(text, Type::Int64);
    auto& values = sum.as<int64_t>();
    values.resize(rows);
    for (uint64_t g = 0; g < rows; ++g) {
      if (count[g] == 0) {
        if (sum.nulls.empty()) sum.nulls.assign(rows, 0);
        sum.nulls[g] = 1;
        continue;
      }
      const __int128 exact =
          (__int128(high.as<int64_t>()[g]) << 32) + low.as<int64_t>()[g] + (__int128(count[g]) << 31);
      values[g] = int_sum_result(exact, text);
    }
    out.columns.push_back(std::move(sum));
  }
  return out;
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
  std::unique_ptr<Node> top = plan::clone(root);
  Node& replaced = node_at(*top, split.replaced_path);
  const plan::Schema schema = replaced.schema;
  std::vector<PassRecord> passes;
  std::string merge_how;
  std::unique_ptr<Node> leaf;
  if (split.kind == MergeKind::Aggregate) {
    std::vector<Words> treated;
    std::vector<size_t> columns_of;
    Table words = split_words(split, std::move(partials), treated, columns_of);
    // The scan's schema: the partials' columns, a split one as its two words.
    plan::Schema in;
    for (size_t c = 0; c < split.partial_schema.size(); ++c) {
      const plan::SchemaColumn& s = split.partial_schema[c];
      if (treated[c] != Words::Split) {
        in.push_back(s);
        in.back().type = words.columns[columns_of[c]].type;
        continue;
      }
      plan::SchemaColumn word;
      word.type = Type::Int32;
      word.name = s.name + " high words";
      in.push_back(word);
      word.name = s.name + " low words";
      in.push_back(word);
    }
    catalog.add("partials", std::move(words));
    std::vector<MergedColumn> placed;
    const auto merge = merge_aggregate(split, in, treated, columns_of, scan_of(catalog, "partials", in), placed);
    // Under a forced Compute backend the merge runs there when the compute backend claims it (asked
    // first, nothing run); else it is placed by Auto and the report says why compute did not take it.
    Backend where = on;
    std::string refused;
    const uint64_t partial_rows = catalog.get("partials").rows();
    if (on == Backend::Compute && partial_rows <= kHostMergeRows) {
      where = Backend::Cpu;
      refused = " (at most " + std::to_string(kHostMergeRows) +
                " partial rows merge on the host: an upload and a GPU pass cost more)";
    } else if (on == Backend::Compute) {
      try {
        explain_plan(*merge, catalog, Backend::Compute, backends);
      } catch (const Error& e) {
        if (e.code() != ErrorCode::Unsupported) throw;
        where = Backend::Auto;
        refused = std::string(" (the compute backend does not take the merge: ") + e.what() + ")";
      }
    }
    Result merged = execute_plan(*merge, catalog, where, backends);
    append_passes(passes, merged.report.passes);
    // The merge GROUP BY's own node (the plan's root): where it ran, how, and why not on compute.
    if (merged.report.plan.empty()) throw Error(ErrorCode::Internal, "the merge GROUP BY reported no plan");
    const PlanNodeReport& node = merged.report.plan.front();
    if (refused.empty() && node.backend != Backend::Compute && !node.reason.empty()) refused = " (" + node.reason + ")";
    merge_how = "GROUP BY of " + std::to_string(partial_rows) + " partial rows on " + to_string(node.backend) + ": " +
                node.algorithm + refused + "; then ";
    catalog.add("merged", finish_aggregates(
                              split, join_words(split, std::move(merged.table), placed, split.partial_schema), schema));
    leaf = scan_of(catalog, "merged", schema);
  } else {
    catalog.add("partials", std::move(partials));
    leaf = scan_of(catalog, "partials", split.partial_schema);
  }
  if (split.replaced_path.empty())
    top = std::move(leaf);
  else
    node_at(*top, {split.replaced_path.begin(), split.replaced_path.end() - 1}).children[split.replaced_path.back()] =
        std::move(leaf);
  Result result = execute_plan(*top, catalog, on == Backend::Cpu ? on : Backend::Auto, backends);
  append_passes(passes, result.report.passes);
  result.report.passes = std::move(passes);
  result.report.algorithm = merge_how + result.report.algorithm;
  return result;
}

}  // namespace gfxq::engine::partitioned
