// SPDX-License-Identifier: MIT
// The article's data: uniform values in (0, 1) and its three countertests. Every random choice takes a seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "catalog.h"

namespace maskapply::gen {

// n values uniform in (0, 1) from seed (mt19937_64, 24-bit mantissas: the same on every platform).
std::vector<float> uniform(size_t n, uint64_t seed);

// The article's countertests. The article's data is 0/1 and a < 1 selects the zeros; here the article's ones
// stay 1 and its zeros become selected_value(i), in [0.05, 0.45), which every catalog f changes (f(0) = 0 for
// five of them, so zeros could not show a skipped or doubled f). With mask a < thd: thd = 1 selects exactly the
// article's elements, thd = 0 nothing.
// step:   dst[i] = i % 4096 >= 256         (fools v3: the probe sees a dense head)
// offset: dst[i] = i % 4096 >= 390         (fools v3.5: the first verified block passes)
// cycle:  dst[i] = 512 <= i % (17*4096) < 1024   (fools v4 with fma13)
float selected_value(size_t i);
std::vector<float> step(size_t n, size_t tile = 4096, size_t head = 256);
std::vector<float> offset390(size_t n, size_t tile = 4096);
std::vector<float> cycle17(size_t n, size_t tile = 4096);

// One of the article's experiments as a named case: its data, its f and its thd (mask a < thd).
struct ArticleCase {
  std::string name;   // "article/step", "article/offset390", "article/cycle17", "article/sweep"
  std::string claim;  // what the article says happens
  Fn f;
  float thd;
  bool uniform;       // data: uniform(n, seed); else the named countertest (no randomness)
  std::vector<float> data(size_t n, uint64_t seed) const;
};

// The three countertests with the f the article used (pow10 for step and offset, fma13 for the cycle), at
// thd = 1 (the zeros are selected).
std::vector<ArticleCase> article_countertests();
// The article's thd sweeps on uniform data: every f in fns at thd = 0, 0.1, ..., 1.
std::vector<ArticleCase> article_sweeps(const std::vector<Fn>& fns);

}  // namespace maskapply::gen
