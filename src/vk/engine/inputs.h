#pragma once
//! \file inputs.h
//! The inputs and results of the compute backend's plan fragments (fragments.h): which children of a
//! node a fragment covers (a Scan; a Filter over a Scan whose condition the CNF kernels run); at run
//! time each input's columns on the device (InputRows: resident, already on the device, or uploaded),
//! its selected rows and, on request, its rows in host memory; and the device relation
//! (DeviceRelation) a fragment returns so that the compute fragment above it reads it in place.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/bind.h"
#include "cpu/exec/relation.h"
#include "plan/logical.h"
#include "vk/engine/fragments.h"
#include "vk/relational/cnf_program.h"
#include "vk/relational/expression.h"

namespace gfxq::vk {

//! Whether column `c` of `node`'s output may hold NULLs, decided from the plan: a Scan's column when
//! the table's has NULL flags; a computed expression; an aggregate other than COUNT.
bool may_be_null(const plan::Node& node, size_t c);

//! Whether every item of the Project `p` is a bare column (no computed expression).
bool columns_only(const plan::Node& p);

//! The node that column `c` of `node`'s output comes from through Projects of columns and Filters
//! (a Scan when it is a catalog column), with `c` set to that node's column.
const plan::Node* column_source(const plan::Node* node, size_t& c);

//! `t` (the output of a fragment's core node, `rows` rows) with the layers above it applied
//! bottom-up (`layers` top-down): a Project of columns picks and renames columns, a Limit cuts rows,
//! a Sort the core already satisfies changes nothing. `rows` becomes the result's row count.
Table apply_layers(Table t, uint64_t& rows, const std::vector<const plan::Node*>& layers);

//! Hands the `groups` rows `t` of the Aggregate `agg` (ascending by key) to the fragment's caller:
//! the `layers` above it applied on the host (apply_layers()), their node report when the fragment's
//! root is above `agg`, and out.result set to the host rows.
void hand_over_groups(engine::FragmentRun& out, const engine::Fragment& f, const plan::Node& agg, Table t,
                      uint64_t groups, const std::vector<const plan::Node*>& layers);

//! Why the `layers` above the Aggregate `agg` (top-down, as apply_layers() takes them) do not keep
//! the groups' key order, or empty when they do: each Sort's keys must be a prefix of the group keys,
//! ascending.
std::string layers_keep_order(const plan::Node& agg, const std::vector<const plan::Node*>& layers);

//! Whether the 32-bit device columns hold values of `type`: INT, FLOAT, DATE (days), STRING (codes).
bool device_type(Type type) noexcept;

//! A covered Filter's condition as a query over its table, bound and compiled for the CNF kernels.
struct FilterProgram {
  Query query;         //!< the condition as a Query spec (engine::scan_filter_spec)
  BoundQuery bound;    //!< bound with STRING codes and DATE days read as INT
  CnfProgram program;  //!< the compiled condition
  //! A condition the CNF kernels do not take but the expression programs do (`query`, `bound` and
  //! `program` unused): its rows selected by select_rows() (vk/relational/expression.h).
  std::optional<ExprProgram> expression;
};

//! Classifies `child` of a Join or Aggregate node: a Scan, or a Filter over a Scan whose condition
//! the CNF kernels or the expression programs run (its columns NULL-free), is covered (appended to `covered`, the
//! Filter first); anything else is a fragment input (appended to `inputs`). Returns whether it is covered. A covered
//! Filter's program goes to `filters` when given (the fragment keeps it as its state; InputRows reads it from there).
bool claim_input(const plan::Node& child, const Catalog& catalog, std::vector<const plan::Node*>& covered,
                 std::vector<const plan::Node*>& inputs, CoveredFilters* filters = nullptr);

//! A relation on the device: a compute fragment's result that the compute fragment above it reads in
//! place (engine::Relation with owner Backend::Compute). Columns hold 32-bit values (INT, FLOAT bits,
//! DATE days, STRING codes into the schema's dictionary) and no NULLs; 64-bit types and columns that
//! may hold NULLs are not held on the device (a fragment whose output has them returns host rows).
//! Row ids (pairs of a join, a selection) index the rows of `columns`.
struct DeviceRelation final : engine::BackendData {
  std::vector<std::shared_ptr<const DeviceColumn>> columns;  //!< per schema column: `row_count` values
  plan::Schema schema;                                       //!< names, types and dictionaries (to decode)
  uint64_t row_count = 0;                                    //!< rows of every column
  //! Ascending row ids (uint32, padded_bytes()) of the rows that belong to the relation; null: every
  //! row. Lets a Filter hand over its rows without gathering its columns.
  std::shared_ptr<const Buffer> selection;
  uint64_t selected = 0;  //!< ids in `selection`
  //! Rows of the relation.
  uint64_t rows() const noexcept override { return selection ? selected : row_count; }
};

//! Whether the output of `node` can be a DeviceRelation: every column of a 32-bit device type
//! (device_type()) that cannot be NULL (may_be_null()); else `why` (optional) names the first that is not.
bool device_schema(const plan::Node& node, std::string* why = nullptr);

//! The rows of `relation` in host memory (its columns downloaded and, with a selection, gathered on the
//! host by the selected ids), typed and named by its schema; appends a "download" pass naming `what`.
cpu::HostRelation download_relation(Device& device, const DeviceRelation& relation, const std::string& what,
                                    std::vector<PassRecord>& passes);

//! Rows of an input on the device: the ascending row ids that take part, or every row.
struct DeviceRows {
  const Buffer* selection = nullptr;  //!< uint32 row ids (padded_bytes()); null: every row
  uint64_t count = 0;                 //!< rows that take part
};

//! One input of a compute fragment at run time: "column c of this input on the device", whatever the
//! input is. A covered Scan (or Filter over a Scan) reads the resident columns and selects the Filter's
//! rows on the device; a device relation (a compute fragment's result) is read in place; host rows
//! (another backend's result) are uploaded column by column on first use ("upload" passes).
class InputRows {
 public:
  //! The input `child` (classified as claim_input() did): rows of its catalog table, selected by the
  //! Filter's condition on the device, when `relation` is null; else `relation`, an input's result
  //! (host rows or a DeviceRelation; it must outlive this object). Passes go to `passes`.
  InputRows(FragmentEnv& env, const plan::Node& child, const engine::Relation* relation,
            std::vector<PassRecord>& passes);
  InputRows(const InputRows&) = delete;
  InputRows& operator=(const InputRows&) = delete;
  ~InputRows();

