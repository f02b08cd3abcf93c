// SPDX-License-Identifier: MIT
#include "decisions.h"

#include <cmath>

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

namespace maskapply::reference {

long long probe_count(double fraction, size_t probe) {
  const double p = static_cast<double>(probe);
  if (!(fraction < 2.0)) return static_cast<long long>(2.0 * p);  // +inf and everything from 2 up
  if (!(fraction > -2.0)) return static_cast<long long>(-2.0 * p);
  return static_cast<long long>(fraction * p);  // C++ truncates toward zero, as the article's conversion
}

Limits limits(const Params& p) {
  return Limits{probe_count(p.d_max, p.probe), probe_count(p.xlo, p.probe), probe_count(p.lo, p.probe)};
}

double d_max_from_time(double ns_per_register, double B, double D) {
  const double t = std::max(1e-9, ns_per_register - B);
  return 1.0 - (D - B) / t;
}

namespace {

class Decider {
 public:
  Decider(Pilot k, std::span<const uint8_t> sel, const Params& p) : k_(k), p_(probed(k, p)), lim_(limits(p_)) {
    sum_.assign(sel.size() + 1, 0);
    for (size_t i = 0; i < sel.size(); ++i) sum_[i + 1] = sum_[i] + (sel[i] != 0);
  }

  Trace run() {
    const size_t n = sum_.size() - 1;
    if (k_ == Pilot::verified) {  // no calibration, no decisions: verified blend per tile
      for (size_t b = 0; b < n; b += p_.tile) {
        TileDecision ignored;
        verified(ignored, b, std::min(n, b + p_.tile));
      }
      return out_;
    }
    size_t next = 0;
    const size_t calib_end = std::min(n, p_.calib_blocks * p_.calib_len);
    for (size_t b = 0; b < calib_end; b += p_.calib_len) {
      TileDecision d = fresh(next++, b, std::min(calib_end, b + p_.calib_len));
      d.source = CountSource::calibration;
      emit(b, d.end, Strategy::blend);
      out_.tiles.push_back(d);
    }
    for (size_t b = calib_end; b < n; b += p_.tile) {
      TileDecision d = fresh(next++, b, std::min(n, b + p_.tile));
      tile(d);
      out_.tiles.push_back(d);
    }
    return out_;
  }

 private:
  // pilot_v6 with a dear f (d_max at least v6_band) probes min(probe, v6_dear_probe) elements, with a cheap f
  // (0 <= d_max < v6_band) min(probe, v6_cheap_probe), and counts over them.
  static Params probed(Pilot k, Params p) {
    if (k == Pilot::v6 && !(p.d_max < p.v6_band)) p.probe = std::min(p.probe, p.v6_dear_probe);
    else if (k == Pilot::v6 && p.d_max >= 0 && p.v6_cs == 0) p.probe = std::min(p.probe, p.v6_cheap_probe);
    return p;
  }

  size_t selected(size_t b, size_t e) const { return sum_[e] - sum_[b]; }

  TileDecision fresh(size_t index, size_t b, size_t e) const {
    TileDecision d;
    d.index = index;
    d.begin = b;
    d.end = e;
    d.hi = lim_.hi;
    d.xlo = lim_.xlo;
    d.lo = lim_.lo;
    d.d_max = p_.d_max;
    return d;
  }

  // The verify pieces (and v5's chunks) of a span of `size`: {length of each but the last, how many}. Whole blocks
  // of 16: size / verify_blocks rounded down to 16, at least 16; at most verify_blocks pieces, the last taking
  // the rest.
  std::pair<size_t, size_t> pieces(size_t size) const {
    const size_t len = std::max<size_t>(16, size / p_.verify_blocks / 16 * 16);
    return {len, size == 0 ? 0 : std::min(p_.verify_blocks, (size + len - 1) / len)};
  }

  void emit(size_t b, size_t e, Strategy s) {
    if (e > b) out_.runs.push_back(Run{b, e, s});
  }

