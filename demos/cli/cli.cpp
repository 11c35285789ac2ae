#include "cli/cli.h"

#include <ostream>

namespace gfxq::cli {
int run(const std::vector<std::string>&, std::ostream&, std::ostream& err) {
  err << "not yet\n";
  return kFailure;
}
}  // namespace gfxq::cli
