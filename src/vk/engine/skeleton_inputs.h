#pragma once
//! \file skeleton_inputs.h
//! What the compute backend's Sort, DISTINCT, set-operation and PRODUCT fragments (fragments.h) share:
//! the device words of an input's columns as the skeletons read them (vk/operators/skeletons/rows.h),
//! the layers above a fragment's core node (Projects of columns and Limits, applied to the result on
//! the host) and the host gather of the output rows. Every read of an input's columns goes through
//! SkeletonColumns, so a change of how inputs arrive (host relations, device relations) is made here.

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "plan/logical.h"
#include "vk/engine/inputs.h"
#include "vk/operators/skeletons/rows.h"

namespace gfxq::vk {

//! Whether the skeletons read columns of `type`: INT, FLOAT, DATE, STRING, BIGINT, DOUBLE.
bool skeleton_type(Type type) noexcept;

//! The device words of an input's columns for the skeletons.
class SkeletonColumns {
 public:
  //! Columns of `in`; uploads are recorded in `passes`.
  SkeletonColumns(FragmentEnv& env, InputRows& in, std::vector<PassRecord>& passes)
      : env_(env), in_(in), passes_(passes) {}
  //! Column `c` of the input: 32-bit columns through InputRows::column (resident or uploaded),
  //! BIGINT and DOUBLE as two uploaded word planes, NULL flags uploaded as one word per row. A STRING
  //! column whose dictionary is not `dictionary` (when given) is moved to it on the host first, so that
  //! both operands of a set operation compare codes of one dictionary.
  skel::PlaneSource source(size_t c, const std::shared_ptr<const Dictionary>& dictionary = nullptr);

 private:
  const Buffer& upload(const void* words, uint64_t count, const std::string& what);

  FragmentEnv& env_;
  InputRows& in_;
  std::vector<PassRecord>& passes_;
  std::deque<Buffer> owned_;
};

//! The rows of `in` that take part, as RowsInput wants them (ids when a Filter or the input's relation
//! selected some, downloaded: the skeletons start from host row ids).
void set_input_rows(InputRows& in, skel::RowsInput& rows);

//! Claims `child` of a fragment's core node as its input: a Project of columns over an input that
//! claim_input() covers (a Scan, a Filter over a Scan) is covered with it (appended to `covered`), so
//! that `SELECT a, b FROM t ORDER BY ...` reads t's resident columns; else as claim_input() does.
void claim_skeleton_input(const plan::Node& child, const Catalog& catalog, std::vector<const plan::Node*>& covered,
                          std::vector<const plan::Node*>& inputs);
//! At run time: the node whose rows the fragment `f` reads for `child` (the covered Project's input,
//! or `child`), and in `map` the column of those rows that each of `child`'s columns is.
const plan::Node& skeleton_input(const plan::Node& child, const engine::Fragment& f, std::vector<size_t>& map);

//! The Projects of columns and Limits above `node`, top-down (appended to `layers`), and the node
//! below them.
const plan::Node& under_layers(const plan::Node& node, std::vector<const plan::Node*>& layers);
//! Rows of the core node's output the layers read at most: the lowest Limit's offset + limit
//! (saturated), or UINT64_MAX without a Limit.
uint64_t rows_needed(const std::vector<const plan::Node*>& layers);
//! The fragment's report entry for its layers (none when there are none).
void report_layers(engine::FragmentRun& out, const engine::Fragment& f, const plan::Node& core, uint64_t rows_in,
                   uint64_t rows_out, double wall_ms);

}  // namespace gfxq::vk
