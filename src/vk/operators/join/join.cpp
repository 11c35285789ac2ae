#include "vk/operators/join/join.h"

#include <cmath>

#include "gfxq/error.h"
#include "join_config.glsl"
#include "vk/operators/join/chooser.h"
#include "vk/operators/join/common.h"
#include "vk/operators/join/hash.h"
#include "vk/operators/join/inlj_css.h"
#include "vk/operators/join/nested_loop.h"
#include "vk/operators/join/output.h"
#include "vk/operators/join/sort_merge.h"
#include "vk/primitives/scratch.h"
#include "vk/relational/select.h"

namespace gfxq::vk {

namespace {

constexpr JoinAlgorithm kAlgorithms[] = {
    JoinAlgorithm::Auto,      JoinAlgorithm::NestedLoop,      JoinAlgorithm::IndexedLoop,
    JoinAlgorithm::SortMerge, JoinAlgorithm::HashPartitioned, JoinAlgorithm::HashGlobal};

void check_terms(const JoinSide& left, const JoinSide& right, const std::vector<JoinTerm>& terms) {
  if (terms.empty() || terms.size() > JOIN_MAX_TERMS)
    throw Error(ErrorCode::InvalidQuery, "join: a condition of " + std::to_string(terms.size()) + " terms (1 to " +
                                             std::to_string(JOIN_MAX_TERMS) + ")");
  for (const JoinTerm& t : terms) {
    if (t.left >= left.keys.size() || t.right >= right.keys.size())
      throw Error(ErrorCode::InvalidQuery,
                  "join: a term names key column " + std::to_string(t.left) + " (left) / " + std::to_string(t.right) +
                      " (right) of " + std::to_string(left.keys.size()) + " / " + std::to_string(right.keys.size()));
    if (uint32_t(t.op) > uint32_t(JoinOp::Band))
      throw Error(ErrorCode::InvalidQuery, "join: a term has an unknown operator");
  }
}

}  // namespace

JoinKey join_key(const DeviceColumn& column) {
  return {&column.buffer, column.type};
}

const char* to_string(JoinAlgorithm a) noexcept {
  switch (a) {
    case JoinAlgorithm::Auto: return "auto";
    case JoinAlgorithm::NestedLoop: return "nested-loop";
    case JoinAlgorithm::IndexedLoop: return "indexed-loop";
    case JoinAlgorithm::SortMerge: return "sort-merge";
    case JoinAlgorithm::HashPartitioned: return "hash-partitioned";
    case JoinAlgorithm::HashGlobal: return "hash-global";
  }
  return "?";
}

JoinAlgorithm parse_join_algorithm(const std::string& name) {
  for (JoinAlgorithm a : kAlgorithms)
    if (name == to_string(a)) return a;
  throw Error(ErrorCode::InvalidQuery, "unknown join algorithm '" + name +
                                           "' (auto, nested-loop, indexed-loop, sort-merge, hash-partitioned, "
                                           "hash-global)");
}

JoinResult run_join(Device& device, const JoinSide& left, const JoinSide& right, const std::vector<JoinTerm>& terms,
                    const JoinOptions& options) {
  join::check_side(device, left, "left");
  join::check_side(device, right, "right");
  check_terms(left, right, terms);
  prim::require_features(device, "join", true);
  if (join::has_band(terms) && !device.caps().shader_float64)
    throw Error(ErrorCode::Unsupported,
                "join: band terms add their offsets in double arithmetic, which needs "
                "shaderFloat64 (" +
                    device.caps().device_name + " lacks it)");
  JoinShape shape;
  shape.left_rows = left.count();
  shape.right_rows = right.count();
  shape.terms = terms;
  shape.stats = options.stats;
  shape.ordered = options.ordered;
  shape.count_only = options.output == JoinOutputMode::Count;
  shape.hash_build_rows = join::hash_build_rows(device, options.hash_build_rows);
  const JoinChoice choice = choose_join(shape, options.algorithm);

  JoinResult result;
  join::Stages stages(device, result.passes);
  const join::Oriented oriented = join::orient(left, right, terms, choice.swap);
  join::Output out(stages, options, choice.swap, result);
  join::Context ctx{stages, out, oriented, options, {}};
  switch (choice.algorithm) {
    case JoinAlgorithm::NestedLoop: join::nested_loop(ctx); break;
    case JoinAlgorithm::IndexedLoop: join::indexed_loop(ctx); break;
    case JoinAlgorithm::SortMerge: join::sort_merge(ctx); break;
    case JoinAlgorithm::HashPartitioned: join::hash_partitioned(ctx); break;
    case JoinAlgorithm::HashGlobal: join::hash_global(ctx); break;
    case JoinAlgorithm::Auto: throw Error(ErrorCode::Internal, "join: the chooser returned auto");
  }
  result.algorithm = choice.algorithm;
  result.algorithm_text = ctx.text + (choice.swap ? " (probes: the right side; built: the left)" : "");
  result.reason = choice.reason;
  return result;
}

}  // namespace gfxq::vk
