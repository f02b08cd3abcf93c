// SPDX-License-Identifier: MIT
// blend (BSL): compute f on every element and select. blend_skip jumps over blocks of 16 with nothing selected;
// blend_verified counts as it goes and stops when the density proves too low for blend; blend_switch_scored goes
// back and forth between blend_skip and blend on a score of the switches and empty blocks. Also the density probe.
#pragma once

#include <algorithm>

#include "block.h"
#include "score_gate.h"
#include "trace.h"

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

namespace detail {

// blend_switch_scored's loop, gated when `gate` is set (then `st` carries the gate and each block runs the score the
// gate holds at its start; else `s` throughout).
template <class F, class M, class W, class Report>
bool blend_switch_span(float* a, size_t n, F f, M mask, const SwitchScore& s, const SwitchGate* gate, GateState* st,
                       bool blend, W& w, Report& told) {
  const auto report = [&](size_t begin, size_t end, Strategy strategy) {
    if (begin < end) told(begin, end, strategy);
  };
  const auto score_now = [&]() -> const SwitchScore& { return gate ? (st->safe ? gate->safe : gate->plain) : s; };
  const size_t body = block_floor(n), blocks = body / kBlock;
  const SwitchScore* now = &score_now();  // the score this block runs (changes only at a gate switch)
  size_t sample = std::max<size_t>(1, now->sample);
  size_t next_counted = sample - 1;  // the next block blend would count (a compare per block, not a division)
  size_t score = 0, from = 0;  // the score; where the run being built began
  bool prev_empty = false;     // blend_skip: the block before (at a run's start: "non-empty")
  bool counted_empty = false;  // blend: the last counted block (or blend_skip's last; none: "non-empty")
  const auto down = [](size_t x, size_t by) { return x > by ? x - by : 0; };
  for (size_t g = 0; g < blocks; ++g) {
    float* p = a + g * kBlock;
    const SwitchScore& sc = *now;
    const bool blending = blend;  // the mode this block runs in
    const Block b = load_block(p, mask);
    const bool verdict = g + 1 < blocks, counted = g == next_counted;
    if (counted) next_counted += sample;
    bool seen = true, empty = false;  // for the gate: whether the block's emptiness was read, and what it was
    int64_t paid = 0;                 // for the gate: what the block cost, in 1/kGateUnit ns
    if (!blend) {
      const bool before = prev_empty;
      empty = skip_block(b, prev_empty, w);
      if (!empty) blend_store(p, b, f, w);
      if (gate) paid = (empty ? gate->c.pe : gate->c.pb) + (empty != before ? gate->c.pM : 0);
      score = down(score + (empty != before ? sc.sw : 0), empty ? 1 : 0);
      if (verdict && score >= sc.to_blend) {
        report(from, (g + 1) * kBlock, Strategy::blend_skip);
        blend = true, score = 0, counted_empty = empty, from = (g + 1) * kBlock;
      }
    } else if (counted) {
      empty = !block_any(b);
      w.work(Work::counted, 4);
      blend_store(p, b, f, w);
      if (gate) paid = gate->c.pb + gate->c.pV4;
      report(from, g * kBlock, Strategy::blend);
      report(g * kBlock, (g + 1) * kBlock, Strategy::blend_verified);
      from = (g + 1) * kBlock;
      score = down(score + (empty ? 1 : 0), empty != counted_empty ? sc.sw : 0);
      counted_empty = empty;
    } else {
      blend_store(p, b, f, w);
      seen = false;
      if (gate) paid = gate->c.pb;
    }
    if (blending && counted && verdict && score >= sc.to_skip) {
      report(from, (g + 1) * kBlock, Strategy::blend);
      blend = false, score = sc.probation(), prev_empty = false, from = (g + 1) * kBlock;
    }
    if (gate && gate_block(*st, *gate, seen, !empty, paid)) {  // the other score from the next block, at 0
      now = &score_now(), score = 0, sample = std::max<size_t>(1, now->sample);
      next_counted = g + 1 + (sample - 1 - (g + 1) % sample);
    }
  }
  blend_tail(a + body, n - body, f, mask, w);
  report(from, n, blend ? Strategy::blend : Strategy::blend_skip);
  return blend;
}

}  // namespace detail

// blend_skip and blend over [a, a+n), starting in blend when `blend` is set, with a verdict after every whole
// block but the last. In blend_skip (one run: each block compared with the one before it, the run's first with
// "non-empty") a score starts at 0 and goes up by s.sw at each switch and down by 1 at each empty block, never below
// 0; at s.to_blend or more blend runs from the next block, its score at 0. In blend the blocks at tile-relative
// index sample - 1 (mod sample) are counted; the score goes up by 1 when such a block is empty and down by s.sw when
// its emptiness differs from the counted block's before it (the first compared with the last block blend_skip ran,
// or at the start of [a, a+n) with "non-empty"), never below 0; at s.to_skip or more a new blend_skip run starts
// at the next block with the score at s.probation(). The last n % 16 elements are finished by blend. told(begin,
// end, strategy) is told every non-empty run in order: blend_skip, blend, and each counted block as
// blend_verified. Returns the mode it ends in (true: blend). Never reads or writes outside [a, a+n).
template <class F, class M, class W, class Report>
bool blend_switch_scored(float* a, size_t n, F f, M mask, const SwitchScore& s, bool blend, W&& w, Report&& told) {
  return detail::blend_switch_span(a, n, f, mask, s, nullptr, nullptr, blend, w, told);
}

// The same with a gate (score_gate.h): each block runs gate.safe or gate.plain as `st` holds at the block's start;
// after the block (its mode switch included) st takes it: g += what the pilot paid (a blend_skip block: skipped or
// blended, plus a misprediction when its emptiness differs from the block before in the run; a blend block: blended,
// plus the count when counted) - lambda * what O_lb rose by (a blend block not counted: not seen). When the gate
// switches score, the new score starts at 0 from the next block and counts the blocks at tile-relative index
// sample - 1 (mod its sample) from there. The mode, and the block before each comparison, are unchanged. st goes on
// across calls (tiles).
template <class F, class M, class W, class Report>
bool blend_switch_gated(float* a, size_t n, F f, M mask, const SwitchGate& gate, GateState& st, bool blend, W&& w,
                        Report&& told) {
  return detail::blend_switch_span(a, n, f, mask, gate.plain, &gate, &st, blend, w, told);
}

}  // namespace maskapply
