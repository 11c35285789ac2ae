#pragma once
// The gfxq command line, callable in-process (tests) and from main().

#include <iosfwd>
#include <string>
#include <vector>

namespace gfxq::cli {

//! Exit statuses of the CLI.
enum ExitCode : int { kOk = 0, kFailure = 1, kBadInput = 2, kUnsupported = 3 };

//! Runs `gfxq args...` (args excludes the program name), writing to `out` and `err`.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gfxq::cli
