// SPDX-License-Identifier: MIT
#include "fast_pilot.h"

#include "v5_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace maskapply::gen::hunt {

// --- Summary ------------------------------------------------------------------------------------------------

void Summary::assign(std::span<const uint8_t> sel) {
  sel_.resize(sel.size());
  for (size_t i = 0; i < sel.size(); ++i) sel_[i] = sel[i] != 0;
  build();
}

void Summary::assign(const Pattern& p, size_t n) {
  // The segments' places in the period (as gen::selection lays them out); anything it would refuse or do
  // element by element (segments that do not fill the period, a phase past it) goes through gen::selection.
  // Equal to gen::selection(p, n) (generators_hunt_test checks it, random segments included).
  uint64_t fixed = 0;
  for (const Segment& g : p.segments)
    if (!g.rest) fixed += g.length;
  starts_.clear();
  uint64_t at = 0;
  for (const Segment& g : p.segments) {
    starts_.push_back(at);
    at += g.rest ? (fixed < p.period ? p.period - fixed : 0) : g.length;
  }
  starts_.push_back(at);
  if (p.period == 0 || p.segments.empty() || at != p.period || p.phase >= p.period ||
      p.period > 2 * uint64_t{n} + 65536) {  // a period far longer than the array: no template worth building
    sel_ = gen::selection(p, n);
    build();
    return;
  }
  // One period from position 0, segment by segment (random segments left for each repetition): element i is at
  // position (i + phase) mod period of repetition (i + phase) / period.
  bool random = false;
  period_.assign(static_cast<size_t>(p.period), 0);
  for (size_t k = 0; k < p.segments.size(); ++k) {
    const Segment& g = p.segments[k];
    const size_t b = static_cast<size_t>(starts_[k]), e = static_cast<size_t>(starts_[k + 1]);
    if (g.kind == Segment::Kind::bits) {
      for (size_t j = 0; b + j < e; ++j) period_[b + j] = j < g.bits.size() && g.bits[j] == '1';
    } else if (g.kind == Segment::Kind::random) {
      random = true;
    } else if (g.density >= 1.0) {
      std::memset(period_.data() + b, 1, e - b);
    } else if (g.density > 0) {
      double lo = 0;  // floor(j * d)
      for (size_t j = 0; b + j < e; ++j) {
        const double hi = std::floor(static_cast<double>(j + 1) * g.density);
        period_[b + j] = hi > lo;
        lo = hi;
      }
    }
  }
  sel_.resize(n);
  const size_t per = static_cast<size_t>(p.period);
  // Element i + period is at the same position of the period as element i: without random segments, whole
  // blocks repeat every period / 16 blocks when the period and the phase are multiples of 16.
  const size_t period_blocks = !random && per % 16 == 0 && p.phase % 16 == 0 ? per / 16 : 0;
  uint64_t x = p.phase;
  for (size_t i = 0; i < n;) {
    const uint64_t rep = x / per;
    const size_t pos = static_cast<size_t>(x % per), len = std::min(per - pos, n - i);
    std::memcpy(sel_.data() + i, period_.data() + pos, len);
    if (random) {
      // gen::segment_selects: mix(seed, segment, repetition, offset in the segment) below density * 2^64.
      for (size_t k = 0; k < p.segments.size(); ++k) {
        const Segment& g = p.segments[k];
        if (g.kind != Segment::Kind::random) continue;
        const size_t b = std::max<size_t>(pos, static_cast<size_t>(starts_[k]));
        const size_t e = std::min<size_t>(pos + len, static_cast<size_t>(starts_[k + 1]));
        if (b >= e) continue;
        uint8_t* out = sel_.data() + i + (b - pos);
        if (g.density >= 1.0) {
          std::memset(out, 1, e - b);
          continue;
        }
        const uint64_t threshold = static_cast<uint64_t>(g.density * 18446744073709551616.0);
        const Mix3 m(p.seed, k, rep);
        const uint64_t j0 = b - starts_[k];
        for (size_t j = 0; j < e - b; ++j) out[j] = m(j0 + j) < threshold;
      }
    }
    i += len, x += len;
  }
  build(period_blocks);
}

