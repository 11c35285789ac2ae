#pragma once
// The demo's data and query runs: the catalog (CSV tables or generated ones) and each query run
// on the raster backend with every pass recorded (PassRecorder), on the compute backend when the
// raster backend cannot run it, and on the CPU reference engine, whose answer checks the others.

#include <span>
#include <string>
#include <vector>

#include "gfxq/engine.h"
#include "gfxq/result.h"
#include "gfxq/table.h"
#include "visual/options.h"
#include "visual/pass_view.h"

namespace gfxq::gl {
class Context;
}

namespace gfxq::visual {

//! Adds (or replaces) the generated tables: t (a INT 0..10^6, b INT -1000..1000, c FLOAT 0..1,
//! every column with `settings.dist`) and s (k INT -1000..1000, w FLOAT -1..1; 1000 rows, uniform).
void add_generated_tables(Catalog& catalog, const GeneratorSettings& settings);

//! An example query with a short title.
struct Example {
  const char* title;  //!< e.g. "range (BETWEEN)"
  const char* sql;    //!< over the generated tables
};
//! The examples: raster queries first, then ones only the compute or CPU engine runs.
std::span<const Example> examples();

//! The engine whose answer a run shows.
enum class Path {
  None,     //!< no answer (the query is invalid, or no engine could run it)
  Raster,   //!< the raster backend, pass by pass
  Compute,  //!< the compute backend (the raster backend cannot run the query)
  Cpu,      //!< the CPU reference engine (neither GPU backend can run the query)
};

//! One query, run.
struct Run {
  std::string sql;               //!< the query text
  Path path = Path::None;        //!< who answered
  std::string error;             //!< why there is no answer (Path::None)
  std::string raster_error;      //!< the raster backend's message when it could not run the query
  std::string compute_error;     //!< the compute backend's message when it was tried and failed
  ExecutionReport report;        //!< the answering engine's report
  Table table;                   //!< the answer
  Table reference;               //!< the CPU reference engine's answer
  std::string difference;        //!< empty when `table` equals `reference`, else how they differ
  std::vector<PassView> passes;  //!< Path::Raster: every GPU pass of every tile
  //! An answer that equals the CPU reference's.
  bool ok() const { return path != Path::None && difference.empty(); }
};

//! Tables and engines. Queries run on the caller's GL context (current on this thread).
class Session {
 public:
  //! A session over `catalog`, running raster queries on `context`.
  Session(gl::Context& context, Catalog catalog);
  //! The tables.
  Catalog& catalog() { return catalog_; }
  //! Parses and runs `sql`: raster (recorded), else compute, else the CPU; checks with the CPU.
  Run run(const std::string& sql);

 private:
  gl::Context& context_;
  Catalog catalog_;
  // The compute backend, started on first use; it times every pass for the views.
  Engine engine_{[] {
    EngineOptions options;
    options.gpu_timing = true;
    return options;
  }()};
};

}  // namespace gfxq::visual
