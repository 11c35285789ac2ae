#include "engine/partitioned/device_set.h"

#include <chrono>
#include <cstdlib>
#include <exception>
#include <thread>

#include "engine/partitioned/merge.h"
#include "engine/partitioned/tables.h"
#include "gfxq/error.h"

namespace gfxq::engine::partitioned {

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Points every Scan of `n` at `catalog`'s table of the same name.
void point_scans(plan::Node& n, const Catalog& catalog) {
  if (n.kind == plan::NodeKind::Scan) n.table = &catalog.get(n.table_name);
  for (auto& c : n.children) point_scans(*c, catalog);
}

}  // namespace

std::vector<std::string> device_entries(const EngineOptions& options, std::string& source) {
  if (!options.vk_devices.empty()) {
    source = "EngineOptions::vk_devices";
    for (size_t i = 0; i < options.vk_devices.size(); ++i)
      if (options.vk_devices[i].empty())
        throw Error(ErrorCode::InvalidInput, source + " entry " + std::to_string(i) + " is empty");
    return options.vk_devices;
  }
  if (!options.vk_device.empty()) {
    source = "EngineOptions::vk_device";
    return {options.vk_device};
  }
  const char* env = std::getenv("GFXQ_VK_DEVICE");
  if (!env || std::string_view(env).find(',') == std::string_view::npos) return {};
  source = "GFXQ_VK_DEVICE";
  std::vector<std::string> entries;
  const std::string text = env;
  for (size_t at = 0;;) {
    const size_t end = text.find(',', at);
    std::string entry = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    while (!entry.empty() && entry.front() == ' ') entry.erase(entry.begin());
    while (!entry.empty() && entry.back() == ' ') entry.pop_back();
    if (entry.empty())
      throw Error(ErrorCode::InvalidInput,
                  "GFXQ_VK_DEVICE='" + text + "': entry " + std::to_string(entries.size()) + " is empty");
    entries.push_back(std::move(entry));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return entries;
}

DeviceSet::DeviceSet(std::vector<std::string> entries, std::string source, Backends& first,
                     const EngineOptions& options)
    : entries_(std::move(entries)), source_(std::move(source)), first_(first) {
  for (size_t i = 1; i < entries_.size(); ++i) {
    EngineOptions o = options;
    o.vk_devices.clear();
    o.vk_device = entries_[i];
    others_.push_back(std::make_unique<Backends>(o));
  }
  tables_.resize(entries_.size());
}

DeviceSet::~DeviceSet() = default;

void DeviceSet::set_gpu_timing(bool on) {
  for (auto& b : others_) b->set_gpu_timing(on);
}

Backends& DeviceSet::backends(size_t i) {
  return i == 0 ? first_ : *others_[i - 1];
}

std::string DeviceSet::label(size_t i) {
  const VkCapabilities& caps = compute_capabilities(backends(i).get(Backend::Compute));
  return "device " + std::to_string(i) + " ('" + entries_[i] + "'" + (caps.available ? ": " + caps.device_name : "") +
         ")";
}

void DeviceSet::check_devices() {
  if (checked_) return;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const VkCapabilities& caps = compute_capabilities(backends(i).get(Backend::Compute));
    if (!caps.available)
      throw Error(ErrorCode::Unsupported, source_ + " entry " + std::to_string(i) + " ('" + entries_[i] +
                                              "') cannot be used: " + caps.unavailable_reason);
  }
  checked_ = true;
}

std::string DeviceSet::describe(const plan::Node& root, Backend requested) {
  if (requested == Backend::Cpu || requested == Backend::Raster)
    return "one device: the " + std::string(to_string(requested)) +
           " backend was requested (partitions run on the compute backend's devices)";
  std::string why;
  if (auto split = split_plan(root, why)) return "over " + std::to_string(size()) + " devices: " + split->description;
  return "one device: " + why;
}

