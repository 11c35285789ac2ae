#include "vk/relational/aggregate.h"

#include <map>

#include "core/exact_sum.h"
#include "core/order_key.h"
#include "gfxq/error.h"
#include "vk/relational/quantile.h"

namespace gfxq::vk {

namespace {

bool is_quantile(AggKind k) {
  return k == AggKind::Median || k == AggKind::Quantile || k == AggKind::KthLargest;
}

Value value_of_key(Type type, uint32_t key) {
  if (type == Type::Int32) return int_from_key(key);
  return float_from_key(key);
}

// What the fused statistics pass computes for one column, and its result.
struct ColumnStats {
  BoundColumn column;
  AggWants wants{false, false, false};
  AggTotals totals;
};

}  // namespace

AggTotals combine_partials(const std::vector<AggPartial>& partials, size_t bins) {
  AggTotals t;
  bins = std::min<size_t>(bins, 16);
  for (const AggPartial& p : partials) {
    t.count += p.count;
    t.min_key = std::min(t.min_key, p.min_key);
    t.max_key = std::max(t.max_key, p.max_key);
    t.special |= p.special;
    for (size_t b = 0; b < bins; ++b) t.bins[b] += p.bins[b];
  }
  return t;
}

AggTotals totals_of(const AggDeviceTotal& total) {
  AggTotals t;
  t.count = total.count;
  t.min_key = total.min_key;
  t.max_key = total.max_key;
  t.special = total.special;
  for (size_t b = 0; b < 16; ++b)
    t.bins[b] = __int128(static_cast<unsigned __int128>(uint64_t(total.bin_high[b])) << 64 | total.bin_low[b]);
  return t;
}

bool agg_combine_fits(const Device& device, uint64_t partials) {
  const uint64_t limit = device.caps().shader_loop_limit;
  // The header loop (partials / 256), the bin loops (partials / 16 with bins == 16, partials / 256
  // with one) and the tree (8 steps).
  return limit == 0 || partials / 256 + partials / 16 + 16 <= limit;
}

void record_agg_combine(Device& device, VkCommandBuffer cmd, const Buffer& partials, uint32_t count, uint32_t bins,
                        const Buffer& total) {
  if (bins != 1 && bins != 16)
    throw Error(ErrorCode::InvalidInput, "record_agg_combine: " + std::to_string(bins) + " bins (1 or 16)");
  if (!agg_combine_fits(device, count))
    throw Error(ErrorCode::InvalidInput, "record_agg_combine: " + std::to_string(count) + " partials exceed " +
                                             device.caps().device_name + "'s shader loop limit");
  const uint32_t push[2] = {count, bins};
  device.dispatch(cmd, device.pipeline("agg_combine", 2, sizeof(push)), {&partials, &total}, push, 1);
}

double float_sum(const AggTotals& totals) {
  const uint32_t s = totals.special;
  if (const auto special = special_sum(s & 1, s & 2, s & 4)) return *special;
  // Bin b holds counts at bit 16b of the fixed point in units of 2^-149; |bin| < 2^95 (2^63 per
  // workgroup, fewer than 2^32 workgroups).
  std::array<ExactTerm, 16> terms;
  for (int b = 0; b < 16; ++b) terms[b] = {totals.bins[b], 16 * b};
  return exact_sum(terms);
}

std::string record_cnf_aggregate(Device& device, VkCommandBuffer cmd, const CnfInput& input, uint32_t value_slot,
                                 AggWants wants, const ScanPlan& plan, const Buffer& partials, bool allow_f64) {
  const BoundColumn& value = input.program->slots.at(value_slot);
  const bool is_float = value.type == Type::Float32;
  if (!wants.sum && !wants.min && !wants.max)
    throw Error(ErrorCode::InvalidInput,
                "record_cnf_aggregate: none of SUM, MIN and MAX of " + value.name + " asked for");
  if (is_float && wants.sum && !device.caps().shared_int64_atomics)
    throw Error(ErrorCode::Unsupported, "compute backend cannot run SUM/AVG of FLOAT column " + value.name + " on " +
                                            device.caps().device_name + ": it has no shaderSharedInt64Atomics");
  const std::string mode = std::string(is_float ? "agg_float" : "agg_int") + (wants.sum ? "_sum" : "") +
                           (wants.min && wants.max ? "_minmax"
                            : wants.min            ? "_min"
                            : wants.max            ? "_max"
                                                   : "");
  // The exact FLOAT sum's register bin adds doubles where the device has them (cnf_scan.comp).
  const bool f64 = is_float && wants.sum && allow_f64 && device.caps().shader_float64;
  return detail::record_cnf_scan(device, cmd, mode, input, plan, partials, nullptr, value_slot, f64 ? "_f64" : "");
}

Table run_aggregates(QueryContext& ctx, std::string& algorithm, const SortLimits& limits) {
  const BoundQuery& q = ctx.query();
  Table out;
  for (const OutputColumn& c : q.output) out.columns.push_back(Column::make(c.name, c.type));
  if (q.limit && *q.limit == 0) {
    algorithm = "compute: aggregates under LIMIT 0 (no row, no GPU work)";
    return out;
  }
  const CnfProgram program = compile_cnf(q.where);
  const bool none = program.outcome == CnfProgram::Outcome::None || ctx.plan().rows == 0;

  // Columns of the fused statistics pass, and columns whose keys the quantiles select from.
  std::map<std::pair<Side, size_t>, ColumnStats> stats;
  std::map<std::pair<Side, size_t>, BoundColumn> quantile_columns;
  for (const BoundItem& item : q.items) {
    const auto& agg = std::get<BoundAggregate>(item);
    if (!agg.column) continue;
    const auto key = std::make_pair(agg.column->side, agg.column->index);
    if (is_quantile(agg.kind)) {
      quantile_columns.emplace(key, *agg.column);
    } else if (agg.kind != AggKind::Count) {
      ColumnStats& s = stats[key];
      s.column = *agg.column;
      if (agg.kind == AggKind::Sum || agg.kind == AggKind::Avg)
        s.wants.sum = true;
      else if (agg.kind == AggKind::Min)
        s.wants.min = true;
      else
        s.wants.max = true;
    }
  }

  std::optional<uint64_t> count;
  std::vector<std::string> steps;
  if (none) {
    count = 0;
    steps.push_back("WHERE folded to constant false (no GPU work)");
  }
  Device& device = ctx.device();
  const ScanPlan& plan = ctx.plan();
  if (!none) {
    for (auto& [key, s] : stats) {
      CnfProgram p = program;
      const uint32_t slot = p.slot(s.column);
      Buffer words;
      const CnfInput input = ctx.bind(p, words);
      Buffer partials = device.create_buffer(uint64_t(plan.groups) * sizeof(AggPartial), MemoryKind::Device);
      const std::string what = std::string("COUNT") + (s.wants.sum ? "/SUM" : "") + (s.wants.min ? "/MIN" : "") +
                               (s.wants.max ? "/MAX" : "") + " of " + s.column.name;
      // INT sums and MIN/MAX use bin 0 alone (zero without a sum), FLOAT sums all 16.
      const uint32_t bins = s.column.type == Type::Float32 && s.wants.sum ? 16 : 1;
      // The total is written where the host reads it (mapped): no copy to stage it.
      const bool on_device = agg_combine_fits(device, plan.groups);
      Buffer total = on_device ? device.create_buffer(sizeof(AggDeviceTotal), MemoryKind::Readback) : Buffer();
      std::string kernel;
      PassRecord& pass_record =
          ctx.run("cnf-aggregate",
                  "fused CNF (" + program.summary() + ") + " + what + ": one partial per workgroup" +
                      (on_device ? ", added up on the device by agg_combine (exact)" : "") + "; " + plan.summary(),
                  plan.rows, [&](VkCommandBuffer cmd) {
                    kernel = record_cnf_aggregate(device, cmd, input, slot, s.wants, plan, partials,
                                                  !ctx.limits().float_sum_int64);
                    if (on_device) {
                      device.barrier(cmd);
                      record_agg_combine(device, cmd, partials, plan.groups, bins, total);
                    }
                  });
      pass_record.detail += "; kernel " + kernel;
      const size_t pass = ctx.passes().size() - 1;
      if (on_device) {
        s.totals = totals_of(ctx.download<AggDeviceTotal>(total, 1, "aggregate total").at(0));
      } else {
        const auto parts = ctx.download<AggPartial>(partials, plan.groups, "aggregate partials");
        const auto start = QueryContext::Clock::now();
        s.totals = combine_partials(parts, bins);
        ctx.add("combine",
                std::to_string(plan.groups) + " partials of " + s.column.name +
                    " added on the host (exact; too many for agg_combine within the driver's shader loop limit)",
                plan.groups, std::nullopt, start);
      }
      ctx.passes()[pass].passed = s.totals.count;
      count = s.totals.count;
      steps.push_back("fused CNF + " + what + " in 1 dispatch");
    }
  }

  // Quantiles: one selection (bitmask) shared by every column, the keys of each column, then one
  // radix select per aggregate.
  std::map<std::pair<Side, size_t>, DeviceKeys> keys;
  if (!none && !quantile_columns.empty()) {
    const DeviceSelection selection = mark_rows(ctx, program);
    count = selection.count;
    for (const auto& [key, c] : quantile_columns) keys.emplace(key, selected_keys(ctx, selection, c));
    steps.push_back(
        std::string(selection.all ? "radix select of the column" : "CNF bitmask + compacted keys + radix select") +
        select_windows_text(ctx.device(), selection.count, limits.window));
  }
  if (!count) {
    count = count_rows(ctx, program);
    steps.push_back(program.outcome == CnfProgram::Outcome::All
                        ? "COUNT without condition (no GPU work)"
                        : "fused CNF count (" + program.summary() + ") in 1 dispatch");
  }

  for (size_t i = 0; i < q.items.size(); ++i) {
    const auto& agg = std::get<BoundAggregate>(q.items[i]);
    Column& col = out.columns[i];
    if (agg.kind == AggKind::Count) {
      col.push(int64_t(*count));
      continue;
    }
    const auto key = std::make_pair(agg.column->side, agg.column->index);
    const Type type = agg.column->type;
    if (*count == 0) {
      col.push(std::monostate{});
      continue;
    }
    if (is_quantile(agg.kind)) {
      col.push(quantile_value(ctx, keys.at(key), agg, type, limits));
      continue;
    }
    const AggTotals& t = stats.at(key).totals;
    switch (agg.kind) {
      case AggKind::Sum:
        if (type == Type::Int32)
          col.push(int_sum_result(t.bins[0], agg.name));
        else
          col.push(canonical_double(float_sum(t)));
        break;
      case AggKind::Avg:
        if (type == Type::Int32)
          col.push(int_average(t.bins[0], t.count));
        else
          col.push(canonical_double(float_sum(t) / double(t.count)));
        break;
      case AggKind::Min: col.push(value_of_key(type, t.min_key)); break;
      case AggKind::Max: col.push(value_of_key(type, t.max_key)); break;
      default: throw Error(ErrorCode::Internal, "unhandled aggregate " + agg.name);
    }
  }
  algorithm = "compute:";
  for (size_t i = 0; i < steps.size(); ++i) algorithm += (i ? "; " : " ") + steps[i];
  return out;
}

}  // namespace gfxq::vk
