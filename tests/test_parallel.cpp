// Host-side parallel helpers (core/parallel.h): parallel_copy's pieces cover every byte exactly
// once whatever the size and thread count, and parallel_for rethrows a worker's exception.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/parallel.h"

using gfxq::detail::parallel_copy;

TEST_CASE("parallel: parallel_copy copies every byte once at sizes around its pieces, on 1 to 7 threads") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  constexpr size_t kPiece = size_t{4} << 20;
  std::vector<uint8_t> from((5 * kPiece) + 4096);
  for (auto& b : from) b = uint8_t(rng());
  for (size_t bytes : {size_t{0}, size_t{1}, kPiece, 2 * kPiece - 1, 2 * kPiece, 2 * kPiece + 1, 3 * kPiece + 63,
                       5 * kPiece + 4095, size_t(rng() % from.size())}) {
    for (unsigned threads : {1u, 2u, 3u, 7u, 0u}) {
      CAPTURE(bytes);
      CAPTURE(threads);
      // A guard byte on each side: nothing outside [0, bytes) is written.
      std::vector<uint8_t> to(bytes + 2, 0xa5);
      parallel_copy(to.data() + 1, from.data(), bytes, threads);
      CHECK(to.front() == 0xa5);
      CHECK(to.back() == 0xa5);
      CHECK(std::memcmp(to.data() + 1, from.data(), bytes) == 0);
    }
  }
}

TEST_CASE("parallel: parallel_for runs every index once and rethrows the first exception") {
  std::vector<int> hits(1000, 0);
  gfxq::detail::parallel_for(hits.size(), 4, [&](size_t i) { ++hits[i]; });
  CHECK(std::count(hits.begin(), hits.end(), 1) == 1000);
  CHECK_THROWS_WITH_AS(gfxq::detail::parallel_for(100, 3,
                                                  [](size_t i) {
                                                    if (i == 17) throw std::runtime_error("index 17");
                                                  }),
                       "index 17", std::runtime_error);
}
