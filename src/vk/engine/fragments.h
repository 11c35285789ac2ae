#pragma once
//! \file fragments.h
//! The compute backend's plan fragments beyond the Query spec's shape (issues 20, 21, 22): joins,
//! GROUP BY, Projects of expressions and aggregates of expressions of logical plans, run by the join operators
//! (vk/operators/join) and the GROUP BY operators (vk/operators/group_by) over inputs that other fragments, on any
//! backend, produced.
//!
//! Join fragment:     [Project of columns] Join
//! GROUP BY fragment: [Project of columns] [Limit] [Sort in the groups' key order] [Project of columns]
//!                    Aggregate with GROUP BY
//! Below the Join or Aggregate, an input that is a Scan, or a Filter over a Scan whose condition the
//! CNF kernels run, is covered by the fragment: its columns are read from the resident columns
//! (resident.h) and the Filter's rows are selected on the device. Any other input is a fragment input:
//! its relation arrives in host memory and the columns the operator reads are uploaded for this query.
//! Join pairs come back in (left row, right row) order and the output columns are gathered on the host
//! from the input rows (4 + 4 bytes per pair over the bus instead of every column's gathered copy);
//! the groups come back in key order as host columns. Results equal the CPU engine's exactly.

#include <optional>
#include <string>
#include <vector>

#include "engine/backend.h"
#include "vk/device.h"
#include "vk/engine/resident.h"
#include "vk/relational/select.h"

namespace gfxq::vk {

//! What a fragment run needs from the backend.
struct FragmentEnv {
  Device& device;             //!< the device
  const Catalog& catalog;     //!< the catalog the plan was bound against
  ResidentColumns& resident;  //!< resident columns of catalog tables
  ScanLimits limits;          //!< limits of the Filters' CNF passes
};

//! The join fragment rooted at `node`, or nullopt with `why` (a residual condition, no key or band,
//! keys of 64-bit types, a band without shaderFloat64); `why` stays empty when `node` is not a Join
//! (or a Project of columns over one).
std::optional<engine::Fragment> claim_join(const plan::Node& node, const Catalog& catalog, const VkCapabilities& caps,
                                           std::string& why);
//! Runs a claim_join fragment over its inputs' relations.
engine::FragmentRun run_join_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                      std::vector<cpu::HostRelation> inputs);

//! The GROUP BY fragment rooted at `node`, or nullopt with `why` (an expression the compute path does
//! not compile, a BIGINT key or MIN/MAX argument, DISTINCT aggregates, 64-bit columns, columns that may
//! hold NULLs, more than 4 keys, an ORDER BY other than the groups' key order); `why` stays empty when
//! `node` is not an Aggregate with GROUP BY (under Projects of columns, Sorts and Limits).
std::optional<engine::Fragment> claim_group_by(const plan::Node& node, const Catalog& catalog,
                                               const VkCapabilities& caps, std::string& why);
//! Runs a claim_group_by fragment over its inputs' relations.
engine::FragmentRun run_group_by_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                          std::vector<cpu::HostRelation> inputs);

//! The Project fragment rooted at `node` (a Project with at least one computed item, over a covered
//! Scan or Filter-over-Scan or any input), or nullopt with `why` (an item the expression compiler
//! refuses, or one reading a column that may be NULL); `why` stays empty when `node` is not such a
//! Project.
std::optional<engine::Fragment> claim_project(const plan::Node& node, const Catalog& catalog,
                                              const VkCapabilities& caps, std::string& why);
//! Runs a claim_project fragment: the computed items evaluated on the device, in order.
engine::FragmentRun run_project_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                         std::vector<cpu::HostRelation> inputs);

//! The fragment of an Aggregate without GROUP BY (under Projects of columns, Sorts and Limits) whose
//! COUNT, SUM, AVG, MIN and MAX arguments are expressions or columns the compute path evaluates
//! (integers for all but COUNT, never NULL), or nullopt with `why`; `why` stays empty when `node` is
//! not of that shape.
std::optional<engine::Fragment> claim_scalar_aggregate(const plan::Node& node, const Catalog& catalog,
                                                       const VkCapabilities& caps, std::string& why);
//! Runs a claim_scalar_aggregate fragment: each argument reduced on the device in one pass.
engine::FragmentRun run_scalar_aggregate_fragment(FragmentEnv& env, const engine::Fragment& fragment,
                                                  std::vector<cpu::HostRelation> inputs);

}  // namespace gfxq::vk
