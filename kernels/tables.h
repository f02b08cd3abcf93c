// SPDX-License-Identifier: MIT
// The compress and expand tbl tables, computed at compile time from their definition, and the lane weights.
#pragma once

#include <array>
#include <cstdint>

namespace maskapply {

using ByteIndex = std::array<uint8_t, 16>;

// compress_table()[m]: a vqtbl1q_u8 index that moves the 32-bit lanes whose bit is set in the 4-bit mask m, in
// order, to the front of the register. The remaining bytes are 0xFF, which tbl turns into zero bytes.
constexpr std::array<ByteIndex, 16> compress_table() {
  std::array<ByteIndex, 16> t{};
  for (unsigned m = 0; m < 16; ++m) {
    unsigned out = 0;
    for (unsigned lane = 0; lane < 4; ++lane)
      if (m >> lane & 1u) {
        for (unsigned b = 0; b < 4; ++b) t[m][4 * out + b] = static_cast<uint8_t>(4 * lane + b);
        ++out;
      }
    for (unsigned b = 4 * out; b < 16; ++b) t[m][b] = 0xFF;
  }
  return t;
}

// expand_table()[m]: a vqtbl2q_u8 index over {processed, original}. A lane whose bit is set in m takes the next
// lane of the compressed (processed) register, bytes [0, 16); a lane whose bit is clear keeps its own original
// bytes, [16, 32).
constexpr std::array<ByteIndex, 16> expand_table() {
  std::array<ByteIndex, 16> t{};
  for (unsigned m = 0; m < 16; ++m) {
    unsigned next = 0;
    for (unsigned lane = 0; lane < 4; ++lane) {
      const bool on = m >> lane & 1u;
      for (unsigned b = 0; b < 4; ++b)
        t[m][4 * lane + b] = static_cast<uint8_t>(on ? 4 * next + b : 16 + 4 * lane + b);
      next += on;
    }
  }
  return t;
}

inline constexpr auto kCompressTable = compress_table();
inline constexpr auto kExpandTable = expand_table();

// vaddvq_u32(mask & weights) gives, in one reduction, the lane mask in bits 0-3 and the popcount above bit 4.
inline constexpr std::array<uint32_t, 4> kWeights{1 + 16, 2 + 16, 4 + 16, 8 + 16};

}  // namespace maskapply
