// SPDX-License-Identifier: MIT
#include "search.h"

#include "v5_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <set>

namespace maskapply::gen::hunt {

namespace {

using Segs = std::vector<Segment>;

// Counter-based random numbers from the seed (gen::mix): the same sequence on every platform.
struct Rng {
  uint64_t seed, n = 0;
  uint64_t next() { return mix(seed, ++n, 0x68756e74); }
  size_t below(size_t k) { return k ? static_cast<size_t>(next() % k) : 0; }
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
};

Segment reg(uint64_t len, double d) {
  Segment s;
  s.kind = Segment::Kind::regular, s.length = len, s.density = std::clamp(d, 0.0, 1.0);
  return s;
}
// A regular segment of len elements with exactly c selected (floor(len * d) = c).
Segment exact(uint64_t len, uint64_t c) {
  return reg(len, c >= len ? 1.0 : (static_cast<double>(c) + 0.5) / static_cast<double>(len));
}

// From `at` to `end`: runs of r selected every g elements (r <= g), then the rest empty.
void push_runs(Segs& s, uint64_t at, uint64_t end, uint64_t r, uint64_t g) {
  for (; at + g <= end; at += g) s.push_back(reg(r, 1)), s.push_back(reg(g - r, 0));
  if (at < end) s.push_back(reg(end - at, 0));
}

Pattern make(uint64_t period, Segs segs, uint64_t phase = 0) {
  Pattern p;
  p.period = period, p.phase = phase, p.segments = std::move(segs), p.length = kHuntN;
  return p;
}

uint64_t fixed_sum(const Pattern& p) {
  uint64_t s = 0;
  for (const Segment& g : p.segments)
    if (!g.rest) s += g.length;
  return s;
}

// Makes p acceptable to the parser: no empty segment, at most one rest and only with room for it, fixed lengths
// within the period, phase below the period, the seed only with random segments.
void tidy(Pattern& p) {
  std::erase_if(p.segments, [](const Segment& s) { return !s.rest && s.kind != Segment::Kind::bits && s.length == 0; });
  bool rest = false;
  for (Segment& s : p.segments) {
    if (s.rest && rest) s.rest = false, s.length = 1;
    rest = rest || s.rest;
    s.density = std::clamp(s.density, 0.0, 1.0);
  }
  if (p.segments.empty()) p.segments.push_back(reg(1, 0)), p.segments.back().rest = true;
  if (p.period == 0) p.period = 1;
  uint64_t sum = fixed_sum(p);
  while (sum > p.period) {  // trim from the end
    for (size_t i = p.segments.size(); i-- > 0;) {
      Segment& s = p.segments[i];
      if (s.rest || s.kind == Segment::Kind::bits) continue;
      const uint64_t cut = std::min(s.length - 1, sum - p.period);
      s.length -= cut, sum -= cut;
      if (sum <= p.period) break;
    }
    if (sum > p.period) p.period = sum;
  }
  // A rest with no room left (the fixed segments fill the period) is not a segment the parser reads back: dropped
  // (sum == period >= 1, so a fixed segment remains).
  if (rest && sum == p.period) std::erase_if(p.segments, [](const Segment& s) { return s.rest; });
  if (!rest && sum < p.period) p.period = sum;
  if (p.phase >= p.period) p.phase %= p.period;
  if (std::none_of(p.segments.begin(), p.segments.end(),
                   [](const Segment& s) { return s.kind == Segment::Kind::random; }))
    p.seed = 0;
}

Pattern tiles(const std::vector<Segs>& seq, uint64_t tile) {
  Segs all;
  for (const Segs& t : seq) all.insert(all.end(), t.begin(), t.end());
  return make(tile * seq.size(), all);
}

struct Context {
  uint64_t tile, probe, vlen, vb;
  double threshold;  // bail * d_max: a verify block below this density makes the verified blend bail
  long long hi, lo, xlo;
};

Context context(const PilotOptions& o) {
  Context c;
  c.tile = o.tile, c.probe = o.probe, c.vb = o.verify_blocks;
  c.vlen = verify_len(o.tile, o.verify_blocks);
  const double dm = o.d_max.value_or(0);
  c.threshold = o.bail * dm;
  const auto conv = [&](double x) {
    return static_cast<long long>(std::clamp(x, -2.0, 2.0) * static_cast<double>(o.probe));
  };
  c.hi = conv(dm), c.lo = conv(o.lo), c.xlo = conv(o.xlo);
  return c;
}

// Probe counts that put the pilot in each branch, clamped to [0, probe].
std::vector<uint64_t> branch_counts(const Context& c) {
  std::set<long long> s{0, c.xlo - 1, c.xlo, c.lo - 1, c.lo, c.hi, c.hi + 1, (c.xlo + c.lo) / 2, (c.lo + c.hi) / 2,
                        static_cast<long long>(c.probe)};
  std::vector<uint64_t> out;
  for (long long v : s) out.push_back(static_cast<uint64_t>(std::clamp<long long>(v, 0, static_cast<long long>(c.probe))));
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool better(const Score& a, const Score& b) { return a.regret > b.regret || (!(b.regret == b.regret) && a.regret == a.regret); }

}  // namespace

// --- seeds --------------------------------------------------------------------------------------------------

std::vector<std::pair<Pattern, std::string>> threshold_seeds(const Scorer& sc, size_t n) {
  const PilotOptions& o = sc.decides_by();  // pilot_v6's probe for a dear f
  const Context c = context(o);
  std::vector<std::pair<Pattern, std::string>> out;
  const auto add = [&](Pattern p, std::string why) {
    tidy(p);
    out.emplace_back(std::move(p), std::move(why));
  };
  const uint64_t T = c.tile, P = std::min(c.probe, T);
  // The probe count at each threshold, the rest of the tile empty, full, one per block, one per register.
  for (uint64_t k : branch_counts(c)) {
    for (double rest : {0.0, 1.0, 1.0 / 16, 0.25}) {
      const std::string why = "probe count " + std::to_string(k) + ", rest " + std::to_string(rest);
      add(make(T, {exact(P, k), reg(T - P, rest)}), why + " (spread)");
      if (k > 0 && k < P) add(make(T, {reg(k, 1), reg(P - k, 0), reg(T - P, rest)}), why + " (packed)");
    }
  }
  // Verify blocks: the first k just above bail * d_max, the next just below, the rest full or empty.
  const uint64_t above = std::min<uint64_t>(c.vlen, static_cast<uint64_t>(std::floor(c.threshold * c.vlen)) + 1);
  const uint64_t below = static_cast<uint64_t>(std::max(0.0, std::ceil(c.threshold * c.vlen) - 1));
  for (uint64_t k = 0; k < c.vb && P <= c.vlen; ++k) {
    for (double rest : {0.0, 1.0}) {
      Segs s{reg(P, 1.0)};
      for (uint64_t b = 0; b < c.vb && (b + 1) * c.vlen <= T; ++b) {
        const uint64_t len = b == 0 ? c.vlen - std::min(c.vlen, P) : c.vlen;
        const uint64_t need = b < k ? above : b == k ? below : static_cast<uint64_t>(rest * len);
        const uint64_t have = b == 0 ? std::min(c.vlen, P) : 0;
        if (len) s.push_back(exact(len, need > have ? std::min(len, need - have) : 0));
      }
      s.push_back(reg(0, 0)), s.back().rest = true;
      add(make(T, s), "verify blocks above bail*d_max up to block " + std::to_string(k) + ", then below");
    }
  }
  // pilot_v6's switch score (d_max < 0, no probe): after the calibration region a burst of alternating blocks sets
  // it off into blend; then one selected element every k blocks, k around the blocks blend runs before it has
  // counted v6_score_skip empty ones (v6_score_sample x v6_score_skip), shifted by 0 .. v6_score_sample - 1
  // blocks against the counted ones: blend runs the empty blocks between them, and blend_skip, restarting one
  // switch short of blend, goes straight back at the next element.
  if (sc.pilot() == Kernel::pilot_v6 && c.hi < 0) {
    const uint64_t region = std::min<uint64_t>(n, o.calib_blocks * o.calib_len);
    const uint64_t per_pair = o.v6_score_switch > 0 ? 2 * o.v6_score_switch - 1 : 1;
    const uint64_t pairs = o.v6_score_blend / per_pair + 2, span = o.v6_score_sample * o.v6_score_skip;
    for (uint64_t k = span > 2 ? span - 2 : 1; k <= span + 8; ++k)
      for (uint64_t shift = 0; shift < std::min<uint64_t>(o.v6_score_sample, 4); ++shift) {
        Segs segs{reg(region, 0)};
        for (uint64_t q = 0; q < pairs; ++q) segs.push_back(exact(16, 1)), segs.push_back(reg(16, 0));
        segs.push_back(reg(16 * shift, 0));
        segs.push_back(reg(0, 1.0 / static_cast<double>(16 * k))), segs.back().rest = true;
        add(make(n, segs), "switch score: a burst, then one element every " + std::to_string(k) + " blocks (shift " +
                               std::to_string(shift) + ")");
        // The same, the elements' positions restarting at every tile (each tile's score starts at 0), written out
        // block by block over at most kHuntN elements past the burst (36 tiles of 4096: a few hundred segments; a
        // longer array goes on as the seed above, so that --n 2^26 does not build a pattern of 10^5 segments).
        Segs tiled{reg(region, 0)};
        uint64_t at = region;
        for (uint64_t q = 0; q < pairs && at + 32 <= n; ++q)
          tiled.push_back(exact(16, 1)), tiled.push_back(reg(16, 0)), at += 32;
        const uint64_t stop = std::min<uint64_t>(n, at + kHuntN);
        uint64_t b = (at + 15) / 16, gap = std::min(b * 16, stop) - at;  // from the first whole block after the burst
        for (; (b + 1) * 16 <= stop; ++b) {
          const uint64_t tb = (b * 16 - region) % T / 16;
          if (tb >= shift && (tb - shift) % k == 0) {
            if (gap) tiled.push_back(reg(gap, 0)), gap = 0;
            tiled.push_back(exact(16, 1));
          } else {
            gap += 16;
          }
        }
        if (gap) tiled.push_back(reg(gap, 0));
        if (stop < n) tiled.push_back(reg(0, 1.0 / static_cast<double>(16 * k))), tiled.back().rest = true;
        else if (b * 16 < n) tiled.push_back(reg(n - b * 16, 0));
        add(make(n, tiled), "switch score: a burst, then one element every " + std::to_string(k) +
                                " blocks from each tile's start (shift " + std::to_string(shift) + ")");
      }
  }
  // pilot_v6's compact score (a cheap f, no probe): lone selected elements, one block or a pair of blocks g apart
  // (g = 1 .. 3) every k blocks (k = 4 .. 24), over the whole array: the empty blocks between them raise compact's
  // score until blend_skip takes over, whose switches and lone non-empty blocks send it back, while compact_skip,
  // which the score never runs, is the oracle's choice (the bound's witnesses for frfrexp and fma13 are pairs 2
  // blocks apart every 8 or 12 blocks).
  if (sc.pilot() == Kernel::pilot_v6 && o.d_max && v6_compact_scored(o, *o.d_max, c.hi))
    for (uint64_t g = 0; g <= 3; ++g)
      for (uint64_t k = std::max<uint64_t>(4, g + 2); k <= 24; ++k) {
        Segs segs{exact(16, 1)};
        if (g > 0) segs.push_back(reg(16 * (g - 1), 0)), segs.push_back(exact(16, 1));
        segs.push_back(reg(16 * (k - 1 - g), 0));
        add(make(16 * k, segs), "compact score: " + std::string(g ? "a pair of elements " + std::to_string(g) +
                                                                        " blocks apart" : "one element") +
                                    " every " + std::to_string(k) + " blocks");
      }
  // After the probe, blocks alternating full and empty to the tile's end, from the first block after it or after
  // the rest of the probe's piece and the next piece, empty (pilot_v6's pieces, else verify-length ones):
  // compact_skip and blend_skip pay a misprediction on every block where compact pays none, the worst case of a
  // fallback that runs for the rest of a tile (pilot_v6's one-pass runs and verified blend_skip stopping on that
  // empty piece, then compact_skip).
  {
    const uint64_t plen = sc.pilot() == Kernel::pilot_v6 ? verify_len(T, v6_piece_count(o, T)) : c.vlen;
    for (uint64_t k : branch_counts(c))
      for (bool gap : {false, true}) {
        if (gap && !(plen > P && 2 * plen + 32 <= T)) continue;  // no piece to leave empty: the seed without it
        Segs s{exact(P, k)};
        const uint64_t at0 = gap ? 2 * plen : std::min(T, (P + 15) / 16 * 16);  // block-aligned, as the tile's
        if (at0 > P) s.push_back(reg(at0 - P, 0));
        push_runs(s, at0, T, 16, 32);
        add(make(T, s), "probe count " + std::to_string(k) + ", " + (gap ? "an empty piece, then " : "then ") +
                            "blocks alternating full and empty");
      }
  }
  // After the probe, runs of r selected every g elements (clustered sparse data: a detour's registers around the
  // runs are empty, a skip's blocks between them too).
  for (uint64_t k : branch_counts(c))
    for (uint64_t r : {4u, 16u, 28u, 64u})
      for (uint64_t g : {256u, 512u, 1024u}) {
        Segs s{exact(P, k)};
        push_runs(s, P, T, r, g);
        add(make(T, s), "probe count " + std::to_string(k) + ", then runs of " + std::to_string(r) + " every " +
                            std::to_string(g));
      }
  // pilot_v6's one-pass compact (a probe count in [xlo, lo), packed at the probe's end): every piece with m of its
  // blocks non-empty, m the fewest its floor lets go on (v6_dear_floor for a dear f, v6_floor for a cheap one) or
  // one more, each holding c selected (one, one below v6_dense_block, or all 16), spread over the piece, at its
  // start, or at the end of even pieces and the start of odd ones (runs of 2m across every other piece boundary,
  // where the oracle pays fewer switches), or so with the last piece but one empty and the last holding one
  // element: the run compresses every block of every piece, where blend_skip or compact_skip skips the empty ones,
  // and when it stops, the second packed pass rounds one element up to 16 lanes (the bound's witnesses for sin35,
  // sin10 and pow10: 2 of 16 blocks, all 16 selected for sin35, one for the others, in runs of 4 across piece
  // boundaries; pow10's stops before its last piece). The probe's piece holds them past the probe.
  if (sc.pilot() == Kernel::pilot_v6 && c.hi >= 0 && o.d_max && !v6_compact_scored(o, *o.d_max, c.hi)) {
    const bool dear = !(*o.d_max < o.v6_band);
    // The pilot's pieces (VerifyPieces): cnt of pb blocks each, the last to the tile's end.
    const uint64_t pb = verify_len(T, v6_piece_count(o, T)) / 16, cnt = verify_count(T, v6_piece_count(o, T));
    // Whole blocks [bs, nb) past the probe; a piece's blocks [b0, pe), the last piece's from `last` to nb.
    const uint64_t nb = T / 16, bs = (P + 15) / 16, last = (cnt - 1) * pb;
    const uint64_t m0 = static_cast<uint64_t>(  // clamped as a double: a floor may be negative or above 1
        std::clamp(std::ceil((dear ? o.v6_dear_floor : o.v6_floor) * static_cast<double>(pb)), 1.0,
                   static_cast<double>(pb)));
    const auto in_probe = [&](long long v) {
      return static_cast<uint64_t>(std::clamp<long long>(v, 0, static_cast<long long>(P)));
    };
    const std::set<uint64_t> counts{in_probe(c.xlo), in_probe((c.xlo + c.lo) / 2), in_probe(c.lo - 1)};
    std::set<uint64_t> fills{1, 16};
    if (o.v6_dense_block > 1 && o.v6_dense_block <= 16) fills.insert(o.v6_dense_block - 1);
    for (uint64_t k : counts)
      for (uint64_t m = m0; m <= std::min(m0 + 1, pb); ++m)
        for (uint64_t fill : fills)
          for (int layout = 0; layout < 4; ++layout) {  // spread, at the start, across piece boundaries (twice)
            std::vector<bool> full(nb, false);
            for (uint64_t q0 = 0; q0 < cnt; ++q0) {
              const uint64_t b0 = std::min(q0 * pb, nb), pe = q0 + 1 == cnt ? nb : std::min(b0 + pb, nb);
              const uint64_t first = std::max(b0, bs), span = pe > first ? pe - first : 0, mm = std::min(m, span);
              const bool at_end = layout >= 2 && q0 % 2 == 0;
              for (uint64_t q = 0; q < mm; ++q)
                full[layout == 0 ? first + q * span / mm : at_end ? pe - 1 - q : first + q] = true;
            }
            // The fourth: the last piece but one empty (the run stops: a second packed pass) and the last piece
            // one element (that pass's rounding: 15 lanes of f for one).
            if (layout == 3 && cnt >= 3 && last >= pb + bs && last + 2 <= nb)
              for (uint64_t b = last - pb; b < nb; ++b) full[b] = b == nb - 2;
            Segs s{reg(P - std::min(k, P), 0), reg(std::min(k, P), 1)};
            uint64_t at = std::min(bs * 16, T), empty = 0;
            if (at > P) s.push_back(reg(at - P, 0));
            for (uint64_t b = bs; b < nb; ++b, at += 16) {
              if (!full[b]) { ++empty; continue; }
              if (empty) s.push_back(reg(16 * empty, 0)), empty = 0;
              s.push_back(exact(16, layout == 3 && b == nb - 2 ? 1 : fill));
            }
            if (empty) s.push_back(reg(16 * empty, 0));
            if (at < T) s.push_back(reg(T - at, 0));
            add(make(T, s), "one-pass compact: probe count " + std::to_string(k) + " at its end, then " +
                                std::to_string(m) + " of every " + std::to_string(pb) + " blocks holding " +
                                std::to_string(fill) +
                                (layout == 0   ? " (spread)"
                                 : layout == 1 ? " (at the piece's start)"
                                 : layout == 2 ? " (across every other piece boundary)"
                                               : " (across every other piece boundary; the last piece but one empty, "
                                                 "the last one element)"));
          }
  }
  // A sentinel: only the last (or first) element of the tile.
  add(make(T, {reg(T - 1, 0), reg(1, 1)}), "last-element sentinel");
  add(make(T, {reg(1, 1), reg(T - 1, 0)}), "first-element sentinel");
  // The calibration region dense or empty, the rest the other way.
  if (o.calib_blocks * o.calib_len < n)
  add(make(n, {reg(o.calib_blocks * o.calib_len, 1), reg(n - o.calib_blocks * o.calib_len, 0)}),
      "calibration dense");
  if (o.calib_blocks * o.calib_len < n)
  add(make(n, {reg(o.calib_blocks * o.calib_len, 0), reg(n - o.calib_blocks * o.calib_len, 1)}),
      "calibration empty");
  // v4's distrust window: a tile that bails, then distrust (+1, +2) tiles of one kind.
  for (uint64_t k : {o.distrust, o.distrust + 1, o.distrust + 2}) {
    for (double rest : {1.0, 0.25, 1.0 / 16, 0.0}) {
      Segs s{reg(P, 1.0), reg(T - P, 0), reg(T * (k - 1 ? k - 1 : 1), rest)};
      add(make(T * std::max<uint64_t>(k, 2), s), "distrust window " + std::to_string(k) + " tiles");
    }
  }
  return out;
}

// --- the adversary ------------------------------------------------------------------------------------------

namespace {

// A tile as regions (boundaries at the probe end and the verify blocks) with a count of selected elements each.
struct TileShape {
  std::vector<uint64_t> bounds;  // region r is [bounds[r], bounds[r+1])
  std::vector<double> dens;      // per region
  bool packed = false;           // the probe's count at its start (else evenly spread)
  size_t probe_regions = 0;      // regions inside the probe

