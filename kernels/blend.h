// SPDX-License-Identifier: MIT
// blend (BSL): compute f on every element and select. blend_skip jumps over blocks of 16 with nothing selected;
// blend_verified counts as it goes and stops when the density proves too low for blend. Also the density probe.
#pragma once

#include "block.h"

namespace maskapply {

namespace detail {

// Blend over [p, p+n) with an optional skip; returns how many were selected when Count, else 0.
template <bool Skip, bool Count, class F, class M>
MASKAPPLY_INLINE size_t blend_impl(float* p, size_t n, F& f, M& mask) {
  const size_t body = n & ~(kBlock - 1);
  std::array<uint32x4_t, 4> acc{vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0)};
  for (size_t i = 0; i < body; i += kBlock) {
    const Block b = load_block(p + i, mask);
    if constexpr (Skip)
      if (!block_any(b)) continue;
    if constexpr (Count) count_block(acc, b);
    blend_store(p + i, b, f);
  }
  const size_t tail = blend_tail(p + body, n - body, f, mask);
  return Count ? sum_counts(acc) + tail : 0;
}

}  // namespace detail

// For i in [0, n): if mask(a[i]) then a[i] = f(a[i]). f runs on every element, BSL keeps it where selected.
// Never reads or writes outside [a, a+n).
template <class F, class M>
void blend(float* a, size_t n, F f, M mask) {
  detail::blend_impl<false, false>(a, n, f, mask);
}

// As blend, but a block of 16 with no selected element is skipped (branchy: pays on very sparse masks).
template <class F, class M>
void blend_skip(float* a, size_t n, F f, M mask) {
  detail::blend_impl<true, false>(a, n, f, mask);
}

// Counts mask(a[i]) over [0, n). Reads only [a, a+n).
template <class M>
size_t density(const float* a, size_t n, M mask) {
  const size_t body = n & ~(detail::kBlock - 1);
  std::array<uint32x4_t, 4> acc{vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0)};
  for (size_t i = 0; i < body; i += detail::kBlock) detail::count_block(acc, detail::load_block(a + i, mask));
  size_t count = detail::sum_counts(acc);
  for (size_t i = body; i < n; ++i) {  // the tail, one lane at a time
    float one[4] = {a[i], 0, 0, 0};
    count += vgetq_lane_u32(mask(vld1q_f32(one)), 0) & 1u;
  }
  return count;
}

// Blend over [a, a+n) in `blocks` consecutive blocks (each n / blocks long, the last one taking the rest; one
// block when n < blocks), counting the selected elements of each. After a block whose density count / length is
// below bail * d_max, it stops and returns the end of that block: [0, returned) is processed, [returned, n) is
// untouched. Returns n when it never bails. Never reads or writes outside [a, a+n).
template <class F, class M>
size_t blend_verified(float* a, size_t n, F f, M mask, double d_max, size_t blocks = 8, double bail = 0.75) {
  if (blocks == 0) blocks = 1;
  const size_t len = n / blocks ? n / blocks : n;
  const size_t nblocks = n / blocks ? blocks : 1;
  for (size_t b = 0; b < nblocks; ++b) {
    const size_t begin = b * len, end = b + 1 == nblocks ? n : begin + len;
    const size_t cur = detail::blend_impl<false, true>(a + begin, end - begin, f, mask);
    if (end < n && static_cast<double>(cur) / static_cast<double>(end - begin) < bail * d_max) return end;
  }
  return n;
}

}  // namespace maskapply