  // pilot_v6 when d_max < 0: no probe; blend_skip and blend with a verdict after each whole block of the tile but
  // its last, on a score: in blend_skip +switch when the block's emptiness differs from the block before in the run
  // (a run's first block: from "non-empty"), then -1 if it is empty, never below 0, blend from the next block once
  // the score reaches `blend` (score 0); in blend the blocks whose index in the tile is sample - 1 modulo sample are
  // counted (reported as blend_verified): +1 if empty, then -switch if its emptiness differs from the counted one
  // before (the first after blend_skip: from blend_skip's last block; the first of a tile that starts in blend: from
  // "non-empty"), never below 0, a new blend_skip run from the next block once it reaches `skip`, the score then
  // blend - switch (0 if that is negative). The score is v6_score_* (switch, blend, skip, sample); with v6_gate,
  // v6_safe_* while the gate is safe. Each tile starts in the mode the tile before ended in (the first decided one in
  // blend_skip), its score at 0. A short tile's last size % 16 elements go with the mode.
  //
  // The gate, after each whole block (its mode switch included): g += 100 x what the pilot paid - lambda x what the
  // least oracle cost rose by, then g = max(g, -cap); a safe gate turns plain when g <= -g2, a plain one safe when
  // g >= -g1, and the score restarts at 0. What the pilot paid, in 1/64 ns rounded up: in blend_skip 4 S if empty
  // else 4 (B + T), + M when the block's emptiness differs from the one before in the run; in blend 4 (B + T), + 4 V
  // when counted (T = (D - B) / (1 - d_max)). The least oracle cost is min(r, s) over two entries, in 1/64 ns
  // rounded down (b = 4 (B + T), e = 4 S, m = M, c = 4 C): r the least ending outside a skip run, s inside one
  // (r = 0, s = m at the start); a block the pilot read (blend_skip, or counted) takes r' = min(r, s) + (b if
  // non-empty else min(b, c)), s' = r' + m if non-empty else min(s + e, r + e + m, r' + m); one it did not read takes both
  // contents' least: r' = min(r, s) + min(b, c), s' = min(s + e, r + e + m, r' + m). The gate starts safe, g = 0.
  struct V6Gate {
    bool on = false, safe = true;
    long long g = 0, r = 0, s = 0;
    long long pb = 0, pe = 0, pm = 0, pv = 0, ob = 0, oe = 0, om = 0, oc = 0, lambda = 0, g1 = 0, g2 = 0, cap = 0;
  };
  void v6_gate_start() {
    V6Gate& q = v6_gate_;
    q.on = true;
    const double T = (p_.D - p_.B) / (1.0 - std::max(p_.d_max, -1e12)), b = 4 * (p_.B + T);
    const auto up = [](double x) { return static_cast<long long>(std::ceil(x * 64)); };
    const auto dn = [](double x) { return static_cast<long long>(std::floor(x * 64)); };
    q.pb = up(b), q.pe = up(4 * p_.S), q.pm = up(p_.M), q.pv = up(4 * p_.V);
    q.ob = dn(b), q.oe = dn(4 * p_.S), q.om = dn(p_.M), q.oc = dn(4 * p_.C);
    q.lambda = static_cast<long long>(p_.v6_gate_lambda);
    q.g1 = 6400 * static_cast<long long>(p_.v6_gate_g1), q.g2 = 6400 * static_cast<long long>(p_.v6_gate_g2);
    q.cap = 6400 * static_cast<long long>(p_.v6_gate_cap);
    q.s = q.om;
  }
  // Returns true when the gate switched.
  bool v6_gate_block(bool read, bool empty, long long paid) {
    V6Gate& q = v6_gate_;
    const long long least = std::min(q.r, q.s);
    const long long r = least + (read && !empty ? q.ob : std::min(q.ob, q.oc));
    const long long s = read && !empty ? r + q.om : std::min({q.s + q.oe, q.r + q.oe + q.om, r + q.om});
    const long long rose = std::min(r, s);
    q.r = r - rose, q.s = s - rose;
    q.g = std::max(q.g + 100 * paid - q.lambda * rose, -q.cap);
    if (q.safe && q.g <= -q.g2) return q.safe = false, true;
    if (!q.safe && q.g >= -q.g1) return q.safe = true, true;
    return false;
  }
  void v6_scored(TileDecision& d) {
    if (p_.v6_gate && !v6_gate_.on) v6_gate_start();
    const size_t size = d.end - d.begin, whole = size / 16;
    bool blending = v6_blending_;
    long long score = 0;
    bool last_empty = false;  // blend_skip: the block before in the run; blend: the last counted block
    size_t run_from = d.begin;
    for (size_t k = 0; k < whole; ++k) {
      const bool safe = v6_gate_.on && v6_gate_.safe;
      const long long sw = static_cast<long long>(safe ? p_.v6_safe_switch : p_.v6_score_switch);
      const long long to_blend = static_cast<long long>(safe ? p_.v6_safe_blend : p_.v6_score_blend);
      const long long to_skip = static_cast<long long>(safe ? p_.v6_safe_skip : p_.v6_score_skip);
      const size_t sample = safe ? p_.v6_safe_sample : p_.v6_score_sample;
      const size_t b = d.begin + 16 * k;
      const bool empty = selected(b, b + 16) == 0;
      const bool counted = blending && k % sample == sample - 1, read = !blending || counted;
      long long paid = 0;
      if (!blending) {
        paid = (empty ? v6_gate_.pe : v6_gate_.pb) + (empty != last_empty ? v6_gate_.pm : 0);
        if (empty != last_empty) score += sw;
        if (empty) score -= 1;
      } else if (counted) {
        paid = v6_gate_.pb + v6_gate_.pv;
        emit(run_from, b, Strategy::blend);
        emit(b, b + 16, Strategy::blend_verified);
        run_from = b + 16;
        if (empty) score += 1;
        if (empty != last_empty) score -= sw;
      } else {
        paid = v6_gate_.pb;
      }
      if (read) {
        if (score < 0) score = 0;
        last_empty = empty;
        if (k + 1 < whole && !blending && score >= to_blend) {
          emit(run_from, b + 16, Strategy::blend_skip);
          blending = true, score = 0, run_from = b + 16;  // last_empty: this block's, compared with the first counted
        } else if (k + 1 < whole && blending && score >= to_skip) {
          emit(run_from, b + 16, Strategy::blend);
          blending = false, score = std::max(0LL, to_blend - sw), last_empty = false, run_from = b + 16;
        }
      }
      if (v6_gate_.on && v6_gate_block(read, empty, paid)) score = 0;
    }
    emit(run_from, d.end, blending ? Strategy::blend : Strategy::blend_skip);
    v6_blending_ = blending;
  }

