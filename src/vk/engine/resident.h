#pragma once
//! \file resident.h
//! Resident columns: the compute backend's cache of catalog columns on the device (issue 19). A
//! query's first read of a column uploads it (an "upload" pass with its bytes); later queries over
//! the same table version read the device copy (a "resident" pass, 0 bytes moved). Entries are keyed
//! by (table name, Catalog::version, column index): replacing a table in the catalog gives it a new
//! version, so its old columns never answer again and are dropped at the next read of that table.
//! The cache is bounded by a byte budget; least recently used columns are evicted by trim(), which
//! the backend calls after each fragment, never while a fragment holds a column.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/column_key.h"
#include "gfxq/result.h"
#include "gfxq/table.h"
#include "vk/device.h"
#include "vk/relational/select.h"

namespace gfxq::vk {

//! Which catalog column a resident copy holds.
using ResidentKey = ColumnKey;

//! The device copies of catalog columns, bounded by a byte budget.
class ResidentColumns {
 public:
  //! A cache keeping at most `budget_bytes` between trims (0: every column is dropped at trim()).
  explicit ResidentColumns(uint64_t budget_bytes) : budget_(budget_bytes) {}

  //! The device copy of `column` (the INT, FLOAT, DATE or STRING column `key` names; stored as its
  //! 32-bit values, typed Int32 unless FLOAT): resident, recorded as a "resident" pass, or uploaded
  //! now, recorded as an "upload" pass with its bytes. Columns of older versions of the table are
  //! dropped first. The reference stays valid until trim().
  const DeviceColumn& get(Device& device, const ResidentKey& key, const Column& column,
                          std::vector<PassRecord>& passes) {
    return *share(device, key, column, passes);
  }
  //! get(), as shared ownership: the copy outlives its eviction while a holder (a device relation
  //! a fragment returns) keeps it.
  std::shared_ptr<const DeviceColumn> share(Device& device, const ResidentKey& key, const Column& column,
                                            std::vector<PassRecord>& passes);
  //! Evicts least recently used columns until the rest fit the budget (between fragments).
  void trim();
  //! Bytes of device memory held.
  uint64_t bytes() const noexcept { return bytes_; }
  //! Columns held.
  size_t size() const noexcept { return entries_.size(); }

 private:
  struct Entry {
    std::shared_ptr<const DeviceColumn> column;
    uint64_t bytes = 0;
    uint64_t last_use = 0;
  };
  uint64_t budget_;
  uint64_t bytes_ = 0;
  uint64_t clock_ = 0;
  std::map<ResidentKey, Entry> entries_;
};

}  // namespace gfxq::vk
