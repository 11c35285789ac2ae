#pragma once
//! \file column_facts.h
//! Facts about catalog columns that plan choices need before any pass runs (the star aggregate's
//! key ranges, group radixes and whether a dimension's key is unique), computed once on the host
//! per table version and kept by the compute backend.

#include <cstdint>
#include <map>
#include <string>

#include "gfxq/table.h"
#include "vk/engine/resident.h"

namespace gfxq::vk {

//! What one 32-bit column (INT, DATE days, STRING codes) holds.
struct ColumnFacts {
  uint64_t rows = 0;    //!< values (NULL flags ignored: the callers take NULL-free columns)
  int32_t min = 0;      //!< smallest value (0 when empty)
  int32_t max = 0;      //!< largest value (0 when empty)
  bool unique = false;  //!< no value repeats (checked when max - min < kUniqueCheckRange)
  //! Ranges (max - min + 1) up to which uniqueness is checked (one bit per value).
  static constexpr uint64_t kUniqueCheckRange = uint64_t(1) << 28;
};

//! Facts of catalog columns by (table name, Catalog::version, column index); a table's facts of
//! older versions are dropped when a newer one is asked for.
class ColumnFactsCache {
 public:
  //! The facts of `column` (its int32 storage), computed now on first use.
  const ColumnFacts& get(const ResidentKey& key, const Column& column);

 private:
  std::map<ResidentKey, ColumnFacts> facts_;
};

}  // namespace gfxq::vk
