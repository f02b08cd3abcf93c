// SPDX-License-Identifier: MIT
// compact: a detour that records which registers are non-empty during compress and expands only those, so a
// sparse span pays expand for its few non-empty registers, not for all of them. compact_verified_span (pilot_v6)
// is one compact pass that stops compressing at the first sparse piece (or one with a full block);
// compact_skip_cut_span one compact_skip pass that stops at the first dense piece.
#pragma once

#include <type_traits>

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

// One compact-detour pass being built over the span at p (its length <= ws.capacity()): compress appends the
// whole blocks of [i0, i1) to the workspace (Skip: jumping over the empty ones, the pass's first block compared
// with "non-empty", every later one with the block before it, across calls), finish runs f over everything packed,
// once, and expands it back into the non-empty registers.
//
// The article pads the list of non-empty registers to a multiple of 4 with entries (s = 0, idx = 0) that point at
// register 0. When register 0 is itself selected and shares the last group with a padding entry, the padding
// store writes register 0's original value back over its result. Here the last k % 4 registers are expanded one
// at a time instead, and no padding entry exists.
template <class F, class M, class W>
class CompactPass {
 public:
  CompactPass(float* p, F& f, M& mask, Workspace& ws, W& w) : k_(p, f, mask, ws, w), idx_(ws.idx()) {}
  // What compress counts over the blocks that begin at or after element `from` (from the lane codes the bookkeeping
  // has anyway): the non-empty ones, and whether one holds at least `dense_at` selected elements.
  struct Counts {
    size_t nonempty = 0;
    bool dense = false;
  };
  // Compresses the blocks of [i0, i1) (multiples of 16). With Count, returns its Counts; else zeros.
  template <bool Skip, bool Count = false>
  Counts compress(size_t i0, size_t i1, size_t from = 0, size_t dense_at = kBlock + 1) {
    Counts c;
    for (size_t i = i0; i < i1; i += kBlock) {
      const Block b = load_block(k_.p + i, k_.mask);
      if constexpr (Skip)
        if (skip_block(b, k_.prev_empty, k_.w)) continue;
      std::array<uint32_t, 4> code;
      const size_t packed = compress_block(k_.ptr, b, code, k_.w);
      k_.ptr += packed;
      book_block(k_.s, idx_, booked_, i, code, k_.w);
      if constexpr (Count)
        if (i >= from) c.nonempty += packed != 0, c.dense |= packed >= dense_at;
    }
    return c;
  }
  // How many elements are packed so far.
  size_t packed() const { return k_.packed(); }
  // Applies f to what was packed and expands it back. Returns how many elements that was.
  size_t finish() {
    const size_t size = k_.apply();
    if (size == 0) return 0;
    float* ptr = k_.tmp;
    const uint8_t* const s = k_.s;
    float* const p = k_.p;
    size_t r = 0;
    for (; r + 4 <= booked_; r += 4) {
      const std::array<uint32_t, 4> code{s[r], s[r + 1], s[r + 2], s[r + 3]};
      ptr += expand_four({p + idx_[r], p + idx_[r + 1], p + idx_[r + 2], p + idx_[r + 3]}, ptr, code, k_.w);
    }
    for (; r < booked_; ++r) {
      expand_store(p + idx_[r], ptr, s[r], k_.w);
      ptr += s[r] >> 4;
    }
    return size;
  }

 private:
  PackedPass<F, M, W> k_;
  uint32_t* const idx_;
  size_t booked_ = 0;  // registers booked (the list's length)
};

// One compact-detour pass over n <= ws.capacity() elements. Returns how many were selected.
template <bool Skip, class F, class M, class W = NoWork>
size_t compact_span(float* p, size_t n, F& f, M& mask, Workspace& ws, W&& w = {}) {
  const size_t body = block_floor(n);
  CompactPass<F, M, std::remove_reference_t<W>> pass(p, f, mask, ws, w);
  pass.template compress<Skip>(0, body);
  const size_t size = pass.finish();
  return size + blend_tail(p + body, n - body, f, mask, w);
}

// Where compact_verified_span stopped and what its one pass selected.
struct VerifiedCompact {
  size_t did = 0;      // [0, did) was processed; did == n: all of it
  size_t count = 0;    // the selected elements of [0, did)
  bool dense = false;  // it stopped at a piece with a block of at least dense_at selected (else: a sparse piece)
};

// pilot_v6's one-pass compact over n <= ws.capacity() elements: compact (no skip) compressing the VerifyPieces of
// (n, pieces) one after the other, counting in each the blocks that begin at or after element `from`; after a
// piece but the last with such a block holding at least `dense_at` selected elements (dense), or with such blocks
// and fewer than `floor` of them non-empty, it compresses no more, and one packed pass (f once, one rounding to 16
// lanes) and the expand finish [0, end of that piece). [did, n) is untouched. Never reads or writes outside
// [p, p+n).
template <class F, class M, class W = NoWork>
VerifiedCompact compact_verified_span(float* p, size_t n, F& f, M& mask, Workspace& ws, size_t pieces, double floor,
                                      size_t from, size_t dense_at, W&& w = {}) {
  const size_t body = block_floor(n);
  const VerifyPieces vp(n, pieces);
  CompactPass<F, M, std::remove_reference_t<W>> pass(p, f, mask, ws, w);
  VerifiedCompact r{n, 0};
  for (size_t k = 0; k < vp.count; ++k) {
    const size_t b = vp.begin(k), e = vp.end(k, n);
    const auto c = pass.template compress<false, true>(b, std::min(e, body), from, dense_at);
    const size_t first = std::max(b, block_ceil(from)), past = e > first ? (e - first) / kBlock : 0;
    if (k + 1 < vp.count &&
        (c.dense || (past > 0 && static_cast<double>(c.nonempty) / static_cast<double>(past) < floor))) {
      r.did = e, r.dense = c.dense;
      break;
    }
  }
  r.count = pass.finish();
  if (r.did == n) r.count += blend_tail(p + body, n - body, f, mask, w);
  return r;
}

// pilot_v6's cut compact_skip over [from, n) of n <= ws.capacity() elements (`from` a multiple of 16, at or before
// the last piece's start): compact_skip compressing the VerifyPieces of (n, pieces) from the one holding `from`,
// counting each piece's selected elements; after a piece (not piece 0, not the last) with at least `cut` of its
// length selected, it compresses no more, and one packed pass (f once, one rounding to 16 lanes) and the expand
// finish [from, end of that piece). Returns that end, or n; [end, n) is untouched. Never reads or writes outside
// [p, p+n).
template <class F, class M, class W = NoWork>
size_t compact_skip_cut_span(float* p, size_t n, F& f, M& mask, Workspace& ws, size_t pieces, double cut, size_t from,
                             W&& w = {}) {
  const size_t body = block_floor(n);
  const VerifyPieces vp(n, pieces);
  CompactPass<F, M, std::remove_reference_t<W>> pass(p, f, mask, ws, w);
  size_t did = n;
  for (size_t k = from / vp.len; k < vp.count; ++k) {
    const size_t b = std::max(from, vp.begin(k)), e = vp.end(k, n);
    const size_t before = pass.packed();
    pass.template compress<true>(b, std::min(e, body));
    if (k > 0 && k + 1 < vp.count &&
        static_cast<double>(pass.packed() - before) / static_cast<double>(e - vp.begin(k)) >= cut) {
      did = e;
      break;
    }
  }
  pass.finish();
  if (did == n) blend_tail(p + body, n - body, f, mask, w);
  return did;
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
