#pragma once
//! \file logical.h
//! The logical plan: a tree of relational nodes whose every expression is bound (expr.h). The
//! binder (binder.h) makes it from SQL or a Query spec; the planner (placement.h) puts each node on a
//! backend; the executor (engine/executor.h) runs it.
//!
//! Output order (docs/SQL.md "Result order"): Scan gives table order; Filter, Project and Limit keep
//! their input's order; Join gives (left row, right row) order; Aggregate gives groups ascending by
//! key (lexicographic over the keys, each in the total order); Sort is stable; Distinct keeps first
//! appearances; SetOp gives the left operand's rows first.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gfxq/table.h"
#include "plan/expr.h"

namespace gfxq::plan {

//! One output column of a node.
struct SchemaColumn {
  std::string name;         //!< result name (an alias, the column's name, or the expression's text)
  std::string qualifier;    //!< the table alias a column came from (resolves `t.c`), or empty
  Type type = Type::Int32;  //!< value type
  //! String columns: the dictionary their codes index.
  std::shared_ptr<const Dictionary> dictionary;
};

//! A node's output columns.
using Schema = std::vector<SchemaColumn>;

//! What a node does.
enum class NodeKind { Scan, Filter, Project, Join, Aggregate, Sort, Limit, Distinct, SetOp };
//! "Scan", "Filter", ...
const char* to_string(NodeKind kind) noexcept;

//! One ORDER BY key over the node's input.
struct SortKey {
  size_t column = 0;        //!< input column
  bool descending = false;  //!< DESC
};

//! A band condition of a join: left + lo <= right <= left + hi in double arithmetic, compared in the
//! total order (the form `s.b BETWEEN r.a - d AND r.a + d`).
struct Band {
  size_t left = 0;   //!< left input column
  size_t right = 0;  //!< right input column
  double lo = 0;     //!< lower offset
  double hi = 0;     //!< upper offset
};

//! Set operations.
enum class SetOpKind { Union, Intersect, Except };

//! A node of the logical plan.
struct Node {
  NodeKind kind = NodeKind::Scan;               //!< what it does
  std::vector<std::unique_ptr<Node>> children;  //!< inputs (Join, SetOp: two; Scan: none; else one)
  Schema schema;                                //!< output columns

  // Scan
  std::string table_name;            //!< catalog name of the table
  const Table* table = nullptr;      //!< the table (owned by the catalog)
  std::vector<size_t> scan_columns;  //!< the table's columns read, in schema order

  // Filter
  std::optional<Expr> predicate;  //!< the condition over the input (boolean)

  // Project
  std::vector<Expr> exprs;  //!< one per output column, over the input

  // Join: output is the left input's columns, then the right's
  std::vector<std::pair<size_t, size_t>> equi;  //!< (left column, right column) pairs that must be equal
  std::optional<Band> band;                     //!< a band condition
  std::optional<Expr> residual;                 //!< other conditions, over the joined columns

  // Aggregate: output is the group keys, then the aggregates
  std::vector<Expr> group_keys;  //!< over the input
  std::vector<AggCall> aggs;     //!< over the input

  // Sort
  std::vector<SortKey> sort_keys;  //!< most significant first

  // Limit
  uint64_t limit = UINT64_MAX;  //!< rows kept at most
  uint64_t offset = 0;          //!< rows skipped first

  // SetOp
  SetOpKind set_op = SetOpKind::Union;  //!< which operation
  bool all = false;                     //!< bag semantics (UNION ALL, ...)

  //! No result depends on the order of this node's rows: it feeds an Aggregate (whose functions are
  //! exact, so order-free) through Joins, Filters and Projects only (set by bind(), mark_any_order()).
  //! An operator may then produce its rows in any order, e.g. a join's pairs unordered.
  bool any_order = false;

  //! One line describing the node, e.g. "Filter (d_year = 1993)", "Join lo_orderdate = d_datekey".
  std::string label() const;
};

//! Sets Node::any_order over the plan rooted at `root` (whose own output order counts): true below an
//! Aggregate, passed down through Join, Filter and Project, false below every other node.
void mark_any_order(Node& root);

//! Deep copy of a plan.
std::unique_ptr<Node> clone(const Node& node);

//! The plan as an indented tree, one node per line (what `gfxq sql --plan` prints).
std::string plan_text(const Node& root);

}  // namespace gfxq::plan
