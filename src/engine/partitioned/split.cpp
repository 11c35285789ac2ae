#include "engine/partitioned/split.h"

#include <algorithm>
#include <map>

namespace gfxq::engine::partitioned {

namespace {

using plan::Node;
using plan::NodeKind;

// Whether every node of the subtree runs row by row: scans, filters, projections and inner joins,
// whose output over a row range of one table is that range's share of the whole output.
bool row_wise(const Node& n) {
  if (n.kind != NodeKind::Scan && n.kind != NodeKind::Filter && n.kind != NodeKind::Project && n.kind != NodeKind::Join)
    return false;
  return std::all_of(n.children.begin(), n.children.end(), [](const auto& c) { return row_wise(*c); });
}

// The Scans of the subtree, left input first.
void scans(const Node& n, std::vector<const Node*>& out) {
  if (n.kind == NodeKind::Scan) out.push_back(&n);
  for (const auto& c : n.children) scans(*c, out);
}

// The rows of OFFSET + LIMIT, saturating.
uint64_t limit_plus_offset(const Node& limit) {
  return limit.limit > UINT64_MAX - limit.offset ? UINT64_MAX : limit.limit + limit.offset;
}

std::unique_ptr<Node> limit_node(std::unique_ptr<Node> child, uint64_t rows) {
  auto n = std::make_unique<Node>();
  n->kind = NodeKind::Limit;
  n->schema = child->schema;
  n->limit = rows;
  n->children.push_back(std::move(child));
  return n;
}

// Chooses the partitioned table of the row-wise subtree `below`: `forced` when set, else the leftmost
// scan when the merge keeps row order, else the largest table scanned once. Fills split's table
// names; false with `why`.
bool choose_tables(const Node& below, bool keeps_order, const std::optional<std::string>& forced, Split& split,
                   std::string& why) {
  std::vector<const Node*> all;
  scans(below, all);
  std::map<std::string, size_t> count;
  for (const Node* s : all) ++count[s->table_name];
  const Node* chosen = nullptr;
  if (forced) {
    if (count[*forced] != 1) {
      why =
          "table " + *forced + (count[*forced] ? " is scanned twice (a self-join)" : " is not scanned below the split");
      return false;
    }
    if (keeps_order && all.front()->table_name != *forced) {
      why = "table " + *forced + " is not the leftmost of the joins, so its row ranges would not keep the row order";
      return false;
    }
    for (const Node* s : all)
      if (s->table_name == *forced) chosen = s;
  } else if (keeps_order) {
    chosen = all.front();
    if (count[chosen->table_name] > 1) {
      why = "table " + chosen->table_name + " is scanned twice (a self-join) and must be partitioned to keep row order";
      return false;
    }
  } else {
    for (const Node* s : all)
      if (count[s->table_name] == 1 && (!chosen || s->table->rows() > chosen->table->rows())) chosen = s;
    if (!chosen) {
      why = "every table is scanned twice (self-joins): none can be cut into row ranges";
      return false;
    }
  }
  split.partitioned_table = chosen->table_name;
  for (const auto& [name, n] : count)
    if (name != chosen->table_name) split.broadcast.push_back(name);
  return true;
}

// The aggregate split of `agg` (its input row-wise): partial aggregates, each once, under an
// identity Project (the shape the compute backend's fused aggregates claim), and how to finish each
// original aggregate.
bool split_aggregate(const Node& agg, Split& split, std::string& why) {
  auto partial = std::make_unique<Node>();
  partial->kind = NodeKind::Aggregate;
  partial->group_keys = agg.group_keys;
  for (size_t k = 0; k < agg.group_keys.size(); ++k) partial->schema.push_back(agg.schema[k]);
  // The merged column of `call` (added when no equal partial aggregate exists yet).
  auto column_of = [&](plan::AggCall call, AggKind merge, std::shared_ptr<const Dictionary> dictionary = nullptr) {
    for (size_t j = 0; j < partial->aggs.size(); ++j)
      if (partial->aggs[j].kind == call.kind && partial->aggs[j].text == call.text) return agg.group_keys.size() + j;
    plan::SchemaColumn col;
    col.name = call.text;
    col.type = call.type;
    col.dictionary = std::move(dictionary);  // MIN and MAX of a STRING
    partial->schema.push_back(col);
    split.partial_aggs.push_back({merge, call.type});
    partial->aggs.push_back(std::move(call));
    return agg.group_keys.size() + partial->aggs.size() - 1;
  };
  for (size_t j = 0; j < agg.aggs.size(); ++j) {
    const plan::AggCall& call = agg.aggs[j];
    if (call.distinct) {
      why = call.text + " is not merged exactly across partitions (distinct values may repeat between them)";
      return false;
    }
    switch (call.kind) {
      case AggKind::Count:
      case AggKind::Sum: split.finish.push_back({call.kind, column_of(call, AggKind::Sum)}); break;
      case AggKind::Min:
      case AggKind::Max:
        split.finish.push_back(
            {call.kind, column_of(call, call.kind, agg.schema[agg.group_keys.size() + j].dictionary)});
        break;
      case AggKind::Avg: {
        plan::AggCall sum = call, count = call;
        sum.kind = AggKind::Sum;
        sum.type = plan::agg_result_type(AggKind::Sum, call.arg->type);
        sum.text = "SUM(" + call.arg->text + ")";
        count.kind = AggKind::Count;
        count.type = Type::Int64;
        count.text = "COUNT(" + call.arg->text + ")";
        const size_t s = column_of(std::move(sum), AggKind::Sum);
        const size_t c = column_of(std::move(count), AggKind::Sum);
        split.finish.push_back({AggKind::Avg, s, c, call.arg->type});
        break;
      }
      case AggKind::Median:
      case AggKind::Quantile:
      case AggKind::KthLargest:
        why = call.text + " is not merged exactly across partitions (no distributed radix select)";
        return false;
    }
  }
  partial->children.push_back(plan::clone(*agg.children[0]));
  auto project = std::make_unique<Node>();
  project->kind = NodeKind::Project;
  project->schema = partial->schema;
  for (size_t c = 0; c < partial->schema.size(); ++c) {
    const plan::SchemaColumn& col = partial->schema[c];
    project->exprs.push_back(plan::column_expr(c, col.type, col.name, col.dictionary));
  }
  project->children.push_back(std::move(partial));
  split.group_keys = agg.group_keys.size();
  split.partial_schema = project->schema;
  split.partial = std::move(project);
  return true;
}

// Splits at `n` (at `path` below the root, `parent` its parent or null), or descends.
bool split_at(const Node& n, const Node* parent, std::vector<size_t>& path, const std::optional<std::string>& forced,
              Split& split, std::string& why) {
  const bool single = n.children.size() == 1;
  if (single && row_wise(*n.children[0])) {
    const Node& below = *n.children[0];
    switch (n.kind) {
      case NodeKind::Aggregate:
        if (!choose_tables(below, false, forced, split, why) || !split_aggregate(n, split, why)) return false;
        split.kind = MergeKind::Aggregate;
        split.replaced_path = path;
        split.description = "GROUP BY / aggregates merged by key (counts and sums added, MIN and MAX combined)";
        return true;
      case NodeKind::Sort:
      case NodeKind::Distinct:
      case NodeKind::Limit: {
        if (!choose_tables(below, true, forced, split, why)) return false;
        split.kind = MergeKind::Reapply;
        split.partial = plan::clone(n);
        if (n.kind == NodeKind::Limit) {
          split.partial->limit = limit_plus_offset(n);
          split.partial->offset = 0;
          split.description = "LIMIT applied per partition and again after concatenation in row-range order";
        } else if (n.kind == NodeKind::Sort && parent && parent->kind == NodeKind::Limit) {
          split.partial = limit_node(std::move(split.partial), limit_plus_offset(*parent));
          split.description = "ORDER BY per partition with its first OFFSET + LIMIT rows, then merged";
        } else {
          split.description = n.kind == NodeKind::Sort ? "ORDER BY per partition, then merged"
                                                       : "DISTINCT per partition, then again over the partials";
        }
        split.partial_schema = split.partial->schema;
        split.replaced_path = path;
        split.replaced_path.push_back(0);
        return true;
      }
      default: break;
    }
  }
  const bool passes = n.kind == NodeKind::Filter || n.kind == NodeKind::Project || n.kind == NodeKind::Aggregate ||
                      n.kind == NodeKind::Sort || n.kind == NodeKind::Distinct || n.kind == NodeKind::Limit;
  if (!single || !passes) {
    why = n.label() +
          " is not split across partitions (only scans, filters, projections and inner joins run per "
          "partition below one aggregate, sort, distinct or limit)";
    return false;
  }
  path.push_back(0);
  return split_at(*n.children[0], &n, path, forced, split, why);
}

}  // namespace

plan::Node& node_at(plan::Node& root, const std::vector<size_t>& path) {
  plan::Node* n = &root;
  for (size_t i : path) n = n->children[i].get();
  return *n;
}

std::optional<Split> split_plan(const plan::Node& root, std::string& why,
                                const std::optional<std::string>& partitioned) {
  Split split;
  if (row_wise(root)) {
    if (!choose_tables(root, true, partitioned, split, why)) return std::nullopt;
    split.kind = MergeKind::Concat;
    split.partial = plan::clone(root);
    split.partial_schema = root.schema;
    split.description = "rows concatenated in row-range order";
  } else {
    std::vector<size_t> path;
    if (!split_at(root, nullptr, path, partitioned, split, why)) return std::nullopt;
  }
  std::string text = split.partitioned_table + " by row ranges";
  if (!split.broadcast.empty()) {
    text += "; broadcast";
    for (const auto& b : split.broadcast) text += " " + b;
  }
  split.description = text + "; " + split.description;
  return split;
}

}  // namespace gfxq::engine::partitioned
