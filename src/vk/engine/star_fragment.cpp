// The star aggregate of logical plans on the compute backend (fragments.h; the operator:
// vk/operators/star/star.h): an Aggregate, with or without GROUP BY, over a left-deep chain of inner
// joins (Projects of columns between them) whose left end is one fact table and whose right sides
// are dimension tables, each joined on one INT, DATE or STRING key of the fact, unique in the
// dimension's column, its range small enough for a direct-address table. Fact and dimensions are
// Scans or Filters over Scans (their rows selected on the device); the group keys are NULL-free
// INT, DATE or STRING columns of the dimensions whose ranges multiply to at most 2^22 group
// indices; the aggregates are COUNT, and SUM and AVG of an INT column of the fact or of x + y,
// x - y, x * y over such columns and INT literals. Whether a plan qualifies is decided when it is
// claimed, from its shape and the columns' facts (column_facts.h); a plan that does not goes to
// the join and GROUP BY fragments, and the claim says why. Layers above the Aggregate as for the
// GROUP BY fragment (the groups come ascending by key). Results equal the CPU engine's exactly.

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>

#include "core/bind.h"
#include "gfxq/error.h"
#include "vk/engine/column_facts.h"
#include "vk/engine/fragments.h"
#include "vk/engine/inputs.h"
#include "vk/operators/star/star.h"

