#pragma once
// `gfxq gen ssb`: the Star Schema Benchmark's five tables as typed CSV files (gfxq/ssb.h).

#include <iosfwd>
#include <string>
#include <vector>

namespace gfxq::cli {

//! Runs `gfxq gen ssb` with args[first...] (the words after "ssb"). A usage error prints its
//! message on `err` and returns kBadInput; gfxq::Error propagates to the caller.
int gen_ssb(const std::vector<std::string>& args, size_t first, std::ostream& out, std::ostream& err);

}  // namespace gfxq::cli