  // pilot_v6 for a cheap f (hi >= 0, d_max < v6_band) with v6_cs: no probe; compact and blend_skip with a verdict
  // after each whole block of the tile but its last, on a score in 1/8 ns of what the running mode loses to the
  // other, clamped to [0, the threshold that ends the mode]. In compact, after a block of c selected: +v6_cs_empty
  // if c = 0, else -v6_cs_block + v6_cs_reg min(c, 4) + v6_cs_elem c; then -v6_cs_switch if the block's emptiness
  // differs from the block before (a mode's first block: from "non-empty"); blend_skip from the next block once it
  // reaches v6_cs_to_skip (score 0). In blend_skip: -v6_cs_empty if empty; a non-empty block whose index in the tile
  // is v6_cs_sample - 1 modulo v6_cs_sample is counted, v6_cs_sample (v6_cs_block - v6_cs_reg min(c, 4) -
  // v6_cs_elem c), and runs alone as blend_skip_verified (the blend_skip run is cut around it); other non-empty
  // blocks add nothing; then +v6_cs_switch on a change of emptiness; compact from the next block once it reaches
  // v6_cs_to_compact, the score then v6_cs_probation. Each tile starts in the mode the tile before ended in (the
  // first decided one in compact), its score at 0. A short tile's last size % 16 elements go with the mode.
  void v6_compact_scored(TileDecision& d) {
    using LL = long long;
    const size_t size = d.end - d.begin, whole = size / 16;
    const LL E = static_cast<LL>(p_.v6_cs_empty), S = static_cast<LL>(p_.v6_cs_switch);
    const LL N = static_cast<LL>(p_.v6_cs_block), R = static_cast<LL>(p_.v6_cs_reg), A = static_cast<LL>(p_.v6_cs_elem);
    const LL TA = static_cast<LL>(p_.v6_cs_to_skip), TB = static_cast<LL>(p_.v6_cs_to_compact);
    const LL SAMP = static_cast<LL>(p_.v6_cs_sample);
    bool skipping = v6_skipping_;
    LL score = 0;
    bool last_empty = false;
    size_t run_from = d.begin;
    for (size_t k = 0; k < whole; ++k) {
      const size_t b = d.begin + 16 * k;
      const LL c = static_cast<LL>(selected(b, b + 16));
      const bool empty = c == 0;
      if (!skipping) {
        score += empty ? E : -N + R * std::min<LL>(c, 4) + A * c;
        if (empty != last_empty) score -= S;
        score = std::clamp<LL>(score, 0, TA);
      } else {
        if (empty) {
          score -= E;
        } else if (static_cast<LL>(k) % SAMP == SAMP - 1) {
          score += SAMP * (N - R * std::min<LL>(c, 4) - A * c);
          emit(run_from, b, Strategy::blend_skip);
          emit(b, b + 16, Strategy::blend_skip_verified);
          run_from = b + 16;
        }
        if (empty != last_empty) score += S;
        score = std::clamp<LL>(score, 0, TB);
      }
      last_empty = empty;
      if (k + 1 == whole) break;
      if (!skipping && score >= TA) {
        emit(run_from, b + 16, Strategy::compact);
        skipping = true, score = 0, last_empty = false, run_from = b + 16;
      } else if (skipping && score >= TB) {
        emit(run_from, b + 16, Strategy::blend_skip);
        skipping = false, score = static_cast<LL>(p_.v6_cs_probation), last_empty = false, run_from = b + 16;
      }
    }
    emit(run_from, d.end, skipping ? Strategy::blend_skip : Strategy::compact);
    v6_skipping_ = skipping;
  }

