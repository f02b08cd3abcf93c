// SPDX-License-Identifier: MIT
// Decoding fuzz bytes into the pieces the targets share: interesting thresholds and floats, and arrays built
// from raw bits, from runs, or from a seeded generator.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "catalog.h"

// The per-element data generators (consume_data, selection, data_for) carry no coverage instrumentation, their
// callees inlined (flatten): their loop counters and comparison hooks say nothing about the kernels, and every
// extra feature per input costs libFuzzer's bookkeeping (docs/fuzzing.md, "Throughput"). Still under ASan and UBSan.
#if defined(__clang__)
#define MASKAPPLY_FUZZ_NO_COVERAGE [[gnu::flatten]] __attribute__((no_sanitize("coverage")))
#else
#define MASKAPPLY_FUZZ_NO_COVERAGE
#endif

namespace maskapply::fuzz {

inline float from_bits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

// Floats where comparisons and f get interesting: zeros, the unit interval's ends, NaNs (quiet, signalling,
// negative), infinities, subnormals, the largest finite values.
inline constexpr std::array<uint32_t, 16> kSpecialBits{
    0x00000000u, 0x80000000u, 0x3f000000u, 0x3f800000u, 0x7fc00000u, 0x7fa00001u, 0xffc00000u, 0x7f800000u,
    0xff800000u, 0x00000001u, 0x807fffffu, 0x7f7fffffu, 0x3e800000u, 0x3f7fffffu, 0xbf800000u, 0x3c23d70au};

// A threshold: one of kSpecialBits, or raw bits.
inline float consume_threshold(FuzzedDataProvider& p) {
  const uint8_t sel = p.ConsumeIntegral<uint8_t>();
  if (sel < 2 * kSpecialBits.size()) return from_bits(kSpecialBits[sel % kSpecialBits.size()]);
  if (sel < 128) return static_cast<float>(sel - 32) / 96.0f;  // a density-like threshold in [0, 1)
  return from_bits(p.ConsumeIntegral<uint32_t>());
}

inline MaskSpec consume_mask(FuzzedDataProvider& p) {
  MaskSpec m;
  m.kind = static_cast<MaskKind>(p.ConsumeIntegral<uint8_t>() % kMaskNames.size());
  m.thd = consume_threshold(p);
  if (m.kind == MaskKind::bits_eq) {
    m.bits_mask = p.ConsumeIntegral<uint32_t>();
    m.bits_value = p.ConsumeIntegral<uint32_t>() & m.bits_mask;
  }
  return m;
}

// n floats from what is left of the input, in one of three modes (first byte):
//   0 raw:    the rest as little-endian float bits, repeated to fill n (zeros when nothing is left);
//   1 runs:   the rest as (run length u16 % 600, float bits u32) pairs, repeated to fill n: long runs make empty
//             and full blocks, registers and tiles;
//   2 seeded: u64 seed, u8 special-value rate: uniform (0, 1) floats with kSpecialBits sprinkled in.
MASKAPPLY_FUZZ_NO_COVERAGE
inline std::vector<float> consume_data(FuzzedDataProvider& p, size_t n) {
  std::vector<float> a(n);
  const uint8_t mode = p.ConsumeIntegral<uint8_t>() % 3;
  if (mode == 2) {
    std::mt19937_64 rng(p.ConsumeIntegral<uint64_t>());
    const uint8_t rate = p.ConsumeIntegral<uint8_t>();
    for (float& x : a) {
      const uint64_t r = rng();
      if ((r & 0xFF) < rate / 4u) x = from_bits(kSpecialBits[(r >> 8) % kSpecialBits.size()]);
      else x = (static_cast<float>(r >> 40) + 0.5f) * 0x1p-24f;
    }
    return a;
  }
  const std::vector<uint8_t> rest = p.ConsumeRemainingBytes<uint8_t>();
  if (mode == 0) {
    const size_t words = rest.size() / 4;
    for (size_t i = 0; i < n && words; ++i) {
      uint32_t u;
      std::memcpy(&u, rest.data() + 4 * (i % words), 4);
      a[i] = from_bits(u);
    }
    return a;
  }
  const size_t pairs = rest.size() / 6;
  size_t i = 0;
  for (size_t k = 0; i < n && pairs; ++k) {
    const uint8_t* q = rest.data() + 6 * (k % pairs);
    const size_t len = 1 + (size_t{q[0]} | size_t{q[1]} << 8) % 600;
    uint32_t u;
    std::memcpy(&u, q + 2, 4);
    for (size_t j = 0; j < len && i < n; ++j) a[i++] = from_bits(u);
  }
  return a;
}

}  // namespace maskapply::fuzz
