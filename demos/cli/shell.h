#pragma once
// `gfxq shell`: a read-eval-print loop over SQL statements and dot commands, one process, one engine,
// so tables stay loaded (and their columns resident on the GPU) across statements.

#include <iosfwd>
#include <string>

#include "cli/format.h"
#include "gfxq/engine.h"
#include "gfxq/result.h"
#include "gfxq/table.h"

namespace gfxq::cli {

//! How a shell starts.
struct ShellOptions {
  Backend backend = Backend::Auto;  //!< `.backend` changes it
  Format format = Format::Table;    //!< `.mode` changes it
  bool prompt = false;              //!< print prompts (stdin is a terminal)
};

//! Runs statements from `in` until its end or `.quit`: SQL statements end with ';' (one may span
//! lines); a line starting with '.' between statements is a dot command (`.help` lists them).
//! Tables already in `catalog` stay loaded. An error prints its message on `err` and the shell goes
//! on. Returns 0 when every statement succeeded, else the exit status of the first that failed.
int run_shell(std::istream& in, std::ostream& out, std::ostream& err, Catalog& catalog, Engine& engine,
              ShellOptions options);

}  // namespace gfxq::cli