  //! Rows of the input's columns (row ids index them); the rows that take part may be fewer (count()).
  uint64_t rows() const noexcept { return rows_; }
  //! Rows that take part (the Filter's or the relation's selection, else every row).
  uint64_t count() const noexcept;
  //! The device copy of column `c` of the child's schema (32-bit device types only): resident for a
  //! covered input, in place for a device relation, else uploaded now (an "upload" pass) and kept for
  //! this InputRows' life.
  const DeviceColumn& column(size_t c);
  //! column(c) as shared ownership, for a DeviceRelation this fragment returns.
  std::shared_ptr<const DeviceColumn> shared_column(size_t c);
  //! The rows that take part and whose `columns` are all non-NULL, as a device selection: the Filter's
  //! or the relation's ids in place; with NULLs in `columns`, ids chosen on the host and uploaded (an
  //! "upload" pass named `what`; owned by this object).
  DeviceRows live(const std::vector<size_t>& columns, const std::string& what);
  //! The ascending row ids that take part in host memory (a Filter's or the relation's selection,
  //! downloaded now: a "download" pass naming `what`), or nullopt: every row. For operators whose
  //! row ids start on the host.
  std::optional<std::vector<uint32_t>> host_selection(const std::string& what);
  //! The rows in host memory by row id (every row of the columns, not only the selected ones): the
  //! Scan's view of its table, the host relation, or a device relation downloaded now (a "download"
  //! pass). For outputs the device cannot hold (NULLs, 64-bit types).
  const cpu::HostRelation& host();
  //! The compute fragment's result this input reads in place, or null (a covered Scan or host rows).
  const DeviceRelation* device_relation() const noexcept { return device_; }
  //! What the input's rows came from, for the report: "table t", "Filter ... on the device".
  const std::string& describe() const noexcept { return describe_; }

 private:
  FragmentEnv& env_;
  const plan::Node& child_;
  const plan::Node* scan_ = nullptr;        // covered: the Scan
  uint64_t version_ = 0;                    // covered: Catalog::version of its table
  const DeviceRelation* device_ = nullptr;  // a compute fragment's result
  std::optional<cpu::HostRelation> host_;   // the rows in host memory, once known
  uint64_t rows_ = 0;                       // rows of the columns
  std::optional<DeviceRowIds> selected_;    // the covered Filter's row ids (not all rows)
  std::vector<PassRecord>& passes_;
  std::vector<std::shared_ptr<const DeviceColumn>> owned_;
  std::vector<Buffer> owned_ids_;
  std::vector<std::shared_ptr<const DeviceColumn>> columns_;  // per schema column, once read
  std::string describe_;
};

//! Uploads ascending row ids as a selection buffer (padded; at least 16 bytes), recording an
//! "upload" pass named `what`.
Buffer upload_selection(Device& device, const std::vector<uint32_t>& ids, const std::string& what,
                        std::vector<PassRecord>& passes);

}  // namespace gfxq::vk
