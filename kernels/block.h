// SPDX-License-Identifier: MIT
// Pieces every strategy shares: a block of four registers (16 floats), the tail block, the lane code, and the
// compress / expand of one register through the tbl tables. Each piece that does work the cost model charges
// tells the work observer w (work.h; NoWork by default, which compiles to nothing) as it does it.
#pragma once

#include <array>
#include <cstring>

#include "platform.h"
#include "tables.h"
#include "work.h"

namespace maskapply::detail {

inline constexpr size_t kBlock = 16;  // floats per block: four registers, the article's unroll

// The last block boundary at or before element i (i itself when it is one): a span's whole blocks end there.
inline constexpr size_t block_floor(size_t i) { return i & ~(kBlock - 1); }
// The first block boundary at or after element i (i itself when it is one).
inline constexpr size_t block_ceil(size_t i) { return block_floor(i + kBlock - 1); }

struct Block {
  std::array<float32x4_t, 4> v;
  std::array<uint32x4_t, 4> m;
};

template <class M>
MASKAPPLY_INLINE Block load_block(const float* p, M& mask) {
  Block b;
  for (size_t j = 0; j < 4; ++j) b.v[j] = vld1q_f32(p + 4 * j);
  for (size_t j = 0; j < 4; ++j) b.m[j] = mask(b.v[j]);
  return b;
}

MASKAPPLY_INLINE bool block_any(const Block& b) {
  return simd::any(vorrq_u32(vorrq_u32(b.m[0], b.m[1]), vorrq_u32(b.m[2], b.m[3])));
}

// Adds the selected lanes of b to acc (a true lane is ~0 = -1, so subtracting adds one).
MASKAPPLY_INLINE void count_block(std::array<uint32x4_t, 4>& acc, const Block& b) {
  for (size_t j = 0; j < 4; ++j) acc[j] = vsubq_u32(acc[j], b.m[j]);
}
MASKAPPLY_INLINE size_t sum_counts(const std::array<uint32x4_t, 4>& acc) {
  return simd::addv(vaddq_u32(vaddq_u32(acc[0], acc[1]), vaddq_u32(acc[2], acc[3])));
}

template <class F, class W = NoWork>
MASKAPPLY_INLINE void blend_store(float* p, const Block& b, F& f, W&& w = {}) {
  for (size_t j = 0; j < 4; ++j) vst1q_f32(p + 4 * j, vbslq_f32(b.m[j], f(b.v[j]), b.v[j]));
  w.work(Work::blended, 4);
}

// A skip kernel's test of block b: true when nothing in b is selected (the kernel then jumps over it). Reports
// the skipped registers, and a switch when b's emptiness differs from the block before it in the span
// (prev_empty, which a span starts with false: its first block is compared with "non-empty").
template <class W>
MASKAPPLY_INLINE bool skip_block(const Block& b, bool& prev_empty, W& w) {
  const bool empty = !block_any(b);
  if (empty != prev_empty) w.work(Work::switched, 1);
  prev_empty = empty;
  if (empty) w.work(Work::skipped, 4);
  return empty;
}

// The tail's block: r < 16 elements of p copied into buf (zero past r), loaded, the lanes past r masked off.
template <class M>
MASKAPPLY_INLINE Block load_tail(float* buf, const float* p, size_t r, M& mask) {
  std::memcpy(buf, p, r * sizeof(float));
  Block b = load_block(buf, mask);
  for (size_t j = 0; j < 4; ++j) b.m[j] = vandq_u32(b.m[j], simd::first_lanes(r > 4 * j ? r - 4 * j : 0));
  return b;
}

// Counts the selected elements among r < 16 at p, as one local block. Never touches p[r] or beyond.
template <class M>
MASKAPPLY_INLINE size_t count_tail(const float* p, size_t r, M& mask) {
  if (r == 0) return 0;
  alignas(16) float buf[kBlock] = {};
  std::array<uint32x4_t, 4> acc{vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0)};
  count_block(acc, load_tail(buf, p, r, mask));
  return sum_counts(acc);
}