void Summary::build(size_t period) {
  const size_t blocks = sel_.size() / 16;
  const bool tail = sel_.size() % 16 != 0;
  blocks_.resize(blocks + tail);
  const uint8_t* p = sel_.data();
  BlockSummary* out = blocks_.data();
  const size_t direct = period && period < blocks ? period : blocks;
  for (size_t b = 0; b < direct; ++b) {
    uint64_t w0, w1;  // bytes are 0 / 1: a popcount counts them
    std::memcpy(&w0, p + 16 * b, 8), std::memcpy(&w1, p + 16 * b + 8, 8);
    const uint32_t c = static_cast<uint32_t>(__builtin_popcountll(w0) + __builtin_popcountll(w1));
    const uint32_t r = ((w0 & 0xffffffffu) != 0) + ((w0 >> 32) != 0) + ((w1 & 0xffffffffu) != 0) + ((w1 >> 32) != 0);
    out[b] = BlockSummary{static_cast<uint8_t>(c), static_cast<uint8_t>(r), 16};
  }
  // The rest a copy of what is before it: from a multiple of the period, block b + j is block j.
  for (size_t b = direct; b < blocks;) {
    const size_t len = std::min(b, blocks - b);
    std::memcpy(out + b, out, len * sizeof(BlockSummary));
    b += len;
  }
  if (tail) {  // regret.h's summarize of the last len % 16 elements
    const size_t begin = blocks * 16, len = sel_.size() - begin;
    BlockSummary t;
    t.len = static_cast<uint8_t>(len);
    for (size_t r = 0; r * 4 < len; ++r) {
      unsigned c = 0;
      for (size_t l = r * 4; l < std::min(len, r * 4 + 4); ++l) c += p[begin + l];
      t.selected = static_cast<uint8_t>(t.selected + c);
      t.nonempty = static_cast<uint8_t>(t.nonempty + (c != 0));
    }
    blocks_[blocks] = t;
  }
  costs_.assign(blocks_, direct < blocks ? period : 0);  // the prefix sums count() and stats() read too
}

size_t Summary::count(size_t b, size_t e) const {
  e = std::min(e, sel_.size());
  if (b >= e) return 0;
  const size_t B = (b + 15) / 16, E = e / 16;
  if (B >= E) {
    size_t c = 0;
    for (size_t i = b; i < e; ++i) c += sel_[i];
    return c;
  }
  size_t c = costs_.selected_before(E) - costs_.selected_before(B);
  for (size_t i = b; i < 16 * B; ++i) c += sel_[i];
  for (size_t i = 16 * E; i < e; ++i) c += sel_[i];
  return c;
}

SpanStats Summary::stats(size_t b, size_t e) const {
  e = std::min(e, sel_.size());
  if (b >= e) return SpanStats{};
  if (b % 16) return span_stats(std::span<const uint8_t>(sel_).subspan(b, e - b));
  SpanStats st;
  st.len = e - b;
  st.body = st.len & ~size_t{15};
  st.registers = st.body / 4;
  st.blocks = st.body / 16;
  st.tail = st.len - st.body;
  const size_t B0 = b / 16, B1 = B0 + st.blocks;
  st.selected = costs_.selected_before(B1) - costs_.selected_before(B0);
  st.nonempty_registers = costs_.nonempty_before(B1) - costs_.nonempty_before(B0);
  st.empty_blocks = costs_.empty_before(B1) - costs_.empty_before(B0);
  // The first block is compared with "non-empty", the others with their predecessor.
  st.switches =
      st.blocks ? static_cast<size_t>(costs_.empty_block(B0)) + (costs_.switches_before(B1) - costs_.switches_before(B0 + 1))
                : 0;
  for (size_t i = b + st.body; i < e; ++i) st.tail_selected += sel_[i];
  return st;
}

// --- simulate -----------------------------------------------------------------------------------------------