  // The probe: the first min(probe, size) elements; a short one counts as if it were a full probe.
  long long probe(TileDecision& d) const {
    const size_t len = std::min(p_.probe, d.end - d.begin);
    const size_t c = selected(d.begin, d.begin + len);
    d.source = CountSource::probe;
    d.probed = len;
    d.count = static_cast<long long>(len < p_.probe ? c * p_.probe / len : c);
    return d.count;
  }

  // A count per tile length as a probe count (v4's prev): count * probe / length, in integers.
  long long per_probe(size_t count, size_t length) const { return static_cast<long long>(count * p_.probe / length); }

  // The article's dense branch when hi < 0 (and v2's and v3's): blend, with skip for a very sparse probe.
  void dense(const TileDecision& d, long long cnt) {
    emit(d.begin, d.end, cnt < lim_.xlo ? Strategy::blend_skip : Strategy::blend);
  }

  // v3's table below hi; returns the tile's selected count (what the compact and detour kernels return).
  size_t sparse(const TileDecision& d, long long cnt) {
    Strategy s = Strategy::detour;
    if (cnt < lim_.lo) s = Strategy::compact;
    if (cnt < lim_.xlo) s = Strategy::compact_skip;
    emit(d.begin, d.end, s);
    return selected(d.begin, d.end);
  }

