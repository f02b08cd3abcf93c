// SPDX-License-Identifier: MIT
// The article's data: uniform values in (0, 1) and its three countertests. Every random choice takes a seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace maskapply::gen {

// n values uniform in (0, 1) from seed (mt19937_64, 24-bit mantissas: the same on every platform).
std::vector<float> uniform(size_t n, uint64_t seed);

// The article's countertests as 0/1 data; with mask a < thd, thd = 1 selects the zeros, thd = 0 nothing.
// step:   dst[i] = i % 4096 >= 256         (fools v3: the probe sees a dense head)
// offset: dst[i] = i % 4096 >= 390         (fools v3.5: the first verified block passes)
// cycle:  dst[i] = 512 <= i % (17*4096) < 1024   (fools v4 with fma13)
std::vector<float> step(size_t n, size_t tile = 4096, size_t head = 256);
std::vector<float> offset390(size_t n, size_t tile = 4096);
std::vector<float> cycle17(size_t n, size_t tile = 4096);

}  // namespace maskapply::gen
