#include "vk/engine/skeleton_inputs.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <variant>

#include "cpu/exec/ops.h"
#include "gfxq/error.h"

namespace gfxq::vk {

bool skeleton_type(Type type) noexcept {
  return device_type(type) || type == Type::Int64 || type == Type::Float64;
}

const Buffer& SkeletonColumns::upload(const void* words, uint64_t count, const std::string& what) {
  const auto start = std::chrono::steady_clock::now();
  owned_.push_back(env_.device.create_buffer(padded_bytes(count), MemoryKind::Device));
  if (count) env_.device.upload(owned_.back(), words, count * 4);
  PassRecord p;
  p.kind = "upload";
  p.detail = what + " (" + std::to_string(count * 4) + " bytes)";
  p.items = count;
  p.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  passes_.push_back(std::move(p));
  return owned_.back();
}

skel::PlaneSource SkeletonColumns::source(size_t c, const std::shared_ptr<const Dictionary>& dictionary) {
  skel::PlaneSource s;
  // A compute fragment's result: NULL-free 32-bit columns, read in place (unless a STRING column
  // must move to another dictionary, on the host below).
  if (const DeviceRelation* d = in_.device_relation()) {
    const plan::SchemaColumn& col = d->schema.at(c);
    if (col.type != Type::String || !dictionary || col.dictionary == dictionary) {
      s.word0 = &in_.column(c).buffer;
      return s;
    }
  }
  const Column& host = in_.host().column(c);
  const uint64_t n = in_.rows();
  if (!host.nulls.empty()) {
    const std::vector<uint32_t> flags(host.nulls.begin(), host.nulls.begin() + n);
    s.nulls = &upload(flags.data(), n, "NULL flags of " + host.name);
  }
  if (host.type == Type::String && dictionary && host.dictionary != dictionary) {
    const Column recoded = cpu::recode(host, dictionary);
    s.word0 = &upload(recoded.as<int32_t>().data(), n, host.name + " moved to the output's dictionary");
  } else if (host.type == Type::Int64 || host.type == Type::Float64) {
    std::vector<uint32_t> lo(n), hi(n);
    std::visit(
        [&](const auto& v) {
          using T = typename std::decay_t<decltype(v)>::value_type;
          if constexpr (sizeof(T) == 8)
            for (uint64_t r = 0; r < n; ++r) {
              uint64_t bits;
              std::memcpy(&bits, &v[r], 8);
              lo[r] = uint32_t(bits);
              hi[r] = uint32_t(bits >> 32);
            }
        },
        host.data);
    s.word0 = &upload(lo.data(), n, "low words of " + host.name);
    s.word1 = &upload(hi.data(), n, "high words of " + host.name);
  } else if (device_type(host.type)) {
    s.word0 = &in_.column(c).buffer;
  } else {
    throw Error(ErrorCode::Unsupported, "column " + host.name + " is " + to_string(host.type) +
                                            " (the compute skeletons read INT, FLOAT, DATE, STRING, BIGINT, DOUBLE)");
  }
  return s;
}

void set_input_rows(InputRows& in, skel::RowsInput& rows) {
  rows.left_rows = in.rows();
  std::optional<std::vector<uint32_t>> ids = in.host_selection("selected row ids");
  rows.all = !ids.has_value();
  if (ids) rows.ids = std::move(*ids);
}

void claim_skeleton_input(const plan::Node& child, const Catalog& catalog, std::vector<const plan::Node*>& covered,
                          std::vector<const plan::Node*>& inputs) {
  if (child.kind == plan::NodeKind::Project && columns_only(child)) {
    std::vector<const plan::Node*> below, none;
    if (claim_input(*child.children[0], catalog, below, none)) {
      covered.push_back(&child);
      covered.insert(covered.end(), below.begin(), below.end());
      return;
    }
  }
  claim_input(child, catalog, covered, inputs);
}

const plan::Node& skeleton_input(const plan::Node& child, const engine::Fragment& f, std::vector<size_t>& map) {
  map.clear();
  if (child.kind == plan::NodeKind::Project && std::find(f.nodes.begin(), f.nodes.end(), &child) != f.nodes.end()) {
    for (const auto& e : child.exprs) map.push_back(e.column);
    return *child.children[0];
  }
  for (size_t i = 0; i < child.schema.size(); ++i) map.push_back(i);
  return child;
}

const plan::Node& under_layers(const plan::Node& node, std::vector<const plan::Node*>& layers) {
  const plan::Node* cur = &node;
  while ((cur->kind == plan::NodeKind::Project && columns_only(*cur)) || cur->kind == plan::NodeKind::Limit) {
    layers.push_back(cur);
    cur = cur->children[0].get();
  }
  return *cur;
}

uint64_t rows_needed(const std::vector<const plan::Node*>& layers) {
  for (auto it = layers.rbegin(); it != layers.rend(); ++it)
    if ((*it)->kind == plan::NodeKind::Limit)
      return (*it)->limit > UINT64_MAX - (*it)->offset ? UINT64_MAX : (*it)->offset + (*it)->limit;
  return UINT64_MAX;
}

void report_layers(engine::FragmentRun& out, const engine::Fragment& f, const plan::Node& core, uint64_t rows_in,
                   uint64_t rows_out, double wall_ms) {
  if (f.root == &core) return;
  engine::NodeRun top;
  top.algorithm = "compute: select list and LIMIT applied to the " + std::to_string(rows_in) + " rows on the host";
  top.rows_in = rows_in;
  top.rows_out = rows_out;
  top.wall_ms = wall_ms;
  out.nodes[f.root] = top;
}

}  // namespace gfxq::vk
