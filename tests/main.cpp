// <climits> first: Debian 12 doctest 2.4.9 uses INT_MAX without including it.
#include <climits>
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
