// SPDX-License-Identifier: MIT
// compact: a detour that records which registers are non-empty during compress and expands only those, so a
// sparse span pays expand for its few non-empty registers, not for all of them.
#pragma once

#include "detour.h"

namespace maskapply {

namespace detail {

// compact's bookkeeping for the compressed block at element i: a list slot per register, s[k] its lane code and
// idx[k] its offset, k advanced past the non-empty ones (branch-free: a slot is overwritten unless its register
// is non-empty, so the list ends up holding the non-empty registers only).
template <class W>
MASKAPPLY_INLINE void book_block(uint8_t* s, uint32_t* idx, size_t& k, size_t i, const std::array<uint32_t, 4>& code,
                                 W& w) {
  for (size_t j = 0; j < 4; ++j) {
    s[k] = static_cast<uint8_t>(code[j]);
    idx[k] = static_cast<uint32_t>(i + 4 * j);
    k += code[j] != 0;
  }
  w.work(Work::booked, 4);
}

// One compact-detour pass over n <= ws.capacity() elements. Returns how many were selected.
//
// The article pads the list of non-empty registers to a multiple of 4 with entries (s = 0, idx = 0) that point at
// register 0. When register 0 is itself selected and shares the last group with a padding entry, the padding
// store writes register 0's original value back over its result. Here the last k % 4 registers are expanded one
// at a time instead, and no padding entry exists.
template <bool Skip, class F, class M, class W = NoWork>
size_t compact_span(float* p, size_t n, F& f, M& mask, Workspace& ws, W&& w = {}) {
  const size_t body = n & ~(kBlock - 1);
  float* const tmp = ws.tmp();
  uint8_t* const s = ws.s();
  uint32_t* const idx = ws.idx();
  float* ptr = tmp;
  size_t k = 0;
  bool prev_empty = false;
  for (size_t i = 0; i < body; i += kBlock) {
    const Block b = load_block(p + i, mask);
    if constexpr (Skip)
      if (skip_block(b, prev_empty, w)) continue;
    std::array<uint32_t, 4> code;
    ptr += compress_block(ptr, b, code, w);
    book_block(s, idx, k, i, code, w);
  }
  const size_t size = static_cast<size_t>(ptr - tmp);
  if (size != 0) {
    apply_packed(tmp, size, f, w);
    ptr = tmp;
    size_t r = 0;
    for (; r + 4 <= k; r += 4) {
      const std::array<uint32_t, 4> code{s[r], s[r + 1], s[r + 2], s[r + 3]};
      ptr += expand_four({p + idx[r], p + idx[r + 1], p + idx[r + 2], p + idx[r + 3]}, ptr, code, w);
    }
    for (; r < k; ++r) {
      expand_store(p + idx[r], ptr, s[r], w);
      ptr += s[r] >> 4;
    }
  }
  return size + blend_tail(p + body, n - body, f, mask, w);
}

}  // namespace detail

// As detour, but expand visits only the registers that had a selected lane. Returns how many were selected.
// Never reads or writes outside [a, a+n).
template <class F, class M, class W>
size_t compact(float* a, size_t n, F f, M mask, Workspace& ws, W&& w) {
  return detail::in_pieces(a, n, ws.capacity(), [&](float* p, size_t len) {
    return detail::compact_span<false>(p, len, f, mask, ws, w);
  });
}
template <class F, class M>
size_t compact(float* a, size_t n, F f, M mask, Workspace& ws) {
  NoWork w;
  return compact(a, n, f, mask, ws, w);
}

// As compact, skipping blocks of 16 with nothing selected during compress.
template <class F, class M, class W>
size_t compact_skip(float* a, size_t n, F f, M mask, Workspace& ws, W&& w) {
  return detail::in_pieces(a, n, ws.capacity(), [&](float* p, size_t len) {
    return detail::compact_span<true>(p, len, f, mask, ws, w);
  });
}
template <class F, class M>
size_t compact_skip(float* a, size_t n, F f, M mask, Workspace& ws) {
  NoWork w;
  return compact_skip(a, n, f, mask, ws, w);
}

}  // namespace maskapply
