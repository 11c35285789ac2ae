#include "cli/gen_ssb.h"

#include <charconv>
#include <chrono>
#include <ostream>

#include "cli/cli.h"
#include "gfxq/ssb.h"

namespace gfxq::cli {

namespace {

bool parse(const std::string& text, uint64_t& v) {
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  return r.ec == std::errc{} && r.ptr == text.data() + text.size();
}

bool parse(const std::string& text, double& v) {
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  return r.ec == std::errc{} && r.ptr == text.data() + text.size();
}

int usage_error(std::ostream& err, const std::string& message) {
  err << "gfxq: " << message << "\n(run 'gfxq help' for usage)\n";
  return kBadInput;
}

}  // namespace

int gen_ssb(const std::vector<std::string>& args, size_t first, std::ostream& out, std::ostream& err) {
  SsbOptions options;
  bool have_sf = false;
  for (size_t i = first; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a != "--sf" && a != "--out" && a != "--seed" && a != "--threads")
      return usage_error(err, "unknown argument '" + a + "' for gfxq gen ssb");
    if (i + 1 == args.size()) return usage_error(err, a + " needs a value");
    const std::string& v = args[++i];
    uint64_t n = 0;
    if (a == "--out") {
      options.out_dir = v;
    } else if (a == "--sf") {
      if (!parse(v, options.scale_factor)) return usage_error(err, "--sf needs a number, got '" + v + "'");
      have_sf = true;
    } else if (!parse(v, n)) {
      return usage_error(err, a + " needs a non-negative integer, got '" + v + "'");
    } else if (a == "--seed") {
      options.seed = n;
    } else {
      if (n > 4096) return usage_error(err, "--threads takes at most 4096, got '" + v + "'");
      options.threads = static_cast<unsigned>(n);
    }
  }
  if (!have_sf) return usage_error(err, "gfxq gen ssb needs --sf N (the scale factor)");
  if (options.out_dir.empty()) return usage_error(err, "gfxq gen ssb needs --out DIR");
  const auto start = std::chrono::steady_clock::now();
  const SsbCardinalities rows = generate_ssb(options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "wrote SSB SF " << options.scale_factor << " (seed " << options.seed << ") to " << options.out_dir << " in "
      << seconds << " s: lineorder " << rows.lineorder << ", date " << rows.date << ", customer " << rows.customer
      << ", supplier " << rows.supplier << ", part " << rows.part << " rows\n";
  return kOk;
}

}  // namespace gfxq::cli
