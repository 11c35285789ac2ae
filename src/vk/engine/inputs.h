#pragma once
//! \file inputs.h
//! The inputs of the compute backend's join and GROUP BY fragments (fragments.h): which children of
//! the Join or Aggregate node a fragment covers (a Scan; a Filter over a Scan whose condition the CNF
//! kernels run) and, at run time, their rows in host memory, their selected row ids and their columns
//! on the device.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cpu/exec/relation.h"
#include "plan/logical.h"
#include "vk/engine/fragments.h"

namespace gfxq::vk {

//! Whether column `c` of `node`'s output may hold NULLs, decided from the plan: a Scan's column when
//! the table's has NULL flags; a computed expression; an aggregate other than COUNT.
bool may_be_null(const plan::Node& node, size_t c);

//! Whether the 32-bit device columns hold values of `type`: INT, FLOAT, DATE (days), STRING (codes).
bool device_type(Type type) noexcept;

//! Classifies `child` of a Join or Aggregate node: a Scan, or a Filter over a Scan whose condition
//! the CNF kernels run, is covered (appended to `covered`, the Filter first); anything else is a
//! fragment input (appended to `inputs`). Returns whether it is covered.
bool claim_input(const plan::Node& child, const Catalog& catalog, std::vector<const plan::Node*>& covered,
                 std::vector<const plan::Node*>& inputs);

//! One input of a Join or Aggregate node at run time.
class InputRows {
 public:
  //! The input `child` (classified as claim_input() did): rows of its catalog table, selected by the
  //! Filter's condition on the device, when `relation` is null; else `relation`, an input's result.
  //! The CNF passes and the resident reads go to `passes`.
  InputRows(FragmentEnv& env, const plan::Node& child, const cpu::HostRelation* relation,
            std::vector<PassRecord>& passes);
  InputRows(const InputRows&) = delete;
  InputRows& operator=(const InputRows&) = delete;
  ~InputRows();

  //! The rows by row id: the Scan's view of its table, or the input relation.
  const cpu::HostRelation& rows() const noexcept { return rows_; }
  //! The ascending row ids that take part (the Filter's), or nullopt: every row.
  const std::optional<std::vector<uint32_t>>& selection() const noexcept { return selection_; }
  //! Rows that take part.
  uint64_t count() const noexcept { return selection_ ? selection_->size() : rows_.rows(); }
  //! The rows that take part and whose `columns` are all non-NULL (nullopt: every row).
  std::optional<std::vector<uint32_t>> live(const std::vector<size_t>& columns) const;
  //! The device copy of column `c` of the child's schema: resident for a covered input, else uploaded
  //! now (an "upload" pass) and kept for this InputRows' life.
  const DeviceColumn& column(size_t c);
  //! What the input's rows came from, for the report: "table t (resident)", "Filter ... on the device".
  const std::string& describe() const noexcept { return describe_; }

 private:
  FragmentEnv& env_;
  const plan::Node& child_;
  const plan::Node* scan_ = nullptr;  // covered: the Scan
  uint64_t version_ = 0;              // covered: Catalog::version of its table
  cpu::HostRelation rows_;
  std::optional<std::vector<uint32_t>> selection_;
  std::vector<PassRecord>& passes_;
  std::vector<std::unique_ptr<DeviceColumn>> owned_;
  std::vector<const DeviceColumn*> columns_;  // per schema column, once read
  std::string describe_;
};

//! Uploads ascending row ids as a selection buffer (padded; at least 16 bytes), recording an
//! "upload" pass named `what`.
Buffer upload_selection(Device& device, const std::vector<uint32_t>& ids, const std::string& what,
                        std::vector<PassRecord>& passes);

}  // namespace gfxq::vk
