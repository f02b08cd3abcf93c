// SPDX-License-Identifier: MIT
// The compress and expand tables, checked against their definition lane by lane for all 16 masks, and through
// the real tbl instructions.
#include <gtest/gtest.h>

#include <cstring>

#include "block.h"
#include "tables.h"

namespace maskapply {
namespace {

// A scalar tbl: out[b] = idx[b] < table bytes ? table[idx[b]] : 0.
std::array<uint8_t, 16> scalar_tbl(const uint8_t* table, size_t table_len, const ByteIndex& idx) {
  std::array<uint8_t, 16> out{};
  for (size_t b = 0; b < 16; ++b) out[b] = idx[b] < table_len ? table[idx[b]] : 0;
  return out;
}

TEST(Tables, CompressMovesSelectedLanesToTheFrontInOrderForAll16Masks) {
  const uint32_t lanes[4] = {0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u};
  for (unsigned m = 0; m < 16; ++m) {
    const auto out = scalar_tbl(reinterpret_cast<const uint8_t*>(lanes), 16, kCompressTable[m]);
    uint32_t got[4];
    std::memcpy(got, out.data(), 16);
    unsigned k = 0;
    for (unsigned lane = 0; lane < 4; ++lane) {
      if (m >> lane & 1) {
        EXPECT_EQ(got[k], lanes[lane]) << "mask " << m << " lane " << lane;
        ++k;
      }
    }
    for (; k < 4; ++k) EXPECT_EQ(got[k], 0u) << "mask " << m << " unused slot " << k << " must be zero";
  }
}

TEST(Tables, ExpandPutsPackedLanesBackAndKeepsTheRestForAll16Masks) {
  const uint32_t packed[4] = {0xA0A0A0A0u, 0xB1B1B1B1u, 0xC2C2C2C2u, 0xD3D3D3D3u};
  const uint32_t orig[4] = {0x01010101u, 0x02020202u, 0x03030303u, 0x04040404u};
  uint8_t both[32];
  std::memcpy(both, packed, 16);
  std::memcpy(both + 16, orig, 16);
  for (unsigned m = 0; m < 16; ++m) {
    const auto out = scalar_tbl(both, 32, kExpandTable[m]);
    uint32_t got[4];
    std::memcpy(got, out.data(), 16);
    unsigned next = 0;
    for (unsigned lane = 0; lane < 4; ++lane)
      EXPECT_EQ(got[lane], (m >> lane & 1) ? packed[next++] : orig[lane]) << "mask " << m << " lane " << lane;
  }
}

TEST(Tables, WeightsGiveLaneMaskAndPopcountInOneReduction) {
  for (unsigned m = 0; m < 16; ++m) {
    const uint32_t lanes[4] = {m & 1 ? ~0u : 0, m & 2 ? ~0u : 0, m & 4 ? ~0u : 0, m & 8 ? ~0u : 0};
    const uint32_t code = detail::lane_code(vld1q_u32(lanes));
    EXPECT_EQ(code & 15, m);
    EXPECT_EQ(code >> 4, static_cast<unsigned>(__builtin_popcount(m)));
  }
}

float bump(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u += 0x01000001u;
  std::memcpy(&x, &u, 4);
  return x;
}

TEST(Tables, RealTblCompressThenExpandEqualsBlendForAll16Masks) {
  const float v[4] = {1.5f, -2.25f, 3.0f, 1e-40f};
  for (unsigned m = 0; m < 16; ++m) {
    const uint32_t lanes[4] = {m & 1 ? ~0u : 0, m & 2 ? ~0u : 0, m & 4 ? ~0u : 0, m & 8 ? ~0u : 0};
    const uint32_t code = detail::lane_code(vld1q_u32(lanes));
    float packed[4] = {};
    detail::compress_store(packed, vld1q_f32(v), code);
    for (float& x : packed) x = bump(x);  // some f that changes every value
    float out[4];
    std::memcpy(out, v, sizeof v);
    detail::expand_store(out, packed, code);
    for (unsigned lane = 0; lane < 4; ++lane) {
      const float want = (m >> lane & 1) ? bump(v[lane]) : v[lane];
      uint32_t a, b;
      std::memcpy(&a, &want, 4);
      std::memcpy(&b, &out[lane], 4);
      EXPECT_EQ(a, b) << "mask " << m << " lane " << lane;
    }
  }
}

}  // namespace
}  // namespace maskapply
