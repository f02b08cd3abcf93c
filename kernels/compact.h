// SPDX-License-Identifier: MIT
// compact: a detour that records which registers are non-empty during compress and expands only those, so a
// sparse span pays expand for its few non-empty registers, not for all of them. compact_verified_span (pilot_v6)
// is one compact pass that stops compressing at the first sparse piece (or one with a full block);
// compact_skip_cut_span one compact_skip pass that stops at the first dense piece.
#pragma once

#include <algorithm>
#include <optional>
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
  // Compresses the one block at element i (a multiple of 16). Returns how many of its elements were selected.
  size_t compress_block_at(size_t i) {
    const Block b = load_block(k_.p + i, k_.mask);
    std::array<uint32_t, 4> code;
    const size_t packed = compress_block(k_.ptr, b, code, k_.w);
    k_.ptr += packed;
    book_block(k_.s, idx_, booked_, i, code, k_.w);
    return packed;
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

// pilot_v6's compact score (a cheap f, 0 <= d_max < v6_band; docs/pilot_v6.md): the constants of
// compact_blend_skip_scored, weights in 1/8 ns (their defaults are PilotOptions' v6_cs_*). A score is what the mode
// running loses to the other one so far, clamped to [0, the threshold that ends the mode].
struct CompactScore {
  size_t empty;     // an empty block: compact loses this much to blend_skip (blend_skip gains it back)
  size_t sw;        // a block whose emptiness differs from the block before it: compact gains this much
  size_t block;     // a non-empty block: compact gains this much ...
  size_t reg;       // ... less this much per selected element, up to 4 (a register expand visits) ...
  size_t elem;      // ... less this much per selected element
  size_t to_skip;   // compact hands over to blend_skip at this score
  size_t to_compact;  // blend_skip hands over to compact at this score
  size_t sample;    // blend_skip counts one block in this many (the blocks sample - 1, 2 sample - 1, ... of [a, a+n))
  size_t probation;  // the score a compact run that follows blend_skip starts from
  // Compact's score after a block of cnt selected elements (last: the block before it was empty).
  long compact_step(long score, bool last, size_t cnt) const {
    const bool e = cnt == 0;
    long d = e ? L(empty) : -L(block) + L(reg) * L(std::min<size_t>(cnt, 4)) + L(elem) * L(cnt);
    if (e != last) d -= L(sw);
    return std::clamp(score + d, 0L, L(to_skip));
  }
  // blend_skip's score after a block (before: the block before it was empty); a non-empty block that is not
  // counted (cnt unknown) only moves the score by a switch; a counted one weighs sample times.
  long skip_step(long score, bool before, size_t cnt, bool counted) const {
    const bool e = cnt == 0;
    long d = e ? -L(empty)
               : !counted ? 0
                          : L(sample) * (L(block) - L(reg) * L(std::min<size_t>(cnt, 4)) - L(elem) * L(cnt));
    if (e != before) d += L(sw);
    return std::clamp(score + d, 0L, L(to_compact));
  }

 private:
  static long L(size_t x) { return static_cast<long>(x); }
};

// compact and blend_skip over [a, a+n) of n <= ws.capacity() elements, starting in blend_skip when `skip` is set,
// with a verdict after every whole block but the last. compact runs as one packed pass per run (f once, one
// rounding to 16 lanes), its score (s.compact_step over each block's selected count, which compress has anyway)
// starting at 0 (at s.probation after blend_skip); at s.to_skip or more that pass finishes and blend_skip runs from
// the next block, its score at 0. blend_skip's score (s.skip_step) reads each block's emptiness, which the skip test
// has anyway, and counts the non-empty blocks at tile-relative index sample - 1 (mod sample): such a block is a
// blend_skip_verified run of its own (counted, blended), and the blend_skip run after it starts again (its first
// block compared with "non-empty", which the counted block was); at s.to_compact or more a compact run starts at the
// next block. Every mode's first block compares with "non-empty" (its `last`). The last n % 16 elements are finished
// by the mode they come in. told(begin, end, strategy) is told every non-empty run in order. Returns the mode it
// ends in (true: blend_skip). Never reads or writes outside [a, a+n).
template <class F, class M, class W, class Report>
bool compact_blend_skip_scored(float* a, size_t n, F f, M mask, Workspace& ws, const CompactScore& s, bool skip,
                               W&& w, Report&& told) {
  using Pass = detail::CompactPass<F, M, std::remove_reference_t<W>>;
  const auto report = [&](size_t begin, size_t end, Strategy st) {
    if (begin < end) told(begin, end, st);
  };
  const size_t body = detail::block_floor(n), blocks = body / detail::kBlock;
  const size_t sample = std::max<size_t>(1, s.sample);
  std::optional<Pass> pass;
  if (!skip) pass.emplace(a, f, mask, ws, w);
  size_t next_counted = sample - 1;  // the next block blend_skip would count
  long score = 0;
  size_t from = 0;          // where the run being built began
  bool last = false;        // the block before was empty (a mode's first block: "non-empty")
  bool prev_empty = false;  // blend_skip's skip test: the block before in its run
  for (size_t g = 0; g < blocks; ++g) {
    const size_t at = g * detail::kBlock;
    const bool verdict = g + 1 < blocks, counted = g == next_counted;
    if (counted) next_counted += sample;
    if (!skip) {
      const size_t cnt = pass->compress_block_at(at);
      score = s.compact_step(score, last, cnt);
      last = cnt == 0;
      if (verdict && score >= static_cast<long>(s.to_skip)) {
        pass->finish();
        pass.reset();
        report(from, at + detail::kBlock, Strategy::compact);
        skip = true, score = 0, last = false, prev_empty = false, from = at + detail::kBlock;
      }
      continue;
    }
    float* p = a + at;
    const detail::Block b = detail::load_block(p, mask);
    size_t cnt = 0;
    if (counted && detail::block_any(b)) {
      std::array<uint32x4_t, 4> acc{vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0)};
      detail::count_block(acc, b);
      cnt = detail::sum_counts(acc);
      w.work(Work::counted, 4);
      detail::blend_store(p, b, f, w);
      report(from, at, Strategy::blend_skip);
      report(at, at + detail::kBlock, Strategy::blend_skip_verified);
      from = at + detail::kBlock, prev_empty = false;
    } else if (!detail::skip_block(b, prev_empty, w)) {
      detail::blend_store(p, b, f, w);
      cnt = 1;  // non-empty (not counted: skip_step reads no more than that)
    }
    score = s.skip_step(score, last, cnt, counted);
    last = cnt == 0;
    if (verdict && score >= static_cast<long>(s.to_compact)) {
      report(from, at + detail::kBlock, Strategy::blend_skip);
      pass.emplace(a, f, mask, ws, w);
      skip = false, score = static_cast<long>(s.probation), last = false, from = at + detail::kBlock;
    }
  }
  if (!skip) pass->finish();
  detail::blend_tail(a + body, n - body, f, mask, w);
  report(from, n, skip ? Strategy::blend_skip : Strategy::compact);
  return skip;
}

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