namespace {

// The pilots' rules, restated from the article (not from kernels/pilot.h).
struct Sim {
  const Summary& s;
  const PilotOptions& o;
  Trace& out;
  double dmax;
  long long hi, xlo, lo;
  size_t n;
  // pilot_v6: the mode the tile before ended in; d_max < 0: blend (the first: blend_skip); a cheap f with v6_cs:
  // blend_skip (the first: compact).
  bool blending = false;
  std::optional<SwitchGate> gate{};  // pilot_v6 with v6_gate, d_max < 0: the gate, from its first tile on
  GateState gate_state{};

  void run(size_t b, size_t e, Strategy st) {
    if (b < e) out.runs.push_back(Run{b, e, st});
  }
  size_t count_run(size_t b, size_t e, Strategy st) {
    run(b, e, st);
    return s.count(b, e);
  }
  long long probe(TileDecision& d) {
    const size_t size = d.end - d.begin, len = std::min(o.probe, size);
    const size_t c = s.count(d.begin, d.begin + len);
    d.source = CountSource::probe;
    d.probed = len;
    d.count = static_cast<long long>(len == o.probe ? c : c * o.probe / len);
    return d.count;
  }
  void blend_branch(const TileDecision& d, long long cnt) {
    run(d.begin, d.end, cnt < xlo ? Strategy::blend_skip : Strategy::blend);
  }
  size_t below_hi(const TileDecision& d, long long cnt) {
    const Strategy st = cnt < xlo ? Strategy::compact_skip : cnt < lo ? Strategy::compact : Strategy::detour;
    return count_run(d.begin, d.end, st);
  }
  // Verified blend over the tile; returns the tile-relative end of what it blended; rest = the detour's count.
  size_t verified(TileDecision& d, size_t* rest) {
    const size_t size = d.end - d.begin;
    const size_t len = verify_len(size, o.verify_blocks), nb = verify_count(size, o.verify_blocks);
    size_t did = size;
    for (size_t k = 0; k < nb; ++k) {
      const size_t b = k * len, e = k + 1 == nb ? size : b + len;
      const size_t cur = s.count(d.begin + b, d.begin + e);
      if (e < size && static_cast<double>(cur) / static_cast<double>(e - b) < o.bail * dmax) {
        did = e;
        break;
      }
    }
    run(d.begin, d.begin + did, Strategy::blend_verified);
    *rest = 0;
    if (did < size) {
      d.bail = d.begin + did;
      *rest = count_run(d.begin + did, d.end, Strategy::detour);
    }
    return did;
  }
  // A cheap f's compact_skip from `from` (docs/pilot_v6.md): one compact_skip run from tile offset `from` (a piece's
  // start) over the pieces, ending after a piece (not piece 0, not the last) with at least `cut` of its elements
  // selected; blend_skip on the rest (the tile's bail when from is 0).
  void skip_to_blend_skip(TileDecision& d, size_t from, double cut) {
    const size_t size = d.end - d.begin, pieces = v6_piece_count(o, size);
    const size_t len = verify_len(size, pieces), nb = verify_count(size, pieces);
    size_t did = size;
    for (size_t k = std::max<size_t>(from / len, 1); k + 1 < nb; ++k) {
      const size_t b = k * len, e = b + len;
      const SpanStats ps = s.stats(d.begin + b, d.begin + e);
      if (static_cast<double>(ps.selected + ps.tail_selected) / static_cast<double>(len) >= cut) {
        did = e;
        break;
      }
    }
    run(d.begin + from, d.begin + did, Strategy::compact_skip);
    if (did < size) {
      if (from == 0) d.bail = d.begin + did;
      run(d.begin + did, d.end, Strategy::blend_skip);
    }
  }
  // pilot_v6's tile when d_max < 0 (docs/pilot_v6.md): blend_skip and blend on the switch score, a verdict after
  // every whole block but the last, from the mode the tile before ended in (`blending`); in blend one block in the
  // score's sample (tile-relative index sample - 1 mod sample) is counted, a blend_verified run of its own. With
  // v6_gate the score is the one the gate holds at the block's start, and the gate (kernels/score_gate.h: the
  // pilot's own bookkeeping, whose switches the decision reference checks) takes each block after it.
  void switch_scored(TileDecision& d) {
    const SwitchScore plain{o.v6_score_switch, o.v6_score_blend, o.v6_score_skip, o.v6_score_sample};
    if (o.v6_gate && !gate) gate = v6_gate_of(o, dmax), gate_state = GateState::start(gate->c);
    const auto down = [](size_t x, size_t by) { return x > by ? x - by : 0; };
    const size_t blocks = (d.end - d.begin) / 16;
    size_t score = 0, from = d.begin;
    bool last = false;  // blend_skip: the run's block before ("non-empty" first); blend: the last counted block
    for (size_t g = 0; g < blocks; ++g) {
      const SwitchScore& sc = gate ? (gate_state.safe ? gate->safe : gate->plain) : plain;
      const size_t b = d.begin + 16 * g;
      const bool empty = s.count(b, b + 16) == 0, counted = blending && g % sc.sample == sc.sample - 1;
      const bool seen = !blending || counted;  // the gate: whether the block's emptiness was read
      int64_t paid = 0;  // for the gate, in 1/kGateUnit ns
      if (!blending) {
        if (gate) paid = (empty ? gate->c.pe : gate->c.pb) + (empty != last ? gate->c.pM : 0);
        score = down(score + (empty != last ? sc.sw : 0), empty ? 1 : 0);
        last = empty;
        if (g + 1 < blocks && score >= sc.to_blend) {
          run(from, b + 16, Strategy::blend_skip);
          blending = true, score = 0, from = b + 16;  // `last`: this block, for the first counted one
        }
      } else if (counted) {
        if (gate) paid = gate->c.pb + gate->c.pV4;
        run(from, b, Strategy::blend);
        run(b, b + 16, Strategy::blend_verified);
        from = b + 16;
        score = down(score + (empty ? 1 : 0), empty != last ? sc.sw : 0);
        last = empty;
        if (g + 1 < blocks && score >= sc.to_skip) blending = false, score = sc.probation(), last = false;
      } else if (gate) {
        paid = gate->c.pb;
      }
      if (gate && detail::gate_block(gate_state, *gate, seen, !empty, paid)) score = 0;
    }
    run(from, d.end, blending ? Strategy::blend : Strategy::blend_skip);
  }
  // pilot_v6's tile for a cheap f with v6_cs (docs/pilot_v6.md): compact and blend_skip on the compact score, a
  // verdict after every whole block but the last, from the mode the tile before ended in (`blending`: blend_skip),
  // the score in 1/8 ns of what the running mode loses to the other, clamped to [0, the mode's threshold]; in
  // blend_skip a non-empty block at tile-relative index sample - 1 (mod sample) is counted, a blend_skip_verified
  // run of its own.
  void compact_scored(TileDecision& d) {
    using L = long long;
    const size_t blocks = (d.end - d.begin) / 16, sample = o.v6_cs_sample;
    const L E = static_cast<L>(o.v6_cs_empty), S = static_cast<L>(o.v6_cs_switch), N = static_cast<L>(o.v6_cs_block);
    const L R = static_cast<L>(o.v6_cs_reg), A = static_cast<L>(o.v6_cs_elem);
    const L to_skip = static_cast<L>(o.v6_cs_to_skip), to_compact = static_cast<L>(o.v6_cs_to_compact);
    L score = 0;
    size_t from = d.begin;
    bool last = false;  // the block before was empty (a mode's first block: "non-empty")
    for (size_t g = 0; g < blocks; ++g) {
      const size_t b = d.begin + 16 * g;
      const L c = static_cast<L>(s.count(b, b + 16));
      const bool empty = c == 0, more = g + 1 < blocks;
      if (!blending) {
        score = std::clamp(score + (empty ? E : R * std::min<L>(c, 4) + A * c - N) - (empty != last ? S : 0), L{0},
                           to_skip);
        last = empty;
        if (more && score >= to_skip) run(from, b + 16, Strategy::compact), blending = true, score = 0, last = false, from = b + 16;
        continue;
      }
      L step = empty ? -E : 0;
      if (!empty && g % sample == sample - 1) {
        step = static_cast<L>(sample) * (N - R * std::min<L>(c, 4) - A * c);
        run(from, b, Strategy::blend_skip);
        run(b, b + 16, Strategy::blend_skip_verified);
        from = b + 16;
      }
      score = std::clamp(score + step + (empty != last ? S : 0), L{0}, to_compact);
      last = empty;
      if (more && score >= to_compact) {
        run(from, b + 16, Strategy::blend_skip);
        blending = false, score = static_cast<L>(o.v6_cs_probation), last = false, from = b + 16;
      }
    }
    run(from, d.end, blending ? Strategy::blend_skip : Strategy::compact);
  }
  // pilot_v6's one-pass detour (a dear f): one detour run from tile offset `from` (a piece's start) over the pieces,
  // ending after a piece (not the last) that has registers beginning at or after the probe's end and fewer than
  // v6_reg of them non-empty; compact_skip on the rest.
  void detour_pass(TileDecision& d, size_t from) {
    const double reg = o.v6_reg;
    const size_t size = d.end - d.begin;
    const size_t pieces = v6_piece_count(o, size);
    const size_t len = verify_len(size, pieces), nb = verify_count(size, pieces);
    const size_t pe = std::min(o.probe, size);
    size_t did = size;
    for (size_t k = from / len; k + 1 < nb; ++k) {
      const size_t b = k * len, e = b + len;
      const size_t first = std::min(e, std::max(b, (pe + 15) / 16 * 16));
      const SpanStats ps = s.stats(d.begin + first, d.begin + e);
      if (ps.registers > 0 && static_cast<double>(ps.nonempty_registers) / static_cast<double>(ps.registers) < reg) {
        did = e;
        break;
      }
    }
    run(d.begin + from, d.begin + did, Strategy::detour);
    if (did < size) {
      if (from == 0) d.bail = d.begin + did;
      run(d.begin + did, d.end, Strategy::compact_skip);
    }
  }
  // pilot_v6's verified run (docs/pilot_v6.md): st (blend_skip_verified or compact) over the tile in v6_pieces
  // pieces as one run up to where it stops, after a piece but the last whose density is below floor (compact, the
  // one-pass compact: that has blocks beginning at or after the probe's end and fewer than floor of them non-empty; with
  // cut, a cheap f's, also after a piece with such a block holding at least v6_dense_block selected, then
  // blend_skip); then compact_skip on the rest (a cheap f's cut; the verified blend's, after a piece of density at
  // least v6_lo, the one-pass detour).
  void verified_v6(TileDecision& d, Strategy st, double floor, bool cut = false) {
    const size_t size = d.end - d.begin;
    const size_t pieces = v6_piece_count(o, size);
    const size_t len = verify_len(size, pieces), nb = verify_count(size, pieces);
    const size_t from = std::min(o.probe, size);
    size_t did = size;
    bool dense = false;
    double last = 0;
    for (size_t k = 0; k < nb; ++k) {
      const size_t b = k * len, e = k + 1 == nb ? size : b + len;
      if (e == size) continue;
      bool stops;
      if (st == Strategy::compact) {
        const size_t first = std::min(e, std::max(b, (from + 15) / 16 * 16));
        const SpanStats ps = s.stats(d.begin + first, d.begin + e);
        // A cheap f's: a block at least v6_dense_block full ends it too (blend_skip on the rest).
        for (size_t q = first; cut && !dense && q + 16 <= e; q += 16)
          dense = s.count(d.begin + q, d.begin + q + 16) >= o.v6_dense_block;
        const double nonempty = static_cast<double>(ps.blocks - ps.empty_blocks);
        stops = dense || (ps.blocks > 0 && nonempty / static_cast<double>(ps.blocks) < floor);
      } else {
        last = static_cast<double>(s.count(d.begin + b, d.begin + e)) / static_cast<double>(e - b);
        stops = last < floor;
      }
      if (stops) {
        did = e;
        break;
      }
    }
    run(d.begin, d.begin + did, st);
    if (did < size) {
      d.bail = d.begin + did;
      if (dense)
        run(d.begin + did, d.end, Strategy::blend_skip);
      else if (st == Strategy::blend_skip_verified && last >= o.v6_lo)
        detour_pass(d, did);
      else if (cut)
        skip_to_blend_skip(d, did, o.v6_dense_cut);
      else
        run(d.begin + did, d.end, Strategy::compact_skip);
    }
  }
};

}  // namespace

