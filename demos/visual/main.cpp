// gfxq-visual: watch a query run on the raster backend pass by pass (docs/VISUAL_DEMO.md).
#include <cstdio>
#include <string>
#include <vector>

#include "gfxq/error.h"
#include "gfxq/table.h"
#include "visual/frontends.h"
#include "visual/options.h"
#include "visual/session.h"

int main(int argc, char** argv) {
  using namespace gfxq::visual;
  try {
    const Options options = parse_options(std::vector<std::string>(argv + 1, argv + argc));
    if (options.help) {
      std::fputs(usage(), stdout);
      return kOk;
    }
    gfxq::Catalog catalog;
    for (const auto& [name, path] : options.tables) catalog.add(name, gfxq::read_csv_file(path));
    if (options.tables.empty()) add_generated_tables(catalog, options.generator);
    return options.screenshot.empty() ? run_window(options, std::move(catalog))
                                      : run_headless(options, std::move(catalog));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "gfxq-visual: %s\n%s", e.message.c_str(), usage());
    return kBadInput;
  } catch (const gfxq::Error& e) {
    std::fprintf(stderr, "gfxq-visual: %s: %s\n", gfxq::to_string(e.code()), e.what());
    const bool input = e.code() == gfxq::ErrorCode::InvalidInput || e.code() == gfxq::ErrorCode::Io ||
                       e.code() == gfxq::ErrorCode::InvalidQuery;
    return input ? kBadInput : kFailure;
  }
}
