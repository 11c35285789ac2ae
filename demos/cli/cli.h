#pragma once
// The gfxq command line, callable in-process (tests) and from main().

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "gfxq/error.h"

namespace gfxq::cli {

//! Exit statuses of the CLI.
enum ExitCode : int { kOk = 0, kFailure = 1, kBadInput = 2, kUnsupported = 3 };

//! The exit status of an error of `code`: kBadInput for a bad query, input or file, kUnsupported
//! when the backend cannot run it, else kFailure.
int exit_code(ErrorCode code);

//! Runs `gfxq args...` (args excludes the program name), writing to `out` and `err`.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

//! The candidate closest to a mistyped `word` (a prefix of at least 3 characters, or within an
//! edit distance of a third of the shorter word), or nullopt when none is close.
std::optional<std::string> closest(const std::string& word, const std::vector<std::string>& candidates);

//! The text of a progress line: "what: done of total (p%), rate/s, ETA s"; unit "B" prints bytes
//! as kB/MB/GB, any other unit is printed after the counts.
std::string progress_line(const std::string& what, uint64_t done, uint64_t total, const char* unit, double seconds);

}  // namespace gfxq::cli