void simulate(Kernel pilot, const Summary& s, const PilotOptions& given, Trace& out) {
  if (const std::string err = given.validate(); !err.empty()) throw std::invalid_argument("maskapply: " + err);
  if (!given.d_max) throw std::invalid_argument("maskapply hunt: simulate needs an injected d_max");
  const PilotOptions o = as_run(pilot, given);  // pilot_v6's probe for a dear f
  if (pilot < Kernel::pilot_v1) throw std::invalid_argument("maskapply hunt: not a pilot");
  if (pilot == Kernel::pilot_v5) return simulate_v5(s, o, v5_params(o), out);
  out.clear();
  const double dm = *o.d_max;
  const double p = static_cast<double>(o.probe);
  const auto conv = [&](double x) { return static_cast<long long>(std::min(2.0, std::max(-2.0, x)) * p); };
  Sim sim{s, o, out, dm, conv(dm), conv(o.xlo), conv(o.lo), s.size()};
  const size_t n = s.size();
  const size_t region = std::min(n, o.calib_blocks * o.calib_len);
  size_t index = 0;
  const auto fresh = [&](size_t b, size_t e) {
    TileDecision d;
    d.index = index++, d.begin = b, d.end = e, d.hi = sim.hi, d.xlo = sim.xlo, d.lo = sim.lo, d.d_max = dm;
    return d;
  };
  for (size_t i = 0; i < region; i += o.calib_len) {
    TileDecision d = fresh(i, std::min(i + o.calib_len, region));
    d.source = CountSource::calibration;
    sim.run(d.begin, d.end, Strategy::blend);
    out.tiles.push_back(d);
  }
  size_t distrust = 0;
  long long prev = 0;
  const auto scaled = [&](size_t c, size_t len) { return static_cast<long long>(c * o.probe / len); };
  for (size_t i = region; i < n; i += o.tile) {
    TileDecision d = fresh(i, std::min(i + o.tile, n));
    const size_t size = d.end - d.begin;
    size_t rest = 0;
    switch (pilot) {
      case Kernel::pilot_v1: sim.run(d.begin, d.end, dm < 0 ? Strategy::blend : Strategy::detour); break;
      case Kernel::pilot_v2: {
        const long long c = sim.probe(d);
        if (c > sim.hi) sim.blend_branch(d, c);
        else sim.run(d.begin, d.end, c < sim.xlo ? Strategy::detour_skip : Strategy::detour);
        break;
      }
      case Kernel::pilot_v3: {
        const long long c = sim.probe(d);
        if (c > sim.hi) sim.blend_branch(d, c);
        else sim.below_hi(d, c);
        break;
      }
      case Kernel::pilot_v3_5: {
        const long long c = sim.probe(d);
        if (c > sim.hi) {
          if (sim.hi < 0) sim.blend_branch(d, c);
          else sim.verified(d, &rest);
        } else {
          sim.below_hi(d, c);
        }
        break;
      }
      case Kernel::pilot_v6: {
        if (sim.hi < 0) {  // no probe: the switch score
          sim.switch_scored(d);
          break;
        }
        if (v6_compact_scored(o, dm, sim.hi)) {  // a cheap f, no probe: the compact score
          sim.compact_scored(d);
          break;
        }
        const long long c = sim.probe(d);
        const bool cheap = dm < o.v6_band;
        if (cheap && c > sim.hi && c > sim.lo) sim.run(d.begin, d.end, Strategy::blend_skip);
        else if (!cheap && c > sim.hi) sim.verified_v6(d, Strategy::blend_skip_verified, std::min(o.v6_bail * dm, 1.0));
        else if (!cheap && c >= conv(o.v6_lo)) sim.detour_pass(d, 0);
        else if (c >= sim.xlo && (cheap || c < sim.lo))
          sim.verified_v6(d, Strategy::compact, cheap ? o.v6_floor : o.v6_dear_floor, cheap);
        else if (cheap) sim.skip_to_blend_skip(d, 0, o.v6_dense_cut);
        else sim.run(d.begin, d.end, Strategy::compact_skip);
        break;
      }
      default: {  // pilot_v4
        if (distrust) --distrust;
        long long c;
        if (distrust) {
          c = d.count = prev;
          d.source = CountSource::previous;
        } else {
          c = sim.probe(d);
        }
        if (c > sim.hi) {
          if (sim.hi < 0) {
            sim.blend_branch(d, c);
          } else if (distrust == 0) {
            const size_t did = sim.verified(d, &rest);
            if (did < size) distrust = o.distrust, prev = scaled(rest, size - did);
          } else {
            prev = scaled(sim.count_run(d.begin, d.end, Strategy::detour), size);
          }
        } else {
          prev = scaled(sim.below_hi(d, c), size);
        }
        d.distrust = distrust;
      }
    }
    out.tiles.push_back(d);
  }
}

