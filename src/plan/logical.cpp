#include "plan/logical.h"

#include <charconv>

namespace gfxq::plan {

const char* to_string(NodeKind kind) noexcept {
  switch (kind) {
    case NodeKind::Scan: return "Scan";
    case NodeKind::Filter: return "Filter";
    case NodeKind::Project: return "Project";
    case NodeKind::Join: return "Join";
    case NodeKind::Aggregate: return "Aggregate";
    case NodeKind::Sort: return "Sort";
    case NodeKind::Limit: return "Limit";
    case NodeKind::Distinct: return "Distinct";
    case NodeKind::SetOp: return "SetOp";
  }
  return "?";
}

namespace {

std::string number(double v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

std::string join_list(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

const char* set_op_name(SetOpKind k) {
  switch (k) {
    case SetOpKind::Union: return "UNION";
    case SetOpKind::Intersect: return "INTERSECT";
    case SetOpKind::Except: return "EXCEPT";
  }
  return "?";
}

// The name of input column `c` of a node's child `child`.
std::string input_name(const Node& node, size_t child, size_t c) {
  const Schema& s = node.children.at(child)->schema;
  if (c >= s.size()) return "#" + std::to_string(c);
  return s[c].qualifier.empty() ? s[c].name : s[c].qualifier + "." + s[c].name;
}

}  // namespace

std::string Node::label() const {
  std::vector<std::string> parts;
  switch (kind) {
    case NodeKind::Scan: {
      for (const auto& c : schema) parts.push_back(c.name);
      return "Scan " + table_name + " (" + join_list(parts) + ")";
    }
    case NodeKind::Filter: return "Filter " + predicate->text;
    case NodeKind::Project:
      for (size_t i = 0; i < exprs.size(); ++i)
        parts.push_back(exprs[i].text == schema[i].name ? exprs[i].text : exprs[i].text + " AS " + schema[i].name);
      return "Project " + join_list(parts);
    case NodeKind::Join: {
      for (const auto& [l, r] : equi) parts.push_back(input_name(*this, 0, l) + " = " + input_name(*this, 1, r));
      if (band)
        parts.push_back(input_name(*this, 0, band->left) + " + " + number(band->lo) +
                        " <= " + input_name(*this, 1, band->right) + " <= " + input_name(*this, 0, band->left) + " + " +
                        number(band->hi));
      if (residual) parts.push_back(residual->text);
      return parts.empty() ? "Join (product)" : "Join " + join_list(parts);
    }
    case NodeKind::Aggregate: {
      std::vector<std::string> keys;
      for (const auto& k : group_keys) keys.push_back(k.text);
      for (const auto& a : aggs) parts.push_back(a.text);
      return "Aggregate " + join_list(parts) + (keys.empty() ? "" : " GROUP BY " + join_list(keys));
    }
    case NodeKind::Sort:
      for (const auto& k : sort_keys) parts.push_back(input_name(*this, 0, k.column) + (k.descending ? " DESC" : ""));
      return "Sort " + join_list(parts);
    case NodeKind::Limit:
      return "Limit " + (limit == UINT64_MAX ? std::string("ALL") : std::to_string(limit)) +
             (offset ? " OFFSET " + std::to_string(offset) : "");
    case NodeKind::Distinct: return "Distinct";
    case NodeKind::SetOp: return std::string("SetOp ") + set_op_name(set_op) + (all ? " ALL" : "");
  }
  return "?";
}

namespace {

void mark(Node& n, bool any_order) {
  n.any_order = any_order;
  // Row order passes through these to the children; an Aggregate's result does not depend on it.
  const bool passes = n.kind == NodeKind::Join || n.kind == NodeKind::Filter || n.kind == NodeKind::Project;
  const bool below = n.kind == NodeKind::Aggregate || (passes && any_order);
  for (auto& c : n.children) mark(*c, below);
}

}  // namespace

void mark_any_order(Node& root) {
  mark(root, false);
}

std::unique_ptr<Node> clone(const Node& node) {
  auto out = std::make_unique<Node>();
  out->kind = node.kind;
  out->schema = node.schema;
  out->table_name = node.table_name;
  out->table = node.table;
  out->scan_columns = node.scan_columns;
  out->predicate = node.predicate;
  out->exprs = node.exprs;
  out->equi = node.equi;
  out->band = node.band;
  out->residual = node.residual;
  out->group_keys = node.group_keys;
  out->aggs = node.aggs;
  out->sort_keys = node.sort_keys;
  out->limit = node.limit;
  out->offset = node.offset;
  out->set_op = node.set_op;
  out->all = node.all;
  out->any_order = node.any_order;
  for (const auto& c : node.children) out->children.push_back(clone(*c));
  return out;
}

namespace {
void append_tree(const Node& node, size_t depth, std::string& out) {
  out += std::string(2 * depth, ' ') + node.label() + "\n";
  for (const auto& c : node.children) append_tree(*c, depth + 1, out);
}
}  // namespace

std::string plan_text(const Node& root) {
  std::string out;
  append_tree(root, 0, out);
  return out;
}

}  // namespace gfxq::plan