  // blend_verified over [b, e), detour after a bail-out. Returns the offset of the bail (or the size) and the
  // detour's count in *rest.
  size_t verified(TileDecision& d, size_t b, size_t e, size_t* rest = nullptr) {
    const size_t size = e - b;
    const auto [len, nblocks] = pieces(size);
    size_t stop = size;
    for (size_t i = 0; i + 1 < nblocks; ++i) {  // the last block never bails
      const size_t bb = b + i * len, be = bb + len;
      const double density = static_cast<double>(selected(bb, be)) / static_cast<double>(len);
      if (density < p_.bail * p_.d_max) {
        stop = (i + 1) * len;
        break;
      }
    }
    emit(b, b + stop, Strategy::blend_verified);
    if (rest) *rest = 0;
    if (stop < size) {
      d.bail = b + stop;
      emit(b + stop, e, Strategy::detour);
      if (rest) *rest = selected(b + stop, e);
    }
    return stop;
  }

  void tile(TileDecision& d) {
    const size_t size = d.end - d.begin;
    switch (k_) {
      case Pilot::v1:
        emit(d.begin, d.end, p_.d_max < 0 ? Strategy::blend : Strategy::detour);
        return;
      case Pilot::v2: {
        const long long cnt = probe(d);
        if (cnt > lim_.hi)
          dense(d, cnt);
        else
          emit(d.begin, d.end, cnt < lim_.xlo ? Strategy::detour_skip : Strategy::detour);
        return;
      }
      case Pilot::v3: {
        const long long cnt = probe(d);
        if (cnt > lim_.hi)
          dense(d, cnt);
        else
          sparse(d, cnt);
        return;
      }
      case Pilot::v3_5: {
        const long long cnt = probe(d);
        if (cnt <= lim_.hi)
          sparse(d, cnt);
        else if (lim_.hi < 0)
          dense(d, cnt);
        else
          verified(d, d.begin, d.end);
        return;
      }
      case Pilot::v4: {
        // for (...) { if (distrust) --distrust; const long long cnt = distrust ? prev : density(...); ... }
        if (distrust_ > 0) distrust_ -= 1;
        long long cnt;
        if (distrust_ > 0) {
          d.source = CountSource::previous;
          d.count = prev_;
          cnt = prev_;
        } else {
          cnt = probe(d);
        }
        if (cnt <= lim_.hi) {
          prev_ = per_probe(sparse(d, cnt), size);
        } else if (lim_.hi < 0) {
          dense(d, cnt);
        } else if (distrust_ > 0) {
          emit(d.begin, d.end, Strategy::detour);
          prev_ = per_probe(selected(d.begin, d.end), size);
        } else {
          size_t rest = 0;
          const size_t done = verified(d, d.begin, d.end, &rest);
          if (done < size) {
            distrust_ = p_.distrust;
            prev_ = per_probe(rest, size - done);
          }
        }
        d.distrust = distrust_;
        return;
      }
      case Pilot::v5: return v5_tile(d);
      case Pilot::v6: {
        if (lim_.hi < 0) return v6_scored(d);
        if (p_.v6_cs && p_.d_max < p_.v6_band) return v6_compact_scored(d);
        const long long cnt = probe(d);
        const size_t np = std::max<size_t>(1, std::min(p_.v6_pieces, size / p_.probe));
        const size_t len = std::max<size_t>(16, size / np / 16 * 16);
        const size_t count = std::min(np, (size + len - 1) / len);
        const bool cheap = p_.d_max < p_.v6_band;
        // A cheap f's probe above hi and lo: blend_skip over the tile.
        if (cheap && cnt > lim_.hi && cnt > lim_.lo) return emit(d.begin, d.end, Strategy::blend_skip);
        // Verified piece by piece: a dear f's blend above hi and the one-pass detour from lo6; the one-pass compact
        // for a cheap f from xlo and for a dear f from xlo to lo; any other probe: compact_skip over the tile.
        const bool blend = !cheap && cnt > lim_.hi;
        const bool detour = !cheap && !blend && cnt >= probe_count(p_.v6_lo, p_.probe);
        const bool band = !blend && !detour && cnt >= lim_.xlo && (cheap || cnt < lim_.lo);
        const size_t probe_len = std::min(p_.probe, size);
        // A run of s from piece `first` to the tile-relative `stop`, then `then` on the rest (the tile's bail when
        // the run began at the tile's start).
        const auto run_then = [&](size_t first, size_t stop, Strategy s, Strategy then) {
          emit(d.begin + first * len, d.begin + stop, s);
          if (stop < size) {
            if (first == 0) d.bail = d.begin + stop;
            emit(d.begin + stop, d.end, then);
          }
        };
        // A cheap f's compact_skip: one run from piece `first` until a piece (not piece 0, not the last) with at
        // least v6_dense_cut of its length selected, then blend_skip.
        const auto dense_cut = [&](size_t first) {
          size_t cut = size;
          for (size_t i = std::max<size_t>(first, 1); i + 1 < count; ++i)
            if (static_cast<double>(selected(d.begin + i * len, d.begin + (i + 1) * len)) / static_cast<double>(len) >=
                p_.v6_dense_cut) {
              cut = (i + 1) * len;
              break;
            }
          run_then(first, cut, Strategy::compact_skip, Strategy::blend_skip);
        };
        // A dear f's one-pass detour: one run from piece `first` until a piece (not the last) whose registers past
        // the probe are fewer than v6_reg non-empty, then compact_skip.
        const auto one_pass_detour = [&](size_t first) {
          size_t stop = size;
          for (size_t i = first; i + 1 < count; ++i) {
            size_t registers = 0, nonempty = 0;
            for (size_t b = d.begin + i * len; b < d.begin + (i + 1) * len; b += 16)
              if (b - d.begin >= probe_len)
                for (size_t r = b; r < b + 16; r += 4) ++registers, nonempty += selected(r, r + 4) > 0 ? 1 : 0;
            if (registers > 0 && static_cast<double>(nonempty) / static_cast<double>(registers) < p_.v6_reg) {
              stop = (i + 1) * len;
              break;
            }
          }
          run_then(first, stop, Strategy::detour, Strategy::compact_skip);
        };
        if (detour) return one_pass_detour(0);
        if (!blend && !band) {
          if (cheap) return dense_cut(0);
          return emit(d.begin, d.end, Strategy::compact_skip);
        }
        size_t stop = size;
        bool dense = false;
        double last = 0;  // the verified blend: the density of the piece that bailed
        for (size_t i = 0; i + 1 < count; ++i) {
          const size_t bb = d.begin + i * len, be = bb + len;
          bool stops;
          if (band) {  // fewer than v6_(dear_)floor of the piece's blocks past the probe non-empty (none: no check)
            size_t past = 0, nonempty = 0;
            for (size_t b = bb; b < be; b += 16)
              if (b - d.begin >= probe_len) {
                const size_t sel = selected(b, b + 16);
                ++past, nonempty += sel > 0 ? 1 : 0;
                dense = dense || (cheap && sel >= p_.v6_dense_block);  // a cheap f: a block this full ends it too
              }
            const double floor = cheap ? p_.v6_floor : p_.v6_dear_floor;
            stops = dense || (past > 0 && static_cast<double>(nonempty) / static_cast<double>(past) < floor);
          } else {
            last = static_cast<double>(selected(bb, be)) / static_cast<double>(len);
            stops = last < 1 && last < p_.v6_bail * p_.d_max;  // a full piece never bails
          }
          if (stops) {
            stop = (i + 1) * len;
            break;
          }
        }
        emit(d.begin, d.begin + stop, blend ? Strategy::blend_skip_verified : Strategy::compact);
        if (stop < size) {
          d.bail = d.begin + stop;
          if (dense) return emit(d.begin + stop, d.end, Strategy::blend_skip);
          if (cheap) return dense_cut(stop / len);
          if (blend && !(last < p_.v6_lo)) return one_pass_detour(stop / len);
          emit(d.begin + stop, d.end, Strategy::compact_skip);
        }
        return;
      }
      case Pilot::verified: return;
    }
  }