Result DeviceSet::execute(const plan::Node& root, const Catalog& catalog, Backend requested, Partitioning mode) {
  std::string why;
  std::optional<Split> split;
  if (requested == Backend::Cpu || requested == Backend::Raster)
    why = "the " + std::string(to_string(requested)) +
          " backend was requested (partitions run on the compute backend's devices)";
  else
    split = split_plan(root, why);
  if (!split) {
    if (mode == Partitioning::Required && requested != Backend::Cpu && requested != Backend::Raster)
      throw Error(ErrorCode::Unsupported,
                  "partitioned execution over " + std::to_string(size()) + " devices cannot answer exactly: " + why);
    Result r = execute_plan(root, catalog, requested, first_);
    r.report.partitioning = "one device (device 0, '" + entries_[0] + "'): " + why;
    return r;
  }
  check_devices();
  const size_t parts = size();
  std::vector<const Catalog*> catalogs;
  for (size_t i = 0; i < parts; ++i) catalogs.push_back(&tables_[i].prepare(*split, catalog, parts, i));
  // A forced backend must claim the partial plan as it claimed the whole one; under Auto mode a
  // partial it cannot run goes to one device instead of failing (placement asks, never runs).
  if (requested != Backend::Auto && mode == Partitioning::Auto) {
    auto plan = plan::clone(*split->partial);
    point_scans(*plan, *catalogs[0]);
    try {
      explain_plan(*plan, *catalogs[0], requested, first_);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::Unsupported) throw;
      Result r = execute_plan(root, catalog, requested, first_);
      r.report.partitioning =
          "one device (device 0, '" + entries_[0] + "'): the partial plan cannot run there: " + e.what();
      return r;
    }
  }

  // Every device runs the partial plan over its tables, concurrently; the first error (by device) wins.
  std::vector<Result> partials(parts);
  std::vector<std::exception_ptr> errors(parts);
  auto run = [&](size_t i) {
    try {
      auto plan = plan::clone(*split->partial);
      point_scans(*plan, *catalogs[i]);
      const auto start = std::chrono::steady_clock::now();
      partials[i] = execute_plan(*plan, *catalogs[i], requested, backends(i));
      partials[i].report.total_ms = ms_since(start);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> threads;
    for (size_t i = 1; i < parts; ++i) threads.emplace_back(run, i);
    run(0);
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);

  // Exchange: the partials (downloaded by their devices for "the query's result") into one table.
  const auto exchange_start = std::chrono::steady_clock::now();
  uint64_t bytes = 0;
  double download_ms = 0;
  std::vector<Table> tables;
  for (auto& p : partials) {
    bytes += table_bytes(p.table);
    // The partial leaves its device in the fragment's last download (earlier ones are the
    // fragment's own counts and sizes, not the exchange).
    for (auto pass = p.report.passes.rbegin(); pass != p.report.passes.rend(); ++pass)
      if (pass->kind == "download") {
        download_ms += pass->wall_ms;
        break;
      }
    tables.push_back(std::move(p.table));
  }
  Table all = concatenate(tables, split->partial_schema);
  tables.clear();
  const uint64_t exchanged_rows = all.rows();
  const double collect_ms = ms_since(exchange_start);

  const auto merge_start = std::chrono::steady_clock::now();
  Result result = merge_partials(root, *split, std::move(all), first_, requested);
  const double merge_ms = ms_since(merge_start);
  ExecutionReport& report = result.report;
  const Table& whole = catalog.get(split->partitioned_table);
  std::vector<PassRecord> passes;
  Backend ran = Backend::Cpu;
  for (size_t i = 0; i < parts; ++i) {
    const ExecutionReport& pr = partials[i].report;
    const auto [first, count] = row_range(whole.rows(), parts, i);
    PartitionReport part;
    part.device = label(i);
    part.first_row = first;
    part.rows = count;
    part.rows_out = pr.plan.empty() ? 0 : pr.plan.front().rows_out;
    part.algorithm = pr.algorithm;
    part.wall_ms = pr.total_ms;
    part.plan = pr.plan;
    if (pr.backend != Backend::Cpu) ran = pr.backend;
    for (PassRecord pass : pr.passes) {
      pass.detail = "device " + std::to_string(i) + (pass.detail.empty() ? "" : ": " + pass.detail);
      passes.push_back(std::move(pass));
    }
    report.partitions.push_back(std::move(part));
  }
  passes.push_back(
      {"exchange",
       "partial results of " + std::to_string(parts) + " devices to the host, " + std::to_string(bytes) + " bytes",
       exchanged_rows, std::nullopt, std::nullopt, collect_ms});
  for (auto& pass : report.passes) {
    pass.detail = "merge" + (pass.detail.empty() ? "" : ": " + pass.detail);
    passes.push_back(std::move(pass));
  }
  // The whole merge (its GROUP BY, the finish on the host and the nodes above the split), whichever
  // backend ran it (the CPU engine records no passes of its own).
  passes.push_back({"merge", report.algorithm, exchanged_rows, result.table.rows(), std::nullopt, merge_ms});
  report.passes = std::move(passes);
  report.exchange_bytes = bytes;
  report.exchange_ms = download_ms + collect_ms;
  report.backend = ran;
  report.partitioning = "over " + std::to_string(parts) + " devices: " + split->description;
  report.algorithm = "partitioned over " + std::to_string(parts) + " devices (" + partials[0].report.algorithm +
                     "); merge: " + report.algorithm;
  return result;
}

std::vector<std::string> DeviceSet::take_debug_messages() {
  std::vector<std::string> all;
  for (auto& b : others_)
    for (auto& m : b->take_debug_messages()) all.push_back(std::move(m));
  return all;
}

}  // namespace gfxq::engine::partitioned
