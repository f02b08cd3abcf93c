// SPDX-License-Identifier: MIT
// blend (BSL): compute f on every element and select. blend_skip jumps over blocks of 16 with nothing selected;
// blend_verified counts as it goes and stops when the density proves too low for blend; blend_skip_cut counts the
// non-empty blocks and stops when a piece has too many for blend_skip. Also the density probe.
#pragma once

#include <algorithm>

#include "block.h"

namespace maskapply {

namespace detail {

// Blend over [p, p+n) with an optional skip; returns how many were selected when Count, else 0. Skip: prev_empty
// says whether the block before p was empty (false at a run's start: the first block is compared with
// "non-empty"), and is left saying it of the last whole block, so one run can go on across calls.
template <bool Skip, bool Count, class F, class M, class W>
MASKAPPLY_INLINE size_t blend_impl(float* p, size_t n, F& f, M& mask, W&& w, bool& prev_empty) {
  const size_t body = block_floor(n);
  std::array<uint32x4_t, 4> acc{vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0)};
  for (size_t i = 0; i < body; i += kBlock) {
    const Block b = load_block(p + i, mask);
    if constexpr (Skip)
      if (skip_block(b, prev_empty, w)) continue;
    if constexpr (Count) {
      count_block(acc, b);
      w.work(Work::counted, 4);
    }
    blend_store(p + i, b, f, w);
  }
  const size_t tail = blend_tail(p + body, n - body, f, mask, w);
  return Count ? sum_counts(acc) + tail : 0;
}
template <bool Skip, bool Count, class F, class M, class W = NoWork>
MASKAPPLY_INLINE size_t blend_impl(float* p, size_t n, F& f, M& mask, W&& w = {}) {
  bool prev_empty = false;
  return blend_impl<Skip, Count>(p, n, f, mask, w, prev_empty);
}

}  // namespace detail

// For i in [0, n): if mask(a[i]) then a[i] = f(a[i]). f runs on every element, BSL keeps it where selected.
// Never reads or writes outside [a, a+n).
// w, when given, is told the work (work.h), as for every kernel and pilot; without it nothing is told.
template <class F, class M, class W>
void blend(float* a, size_t n, F f, M mask, W&& w) {
  detail::blend_impl<false, false>(a, n, f, mask, w);
}
template <class F, class M>
void blend(float* a, size_t n, F f, M mask) {
  NoWork w;
  blend(a, n, f, mask, w);
}

// As blend, but a block of 16 with no selected element is skipped (branchy: pays on very sparse masks).
template <class F, class M, class W>
void blend_skip(float* a, size_t n, F f, M mask, W&& w) {
  detail::blend_impl<true, false>(a, n, f, mask, w);
}
template <class F, class M>
void blend_skip(float* a, size_t n, F f, M mask) {
  NoWork w;
  blend_skip(a, n, f, mask, w);
}

// Counts mask(a[i]) over [0, n): whole blocks, then the last n % 16 elements as one local block with the lanes past
// the end masked off (the probe's work is ceil(n / 16) blocks of the mask, reported as probed). Reads only
// [a, a+n).
template <class M, class W>
size_t density(const float* a, size_t n, M mask, W&& w) {
  const size_t body = detail::block_floor(n);
  std::array<uint32x4_t, 4> acc{vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0)};
  for (size_t i = 0; i < body; i += detail::kBlock) {
    detail::count_block(acc, detail::load_block(a + i, mask));
    w.work(Work::probed, 4);
  }
  if (n > body) w.work(Work::probed, 4);
  return detail::sum_counts(acc) + detail::count_tail(a + body, n - body, mask);
}
template <class M>
size_t density(const float* a, size_t n, M mask) {
  NoWork w;
  return density(a, n, mask, w);
}

