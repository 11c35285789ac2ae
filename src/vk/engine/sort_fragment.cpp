// ORDER BY of logical plans on the compute backend (fragments.h): `[Project of columns | Limit]...
// Sort` over any input, sorted by the multi-column row sort of the skeletons (vk/operators/skeletons/
// rows.h: one stable radix sort of (key, row id) pairs per 32-bit key plane, least significant
// first). Keys are columns of INT, FLOAT, DATE, STRING (codes of one dictionary: code order is string
// order), BIGINT or DOUBLE (the results of aggregates), ASC or DESC, with NULLs first ascending and last
// descending, as the CPU engine. Only the first offset + limit row ids come back; the output columns
// are gathered on the host by them.

#include <chrono>

#include "cpu/exec/ops.h"
#include "gfxq/error.h"
#include "vk/engine/fragments.h"
#include "vk/engine/skeleton_inputs.h"

namespace gfxq::vk {

using plan::Node;
using plan::NodeKind;

std::optional<engine::Fragment> claim_sort(const Node& node, const Catalog& catalog, std::string& why) {
  std::vector<const Node*> layers;
  const Node& sort = under_layers(node, layers);
  if (sort.kind != NodeKind::Sort) return std::nullopt;
  const Node& input = *sort.children[0];
  for (const auto& k : sort.sort_keys)
    if (!skeleton_type(input.schema.at(k.column).type)) {
      why = "its key " + input.schema[k.column].name + " is " + to_string(input.schema[k.column].type) +
            " (the compute sort takes INT, FLOAT, DATE, STRING, BIGINT and DOUBLE keys)";
      return std::nullopt;
    }
  engine::Fragment f;
  f.root = &node;
  f.nodes = layers;
  f.nodes.push_back(&sort);
  claim_skeleton_input(input, catalog, f.nodes, f.inputs);
  f.algorithm = "compute: stable multi-column sort of row ids by " + std::to_string(sort.sort_keys.size()) +
                " key(s) (one radix sort per 32-bit key plane)";
  return f;
}

engine::FragmentRun run_sort_fragment(FragmentEnv& env, const engine::Fragment& f,
                                      std::vector<engine::Relation> inputs) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<const Node*> layers;
  const Node& sort = under_layers(*f.root, layers);
  std::vector<size_t> map;
  const Node& child = skeleton_input(*sort.children[0], f, map);
  engine::FragmentRun out;
  const bool covered = std::find(f.nodes.begin(), f.nodes.end(), &child) != f.nodes.end();
  InputRows in(env, child, covered ? nullptr : &inputs.at(0), out.passes);
  if (!covered && inputs.at(0).on_host() && in.count() <= env.host_sort_rows) {
    // A few rows already in host memory (e.g. the groups of an aggregate): sorting them here costs
    // less than uploading them and a radix sort per key plane.
    cpu::HostRelation rel = in.host();
    std::vector<size_t> cols;
    for (size_t i = 0; i < sort.children[0]->schema.size(); ++i) cols.push_back(rel.columns.at(map.at(i)));
    rel.columns = std::move(cols);
    std::string how;
    Table t = cpu::run_sort(sort, rel, how).to_table();
    uint64_t n = t.rows();
    const uint64_t sorted = n;
    t = apply_layers(std::move(t), n, layers);
    engine::NodeRun run;
    run.algorithm = "compute: " + std::to_string(sorted) + " rows in host memory sorted on the host (at most " +
                    std::to_string(env.host_sort_rows) + ": no GPU passes), " + how;
    run.rows_in = run.rows_out = sorted;
    run.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out.nodes[&sort] = run;
    report_layers(out, f, sort, sorted, n, 0);
    cpu::HostRelation result = cpu::HostRelation::of(std::move(t));
    result.row_count = n;
    out.result = std::move(result);
    return out;
  }
  SkeletonColumns columns(env, in, out.passes);

  skel::RowsInput rows;
  set_input_rows(in, rows);
  for (const auto& k : sort.sort_keys) {
    skel::RowColumn c;
    c.type = sort.schema[k.column].type;
    c.left = columns.source(map[k.column]);
    c.descending = k.descending;
    rows.columns.push_back(c);
  }
  std::string how;
  std::vector<PassRecord> passes;
  const std::vector<uint32_t> ids = skel::sort_rows(env.device, rows, rows_needed(layers), passes, how);
  double gpu = 0;
  bool any = false;
  for (auto& p : passes) {
    if (p.gpu_ms) gpu += *p.gpu_ms, any = true;
    out.passes.push_back(std::move(p));
  }

  const auto host_start = std::chrono::steady_clock::now();
  const std::vector<uint64_t> rows64(ids.begin(), ids.end());
  Table t;
  for (size_t i = 0; i < sort.schema.size(); ++i)
    t.columns.push_back(cpu::gather_column(in.host().column(map[i]), rows64, sort.schema[i].name));
  uint64_t n = ids.size();
  t = apply_layers(std::move(t), n, layers);
  const double host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start).count();

  engine::NodeRun run;
  run.algorithm = "compute: " + how + "; columns gathered on the host; input: " + in.describe();
  run.rows_in = in.count();
  run.rows_out = ids.size();
  if (any) run.gpu_ms = gpu;
  run.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.nodes[&sort] = run;
  report_layers(out, f, sort, ids.size(), n, host_ms);
  cpu::HostRelation result = cpu::HostRelation::of(std::move(t));
  result.row_count = n;
  out.result = std::move(result);
  return out;
}

}  // namespace gfxq::vk