// --- Mechanism and Scorer -----------------------------------------------------------------------------------

std::string Mechanism::key() const {
  std::string k = std::string(name(source)) + ":" + runs;
  if (bail_block) k += "@" + std::to_string(bail_block);
  return k + ">" + std::string(name(oracle));
}

std::string Mechanism::words() const {
  std::string w;
  if (source == CountSource::previous)
    w = "not trusting the probe (after a bail-out), judged by the previous tile's count, ";
  else if (source == CountSource::probe)
    w = "judged by the probe, ";
  else
    w = "without a probe, ";
  w += "it ran " + runs;
  if (bail_block)
    w += pieces ? " (its verified run stopped after piece " + std::to_string(bail_block) + ")"
                : " (the verified blend bailed after block " + std::to_string(bail_block) + ")";
  w += " where " + std::string(name(oracle)) + " was cheapest";
  return w;
}

Scorer::Scorer(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o, bool cache)
    : pilot_(pilot), f_(f), m_(m), o_(o.d_max ? o : model_options(m, f, o)), run_(as_run(pilot_, o_)) {
  if (cache) cache_.emplace(m_, f_);
}

Scorer::Scorer(Simulate sim, Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o, bool cache)
    : Scorer(pilot, f, m, o, cache) {
  sim_ = std::move(sim);
}

