// SPDX-License-Identifier: MIT
// A tile-structured selection decoded from fuzz bytes: a period made of up to 8 segments, each with a length
// and a density (exactly regular, or random from a seed), started at a phase. Data built from it selects
// exactly that pattern under `a < 0.5` (selected values in (0, 0.5), the others in [0.5, 1)).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "data.h"

namespace maskapply::fuzz {

struct Segment {
  size_t len = 0;       // elements
  double density = 0;   // fraction selected, in [0, 1]
  bool random = false;  // Bernoulli(density) from the seed, else exactly regular
};

struct Structured {
  std::vector<Segment> segments;
  size_t phase = 0;  // the pattern at i is the period's element (i + phase) % period
  uint64_t seed = 0;
  size_t period() const {
    size_t s = 0;
    for (const Segment& g : segments) s += g.len;
    return s;
  }
};

// Layout: u8 segment count (1..8), u64 seed, u32 phase; per segment: u8 length unit (0: x1, 1: x16, 2: x256,
// 3: x4096 elements), u8 length (0..255, +1), u8 density (0 and 255 are exactly empty and full), u8 random flag.
inline Structured consume_structured(FuzzedDataProvider& p) {
  Structured s;
  const size_t count = 1 + p.ConsumeIntegral<uint8_t>() % 8;
  s.seed = p.ConsumeIntegral<uint64_t>();
  const uint32_t phase = p.ConsumeIntegral<uint32_t>();
  static constexpr size_t kUnit[4] = {1, 16, 256, 4096};
  for (size_t i = 0; i < count; ++i) {
    Segment g;
    const size_t unit = kUnit[p.ConsumeIntegral<uint8_t>() % 4];
    g.len = unit * (1 + size_t{p.ConsumeIntegral<uint8_t>()});
    g.density = p.ConsumeIntegral<uint8_t>() / 255.0;
    g.random = p.ConsumeIntegral<uint8_t>() & 1;
    s.segments.push_back(g);
  }
  s.phase = phase % s.period();
  return s;
}

// The selection of n elements: 1 where selected.
MASKAPPLY_FUZZ_NO_COVERAGE
inline std::vector<uint8_t> selection(const Structured& s, size_t n) {
  std::vector<uint8_t> sel(n);
  const size_t period = s.period();
  std::mt19937_64 rng(s.seed);
  for (size_t i = 0; i < n; ++i) {
    size_t j = (i + s.phase) % period, g = 0;
    while (j >= s.segments[g].len) j -= s.segments[g++].len;
    const Segment& seg = s.segments[g];
    if (seg.random)
      sel[i] = static_cast<double>(rng() >> 11) * 0x1p-53 < seg.density;
    else  // exactly regular: element j is selected when floor((j + 1) d) > floor(j d)
      sel[i] = static_cast<size_t>((j + 1) * seg.density) > static_cast<size_t>(j * seg.density);
  }
  return sel;
}

// Data whose selection under `a < 0.5` is sel; values drawn from the seed.
MASKAPPLY_FUZZ_NO_COVERAGE
inline std::vector<float> data_for(const std::vector<uint8_t>& sel, uint64_t seed) {
  std::vector<float> a(sel.size());
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  for (size_t i = 0; i < sel.size(); ++i) {
    const float u = (static_cast<float>(rng() >> 41) + 0.5f) * 0x1p-23f * 0.5f;  // (0, 0.5)
    a[i] = sel[i] ? u : 0.5f + u;
  }
  return a;
}

}  // namespace maskapply::fuzz
