// SPDX-License-Identifier: MIT
// detour: compress the selected lanes of a span into the workspace with tbl, apply f only to them, expand them
// back. detour_skip jumps over blocks with nothing selected; tiled_detour runs detour tile by tile;
// detour_verified_span (pilot_v6) is one detour pass that stops compressing at the first piece with few non-empty
// registers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "blend.h"
#include "workspace.h"

namespace maskapply {

namespace detail {

// What a packed pass over the span at p (its length <= ws.capacity()) holds, whichever way it books its registers
// (DetourPass: a lane code per register; CompactPass: a list of the non-empty ones): the span, f, the mask, the
// work observer, the workspace's packed buffer and lane codes, where the next packed lane goes, and the skip state
// (Skip: the last block compressed or skipped was empty; one run across compress calls).
template <class F, class M, class W>
struct PackedPass {
  PackedPass(float* p_, F& f_, M& mask_, Workspace& ws, W& w_)
      : p(p_), f(f_), mask(mask_), w(w_), tmp(ws.tmp()), s(ws.s()), ptr(tmp) {}
  // How many elements are packed so far.
  size_t packed() const { return static_cast<size_t>(ptr - tmp); }
  // Runs f once over everything packed (nothing when nothing was). Returns how many elements that was.
  size_t apply() {
    const size_t size = packed();
    if (size) apply_packed(tmp, size, f, w);
    return size;
  }

  float* p;
  F& f;
  M& mask;
  W& w;
  float* const tmp;
  uint8_t* const s;
  float* ptr;
  bool prev_empty = false;
};

// One detour pass being built over the span at p (its length <= ws.capacity()): compress appends the whole blocks
// of [i0, i1) (multiples of 16) to the workspace and records each register's lane code (Skip: an empty block is
// jumped over, its codes 0; the skip state runs across calls); finish runs f once over everything packed and
// expands it back into every register of [i0, i1), a pass that packed nothing skipping both.
template <class F, class M, class W>
class DetourPass {
 public:
  DetourPass(float* p, F& f, M& mask, Workspace& ws, W& w) : k_(p, f, mask, ws, w) {}
  // Compresses the blocks of [i0, i1). Returns the non-empty registers of the blocks that begin at or after
  // element `counted_from` (from the lane codes it records anyway).
  template <bool Skip>
  size_t compress(size_t i0, size_t i1, size_t counted_from = SIZE_MAX) {
    size_t nonempty = 0;
    uint8_t* const s = k_.s;
    for (size_t i = i0; i < i1; i += kBlock) {
      const Block b = load_block(k_.p + i, k_.mask);
      if constexpr (Skip)
        if (skip_block(b, k_.prev_empty, k_.w)) {
          s[i / 4] = s[i / 4 + 1] = s[i / 4 + 2] = s[i / 4 + 3] = 0;
          continue;
        }
      std::array<uint32_t, 4> code;
      k_.ptr += compress_block(k_.ptr, b, code, k_.w);
      for (size_t j = 0; j < 4; ++j) s[i / 4 + j] = static_cast<uint8_t>(code[j]);
      if (i >= counted_from) nonempty += (code[0] != 0) + (code[1] != 0) + (code[2] != 0) + (code[3] != 0);
    }
    return nonempty;
  }
  // Applies f to what was packed and expands it back into the registers of [i0, i1). Returns how many elements
  // that was.
  size_t finish(size_t i0, size_t i1) {
    const size_t size = k_.apply();
    if (size == 0) return 0;  // an all-empty pass skips phases 2 and 3: nothing to write back
    float* ptr = k_.tmp;
    const uint8_t* const s = k_.s;
    for (size_t i = i0; i < i1; i += kBlock) {
      const std::array<uint32_t, 4> code{s[i / 4], s[i / 4 + 1], s[i / 4 + 2], s[i / 4 + 3]};
      float* const p = k_.p + i;
      ptr += expand_four({p, p + 4, p + 8, p + 12}, ptr, code, k_.w);
    }
    return size;
  }

