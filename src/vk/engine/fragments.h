#pragma once
//! \file fragments.h
//! The compute backend's plan fragments beyond the Query spec's shape (issues 20, 21, 22): joins,
//! GROUP BY, Projects of expressions and aggregates of expressions of logical plans, run by the join operators
//! (vk/operators/join) and the GROUP BY operators (vk/operators/group_by) over inputs that other fragments, on any
//! backend, produced.
//!
//! Join fragment:     [Project of columns] Join
//! Sort fragment:     [Project of columns | Limit]... Sort (issue 23)
//! Set fragment:      [Project of columns | Limit]... Distinct or SetOp
//! (below a Sort, Distinct or SetOp, a Project of columns over a covered input is covered too)
//! Filter fragment:   [Project of columns | Limit]... Filter of an expression program (device relation out)
//! PRODUCT fragment:  [Project of columns] Join without keys, band or residual (CROSS JOIN)
//! GROUP BY fragment: [Project of columns] [Limit] [Sort in the groups' key order] [Project of columns]
//!                    Aggregate with GROUP BY
//! Below the Join or Aggregate, an input that is a Scan, or a Filter over a Scan whose condition the
//! CNF kernels or an expression program run, is covered by the fragment: its columns are read from the resident columns
//! (resident.h) and the Filter's rows are selected on the device. Any other input is a fragment input.
//! Join pairs are made in (left row, right row) order (in any order below an Aggregate:
//! plan::Node::any_order) and the output columns gathered on the device by
//! the pair ids; the groups come back in key order as host columns. Results equal the CPU engine's
//! exactly.
//!
//! How a fragment reads and returns device relations: a fragment run gets its inputs as
//! `std::vector<engine::Relation>` in Fragment::inputs order; each is host rows (another backend's
//! result) or a vk::DeviceRelation (a compute fragment's result, never downloaded in between). Wrap
//! each child in a vk::InputRows (inputs.h): `InputRows in(env, child, covered ? nullptr : &inputs.at(i),
//! out.passes)`; then `in.column(c)` is column c of that input on the device (resident, in place, or
//! uploaded with an "upload" pass), `in.live(cols, what)` its taking-part rows as a device selection
//! (nullptr: every row), `in.rows()` / `in.count()` the column rows / the rows taking part, and
//! `in.host()` the rows in host memory (downloaded with a "download" pass) for the rare host step. To
//! return columns on the device, fill a vk::DeviceRelation (shared DeviceColumns, the root's schema,
//! optionally a row-id selection) and set `out.result = engine::Relation(Backend::Compute, rel)`; only
//! when device_schema(root) says the columns fit (NULL-free, 32-bit). Returning host rows
//! (`out.result = cpu::HostRelation::of(table)`) stays valid. The executor downloads a device result
//! once, when a CPU or raster node or the query's result reads it (vk::download_relation, a "download"
//! pass naming the consumer).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend.h"
#include "vk/device.h"
#include "vk/engine/resident.h"
#include "vk/relational/select.h"

namespace gfxq::vk {

struct FilterProgram;  // inputs.h

//! The conditions of the Filters a fragment covers, bound and compiled when it was claimed
//! (engine::Fragment::state), so that running it compiles none again.
struct CoveredFilters : engine::FragmentState {
  std::map<const plan::Node*, std::shared_ptr<const FilterProgram>> programs;  //!< by Filter node
};

//! What a fragment run needs from the backend.
struct FragmentEnv {
  Device& device;                 //!< the device
  const Catalog& catalog;         //!< the catalog the plan was bound against
  ResidentColumns& resident;      //!< resident columns of catalog tables
  ScanLimits limits;              //!< limits of the Filters' CNF passes
  uint64_t join_chunk_pairs = 0;  //!< tests: most pairs per join output chunk (JoinOptions::chunk_pairs; 0: default)
  const CoveredFilters* filters = nullptr;  //!< the fragment's claim-time Filter programs, or null
  //! Most pairs per chunk of a PRODUCT (0: one binding); tests force many chunks.
  uint64_t product_chunk_pairs = 0;
  //! Rows in host memory up to which a Sort fragment sorts them on the host (no GPU passes).
  uint64_t host_sort_rows = 4096;
};

class ColumnFactsCache;  // column_facts.h

//! What a join fragment knows from its claim: the covered Filters' programs and, per side, whether
//! its first key is a catalog column whose values are all distinct (column facts: a filter keeps
//! that), which lets the join chooser take the global hash table at any size (JoinKeyStats).
struct JoinClaim : CoveredFilters {
  bool left_unique = false;   //!< the left side's first equi key holds no value twice
  bool right_unique = false;  //!< the same for the right side
};

//! The join fragment rooted at `node`, or nullopt with `why` (a residual condition, no key or band,
//! keys of 64-bit types, a band without shaderFloat64); `why` stays empty when `node` is not a Join
//! (or a Project of columns over one). A side of more than kGlobalHashRows rows whose first key is a
//! catalog column gets that column's facts from `facts` (computed once per table version).
std::optional<engine::Fragment> claim_join(const plan::Node& node, const Catalog& catalog, const VkCapabilities& caps,
                                           ColumnFactsCache& facts, std::string& why);
//! Runs a claim_join fragment over its inputs' relations.
engine::FragmentRun run_join_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                      std::vector<engine::Relation> inputs);