namespace gfxq::vk {

namespace {

using plan::Node;
using plan::NodeKind;

// A dimension table has a slot per key value: at most this many times the dimension's rows, or 2^20
// slots (4 MiB: dates as yyyymmdd over decades fit).
constexpr uint64_t kRangePerRow = 4;
constexpr uint64_t kMinRange = uint64_t(1) << 20;

// A column of a chain leaf (a Scan or a Filter over one).
struct LeafColumn {
  const Node* leaf = nullptr;
  size_t column = 0;
};

// One group key: its dimension, the dimension leaf's column, and its digit of the group index.
struct StarKey {
  size_t dim = 0;
  size_t column = 0;
  int32_t min = 0;
  uint32_t radix = 1;
  uint32_t stride = 1;
};

// One dimension: its leaf, the fact leaf's key column, its own key column and key range.
struct StarDimPlan {
  const Node* leaf = nullptr;
  size_t fact_key = 0;
  size_t key = 0;
  int32_t key_min = 0;
  uint32_t key_range = 0;
};

// One aggregate of the Aggregate node: COUNT, or SUM / AVG of operator aggregate `value`.
struct StarAggPlan {
  AggKind kind = AggKind::Count;
  int value = -1;
};

// What claim_star worked out (and the covered Filters' programs, which InputRows reads).
struct StarState final : CoveredFilters {
  const Node* agg = nullptr;
  std::vector<const Node*> layers;
  const Node* fact = nullptr;
  std::vector<StarDimPlan> dims;
  std::vector<StarKey> keys;
  std::vector<size_t> value_columns;  // fact leaf columns the aggregates read
  std::vector<star::StarAgg> values;  // the operator's aggregates with a value
  std::vector<StarAggPlan> aggs;      // per Aggregate aggregate
  uint32_t domain = 1;
};

const Node* skip_projects(const Node* n) {
  while (n->kind == NodeKind::Project && columns_only(*n)) n = n->children[0].get();
  return n;
}

// The leaf column that output column `c` of `n` (in the chain) is, following Projects and Joins.
LeafColumn resolve(const Node* n, size_t c) {
  for (;;) {
    if (n->kind == NodeKind::Project && columns_only(*n)) {
      c = n->exprs.at(c).column;
      n = n->children[0].get();
    } else if (n->kind == NodeKind::Join) {
      const size_t left = n->children[0]->schema.size();
      if (c < left) {
        n = n->children[0].get();
      } else {
        c -= left;
        n = n->children[1].get();
      }
    } else {
      return {n, c};
    }
  }
}

// The Scan under a leaf.
const Node& scan_of(const Node& leaf) {
  return leaf.kind == NodeKind::Filter ? *leaf.children[0] : leaf;
}

// The catalog column under column `c` of a leaf, and its resident key.
const Column& table_column(const Node& leaf, size_t c, const Catalog& catalog, ResidentKey& key) {
  const Node& scan = scan_of(leaf);
  key = {scan.table_name, catalog.version(scan.table_name), scan.scan_columns.at(c)};
  return scan.table->columns.at(key.column);
}

bool int_storage(Type t) {
  return t == Type::Int32 || t == Type::Date || t == Type::String;
}

// The leaf is covered (a Scan, or a Filter over one whose condition runs on the device).
bool covered_leaf(const Node& leaf, const Catalog& catalog, std::vector<const Node*>& nodes, StarState& state) {
  std::vector<const Node*> inputs;
  return claim_input(leaf, catalog, nodes, inputs, &state) && inputs.empty();
}

// The operator's aggregate for `e` (an INT fact column, or x op y of INT fact columns and INT
// literals), appending its value columns; false with `why` otherwise.
bool value_of(const plan::Expr& e, const Node& input, StarState& st, std::string& why) {
  auto operand = [&](const plan::Expr& x, uint32_t& slot, int32_t& literal) {
    if (x.kind == plan::ExprKind::Literal) {
      int64_t v = 0;
      if (const auto* i = std::get_if<int32_t>(&x.literal))
        v = *i;
      else if (const auto* l = std::get_if<int64_t>(&x.literal))
        v = *l;
      else
        return false;
      if (v < INT32_MIN || v > INT32_MAX) return false;
      slot = STAR_OPERAND_LITERAL;
      literal = int32_t(v);
      return true;
    }
    if (!x.is_column() || x.type != Type::Int32) return false;
    const LeafColumn lc = resolve(&input, x.column);
    if (lc.leaf != st.fact || may_be_null(*lc.leaf, lc.column)) return false;
    auto it = std::find(st.value_columns.begin(), st.value_columns.end(), lc.column);
    if (it == st.value_columns.end()) {
      if (st.value_columns.size() == STAR_MAX_VALUES) return false;
      st.value_columns.push_back(lc.column);
      it = st.value_columns.end() - 1;
    }
    slot = uint32_t(it - st.value_columns.begin());
    return true;
  };
  star::StarAgg a;
  bool ok = false;
  if (e.is_column()) {
    ok = operand(e, a.x, a.literal) && a.x != STAR_OPERAND_LITERAL;
  } else if (e.kind == plan::ExprKind::Arith && e.args.size() == 2 && e.arith != plan::ArithOp::Div) {
    a.op = e.arith == plan::ArithOp::Add ? STAR_OP_ADD : e.arith == plan::ArithOp::Sub ? STAR_OP_SUB : STAR_OP_MUL;
    int32_t second = 0;
    ok = operand(e.args[0], a.x, a.literal) && operand(e.args[1], a.y, second);
    if (ok && a.y == STAR_OPERAND_LITERAL) {
      if (a.x == STAR_OPERAND_LITERAL) ok = false;  // two literals: a constant, not worth a kernel
      a.literal = second;
    }
  }
  if (!ok || st.values.size() == STAR_MAX_AGGS) {
    why =
        "the star aggregate sums INT fact columns and x + y, x - y, x * y of them and INT literals (at most 4), not " +
        e.text;
    return false;
  }
  st.values.push_back(a);
  return true;
}

// The CNF program of `leaf` (a Filter) that a star pass evaluates itself, or null (no Filter, an
// expression program, or a condition folded to a constant).
const FilterProgram* fused_program(const StarState& st, const Node& leaf) {
  if (leaf.kind != NodeKind::Filter) return nullptr;
  const auto it = st.programs.find(&leaf);
  if (it == st.programs.end() || it->second->expression) return nullptr;
  return it->second->program.outcome == CnfProgram::Outcome::Rows ? it->second.get() : nullptr;
}

// " where <condition> (<program>, in the <pass> pass)" for the report.
std::string in_pass(const Node& leaf, const FilterProgram& p, const std::string& pass) {
  return " where " + leaf.predicate->text + " (" + p.program.summary() + ", in the " + pass + " pass)";
}

// Plans the star with `fact` as the fact table (st.fact), its dimensions, group keys and
// aggregates into `st`; the first condition it misses, or empty.
std::string plan_with_fact(StarState& st, const std::vector<const Node*>& joins,
                           const std::vector<std::pair<LeafColumn, LeafColumn>>& keys, const Catalog& catalog,
                           ColumnFactsCache& facts) {
  const Node& agg = *st.agg;
  const Node& input = *agg.children[0];
  const Node& fact_scan = scan_of(*st.fact);
  if (fact_scan.table->rows() >= (uint64_t(1) << 31)) return std::string("the fact table has 2^31 rows or more");
  for (size_t i = 0; i < joins.size(); ++i) {
    const Node* j = joins[i];
    const bool fact_left = keys[i].first.leaf == st.fact;
    const LeafColumn fk = fact_left ? keys[i].first : keys[i].second;
    const LeafColumn dk = fact_left ? keys[i].second : keys[i].first;
    StarDimPlan d;
    d.leaf = dk.leaf;
    if (d.leaf == st.fact ||
        std::any_of(st.dims.begin(), st.dims.end(), [&](const StarDimPlan& o) { return o.leaf == d.leaf; }))
      return std::string("a dimension joins the fact twice or another dimension");
    d.fact_key = fk.column;
    d.key = dk.column;
    const Type kt = d.leaf->schema.at(d.key).type;
    if (!int_storage(kt) || st.fact->schema.at(d.fact_key).type != kt)
      return std::string("the key of " + j->label() + " is not INT, DATE or STRING on both sides");
    if (may_be_null(*st.fact, d.fact_key) || may_be_null(*d.leaf, d.key))
      return std::string("the key of " + j->label() + " may be NULL");
    if (kt == Type::String && st.fact->schema[d.fact_key].dictionary != d.leaf->schema[d.key].dictionary)
      return std::string("the STRING key of " + j->label() + " has two dictionaries");
    ResidentKey rk;
    const Column& col = table_column(*d.leaf, d.key, catalog, rk);
    const ColumnFacts& cf = facts.get(rk, col);
    const uint64_t range = cf.rows ? uint64_t(int64_t(cf.max) - cf.min) + 1 : 0;
    if (range == 0) return std::string("the dimension of " + j->label() + " is empty");
    if (!cf.unique) return std::string("the dimension key of " + j->label() + " is not unique");
    if (range > std::min(std::max(kRangePerRow * cf.rows, kMinRange), uint64_t(1) << 31))
      return std::string("the dimension key of " + j->label() + " spans " + std::to_string(range) + " values for " +
                         std::to_string(cf.rows) + " rows");
    d.key_min = cf.min;
    d.key_range = uint32_t(range);
    st.dims.push_back(d);
  }
  // Group keys: dimension columns, digits of the group index (the first key most significant).
  uint64_t domain = 1;
  for (const auto& k : agg.group_keys) {
    if (!k.is_column()) return std::string("its group key " + k.text + " is an expression");
    const LeafColumn lc = resolve(&input, k.column);
    const auto dim =
        std::find_if(st.dims.begin(), st.dims.end(), [&](const StarDimPlan& d) { return d.leaf == lc.leaf; });
    if (dim == st.dims.end()) return std::string("its group key " + k.text + " is not a dimension's column");
    if (!int_storage(k.type) || may_be_null(*lc.leaf, lc.column))
      return std::string("its group key " + k.text + " is not a NULL-free INT, DATE or STRING column");
    ResidentKey rk;
    const Column& col = table_column(*lc.leaf, lc.column, catalog, rk);
    const ColumnFacts& cf = facts.get(rk, col);
    StarKey sk;
    sk.dim = size_t(dim - st.dims.begin());
    sk.column = lc.column;
    sk.min = cf.min;
    // In 64 bits: a column over every INT value spans 2^32 values (0 as a uint32_t).
    const uint64_t radix = uint64_t(int64_t(cf.max) - cf.min) + 1;
    domain *= std::min<uint64_t>(radix, uint64_t(star::kMaxDomain) + 1);
    if (domain > star::kMaxDomain)
      return std::string("its group keys span more than 2^22 combinations of their columns' values");
    sk.radix = uint32_t(radix);
    st.keys.push_back(sk);
  }
  for (size_t i = st.keys.size(); i-- > 0;)
    st.keys[i].stride = i + 1 < st.keys.size() ? st.keys[i + 1].stride * st.keys[i + 1].radix : 1;
  st.domain = uint32_t(domain);
  std::map<std::string, int> seen;  // aggregates with the same argument text share a value
  for (const auto& a : agg.aggs) {
    StarAggPlan p;
    p.kind = a.kind;
    if (a.distinct) return std::string("aggregate " + a.text + " is DISTINCT");
    if (a.kind == AggKind::Count) {
      if (a.arg && (!a.arg->is_column() || may_be_null(input, a.arg->column)))
        return std::string("aggregate " + a.text + " counts an expression or a column that may be NULL");
    } else if (a.kind == AggKind::Sum || a.kind == AggKind::Avg) {
      auto it = seen.find(a.arg->text);
      if (it == seen.end()) {
        if (std::string why; !value_of(*a.arg, input, st, why)) return why;
        it = seen.emplace(a.arg->text, int(st.values.size()) - 1).first;
      }
      p.value = it->second;
    } else {
      return std::string("aggregate " + a.text + " is not COUNT, SUM or AVG");
    }
    st.aggs.push_back(p);
  }
  return {};
}

}  // namespace

std::optional<engine::Fragment> claim_star(const Node& node, const Catalog& catalog, const VkCapabilities& caps,
                                           ColumnFactsCache& facts, std::string& why) {
  auto st = std::make_shared<StarState>();
  const Node* cur = &node;
  while ((cur->kind == NodeKind::Project && columns_only(*cur)) || cur->kind == NodeKind::Limit ||
         cur->kind == NodeKind::Sort) {
    st->layers.push_back(cur);
    cur = cur->children[0].get();
  }
  if (cur->kind != NodeKind::Aggregate) return std::nullopt;
  if (skip_projects(cur->children[0].get())->kind != NodeKind::Join) return std::nullopt;  // not a star: no reason
  st->agg = cur;
  const Node& agg = *cur;
  auto refuse = [&](const std::string& reason) {
    why = "star aggregate: " + reason;
    return std::nullopt;
  };
  if (!caps.buffer_int64_atomics) return refuse("the device lacks 64-bit buffer atomics");
  if (!agg.group_keys.empty())
    if (const std::string bad = layers_keep_order(agg, st->layers); !bad.empty()) return refuse(bad);

  engine::Fragment f;
  f.root = &node;
  f.nodes = st->layers;
  f.nodes.push_back(cur);
  // The joins and their leaves (any tree of Joins and Projects of columns): the fact is the leaf on
  // one side of every join's key, each other leaf a dimension on the other side of one.
  std::vector<const Node*> joins, leaves;
  std::vector<const Node*> todo{agg.children[0].get()};
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (n->kind == NodeKind::Project && columns_only(*n)) {
      f.nodes.push_back(n);
      todo.push_back(n->children[0].get());
    } else if (n->kind == NodeKind::Join) {
      if (n->equi.size() != 1 || n->band || n->residual) return refuse("a join is not on one equal key");
      joins.push_back(n);
      f.nodes.push_back(n);
      todo.push_back(n->children[1].get());
      todo.push_back(n->children[0].get());
    } else {
      leaves.push_back(n);
    }
  }
  if (joins.size() > STAR_MAX_DIMS) return refuse("it joins more than 4 dimensions");
  std::vector<std::pair<LeafColumn, LeafColumn>> keys;
  for (const Node* j : joins)
    keys.emplace_back(resolve(j->children[0].get(), j->equi[0].first),
                      resolve(j->children[1].get(), j->equi[0].second));
  for (const Node* leaf : leaves)
    if (!covered_leaf(*leaf, catalog, f.nodes, *st))
      return refuse(leaf->label() + " is not a table or a filtered table");
  // The fact: a table on one side of every join's key; the largest first, then the others.
  std::vector<const Node*> facts_tried;
  for (const Node* leaf : leaves)
    if (std::all_of(keys.begin(), keys.end(),
                    [&](const auto& k) { return k.first.leaf == leaf || k.second.leaf == leaf; }))
      facts_tried.push_back(leaf);
  std::stable_sort(facts_tried.begin(), facts_tried.end(),
                   [](const Node* x, const Node* y) { return scan_of(*x).table->rows() > scan_of(*y).table->rows(); });
  std::string first_why = "no table takes part in every join";
  bool planned = false;
  for (const Node* fact : facts_tried) {
    st->fact = fact;
    st->dims.clear();
    st->keys.clear();
    st->value_columns.clear();
    st->values.clear();
    st->aggs.clear();
    const std::string bad = plan_with_fact(*st, joins, keys, catalog, facts);
    if (bad.empty()) {
      planned = true;
      break;
    }
    if (fact == facts_tried.front()) first_why = bad;
  }
  if (!planned) return refuse(first_why);
  f.algorithm = "compute: star aggregate over " + std::to_string(st->dims.size()) + " dimension(s), " +
                std::to_string(st->domain) + " group indices";
  f.state = std::move(st);
  return f;
}

