#pragma once
// The benchmark program's case registry. A case runs one operator at a given size and returns
// its best time; the program prints one JSON line per (case, size) with the ratio to the case's
// ceiling, measured in the same run at the same size. Speed is measured here, never in tests.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gfxq/table.h"
#include "gl/context.h"
#include "vk/device.h"

namespace gfxq::bench {

//! What a case may use: the GPU contexts (started once per run) and the run's settings.
struct Env {
  vk::Device* vk = nullptr;   //!< nullptr when no Vulkan device could be created
  gl::Context* gl = nullptr;  //!< nullptr when no GL context could be created
  int repeats = 5;            //!< timed repetitions; cases report the best
  uint64_t seed = 1;          //!< data seed
};

//! One measurement: the best time over the repetitions and what it moved.
struct Measurement {
  double seconds = 0;   //!< best GPU (or wall) time of one run of the operator
  uint64_t bytes = 0;   //!< bytes the operator must read + write (for bandwidth ratios)
  uint64_t items = 0;   //!< values processed (for fill-rate ratios)
  std::string note;     //!< e.g. the algorithm the report named, or "gpu timestamps"
  bool checked = true;  //!< the case compared its result with the CPU reference
};

//! A benchmark case.
struct Case {
  std::string name;       //!< e.g. "compute.select_count"
  std::string backend;    //!< "compute", "raster" or "cpu"
  std::string ceiling;    //!< name of the ceiling case its ratio is taken against ("" for ceilings)
  bool by_items = false;  //!< ratio of items/s (fill rate) instead of bytes/s
  //! Runs the case at `rows` rows; throws gfxq::Error(Unsupported) to skip with a reason.
  std::function<Measurement(Env&, uint64_t rows)> run;
};

//! All registered cases, in registration order.
std::vector<Case>& registry();

//! `gfxq_bench --io-child ENGINE PATH`: loads one file in this fresh process (ENGINE gfxq or duckdb:
//! a CSV file; column: a gfxq column file; read: read() of the bytes) and prints the load's wall
//! seconds; the io.* cases time loads this way (cases_io.cpp). Returns the exit status.
int io_child(int argc, char** argv);

//! True when `a` and `b` hold the same columns: types, values and NULLs, bit for bit.
inline bool same_table(const Table& a, const Table& b) {
  if (a.columns.size() != b.columns.size()) return false;
  for (size_t i = 0; i < a.columns.size(); ++i)
    if (a.columns[i].type != b.columns[i].type || a.columns[i].data != b.columns[i].data ||
        a.columns[i].nulls != b.columns[i].nulls)
      return false;
  return true;
}

//! Registers a case at static-initialisation time: `static Registrar r{{...}};`
struct Registrar {
  explicit Registrar(Case c) { registry().push_back(std::move(c)); }
};

}  // namespace gfxq::bench