// The tail: r < 16 elements at p, copied into a local block, lanes past r masked off, blended, and only the r
// elements copied back. Never touches p[r] or beyond. Returns how many were selected.
template <class F, class M, class W = NoWork>
MASKAPPLY_INLINE size_t blend_tail(float* p, size_t r, F& f, M& mask, W&& w = {}) {
  if (r == 0) return 0;
  alignas(16) float buf[kBlock] = {};
  const Block b = load_tail(buf, p, r, mask);
  std::array<uint32x4_t, 4> acc{vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0)};
  count_block(acc, b);
  blend_store(buf, b, f, w);
  std::memcpy(p, buf, r * sizeof(float));
  return sum_counts(acc);
}

// Lane code of a register: lane mask in bits 0-3, popcount in bits 4 and up.
MASKAPPLY_INLINE uint32_t lane_code(uint32x4_t m) {
  return simd::addv(vandq_u32(m, vld1q_u32(kWeights.data())));
}

// Stores the selected lanes of v, in order, at out (a full register store: out must have 4 floats of room).
MASKAPPLY_INLINE void compress_store(float* out, float32x4_t v, uint32_t code) {
  const uint8x16_t index = vld1q_u8(kCompressTable[code & 15].data());
  vst1q_f32(out, vreinterpretq_f32_u8(vqtbl1q_u8(vreinterpretq_u8_f32(v), index)));
}

// Writes back into dst the next popcount(code) processed values from packed, into the selected lanes; the other
// lanes keep their bits.
template <class W = NoWork>
MASKAPPLY_INLINE void expand_store(float* dst, const float* packed, uint32_t code, W&& w = {}) {
  const uint8x16x2_t t{{vreinterpretq_u8_f32(vld1q_f32(packed)), vreinterpretq_u8_f32(vld1q_f32(dst))}};
  vst1q_f32(dst, vreinterpretq_f32_u8(vqtbl2q_u8(t, vld1q_u8(kExpandTable[code & 15].data()))));
  w.work(Work::expanded, 1);
}

// Phase 2 of every detour: f over the packed values, 16 at a time. Reads and writes tmp up to the next multiple
// of 16 past size, which the workspace has room for.
template <class F, class W = NoWork>
MASKAPPLY_INLINE void apply_packed(float* tmp, size_t size, F& f, W&& w = {}) {
  for (size_t i = 0; i < size; i += kBlock) {
    for (size_t j = 0; j < 4; ++j) vst1q_f32(tmp + i + 4 * j, f(vld1q_f32(tmp + i + 4 * j)));
    w.work(Work::packed, 4);
  }
}

// Compresses the four registers of b to ptr; returns the codes and how far ptr moves.
template <class W = NoWork>
MASKAPPLY_INLINE size_t compress_block(float* ptr, const Block& b, std::array<uint32_t, 4>& code, W&& w = {}) {
  for (size_t j = 0; j < 4; ++j) code[j] = lane_code(b.m[j]);
  std::array<size_t, 4> off{0, 0, 0, 0};
  for (size_t j = 1; j < 4; ++j) off[j] = off[j - 1] + (code[j - 1] >> 4);
  for (size_t j = 0; j < 4; ++j) compress_store(ptr + off[j], b.v[j], code[j]);
  w.work(Work::compressed, 4);
  return off[3] + (code[3] >> 4);
}

// Expands four registers at dst[0..3] from ptr; returns how far ptr moves.
template <class W = NoWork>
MASKAPPLY_INLINE size_t expand_four(const std::array<float*, 4>& dst, const float* ptr,
                                    const std::array<uint32_t, 4>& code, W&& w = {}) {
  std::array<size_t, 4> off{0, 0, 0, 0};
  for (size_t j = 1; j < 4; ++j) off[j] = off[j - 1] + (code[j - 1] >> 4);
  for (size_t j = 0; j < 4; ++j) expand_store(dst[j], ptr + off[j], code[j], w);
  return off[3] + (code[3] >> 4);
}

}  // namespace maskapply::detail
