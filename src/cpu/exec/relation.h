#pragma once
//! \file relation.h
//! Relations in host memory as the CPU engine's operators pass them: a catalog table read in place,
//! or a table an operator made.

#include <cstdint>
#include <memory>
#include <vector>

#include "gfxq/table.h"

namespace gfxq::cpu {

//! Columns of a host table, in a node's schema order.
struct HostRelation {
  std::shared_ptr<const Table> owned;  //!< the rows when an operator made them, else null
  const Table* table = nullptr;        //!< the rows (owned.get() or a catalog table)
  std::vector<size_t> columns;         //!< which of `table`'s columns, in schema order
  uint64_t row_count = 0;              //!< number of rows

  //! Number of rows.
  uint64_t rows() const noexcept { return row_count; }
  //! Column `i` of the relation.
  const Column& column(size_t i) const { return table->columns.at(columns.at(i)); }
  //! A relation over a table an operator made (every column, in order).
  static HostRelation of(Table t);
  //! A relation reading `columns` of a catalog table in place.
  static HostRelation view(const Table& t, std::vector<size_t> columns);
  //! The relation as a table (copies when it is a view of some columns).
  Table to_table() const;
};

}  // namespace gfxq::cpu
