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

float selected_value(size_t i) {
  // In [0.05, 0.45): every catalog f changes it (frfrexp fixes [0.5, 1), sin is the identity near 0).
  return 0.05f + 0.4f * static_cast<float>((i * 2654435761u) % 4096) / 4096.0f;
}

std::vector<float> step(size_t n, size_t tile, size_t head) {
  std::vector<float> a(n);
  for (size_t i = 0; i < n; ++i) a[i] = i % tile >= head ? 1.0f : selected_value(i);
  return a;
}

std::vector<float> offset390(size_t n, size_t tile) { return step(n, tile, 390); }

std::vector<float> cycle17(size_t n, size_t tile) {
  const size_t cycle = 17 * tile;
  std::vector<float> a(n);
  for (size_t i = 0; i < n; ++i) a[i] = i % cycle >= 512 && i % cycle < 1024 ? 1.0f : selected_value(i);
  return a;
}

std::vector<float> ArticleCase::data(size_t n, uint64_t seed) const {
  if (uniform) return gen::uniform(n, seed);
  if (name == "article/step") return step(n);
  if (name == "article/offset390") return offset390(n);
  return cycle17(n);
}

std::vector<ArticleCase> article_countertests() {
  return {
      {"article/step", "v3 loses: the probe sees a dense head of 256 and blends the 6%-dense tile", Fn::pow10,
       1.0f, false},
      {"article/offset390", "v3.5 loses: its first verified block passes, it has no memory", Fn::pow10, 1.0f,
       false},
      {"article/cycle17", "v4 loses: after one bail-out it detours 15 dense tiles", Fn::fma13, 1.0f, false},
  };
}

std::vector<ArticleCase> article_sweeps(const std::vector<Fn>& fns) {
  std::vector<ArticleCase> out;
  for (Fn f : fns)
    for (int k = 0; k <= 10; ++k)
      out.push_back({"article/sweep", "uniform data, density = thd", f, static_cast<float>(k) / 10.0f, true});
  return out;
}

}  // namespace maskapply::gen