 private:
  PackedPass<F, M, W> k_;
};

// One detour pass over n <= ws.capacity() elements. Returns how many were selected.
template <bool Skip, class F, class M, class W = NoWork>
size_t detour_span(float* p, size_t n, F& f, M& mask, Workspace& ws, W&& w = {}) {
  const size_t body = block_floor(n);
  DetourPass<F, M, std::remove_reference_t<W>> pass(p, f, mask, ws, w);
  pass.template compress<Skip>(0, body);
  return pass.finish(0, body) + blend_tail(p + body, n - body, f, mask, w);
}

// pilot_v6's one-pass detour over [from, n) of n <= ws.capacity() elements (`from` a piece's start): detour (no
// skip) compressing the VerifyPieces of (n, pieces) from the one holding `from`, counting in each the non-empty
// registers of the blocks that begin at or after element `counted_from`; after a piece but the last with such
// blocks and fewer than `floor` of their registers non-empty, it compresses no more, and one packed pass (f once,
// one rounding to 16 lanes) and the expand of every register finish [from, end of that piece). Returns that end,
// or n; [end, n) is untouched. Never reads or writes outside [p, p+n).
template <class F, class M, class W = NoWork>
size_t detour_verified_span(float* p, size_t n, F& f, M& mask, Workspace& ws, size_t pieces, double floor,
                            size_t from, size_t counted_from, W&& w = {}) {
  const size_t body = block_floor(n);
  const VerifyPieces vp(n, pieces);
  DetourPass<F, M, std::remove_reference_t<W>> pass(p, f, mask, ws, w);
  size_t did = n;
  for (size_t k = from / vp.len; k < vp.count; ++k) {
    const size_t b = std::max(from, vp.begin(k)), e = vp.end(k, n), end = std::min(e, body);
    const size_t nonempty = pass.template compress<false>(b, end, counted_from);
    const size_t first = std::max(b, block_ceil(counted_from));
    const size_t registers = end > first ? (end - first) / 4 : 0;
    if (k + 1 < vp.count && registers > 0 &&
        static_cast<double>(nonempty) / static_cast<double>(registers) < floor) {
      did = e;
      break;
    }
  }
  pass.finish(from, std::min(did, body));
  if (did == n) blend_tail(p + body, n - body, f, mask, w);
  return did;
}

// Runs span(p, len) over [a, a+n) in consecutive pieces of at most `piece`; returns the summed counts.
template <class Span>
size_t in_pieces(float* a, size_t n, size_t piece, Span&& span) {
  size_t count = 0;
  for (size_t i = 0; i < n; i += piece) count += span(a + i, std::min(piece, n - i));
  return count;
}

}  // namespace detail

// For i in [0, n): if mask(a[i]) then a[i] = f(a[i]), computing f only on the selected elements. Works in
// pieces of ws.capacity(). Returns how many were selected. Never reads or writes outside [a, a+n).
template <class F, class M, class W>
size_t detour(float* a, size_t n, F f, M mask, Workspace& ws, W&& w) {
  return detail::in_pieces(a, n, ws.capacity(), [&](float* p, size_t len) {
    return detail::detour_span<false>(p, len, f, mask, ws, w);
  });
}
template <class F, class M>
size_t detour(float* a, size_t n, F f, M mask, Workspace& ws) {
  NoWork w;
  return detour(a, n, f, mask, ws, w);
}

// As detour, skipping blocks of 16 with nothing selected during compress.
template <class F, class M, class W>
size_t detour_skip(float* a, size_t n, F f, M mask, Workspace& ws, W&& w) {
  return detail::in_pieces(a, n, ws.capacity(), [&](float* p, size_t len) {
    return detail::detour_span<true>(p, len, f, mask, ws, w);
  });
}
template <class F, class M>
size_t detour_skip(float* a, size_t n, F f, M mask, Workspace& ws) {
  NoWork w;
  return detour_skip(a, n, f, mask, ws, w);
}

// detour applied tile by tile (the article's tiled_detour); the workspace grows to the tile if needed.
template <class F, class M, class W>
size_t tiled_detour(float* a, size_t n, F f, M mask, Workspace& ws, size_t tile, W&& w) {
  ws.reserve(tile);
  return detail::in_pieces(a, n, tile, [&](float* p, size_t len) {
    return detail::detour_span<false>(p, len, f, mask, ws, w);
  });
}
template <class F, class M>
size_t tiled_detour(float* a, size_t n, F f, M mask, Workspace& ws, size_t tile = 4096) {
  NoWork w;
  return tiled_detour(a, n, f, mask, ws, tile, w);
}

}  // namespace maskapply
