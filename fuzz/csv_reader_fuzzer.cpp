// libFuzzer target: the CSV reader. Any input must either read or throw gfxq::Error (never crash
// or throw anything else); a table read must write (typed header) and read back to the same
// table: names, types, NULLs and value bits (any NaN equals any NaN).
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "gfxq/error.h"
#include "gfxq/table.h"

namespace {

bool same(const gfxq::Value& a, const gfxq::Value& b) {
  if (a.index() != b.index()) return false;
  if (const auto* f = std::get_if<float>(&a))
    return std::isnan(*f) ? std::isnan(std::get<float>(b))
                          : std::bit_cast<uint32_t>(*f) == std::bit_cast<uint32_t>(std::get<float>(b));
  if (const auto* d = std::get_if<double>(&a))
    return std::isnan(*d) ? std::isnan(std::get<double>(b))
                          : std::bit_cast<uint64_t>(*d) == std::bit_cast<uint64_t>(std::get<double>(b));
  return a == b;
}

[[noreturn]] void finding(const std::string& what, const std::string& written) {
  std::fprintf(stderr, "%s\nwritten as:\n%s\n", what.c_str(), written.substr(0, 4000).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gfxq::Table table;
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    table = gfxq::read_csv(in, "fuzz.csv");
  } catch (const gfxq::Error&) {
    return 0;
  }
  std::ostringstream out;
  gfxq::write_csv(out, table, true);
  gfxq::Table back;
  try {
    std::istringstream in(out.str());
    back = gfxq::read_csv(in, "written.csv");
  } catch (const gfxq::Error& e) {
    finding(std::string("a written table does not read back: ") + e.what(), out.str());
  }
  if (back.columns.size() != table.columns.size()) finding("column count changed", out.str());
  for (size_t c = 0; c < table.columns.size(); ++c) {
    const gfxq::Column& x = table.columns[c];
    const gfxq::Column& y = back.columns[c];
    if (x.name != y.name || x.type != y.type || x.size() != y.size())
      finding("column " + x.name + " changed its name, type or length", out.str());
    for (uint64_t r = 0; r < x.size(); ++r)
      if (!same(x.value(r), y.value(r)))
        finding("column " + x.name + " row " + std::to_string(r) + ": " + gfxq::format_value(x.value(r)) +
                    " read back as " + gfxq::format_value(y.value(r)),
                out.str());
  }
  return 0;
}
