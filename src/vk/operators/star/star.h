#pragma once
//! \file star.h
//! The star aggregate on the compute path (issue 24): an Aggregate over a chain of inner equi-joins
//! of one fact table with dimension tables whose join keys are unique, in the manner of the Star
//! Schema Benchmark's queries, run as one probe pass over the fact rows instead of a join per
//! dimension. Each dimension's selected rows fill a direct-address table over its key range with a
//! group code (the mixed-radix code of its group columns' values); each fact row taking part looks
//! its keys up in every table, and a row that finds all of them adds to the group whose index is the
//! sum of the codes: COUNT and the int64 sums of its aggregates' values (an INT column, or x + y,
//! x - y, x * y of INT columns and literals). Sums are exact (two 64-bit words per sum, fewer than
//! 2^31 fact rows). The non-empty groups come back with their index (star.comp).

#include <cstdint>
#include <string>
#include <vector>

#include "gfxq/result.h"
#include "star_config.glsl"
#include "vk/device.h"

namespace gfxq::vk::star {

//! A table's condition evaluated inside a star pass instead of a selection pass (cnf_eval.glsl).
struct StarCnf {
  const Buffer* words = nullptr;     //!< the term table (upload_program); null: no condition here
  uint32_t terms = 0;                //!< terms
  uint32_t float_slots = 0;          //!< CnfProgram::float_slots()
  std::vector<const Buffer*> slots;  //!< the slot columns (1 to 8)
  uint32_t intervals = 0;            //!< detail::interval_word(): raw-bit interval tests instead of the terms
};

//! One dimension of the star.
struct StarDim {
  const Buffer* fact_key = nullptr;   //!< the fact's key column (int32)
  const Buffer* key = nullptr;        //!< the dimension's key column (int32, unique over the column)
  const Buffer* selection = nullptr;  //!< selected dimension row ids, or null: every row
  uint64_t rows = 0;                  //!< dimension rows taking part (with `cnf`: every row)
  uint64_t table_rows = 0;            //!< rows of the dimension table (its selected share orders the probes)
  int32_t key_min = 0;                //!< smallest key of the column
  uint32_t key_range = 0;             //!< largest - smallest key + 1 (the table's slots)
  //! Group columns of this dimension (int32 values: INT, DATE days, STRING codes), at most
  //! STAR_MAX_DIM_KEYS.
  std::vector<const Buffer*> group_columns;
  std::vector<int32_t> group_mins;      //!< each group column's smallest value
  std::vector<uint32_t> group_strides;  //!< each group column's weight in the group index
  //! Optional: the dimension's condition evaluated in the fill pass (selection null, rows every row).
  StarCnf cnf;
};

//! What one aggregate adds per row.
struct StarAgg {
  uint32_t op = STAR_OP_X;            //!< STAR_OP_*
  uint32_t x = 0;                     //!< value column (0..3) or STAR_OPERAND_LITERAL
  uint32_t y = STAR_OPERAND_LITERAL;  //!< second operand (ADD, SUB, MUL)
  int32_t literal = 0;                //!< the literal operand
};

//! The star aggregate's input.
struct StarInput {
  uint64_t fact_rows = 0;                  //!< fact rows taking part (below 2^31)
  const Buffer* fact_selection = nullptr;  //!< their ids, or null: rows 0 .. fact_rows - 1
  std::vector<StarDim> dims;               //!< 1 to STAR_MAX_DIMS dimensions
  std::vector<const Buffer*> values;       //!< value columns the aggregates read (int32), at most 4
  std::vector<StarAgg> aggs;               //!< aggregates with a value, at most STAR_MAX_AGGS
  uint32_t domain = 1;                     //!< number of group indices (product of the radixes)
  //! Optional: the fact's condition evaluated in the probe pass (fact_rows every fact row,
  //! fact_selection null).
  StarCnf cnf;
};

//! One non-empty group.
struct StarGroup {
  uint32_t index = 0;          //!< the group index (sum of the dimensions' codes)
  uint64_t count = 0;          //!< fact rows in the group
  std::vector<__int128> sums;  //!< per aggregate, the exact sum of its values
};

//! The star aggregate's result.
struct StarResult {
  std::vector<StarGroup> groups;  //!< the non-empty groups, ascending by index
  std::string algorithm;          //!< for the report
};

//! Most group indices the star aggregate takes.
constexpr uint32_t kMaxDomain = uint32_t(1) << 22;
//! Group indices up to which the group words are read back whole (no collect pass, one wait).
constexpr uint32_t kDirectReadDomain = 16384;
//! Group indices up to which the probe adds into STAR_ACC_COPIES copies of the group words (a
//! workgroup's copy by its index, folded into the first copy on the device before the read): few
//! groups, many rows each, and every copy's atomics wait on fewer others.
constexpr uint32_t kCopiesDomain = kDirectReadDomain;
//! Listed groups (above kDirectReadDomain indices) read back with their count in its wait; more
//! take a second wait.
constexpr uint32_t kListedFirstRead = 4096;

//! Runs the star aggregate: the tables filled, the fact rows probed and the groups collected in one
//! submission, then read back (passes appended to `passes`). Error(InvalidInput) for an input
//! outside the limits above.
StarResult star_aggregate(Device& device, const StarInput& input, std::vector<PassRecord>& passes);

}  // namespace gfxq::vk::star
