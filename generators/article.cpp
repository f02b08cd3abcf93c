// SPDX-License-Identifier: MIT
#include "article.h"

#include <random>

namespace maskapply::gen {

std::vector<float> uniform(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> a(n);
  for (float& x : a) x = (static_cast<float>(rng() >> 40) + 0.5f) * 0x1p-24f;
  return a;
}

std::vector<float> step(size_t n, size_t tile, size_t head) {
  std::vector<float> a(n);
  for (size_t i = 0; i < n; ++i) a[i] = i % tile >= head;
  return a;
}

std::vector<float> offset390(size_t n, size_t tile) { return step(n, tile, 390); }

std::vector<float> cycle17(size_t n, size_t tile) {
  const size_t cycle = 17 * tile;
  std::vector<float> a(n);
  for (size_t i = 0; i < n; ++i) a[i] = i % cycle >= 512 && i % cycle < 1024;
  return a;
}

}  // namespace maskapply::gen