  // --- pilot_v5, from docs/pilot_v5.md's decision table -------------------------------------------------------
  static uint64_t v5_hash(uint64_t z) {  // splitmix64
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t registers_of_block(size_t b) const {  // registers (4 elements) of the block at element b with a selection
    size_t r = 0;
    for (size_t g = 0; g < 16; g += 4) r += selected(b + g, b + g + 4) > 0 ? 1 : 0;
    return r;
  }

  struct V5Pair {
    size_t chunk;
    size_t n[2], regs[2];
  };

  // The menu's estimated ns per block, in the table's order; the first least one wins.
  Strategy v5_choose(double d, double e, double x, double r) const {
    const double T = p_.d_max >= 1 ? 1e30 : (p_.D - p_.B) / (1.0 - std::max(p_.d_max, -1e12));
    const double E = p_.D - p_.C;
    const double blend = 4 * (p_.B + T);
    const bool skip_ok = !(p_.d_max > 0) || blend <= p_.rho * (4 * (p_.C + p_.K) + E + T / 4);
    // Each product that is added is an explicit std::fma (so are the kernel's and the hunt's): the same bits
    // with and without contraction; with no empty block and no switch a skip row equals its twin exactly.
    const double fd = 4 * d, ck = 4 * (p_.C + p_.K), skips = std::fma(e, 4 * p_.S, p_.M * x);
    const double g = std::fma(r, E, fd * T), h = std::fma(fd, T, 4 * E);
    double cost[6];
    cost[0] = std::fma(1 - e, ck, skips) + g;           // compact_skip
    cost[1] = ck + g;                                   // compact
    cost[2] = std::fma(1 - e, 4 * p_.C, skips) + h;     // detour_skip
    cost[3] = 4 * p_.C + h;                             // detour
    cost[4] = blend;                                    // blend
    cost[5] = std::fma(1 - e, blend, skips);            // blend_skip
    const Strategy names[6] = {Strategy::compact_skip, Strategy::compact, Strategy::detour_skip,
                               Strategy::detour,       Strategy::blend,   Strategy::blend_skip};
    size_t best = 0;
    for (size_t i = 1; i < (skip_ok ? 6u : 5u); ++i)
      if (cost[i] < cost[best]) best = i;
    return names[best];
  }

  Strategy v5_plan(const std::vector<V5Pair>& pairs, size_t chunk, double other) const {
    double n = 0, empty = 0, regs = 0, sw = 0, wb = 0, wp = 0;
    for (const V5Pair& q : pairs) {  // the chunk's own pairs at weight 1, the others at `other`
      const double w = q.chunk == chunk ? 1.0 : other;
      if (w == 0) continue;
      n = std::fma(w, static_cast<double>(q.n[0] + q.n[1]), n);
      empty = std::fma(w, static_cast<double>((q.n[0] == 0 ? 1 : 0) + (q.n[1] == 0 ? 1 : 0)), empty);
      regs = std::fma(w, static_cast<double>(q.regs[0] + q.regs[1]), regs);
      sw = std::fma(w, static_cast<double>((q.n[0] == 0) != (q.n[1] == 0) ? 1 : 0), sw);
      wb += 2 * w, wp += w;
    }
    if (wb == 0) {  // no pair counts: every pair at weight 1
      for (const V5Pair& q : pairs) {
        n += static_cast<double>(q.n[0] + q.n[1]);
        empty += static_cast<double>((q.n[0] == 0 ? 1 : 0) + (q.n[1] == 0 ? 1 : 0));
        regs += static_cast<double>(q.regs[0] + q.regs[1]);
        sw += (q.n[0] == 0) != (q.n[1] == 0) ? 1 : 0;
        wb += 2, wp += 1;
      }
    }
    if (wb == 0) return v5_choose(0, 0, 0, 0);
    const double e = empty / wb;
    return v5_choose(n / (16 * wb), e, std::fma(p_.kappa * 2 * e, 1 - e, sw) / (wp + p_.kappa), regs / wb);
  }

  void v5_tile(TileDecision& d) {
    const size_t size = d.end - d.begin, nblocks = size / 16;
    const auto [clen, chunks] = pieces(size);
    const size_t npairs = std::min(std::min(p_.probe / 32, nblocks / 2), v5::kMaxPairs);
    std::vector<V5Pair> pairs;
    size_t total = 0;
    for (size_t j = 0; j < npairs; ++j) {
      const size_t slice = nblocks / npairs;
      const size_t first = j * slice + v5_hash(p_.seed ^ v5_hash(d.index * 0x100000001b3ull + j)) % (slice - 1);
      const size_t at = d.begin + 16 * first;
      V5Pair q;
      q.chunk = std::min(chunks - 1, 16 * first / clen);
      q.n[0] = selected(at, at + 16), q.n[1] = selected(at + 16, at + 32);
      q.regs[0] = registers_of_block(at), q.regs[1] = registers_of_block(at + 16);
      total += q.n[0] + q.n[1];
      pairs.push_back(q);
    }
    d.source = CountSource::probe;
    d.probed = 32 * npairs;
    d.count = static_cast<long long>(npairs == 0 || 32 * npairs == p_.probe ? total : total * p_.probe / (32 * npairs));
    double other = p_.shrink;
    size_t k = 0;
    while (k < chunks) {
      const size_t b = d.begin + k * clen;
      const Strategy s = v5_plan(pairs, k, other);
      if (s == Strategy::blend && p_.d_max > 0) {  // counted, chunk by chunk
        const size_t e = k + 1 == chunks ? d.end : b + clen;
        emit(b, e, Strategy::blend_verified);
        const double density = static_cast<double>(selected(b, e)) / static_cast<double>(e - b);
        ++k;
        if (k < chunks && density < p_.d_max) {
          if (d.bail == kNoBail) d.bail = e;
          other = 0;
        }
        continue;
      }
      size_t j = k + 1;
      while (j < chunks && v5_plan(pairs, j, other) == s) ++j;
      emit(b, j == chunks ? d.end : d.begin + j * clen, s);
      k = j;
    }
  }

  Pilot k_;
  Params p_;
  Limits lim_;
  std::vector<size_t> sum_;
  Trace out_;
  size_t distrust_ = 0;
  long long prev_ = 0;
  bool v6_blending_ = false;  // pilot_v6, d_max < 0: the mode the tile before ended in
  V6Gate v6_gate_;            // ... and its gate (v6_gate)
  bool v6_skipping_ = false;  // pilot_v6, a cheap f with v6_cs: the mode the tile before ended in (true: blend_skip)
};

}  // namespace

Trace decide(Pilot k, std::span<const uint8_t> sel, const Params& p) { return Decider(k, sel, p).run(); }

std::string show(const Run& r) {
  return std::string(name(r.strategy)) + " [" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")";
}

std::string show(const TileDecision& d) {
  std::ostringstream s;
  s << "tile " << d.index << " [" << d.begin << ", " << d.end << ") source=" << name(d.source) << " count=" << d.count
    << " probed=" << d.probed << " hi=" << d.hi << " xlo=" << d.xlo << " lo=" << d.lo << " d_max=" << d.d_max << " distrust=" << d.distrust
    << " bail=" << (d.bail == kNoBail ? std::string("none") : std::to_string(d.bail));
  return s.str();
}

std::string compare(const Trace& want, const Trace& got) {
  for (size_t i = 0; i < std::min(want.tiles.size(), got.tiles.size()); ++i)
    if (!(want.tiles[i] == got.tiles[i]))
      return "tile decision " + std::to_string(i) + " differs from the reference:\n  expected " + show(want.tiles[i]) +
             "\n  actual   " + show(got.tiles[i]);
  for (size_t i = 0; i < std::min(want.runs.size(), got.runs.size()); ++i)
    if (!(want.runs[i] == got.runs[i]))
      return "run " + std::to_string(i) + " differs from the reference: expected " + show(want.runs[i]) +
             ", actual " + show(got.runs[i]);
  if (want.tiles.size() != got.tiles.size() || want.runs.size() != got.runs.size())
    return "the reference has " + std::to_string(want.tiles.size()) + " tiles and " +
           std::to_string(want.runs.size()) + " runs, the kernel " + std::to_string(got.tiles.size()) + " and " +
           std::to_string(got.runs.size());
  return {};
}

}  // namespace maskapply::reference