  Segs segs() const {
    Segs s;
    for (size_t r = 0; r + 1 < bounds.size(); ++r) {
      const uint64_t len = bounds[r + 1] - bounds[r];
      if (r < probe_regions && packed) {
        const uint64_t c = static_cast<uint64_t>(std::floor(dens[r] * static_cast<double>(len)));
        if (c) s.push_back(reg(c, 1));
        if (len - c) s.push_back(reg(len - c, 0));
      } else {
        s.push_back(reg(len, dens[r]));
      }
    }
    return s;
  }
};

TileShape shape_for(const Context& c) {
  TileShape t;
  std::set<uint64_t> b{0, std::min(c.probe, c.tile), c.tile};
  for (uint64_t k = 1; k < c.vb; ++k)
    if (k * c.vlen < c.tile) b.insert(k * c.vlen);
  t.bounds.assign(b.begin(), b.end());
  t.dens.assign(t.bounds.size() - 1, 0.0);
  for (size_t r = 0; r + 1 < t.bounds.size(); ++r)
    if (t.bounds[r + 1] <= c.probe) t.probe_regions = r + 1;
  return t;
}

}  // namespace

std::vector<Find> seed_aware(Evaluator& ev) {
  std::vector<Find> out;
  const Scorer& sc = ev.scorer();
  if (sc.pilot() != Kernel::pilot_v5) return out;
  const PilotOptions& o = sc.options();
  const size_t n = ev.n(), region = std::min(n, o.calib_blocks * o.calib_len);
  if (o.tile % 16 != 0 || region % 16 != 0) return out;
  enum Kind { empty, one, alt_one, alt_full, full };
  static constexpr const char* kKind[] = {"empty", "one element", "one element and empty alternating",
                                          "full and empty alternating", "full"};
  // Blocks [b0, b1) of kind k (alternation by block parity within the tile).
  const auto fill = [](std::vector<Segment>& segs, size_t b0, size_t b1, Kind k) {
    const auto seg = [&](uint64_t len, double d) {
      if (len == 0) return;
      if (!segs.empty() && segs.back().density == d) {
        segs.back().length += len;
        return;
      }
      Segment g;
      g.length = len, g.density = d;
      segs.push_back(g);
    };
    for (size_t b = b0; b < b1; ++b) {
      switch (k) {
        case empty: seg(16, 0); break;
        case one: seg(1, 1), seg(15, 0); break;
        case alt_one: b % 2 ? (seg(1, 1), seg(15, 0)) : seg(16, 0); break;
        case alt_full: seg(16, b % 2 ? 1 : 0); break;
        case full: seg(16, 1); break;
      }
    }
  };
  const size_t calib_tiles = o.calib_len ? (region + o.calib_len - 1) / o.calib_len : 0;
  for (const Kind probed : {empty, one, full})
    for (const Kind rest : {empty, one, alt_one, alt_full, full}) {
      if (probed == rest) continue;
      Pattern p;
      p.period = n;
      if (region) fill(p.segments, 0, region / 16, empty);
      size_t index = calib_tiles;
      for (size_t t0 = region; t0 < n; t0 += o.tile, ++index) {
        const size_t size = std::min(o.tile, n - t0), nb = size / 16;
        std::vector<size_t> pb = v5_probe_blocks(o, index, size);
        std::sort(pb.begin(), pb.end());
        size_t b = 0;
        for (const size_t q : pb) {
          if (q >= nb) break;
          fill(p.segments, b, q, rest), fill(p.segments, q, q + 1, probed), b = q + 1;
        }
        fill(p.segments, b, nb, rest);
        if (size % 16) {
          Segment g;
          g.length = size % 16, g.density = 0;
          p.segments.push_back(g);
        }
      }
      out.push_back(ev.find(p, std::string("seed-aware adversary: the probed blocks ") + kKind[probed] +
                                   ", the others " + kKind[rest] + " (pilot_v5's probe positions from its seed " +
                                   std::to_string(o.seed) + ")"));
    }
  std::stable_sort(out.begin(), out.end(), [](const Find& a, const Find& b) { return better(a.score, b.score); });
  return out;
}

std::vector<Find> adversary(Evaluator& ev, uint64_t seed) {
  const PilotOptions& o = ev.scorer().decides_by();  // pilot_v6's probe for a dear f
  const Context c = context(o);
  (void)seed;  // the adversary is exhaustive over its menus: no random choice
  std::map<std::string, Find> best;  // by the worst tile's mechanism
  std::map<std::string, Segs> tile_of;
  const auto keep = [&](const Find& f, const Segs& tile) {
    const std::string k = f.score.mechanism.key();
    auto it = best.find(k);
    if (it == best.end() || better(f.score, it->second.score)) best[k] = f, tile_of[k] = tile;
  };
  const double th = c.threshold, v = static_cast<double>(c.vlen);
  const std::vector<double> menu{0.0, 1.0 / 64, 1.0 / 16, 0.25, 0.5, 0.75, 1.0,
                                 std::clamp(th + 1.0 / v, 0.0, 1.0), std::clamp(th - 1.0 / v, 0.0, 1.0)};
  const TileShape base = shape_for(c);
  const size_t regions = base.dens.size();
  // Every tile tried is offered to its mechanism's cell, so a branch that a later step leaves is still kept.
  std::string why;
  const auto score_tile = [&](const TileShape& t) {
    const Segs segs = t.segs();
    Find f{make(c.tile, segs), ev(make(c.tile, segs)), why, 0};
    keep(f, segs);
    return f.score;
  };
  const bool reads_verify = ev.scorer().pilot() == Kernel::pilot_v3_5 || ev.scorer().pilot() == Kernel::pilot_v4;
  for (uint64_t k : branch_counts(c)) {
    for (bool packed : {false, true}) {
      // Starting fills: all empty, all full, and "bail after verify block b" for each b.
      why = "adversary: probe count " + std::to_string(k) + (packed ? " packed" : "");
      std::vector<std::vector<double>> starts{std::vector<double>(regions, 0.0), std::vector<double>(regions, 1.0),
                                              std::vector<double>(regions, 1.0 / 16)};
      // Only a probe count above hi makes the pilot read the verify blocks: only then steer each of them.
      for (size_t b = 0; reads_verify && static_cast<long long>(k) > c.hi && b < regions; ++b) {
        std::vector<double> s(regions, 1.0);
        for (size_t r = 0; r < regions; ++r) s[r] = r < b ? std::clamp(th + 1.0 / v, 0.0, 1.0) : r == b ? 0.0 : 1.0;
        starts.push_back(s);
      }
      for (const std::vector<double>& s0 : starts) {
        TileShape t = base;
        t.packed = packed;
        t.dens = s0;
        // What the pilot reads first: the probe's count.
        for (size_t r = 0; r < t.probe_regions; ++r)
          t.dens[r] = k >= c.probe ? 1.0 : (static_cast<double>(k) + 0.5) / static_cast<double>(c.probe);
        Score s = score_tile(t);
        // Then everything else, one region at a time, to the density that hurts most (one pass).
        for (int pass = 0; pass < 1; ++pass) {
          bool moved = false;
          for (size_t r = t.probe_regions; r < regions; ++r) {
            for (double d : menu) {
              if (d == t.dens[r]) continue;
              TileShape u = t;
              u.dens[r] = d;
              const Score su = score_tile(u);
              if (su.regret > s.regret) t = u, s = su, moved = true;
            }
          }
          if (!moved) break;
        }
      }
    }
  }
  if (ev.scorer().pilot() == Kernel::pilot_v4) {
    // Tile sequences over v4's state. The library: the best tile of each branch, simple tiles, bait tiles.
    std::vector<Segs> lib;
    {  // the 6 worst tiles of distinct mechanisms
      std::vector<std::pair<double, std::string>> order;
      for (const auto& [k, f] : best) order.emplace_back(-f.score.regret, k);
      std::sort(order.begin(), order.end());
      for (size_t i = 0; i < order.size() && i < 6; ++i) lib.push_back(tile_of[order[i].second]);
    }
    for (double d : {0.0, 1.0, 0.25, 1.0 / 16}) lib.push_back({reg(c.tile, d)});
    // Bait tiles: the probe and the verify blocks before b full, block b empty (the verified blend bails
    // after it), the rest full or empty.
    for (size_t b = base.probe_regions; b < regions; ++b)
      for (double rest : {1.0}) {
        TileShape t = base;
        for (size_t r = 0; r < regions; ++r) t.dens[r] = r < b ? 1.0 : r == b ? 0.0 : rest;
        lib.push_back(t.segs());
      }
    std::vector<std::pair<Score, std::vector<size_t>>> seqs;
    const size_t kmax = std::min<size_t>(o.distrust + 2, (std::max<uint64_t>(ev.n(), 2 * c.tile) - 2 * c.tile) / c.tile);
    for (size_t a = 0; a < lib.size(); ++a)
      for (size_t b = 0; b < lib.size(); ++b)
        for (size_t k = 2; k <= kmax; ++k) {
          std::vector<size_t> seq(k, b);
          seq[0] = a;
          std::vector<Segs> ts;
          for (size_t i : seq) ts.push_back(lib[i]);
          const Score s = ev(tiles(ts, c.tile));
          seqs.emplace_back(s, seq);
        }
    std::sort(seqs.begin(), seqs.end(), [](const auto& x, const auto& y) { return better(x.first, y.first); });
    // Coordinate descent over the positions of the best few sequences.
    for (size_t top = 0; top < std::min<size_t>(4, seqs.size()); ++top) {
      auto [s, seq] = seqs[top];
      for (int pass = 0; pass < 2; ++pass) {
        bool moved = false;
        for (size_t i = 0; i < seq.size(); ++i)
          for (size_t l = 0; l < lib.size(); ++l) {
            if (seq[i] == l) continue;
            std::vector<size_t> u = seq;
            u[i] = l;
            std::vector<Segs> ts;
            for (size_t j : u) ts.push_back(lib[j]);
            const Score su = ev(tiles(ts, c.tile));
            if (su.regret > s.regret) s = su, seq = u, moved = true;
          }
        if (!moved) break;
      }
      std::vector<Segs> ts;
      for (size_t j : seq) ts.push_back(lib[j]);
      Find f{tiles(ts, c.tile), s, "adversary: v4 sequence of " + std::to_string(seq.size()) + " tiles", 0};
      keep(f, {});
    }
  }
  std::vector<Find> out;
  for (auto& [k, f] : best) {
    tidy(f.pattern);
    out.push_back(f);
  }
  std::stable_sort(out.begin(), out.end(), [](const Find& a, const Find& b) { return better(a.score, b.score); });
  return out;
}

// --- shrinking ----------------------------------------------------------------------------------------------

Find shrink(Evaluator& ev, const Find& start, double keep) {
  const double bar = keep * start.score.regret;
  Find cur = start;
  cur.unshrunk = start.unshrunk ? start.unshrunk : start.score.regret;
  const auto attempt = [&](Pattern p) {
    tidy(p);
    if (p == cur.pattern) return false;
    const Score s = ev(p);
    if (!(s.regret >= bar)) return false;
    cur.pattern = std::move(p), cur.score = s;
    return true;
  };
  for (int pass = 0; pass < 4; ++pass) {
    bool changed = false;
    // No phase; random segments regular; drop the seed.
    if (cur.pattern.phase) { Pattern p = cur.pattern; p.phase = 0; changed |= attempt(p); }
    for (size_t i = 0; i < cur.pattern.segments.size(); ++i)
      if (cur.pattern.segments[i].kind == Segment::Kind::random) {
        Pattern p = cur.pattern;
        p.segments[i].kind = Segment::Kind::regular;
        changed |= attempt(p);
      }
    // Fewer segments: drop one (its length goes to a neighbour), or merge two neighbours.
    for (size_t i = 0; i < cur.pattern.segments.size() && cur.pattern.segments.size() > 1; ++i) {
      for (int side : {-1, 1}) {
        Pattern p = cur.pattern;
        const long j = static_cast<long>(i) + side;
        if (j < 0 || j >= static_cast<long>(p.segments.size())) continue;
        Segment& n = p.segments[static_cast<size_t>(j)];
        if (!p.segments[i].rest && !n.rest) n.length += p.segments[i].length;
        if (p.segments[i].rest) n.rest = true, n.length = 0;
        p.segments.erase(p.segments.begin() + static_cast<long>(i));
        if (attempt(p)) { changed = true; break; }
      }
    }
    // A trailing segment becomes `rest`.
    if (!cur.pattern.segments.empty() &&
        std::none_of(cur.pattern.segments.begin(), cur.pattern.segments.end(), [](const Segment& s) { return s.rest; })) {
      Pattern p = cur.pattern;
      p.segments.back().rest = true, p.segments.back().length = 0;
      changed |= attempt(p);
    }
    // Round lengths (coarsest first) and densities.
    for (size_t i = 0; i < cur.pattern.segments.size(); ++i) {
      const Segment s = cur.pattern.segments[i];
      if (s.kind == Segment::Kind::bits) continue;
      if (!s.rest)
        for (uint64_t unit : {4096, 1024, 256, 64, 16, 8, 4}) {
          if (s.length % unit == 0) break;
          const uint64_t r = std::max<uint64_t>(unit, (s.length + unit / 2) / unit * unit);
          Pattern p = cur.pattern;
          p.segments[i].length = r;
          if (r > s.length) p.period += 0;  // tidy trims or the period holds it
          if (attempt(p)) { changed = true; break; }
        }
      const double d = cur.pattern.segments[i].density;
      for (double q : {1.0, 2.0, 4.0, 10.0, 16.0, 100.0, 256.0, 1000.0}) {
        const double r = std::round(d * q) / q;
        if (r == d) break;
        Pattern p = cur.pattern;
        p.segments[i].density = r;
        if (attempt(p)) { changed = true; break; }
      }
    }
    if (!changed) break;
  }
  return cur;
}

// --- the hunt -----------------------------------------------------------------------------------------------

namespace {

const std::vector<double> kDensityMenu{0.0, 1.0 / 64, 1.0 / 16, 0.125, 0.25, 0.5, 0.75, 1.0};

Pattern mutate(const Pattern& in, Rng& r, const Context& c) {
  Pattern p = in;
  const size_t m = 1 + r.below(3);
  for (size_t step = 0; step < m; ++step) {
    const size_t nseg = p.segments.size();
    Segment& s = p.segments[r.below(nseg)];
    switch (r.below(10)) {
      case 0: s.density = kDensityMenu[r.below(kDensityMenu.size())]; break;
      case 1: s.density = r.unit(); break;
      case 2: s.density = std::clamp(s.density + (r.unit() - 0.5) * 0.1, 0.0, 1.0); break;
      case 3:
        if (!s.rest) {
          const uint64_t deltas[] = {1, 16, 64, 256, 512};
          const uint64_t d = deltas[r.below(5)];
          s.length = r.below(2) ? s.length + d : s.length > d ? s.length - d : 1;
        }
        break;
      case 4:
        if (!s.rest) s.length = r.below(2) ? s.length * 2 : std::max<uint64_t>(1, s.length / 2);
        break;
      case 5: {  // split
        if (s.rest || s.length < 2 || nseg >= 24) break;
        const uint64_t cut = 1 + r.below(s.length - 1);
        Segment t = s;
        t.length = s.length - cut, s.length = cut;
        t.density = kDensityMenu[r.below(kDensityMenu.size())];
        const size_t at = static_cast<size_t>(&s - p.segments.data()) + 1;
        p.segments.insert(p.segments.begin() + static_cast<long>(at), t);
        break;
      }
      case 6:
        if (nseg > 1) p.segments.erase(p.segments.begin() + static_cast<long>(r.below(nseg)));
        break;
      case 7: {
        const uint64_t d[] = {1, 16, 256, 4096};
        p.phase = r.below(4) == 0 ? r.below(p.period) : (p.phase + d[r.below(4)]) % p.period;
        break;
      }
      case 8: {  // whole tiles in the period
        const uint64_t k = std::max<uint64_t>(1, p.period / c.tile);
        const uint64_t nk = r.below(2) ? k + 1 : std::max<uint64_t>(1, k - 1);
        p.period = nk * c.tile;
        break;
      }
      case 9:
        if (s.kind == Segment::Kind::random) s.kind = Segment::Kind::regular;
        else if (s.kind == Segment::Kind::regular) s.kind = Segment::Kind::random, p.seed = r.next() % 1000;
        break;
    }
  }
  tidy(p);
  return p;
}

}  // namespace

Find step_sweep(Evaluator& ev, size_t tile) {
  Find best;
  best.score.regret = -1;
  for (uint64_t l = 0; l <= tile; ++l) {
    Pattern p = l == 0 ? make(tile, {reg(tile, 0)}) : l == tile ? make(tile, {reg(tile, 1)})
                                                                 : make(tile, {reg(l, 1), reg(tile - l, 0)});
    p.segments.back().rest = true, p.segments.back().length = 0;
    const Score s = ev(p);
    if (s.regret > best.score.regret) best = Find{p, s, "step sweep: head " + std::to_string(l), 0};
  }
  best.pattern.length = ev.n();
  return best;
}

HuntResult hunt(Evaluator& ev, const HuntConfig& cfg) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - t0).count(); };
  const size_t ev0 = ev.evaluations();
  HuntResult res;
  const Context c = context(ev.scorer().decides_by());
  std::map<std::string, Find> archive;  // one cell per mechanism of the worst tile
  std::vector<std::map<std::string, Find>::iterator> cells_in_order;  // archive's cells in its order, indexable
  double best = 0;
  const auto offer = [&](Find f) {
    if (!(f.score.regret == f.score.regret)) return;
    best = std::max(best, f.score.regret);
    std::string k = f.score.mechanism.key();
    auto it = archive.find(k);
    if (it == archive.end()) {
      const auto at = std::lower_bound(cells_in_order.begin(), cells_in_order.end(), k,
                                       [](const auto& cell, const std::string& key) { return cell->first < key; });
      cells_in_order.insert(at, archive.emplace(std::move(k), std::move(f)).first);
    } else if (better(f.score, it->second.score)) {
      it->second = std::move(f);
    }
  };
  const auto report = [&](const char* phase) {
    if (cfg.progress) cfg.progress(Progress{ev.evaluations() - ev0, elapsed(), best, phase});
  };
  std::vector<std::pair<Pattern, std::string>> starts;
  if (cfg.seeds) starts = threshold_seeds(ev.scorer(), ev.n());
  for (const Pattern& p : cfg.start) starts.emplace_back(p, cfg.start_origin);
  for (auto& [p, why] : starts) {
    Find f = ev.find(p, "seed: " + why);
    res.start = std::max(res.start, f.score.regret);
    offer(std::move(f));
  }
  report("seeds");
  if (cfg.adversary)
  for (Find& f : adversary(ev, cfg.seed)) {
    res.adversary = std::max(res.adversary, f.score.regret);
    offer(std::move(f));
  }
  report("adversary");
  // The seed-aware constructions are reported as they are: not grown (their thousands of segments would make
  // every mutation and every shrinking step slow) and not shrunk (each is one rule applied to every tile).
  std::vector<Find> aware;
  if (cfg.seed_aware) aware = seed_aware(ev);
  if (!aware.empty()) res.seed_aware = aware.front().score.regret;
  report("seed-aware");
  Rng rng{cfg.seed};
  double last = elapsed();
  for (size_t i = 0; i < cfg.budget; ++i) {
    if ((i & 255) == 0) {
      const double t = elapsed();
      if (cfg.seconds > 0 && t > cfg.seconds) {
        res.capped = true;
        break;
      }
      if (t - last > 0.25) last = t, report("evolution");
    }
    // A parent from a random cell: every mechanism gets its turn, whatever its regret.
    const auto it = cells_in_order[rng.below(cells_in_order.size())];
    Pattern child = mutate(it->second.pattern, rng, c);
    offer(ev.find(child, "evolution"));
  }
  report("shrinking");
  // Shrink the best cells, then deduplicate by the shrunk find's mechanism.
  std::vector<Find> cells;
  for (auto& [k, f] : archive) cells.push_back(f);
  std::stable_sort(cells.begin(), cells.end(), [](const Find& a, const Find& b) { return better(a.score, b.score); });
  std::set<std::string> seen;
  for (size_t i = 0; i < cells.size() && res.finds.size() < cfg.keep; ++i) {
    // Shrinking may give up 1%, but never so much that a find falls below where the search started.
    const double orig = cells[i].score.regret;
    Find s = shrink(ev, cells[i], std::max(0.99, orig > 0 ? std::min(1.0, res.start / orig) : 0.99));
    if (!seen.insert(s.score.mechanism.key()).second) continue;
    res.finds.push_back(std::move(s));
  }
  for (Find& f : aware) {  // one find per mechanism: the better one
    const auto same = std::find_if(res.finds.begin(), res.finds.end(), [&](const Find& g) {
      return g.score.mechanism.key() == f.score.mechanism.key();
    });
    if (same == res.finds.end())
      res.finds.push_back(std::move(f));
    else if (better(f.score, same->score))
      *same = std::move(f);
  }
  std::stable_sort(res.finds.begin(), res.finds.end(),
                   [](const Find& a, const Find& b) { return better(a.score, b.score); });
  if (res.finds.size() > cfg.keep) res.finds.resize(cfg.keep);
  for (Find& f : res.finds) f.pattern.length = ev.n();  // the array the figure is for (`check` generates it)
  res.cells = archive.size();
  res.evaluations = ev.evaluations() - ev0;
  res.seconds = elapsed();
  report("done");
  return res;
}

}  // namespace maskapply::gen::hunt
