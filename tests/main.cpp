// <climits> first: Debian 12 doctest 2.4.9 uses INT_MAX without including it.
#include <climits>
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "gpu_support.h"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int status = context.run();
  // Process-wide contexts and devices go before static destruction and the drivers' own exit handlers.
  gfxq::test::release_gpu_objects();
  return status;
}
