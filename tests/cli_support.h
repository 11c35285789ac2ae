#pragma once
// Runs the gfxq CLI in-process for the CLI tests, capturing its status and output.

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace gfxq::test {

//! What one CLI run gave.
struct CliRun {
  int status;       //!< exit status
  std::string out;  //!< standard output
  std::string err;  //!< standard error
};

//! Runs `gfxq args...` in-process.
inline CliRun cli(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int status = gfxq::cli::run(args, out, err);
  return {status, out.str(), err.str()};
}

}  // namespace gfxq::test
