// The doctest runner of the host-only sanitizer build (no GPU objects to release).
#include <climits>
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