// The pieces blend_verified checks a span of n elements in: `blocks` pieces of whole 16-element blocks, each
// (n / blocks) rounded down to a multiple of 16 (at least 16), the last one taking the rest with the tail; fewer
// pieces when n < 16 * blocks (as many blocks of 16 as there are, the last with the tail). So a verified blend
// executes what one blend over the span does: whole blocks and at most one tail.
struct VerifyPieces {
  size_t len = 0, count = 0;  // the length of every piece but the last; how many pieces
  VerifyPieces(size_t n, size_t blocks) {
    blocks = blocks ? blocks : 1;
    len = std::max(detail::kBlock, detail::block_floor(n / blocks));
    count = n == 0 ? 0 : std::min(blocks, (n + len - 1) / len);
  }
  size_t begin(size_t k) const { return k * len; }
  size_t end(size_t k, size_t n) const { return k + 1 == count ? n : (k + 1) * len; }
};

namespace detail {
// Where a verified blend bailed (n: never) and the selected count of the last piece it blended.
struct VerifiedBlend {
  size_t did = 0;
  size_t last = 0;
};
// Blend over [a, a+n) in the VerifyPieces of (n, blocks), counting the selected elements of each; after a piece but
// the last whose density count / length is below `floor`, it stops: [0, did) is processed, [did, n) untouched.
// Skip (blend_skip_verified): as one blend_skip run over the pieces, jumping the empty blocks (they count 0).
// Never reads or writes outside [a, a+n).
template <bool Skip = false, class F, class M, class W>
VerifiedBlend blend_verified_span(float* a, size_t n, F& f, M& mask, double floor, size_t blocks, W&& w) {
  const VerifyPieces pieces(n, blocks);
  VerifiedBlend r{n, 0};
  bool prev_empty = false;
  for (size_t k = 0; k < pieces.count; ++k) {
    const size_t begin = pieces.begin(k), end = pieces.end(k, n);
    r.last = blend_impl<Skip, true>(a + begin, end - begin, f, mask, w, prev_empty);
    if (end < n && static_cast<double>(r.last) / static_cast<double>(end - begin) < floor) {
      r.did = end;
      break;
    }
  }
  return r;
}
}  // namespace detail

// Blend over [a, a+n) in the VerifyPieces of (n, blocks), counting the selected elements of each. After a piece
// whose density count / length is below bail * d_max, it stops and returns the end of that piece: [0, returned)
// is processed, [returned, n) is untouched. Returns n when it never bails (the last piece never bails). Never
// reads or writes outside [a, a+n).
template <class F, class M, class W>
size_t blend_verified(float* a, size_t n, F f, M mask, double d_max, size_t blocks, double bail, W&& w) {
  return detail::blend_verified_span(a, n, f, mask, bail * d_max, blocks, w).did;
}
template <class F, class M>
size_t blend_verified(float* a, size_t n, F f, M mask, double d_max, size_t blocks = 8, double bail = 0.75) {
  NoWork w;
  return blend_verified(a, n, f, mask, d_max, blocks, bail, w);
}

// blend_skip over [a, a+n) in the VerifyPieces of (n, blocks), one skip span (each block compared with the one
// before it, the first with "non-empty"), counting the non-empty blocks of each piece. After a piece but the last
// in which that count / (the piece's length / 16) is at least `cut`, it stops and returns the end of that piece:
// [0, returned) is processed, [returned, n) is untouched. Returns n when it never stops. Never reads or writes
// outside [a, a+n).
template <class F, class M, class W>
size_t blend_skip_cut(float* a, size_t n, F f, M mask, size_t blocks, double cut, W&& w) {
  const VerifyPieces pieces(n, blocks);
  bool prev_empty = false;
  for (size_t k = 0; k < pieces.count; ++k) {
    const size_t begin = pieces.begin(k), end = pieces.end(k, n);
    const size_t body = begin + detail::block_floor(end - begin);
    size_t nonempty = 0;
    for (size_t i = begin; i < body; i += detail::kBlock) {
      const detail::Block b = detail::load_block(a + i, mask);
      if (detail::skip_block(b, prev_empty, w)) continue;
      ++nonempty;
      detail::blend_store(a + i, b, f, w);
    }
    if (end < n) {
      if (static_cast<double>(nonempty) / static_cast<double>(pieces.len / detail::kBlock) >= cut) return end;
    } else {
      detail::blend_tail(a + body, end - body, f, mask, w);
    }
  }
  return n;
}

}  // namespace maskapply