Score Scorer::score(const Summary& s) {
  if (sim_)
    sim_(s, o_, trace_);
  else
    simulate(pilot_, s, o_, trace_);
  return score_trace(s, trace_);
}

Score Scorer::score_trace(const Summary& s, const Trace& t) {
  // As regret.h's model_regret: runs charged to the tile holding their first element, in trace order, each
  // costed by BlockCosts; the probe added after the runs; the calibration tiles left out; the oracle over the
  // blocks of the decided region.
  Score out;
  const size_t n = s.size();
  bool aligned = true;
  size_t decided_begin = 0;
  for (const TileDecision& d : t.tiles)
    if (d.source == CountSource::calibration) decided_begin = std::max(decided_begin, std::min(d.end, n));
  for (const Run& r : t.runs) aligned = aligned && BlockCosts::aligned(std::min(r.begin, n), n) &&
                                        BlockCosts::aligned(std::min(r.end, n), n);
  for (const TileDecision& d : t.tiles) aligned = aligned && BlockCosts::aligned(std::min(d.begin, n), n) &&
                                                  BlockCosts::aligned(std::min(d.end, n), n);
  const BlockCosts& bc = s.costs();
  std::optional<Regret> slow;
  if (!aligned || decided_begin % 16) slow = model_regret(t, s.selection(), m_, f_, o_);
  std::array<double, kOracleStrategies.size()> fixed{};
  size_t r = 0, decided = 0, slow_tile = 0;
  double best_excess = -std::numeric_limits<double>::infinity();
  std::vector<std::string> keys;
  for (size_t k = 0; k < t.tiles.size(); ++k) {
    const TileDecision& d = t.tiles[k];
    const size_t next = k + 1 < t.tiles.size() ? t.tiles[k + 1].begin : std::numeric_limits<size_t>::max();
    double pilot = 0;
    // The tile's runs in words: a blend run next to a blend_verified run is one "blend" (pilot_v6's switch score
    // counts single blocks of its blend), a repeat is written once, and past 6 words only the last is kept.
    std::vector<std::string_view> words;
    size_t dropped = 0;
    for (; r < t.runs.size() && t.runs[r].begin < next; ++r) {
      const size_t rb = std::min(t.runs[r].begin, n), re = std::min(t.runs[r].end, n);
      if (!slow && rb < re) pilot += bc.run_cost(m_, f_, t.runs[r].strategy, rb, re, false);
      const Strategy st = t.runs[r].strategy;
      const bool blendish = st == Strategy::blend || st == Strategy::blend_verified;
      if (!words.empty() && blendish && (words.back() == "blend" || words.back() == "blend_verified")) {
        words.back() = "blend";
        continue;
      }
      if (!words.empty() && words.back() == name(st)) continue;
      if (words.size() == 6) words.pop_back(), ++dropped;
      words.push_back(name(st));
    }
    std::string runs;
    for (size_t w = 0; w < words.size(); ++w) {
      if (w) runs += '+';
      if (w + 1 == words.size() && dropped) runs += "...+";
      runs += words[w];
    }
    const size_t begin = std::min(d.begin, n), end = std::min(d.end, n);
    if (begin >= end || d.source == CountSource::calibration) continue;
    std::array<double, kOracleStrategies.size()> c{};
    size_t best = 0;
    if (slow) {
      const TileCost& tc = slow->per_tile[slow_tile++];
      pilot = tc.pilot, c = tc.cost, best = tc.best;
    } else {
      if (d.source == CountSource::probe) pilot += probe_cost(m_, d.probed);
      for (size_t j = 0; j < kOracleStrategies.size(); ++j) {
        c[j] = bc.run_cost(m_, f_, kOracleStrategies[j], begin, end, false);
        fixed[j] += c[j];
        if (c[j] < c[best]) best = j;
      }
      out.pilot_cost += pilot;
    }
    Mechanism m;
    m.tile = decided++;
    m.source = d.source;
    m.runs = runs;
    m.distrust = d.source == CountSource::previous;
    if (d.bail != kNoBail) {
      const size_t size = d.end - d.begin;
      m.pieces = pilot_ == Kernel::pilot_v6;
      const size_t blocks = m.pieces ? v6_piece_count(run_, size) : o_.verify_blocks;
      m.bail_block = (d.bail - d.begin) / verify_len(size, blocks);
    }
    m.oracle = kOracleStrategies[best];
    m.excess = pilot - c[best];
    if (m.excess > 0.01 * c[best]) keys.push_back(m.key());
    if (m.excess > best_excess) best_excess = m.excess, out.mechanism = m;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (slow) {
    out.pilot_cost = slow->pilot_cost, out.oracle_cost = slow->oracle_cost;
    out.regret = slow->vs_oracle, out.vs_fixed = slow->vs_fixed;
  } else {
    if (decided_begin < n) {
      const auto blocks = s.blocks().subspan(std::min(decided_begin / 16, s.blocks().size()));
      out.oracle_cost = cache_ ? cache_->cost(blocks, o_, decided_begin) : oracle_cost(blocks, m_, f_, o_, decided_begin);
    }
    out.regret = decided ? ratio(out.pilot_cost, out.oracle_cost) : nan;
    out.vs_fixed = decided ? ratio(out.pilot_cost, *std::min_element(fixed.begin(), fixed.end())) : nan;
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  for (const std::string& k : keys) out.signature += (out.signature.empty() ? "" : " ") + k;
  return out;
}

}  // namespace maskapply::gen::hunt
