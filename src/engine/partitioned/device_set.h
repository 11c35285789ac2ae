#pragma once
//! \file device_set.h
//! Several Vulkan devices of one host (docs/MULTI_GPU.md): one set of backends per device, each with
//! its own device, residency cache and catalog of its partition's tables; a partitioned query runs
//! its partial plan on every device concurrently (one host thread each) and merges on the host.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/executor.h"
#include "engine/partitioned/split.h"
#include "engine/partitioned/tables.h"
#include "gfxq/engine.h"
#include "gfxq/result.h"

namespace gfxq::engine::partitioned {

//! The device choices of `options`: vk_devices, else vk_device, else GFXQ_VK_DEVICE split at commas
//! (a list only when it has a comma); empty when none is named. `source` says where they came from.
//! Error(InvalidInput) naming the entry when one is empty.
std::vector<std::string> device_entries(const EngineOptions& options, std::string& source);

//! Two or more devices and the tables of their partitions.
class DeviceSet {
 public:
  //! The set over `entries` (device choices, two or more; `source` names where they came from);
  //! device 0 uses `first`, the others backends of their own made from `options`. Starts nothing.
  DeviceSet(std::vector<std::string> entries, std::string source, Backends& first, const EngineOptions& options);
  ~DeviceSet();

  //! Runs `root` partitioned across the devices when its split is exact and `requested` is Auto or
  //! Compute, else on device 0 (the report's `partitioning` says why); with Partitioning::Required
  //! a plan that does not split is Error(Unsupported) naming why (a requested CPU engine or raster
  //! backend runs on device 0 / the host whatever the mode). Error(Unsupported) naming the entry when a device of
  //! the set cannot be started.
  Result execute(const plan::Node& root, const Catalog& catalog, Backend requested, Partitioning mode);
  //! How `root` would run on the set (the report's `partitioning` line for EXPLAIN).
  std::string describe(const plan::Node& root, Backend requested);
  //! EngineOptions::gpu_timing on devices 1.. (device 0's is its Backends').
  void set_gpu_timing(bool on);
  //! Debug messages of devices 1.. (device 0's are its Backends').
  std::vector<std::string> take_debug_messages();
  //! Number of devices.
  size_t size() const noexcept { return entries_.size(); }

 private:
  Backends& backends(size_t i);
  std::string label(size_t i);
  void check_devices();

  std::vector<std::string> entries_;
  std::string source_;
  Backends& first_;
  std::vector<std::unique_ptr<Backends>> others_;
  std::vector<PartitionCatalog> tables_;  // per device
  bool checked_ = false;
};

}  // namespace gfxq::engine::partitioned