bool is_star_fragment(const engine::Fragment& f) noexcept {
  return dynamic_cast<const StarState*>(f.state.get()) != nullptr;
}

engine::FragmentRun run_star_fragment(FragmentEnv& env, const engine::Fragment& f,
                                      std::vector<engine::Relation> /*inputs: none, every leaf is covered*/) {
  const auto start = std::chrono::steady_clock::now();
  const StarState& st = static_cast<const StarState&>(*f.state);
  const Node& agg = *st.agg;
  engine::FragmentRun out;
  // Filters the CNF kernels run are evaluated in the star's own passes (the fact's in the probe, a
  // dimension's in its fill): no selection pass and no wait for its count.
  std::deque<Buffer> words;
  auto leaf_rows = [&](const Node& leaf, star::StarCnf& cnf) {
    const FilterProgram* p = fused_program(st, leaf);
    auto rows = std::make_unique<InputRows>(env, p ? *leaf.children[0] : leaf, nullptr, out.passes);
    if (!p) return std::make_pair(std::move(rows), p);
    cnf.words = &words.emplace_back(upload_program(env.device, p->program));
    cnf.terms = uint32_t(p->program.terms.size());
    cnf.float_slots = p->program.float_slots();
    cnf.intervals = vk::detail::interval_word(p->program, cnf.words->size());
    const auto& cols = leaf.children[0]->scan_columns;
    for (const BoundColumn& b : p->program.slots) {
      const auto at = std::find(cols.begin(), cols.end(), b.index);
      if (at == cols.end())
        throw Error(ErrorCode::Internal, "star aggregate: the condition on " + leaf.children[0]->table_name +
                                             " reads " + b.name + ", which its Scan does not");
      cnf.slots.push_back(&rows->column(size_t(at - cols.begin())).buffer);
    }
    return std::make_pair(std::move(rows), p);
  };
  star::StarInput in;
  auto [fact_ptr, fact_fused] = leaf_rows(*st.fact, in.cnf);
  InputRows& fact = *fact_ptr;
  const DeviceRows fact_rows = fact.live({}, "fact rows taking part");
  in.fact_rows = fact_rows.count;
  in.fact_selection = fact_rows.selection;
  in.domain = st.domain;
  std::vector<std::unique_ptr<InputRows>> dims;
  std::string dim_text;
  for (const StarDimPlan& d : st.dims) {
    star::StarDim sd;
    auto [rows, fused] = leaf_rows(*d.leaf, sd.cnf);
    const DeviceRows live = rows->live({}, "dimension rows taking part");
    sd.fact_key = &fact.column(d.fact_key).buffer;
    sd.key = &rows->column(d.key).buffer;
    sd.selection = live.selection;
    sd.rows = live.count;
    sd.table_rows = rows->rows();
    sd.key_min = d.key_min;
    sd.key_range = d.key_range;
    dim_text += "; dimension: " + rows->describe() + (fused ? in_pass(*d.leaf, *fused, "fill") : "");
    dims.push_back(std::move(rows));
    in.dims.push_back(std::move(sd));
  }
  for (const StarKey& k : st.keys) {
    star::StarDim& sd = in.dims[k.dim];
    sd.group_columns.push_back(&dims[k.dim]->column(k.column).buffer);
    sd.group_mins.push_back(k.min);
    sd.group_strides.push_back(k.stride);
  }
  for (size_t c : st.value_columns) in.values.push_back(&fact.column(c).buffer);
  in.aggs = st.values;
  star::StarResult r = star::star_aggregate(env.device, in, out.passes);
  double gpu = 0;
  bool any = false;
  for (const auto& p : out.passes)
    if (p.gpu_ms) gpu += *p.gpu_ms, any = true;

  // The Aggregate's output: one row per non-empty group (one row always without GROUP BY).
  const bool scalar = agg.group_keys.empty();
  const uint64_t rows = scalar ? 1 : r.groups.size();
  Table t;
  for (size_t i = 0; i < st.keys.size(); ++i) {
    const StarKey& k = st.keys[i];
    const plan::SchemaColumn& s = agg.schema[i];
    Column c = Column::make(s.name, Type::Int32);
    auto& v = c.as<int32_t>();
    v.reserve(rows);
    for (const star::StarGroup& g : r.groups) v.push_back(int32_t(int64_t(k.min) + (g.index / k.stride) % k.radix));
    c.type = s.type;
    if (s.type == Type::String) c.dictionary = s.dictionary;
    t.columns.push_back(std::move(c));
  }
  const star::StarGroup none;
  for (size_t i = 0; i < agg.aggs.size(); ++i) {
    const StarAggPlan& p = st.aggs[i];
    const plan::SchemaColumn& s = agg.schema[st.keys.size() + i];
    Column c = Column::make(s.name, s.type);
    for (uint64_t j = 0; j < rows; ++j) {
      const star::StarGroup& g = j < r.groups.size() ? r.groups[j] : none;
      if (p.kind == AggKind::Count)
        c.push(Value(int64_t(g.count)));
      else if (g.count == 0)
        c.push(Value());
      else if (p.kind == AggKind::Sum)
        c.push(Value(int_sum_result(g.sums.at(size_t(p.value)), agg.aggs[i].text)));
      else
        c.push(Value(int_average(g.sums.at(size_t(p.value)), g.count)));
    }
    t.columns.push_back(std::move(c));
  }

  engine::NodeRun run;
  run.algorithm = "compute: " + r.algorithm + "; fact: " + fact.describe() +
                  (fact_fused ? in_pass(*st.fact, *fact_fused, "probe") : "") + dim_text;
  run.rows_in = fact_rows.count;
  run.rows_out = rows;
  if (any) run.gpu_ms = gpu;
  run.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.nodes[&agg] = run;
  hand_over_groups(out, f, agg, std::move(t), rows, st.layers);
  return out;
}

}  // namespace gfxq::vk