//! The star aggregate fragment rooted at `node` (vk/operators/star/star.h): an Aggregate (under
//! Projects of columns, Sorts in the groups' key order and Limits) over a left-deep chain of inner
//! joins of a fact table with dimension tables on unique keys, run as one probe pass; or nullopt with
//! `why` (the first condition the plan misses: docs/COMPUTE.md "Star aggregate"); `why` stays empty
//! when `node` is not an Aggregate over a Join. `facts` gives the columns' ranges and uniqueness.
std::optional<engine::Fragment> claim_star(const plan::Node& node, const Catalog& catalog, const VkCapabilities& caps,
                                           ColumnFactsCache& facts, std::string& why);
//! Whether `fragment` is a claim_star fragment.
bool is_star_fragment(const engine::Fragment& fragment) noexcept;
//! Runs a claim_star fragment (every leaf is covered: no inputs).
engine::FragmentRun run_star_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                      std::vector<engine::Relation> inputs);

//! The GROUP BY fragment rooted at `node`, or nullopt with `why` (an expression the compute path does
//! not compile, a BIGINT key or MIN/MAX argument, DISTINCT aggregates, 64-bit columns, columns that may
//! hold NULLs, more than 4 keys, an ORDER BY other than the groups' key order); `why` stays empty when
//! `node` is not an Aggregate with GROUP BY (under Projects of columns, Sorts and Limits).
std::optional<engine::Fragment> claim_group_by(const plan::Node& node, const Catalog& catalog, std::string& why);
//! Runs a claim_group_by fragment over its inputs' relations.
engine::FragmentRun run_group_by_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                          std::vector<engine::Relation> inputs);

//! The Sort fragment rooted at `node`: `[Project of columns | Limit]... Sort` over any input, or nullopt
//! with `why` (a key of a type the skeletons do not read); `why` stays empty when `node` is not of
//! that shape.
std::optional<engine::Fragment> claim_sort(const plan::Node& node, const Catalog& catalog, std::string& why);
//! Runs a claim_sort fragment: the multi-column row sort (vk/operators/skeletons/rows.h), the first
//! offset + limit row ids downloaded, the columns gathered on the host.
engine::FragmentRun run_sort_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                      std::vector<engine::Relation> inputs);

//! The DISTINCT or set-operation fragment rooted at `node`: `[Project of columns | Limit]... Distinct`
//! or `[...] SetOp` over any inputs, or nullopt with `why` (a column type the
//! skeletons do not read, operand types that differ from the result's); `why` stays empty when
//! `node` is not of that shape. The value ranges of NULL-free INT and DATE columns read from Scans
//! come from `facts` (so the skeletons run no range pass for them).
std::optional<engine::Fragment> claim_set(const plan::Node& node, const Catalog& catalog, ColumnFactsCache& facts,
                                          std::string& why);
//! Runs a claim_set fragment: the dense, hash or sort-based skeleton (vk/operators/skeletons/rows.h),
//! the kept rows gathered on the host.
engine::FragmentRun run_set_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                     std::vector<engine::Relation> inputs);

//! The PRODUCT fragment rooted at `node`: `[Project of columns] Join` without keys, band or residual
//! (CROSS JOIN), over any inputs; nullopt when `node` is not of that shape.
std::optional<engine::Fragment> claim_product(const plan::Node& node, const Catalog& catalog);
//! Runs a claim_product fragment: the pairs written on the device in chunks (product.h), downloaded,
//! the columns gathered on the host. Error(ResultTooLarge) past the host limit.
engine::FragmentRun run_product_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                         std::vector<engine::Relation> inputs);

//! The Project fragment rooted at `node` (a Project with at least one computed item, over a covered
//! Scan or Filter-over-Scan or any input), or nullopt with `why` (an item the expression compiler
//! refuses, or one reading a column that may be NULL); `why` stays empty when `node` is not such a
//! Project.
std::optional<engine::Fragment> claim_project(const plan::Node& node, const Catalog& catalog, std::string& why);
//! Runs a claim_project fragment: the computed items evaluated on the device, in order.
engine::FragmentRun run_project_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                         std::vector<engine::Relation> inputs);

//! The Filter fragment rooted at `node`: `[Project of columns | Limit]... Filter` whose condition
//! compiles as an expression program over NULL-free columns, over any input, its output a device
//! relation (device_schema()); or nullopt with `why`; `why` stays empty when `node` is not of that
//! shape.
std::optional<engine::Fragment> claim_filter(const plan::Node& node, const Catalog& catalog, std::string& why);
//! Runs a claim_filter fragment: the condition evaluated on the device (select_rows), its rows handed
//! over as the selection of a DeviceRelation of the input's columns (picked by the Projects, the ids
//! cut by the Limits).
engine::FragmentRun run_filter_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                        std::vector<engine::Relation> inputs);

//! The fragment of an Aggregate without GROUP BY (under Projects of columns, Sorts and Limits) whose
//! COUNT, SUM, AVG, MIN and MAX arguments are expressions or columns the compute path evaluates
//! (integers for all but COUNT, never NULL), or nullopt with `why`; `why` stays empty when `node` is
//! not of that shape.
std::optional<engine::Fragment> claim_scalar_aggregate(const plan::Node& node, const Catalog& catalog,
                                                       std::string& why);
//! Runs a claim_scalar_aggregate fragment: each argument reduced on the device in one pass.
engine::FragmentRun run_scalar_aggregate_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                                  std::vector<engine::Relation> inputs);

}  // namespace gfxq::vk
