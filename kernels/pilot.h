// SPDX-License-Identifier: MIT
// The adaptive pilots v1-v4: per tile, a decision table over the shared kernels, from the calibrated d_max and
// a density count. Each pilot reads as the article's code; the tile loop, the probe, the calibration and the
// bookkeeping for the trace are shared here.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "compact.h"
#include "detour.h"
#include "trace.h"

namespace maskapply {

// Every constant of the article, as an option with the article's value.
struct PilotOptions {
  size_t tile = 4096;          // elements per decision
  size_t probe = 256;          // elements counted at the head of a tile
  double xlo = 0.014;          // skip pays below this density ((1 - x)^16 = 0.8)
  double lo = 0.16;            // compact pays below this density ((1 - x)^4 = 0.5)
  double B = 0.3;              // blend overhead, ns per register
  double D = 0.845;            // detour overhead, ns per register
  size_t calib_blocks = 4;     // calibration: blend timed over calib_blocks blocks of calib_len
  size_t calib_len = 2048;
  size_t verify_blocks = 8;    // blend_verified checks the density this many times per tile
  double bail = 0.75;          // ... and bails below bail * d_max
  size_t distrust = 16;        // v4: tiles without trusting the probe after a bail-out
  std::optional<double> d_max; // injected calibration; empty: time blend as the article does

  // Empty when the options are usable, else what is wrong.
  std::string validate() const {
    if (tile < 16) return "tile must be at least 16 (got " + std::to_string(tile) + ")";
    if (probe == 0 || probe > tile) return "probe must be in [1, tile] (got " + std::to_string(probe) + ")";
    if (calib_len == 0) return "calib_len must be positive";
    if (verify_blocks == 0) return "verify_blocks must be positive";
    if (!std::isfinite(xlo) || !std::isfinite(lo) || !std::isfinite(bail) || !std::isfinite(B) || !std::isfinite(D))
      return "xlo, lo, bail, B and D must be finite";
    if (d_max && std::isnan(*d_max)) return "d_max must not be NaN";
    return {};
  }
};

// The article's integer thresholds, in counts over the probe: hi = d_max * probe, xlo, lo (truncated as in
// `const long long hi = d_max * probe; constexpr size_t xlo = 0.014 * probe;`). d_max is clamped to [-2, 2]
// first, which changes no decision and keeps the conversion defined.
struct Thresholds {
  long long hi, xlo, lo;
  static Thresholds from(const PilotOptions& o, double d_max) {
    const double p = static_cast<double>(o.probe);
    return {static_cast<long long>(std::clamp(d_max, -2.0, 2.0) * p),
            static_cast<long long>(std::clamp(o.xlo, -2.0, 2.0) * p),
            static_cast<long long>(std::clamp(o.lo, -2.0, 2.0) * p)};
  }
};

// The article's calibration formula: a blend time of t ns per register gives T = t - B (at least 1e-9) and
// d_max = 1 - (D - B) / T.
inline double d_max_from_time(double ns_per_register, double B, double D) {
  const double t = std::max(1e-9, ns_per_register - B);
  return 1.0 - (D - B) / t;
}

// The article's bsl_calibrate: the fastest blend over blocks of len, as ns per register, gives d_max
// (d_max_from_time). Processes [a, a+n) with blend as it measures.
template <class F, class M>
double bsl_calibrate(float* a, size_t n, size_t len, F f, M mask, double B, double D) {
  double ns = 1e18;
  for (size_t i = 0; i < n; i += len) {
    const size_t l = std::min(len, n - i);
    const auto st = std::chrono::steady_clock::now();
    blend(a + i, l, f, mask);
    const auto ed = std::chrono::steady_clock::now();
    ns = std::min(ns, std::chrono::duration<double, std::nano>(ed - st).count() / (static_cast<double>(l) / 4.0));
  }
  return d_max_from_time(ns, B, D);
}

namespace detail {

// A tile being decided; finished by Pilot::done, which reports it to the observer.
struct Tile {
  TileDecision d;
  size_t begin() const { return d.begin; }
  size_t end() const { return d.end; }
  size_t size() const { return d.end - d.begin; }
};

// What every pilot shares: calibration on the first tiles, the tile loop, the probe, running a strategy over a
// range with its report, and the verified blend with its detour fallback.
template <class F, class M, class Obs>
class Pilot {
 public:
  Pilot(float* a, size_t n, F& f, M& mask, Workspace& ws, const PilotOptions& o, Obs& obs)
      : a_(a), n_(n), f_(f), mask_(mask), ws_(ws), o_(o), obs_(obs) {
    if (const std::string err = o.validate(); !err.empty()) throw std::invalid_argument("maskapply: " + err);
    ws_.reserve(o.tile);
  }

  double d_max() const { return d_max_; }
  const Thresholds& th() const { return th_; }
  const PilotOptions& options() const { return o_; }

  // Calibrates on the first calib_blocks * calib_len elements (blend, timed unless d_max is injected), then
  // calls decide(tile) for each following tile of o.tile elements; the last tile may be shorter.
  template <class Decide>
  void for_each_tile(Decide&& decide) {
    const size_t region = std::min(n_, o_.calib_blocks * o_.calib_len);
    size_t index = 0;
    if (o_.d_max) {
      d_max_ = *o_.d_max;
      for (size_t i = 0; i < region; i += o_.calib_len) blend(a_ + i, std::min(o_.calib_len, region - i), f_, mask_);
    } else {
      d_max_ = bsl_calibrate(a_, region, o_.calib_len, f_, mask_, o_.B, o_.D);
    }
    th_ = Thresholds::from(o_, d_max_);
    for (size_t i = 0; i < region; i += o_.calib_len) {
      Tile t = start(index++, i, std::min(i + o_.calib_len, region));
      t.d.source = CountSource::calibration;
      report(t.begin(), t.end(), Strategy::blend);
      done(t);
    }
    for (size_t i = region; i < n_; i += o_.tile) {
      Tile t = start(index++, i, std::min(i + o_.tile, n_));
      decide(t);
      done(t);
    }
  }

  // The probe: selected elements among the tile's first `probe`, scaled to a full probe for a short tile.
  long long probe(Tile& t) {
    const size_t len = std::min(o_.probe, t.size());
    const size_t cnt = density(a_ + t.begin(), len, mask_);
    t.d.source = CountSource::probe;
    t.d.count = static_cast<long long>(len == o_.probe ? cnt : cnt * o_.probe / len);
    return t.d.count;
  }

  // Runs strategy s over [begin, end) and reports it. Returns the selected count where the kernel counts it
  // (detour and compact variants), else 0.
  size_t run(Strategy s, size_t begin, size_t end) {
    float* p = a_ + begin;
    const size_t len = end - begin;
    size_t count = 0;
    switch (s) {
      case Strategy::blend: blend(p, len, f_, mask_); break;
      case Strategy::blend_skip: blend_skip(p, len, f_, mask_); break;
      case Strategy::blend_verified: break;  // see verified()
      case Strategy::detour: count = detour_span<false>(p, len, f_, mask_, ws_); break;
      case Strategy::detour_skip: count = detour_span<true>(p, len, f_, mask_, ws_); break;
      case Strategy::compact: count = compact_span<false>(p, len, f_, mask_, ws_); break;
      case Strategy::compact_skip: count = compact_span<true>(p, len, f_, mask_, ws_); break;
    }
    report(begin, end, s);
    return count;
  }
  size_t run(Strategy s, const Tile& t) { return run(s, t.begin(), t.end()); }

  // blend_verified over the tile; if it bails, detour on the rest. Returns where it bailed (tile-relative),
  // or the tile size, and the detour's count in *rest_count.
  size_t verified(Tile& t, size_t* rest_count) {
    const size_t did = blend_verified(a_ + t.begin(), t.size(), f_, mask_, d_max_, o_.verify_blocks, o_.bail);
    report(t.begin(), t.begin() + did, Strategy::blend_verified);
    *rest_count = 0;
    if (did < t.size()) {
      t.d.bail = t.begin() + did;
      *rest_count = run(Strategy::detour, t.begin() + did, t.end());
    }
    return did;
  }

  // The article's blend branch: blend_skip below xlo, blend otherwise.
  void blend_branch(const Tile& t, long long cnt) { run(cnt < th_.xlo ? Strategy::blend_skip : Strategy::blend, t); }

 private:
  Tile start(size_t index, size_t begin, size_t end) const {
    Tile t;
    t.d.index = index, t.d.begin = begin, t.d.end = end;
    t.d.hi = th_.hi, t.d.xlo = th_.xlo, t.d.lo = th_.lo, t.d.d_max = d_max_;
    return t;
  }
  void report(size_t begin, size_t end, Strategy s) {
    if (begin < end) obs_.run(Run{begin, end, s});
  }
  void done(const Tile& t) { obs_.tile(t.d); }

  float* a_;
  size_t n_;
  F& f_;
  M& mask_;
  Workspace& ws_;
  const PilotOptions& o_;
  Obs& obs_;
  double d_max_ = 0;
  Thresholds th_{0, 0, 0};
};

// v3's table below hi: compact_skip under xlo, compact under lo, detour above. Returns the count.
template <class P>
size_t below_hi_v3(P& p, const Tile& t, long long cnt) {
  if (cnt < p.th().xlo) return p.run(Strategy::compact_skip, t);
  if (cnt < p.th().lo) return p.run(Strategy::compact, t);
  return p.run(Strategy::detour, t);
}

}  // namespace detail

// pilot v1: after calibration, blend everywhere if d_max < 0, else detour everywhere.
template <class F, class M, class Obs = NullObserver>
void pilot_v1(float* a, size_t n, F f, M mask, Workspace& ws, const PilotOptions& o = {}, Obs&& obs = {}) {
  detail::Pilot p(a, n, f, mask, ws, o, obs);
  p.for_each_tile([&](detail::Tile& t) { p.run(p.d_max() < 0 ? Strategy::blend : Strategy::detour, t); });
}

// pilot v2: probe the tile's head; blend above hi, detour below; the skip variants below xlo.
template <class F, class M, class Obs = NullObserver>
void pilot_v2(float* a, size_t n, F f, M mask, Workspace& ws, const PilotOptions& o = {}, Obs&& obs = {}) {
  detail::Pilot p(a, n, f, mask, ws, o, obs);
  p.for_each_tile([&](detail::Tile& t) {
    const long long cnt = p.probe(t);
    if (cnt > p.th().hi)
      p.blend_branch(t, cnt);
    else
      p.run(cnt < p.th().xlo ? Strategy::detour_skip : Strategy::detour, t);
  });
}

// pilot v3: as v2, with compact detour for sparse tiles (below lo).
template <class F, class M, class Obs = NullObserver>
void pilot_v3(float* a, size_t n, F f, M mask, Workspace& ws, const PilotOptions& o = {}, Obs&& obs = {}) {
  detail::Pilot p(a, n, f, mask, ws, o, obs);
  p.for_each_tile([&](detail::Tile& t) {
    const long long cnt = p.probe(t);
    if (cnt > p.th().hi)
      p.blend_branch(t, cnt);
    else
      detail::below_hi_v3(p, t, cnt);
  });
}

// pilot v3.5: as v3, but when d_max >= 0 (hi >= 0) the blend branch is verified and falls back to detour.
template <class F, class M, class Obs = NullObserver>
void pilot_v3_5(float* a, size_t n, F f, M mask, Workspace& ws, const PilotOptions& o = {}, Obs&& obs = {}) {
  detail::Pilot p(a, n, f, mask, ws, o, obs);
  p.for_each_tile([&](detail::Tile& t) {
    const long long cnt = p.probe(t);
    size_t rest;
    if (cnt > p.th().hi) {
      if (p.th().hi < 0)
        p.blend_branch(t, cnt);
      else
        p.verified(t, &rest);
    } else {
      detail::below_hi_v3(p, t, cnt);
    }
  });
}

// pilot v4: as v3.5, with memory. After a bail-out the probe is not trusted for `distrust` tiles: the density
// of the previous tile (from the detour's count) decides instead, and the blend branch becomes plain detour.
template <class F, class M, class Obs = NullObserver>
void pilot_v4(float* a, size_t n, F f, M mask, Workspace& ws, const PilotOptions& o = {}, Obs&& obs = {}) {
  detail::Pilot p(a, n, f, mask, ws, o, obs);
  size_t distrust = 0;
  long long prev = 0;
  const auto scaled = [&](size_t count, size_t len) {
    return static_cast<long long>(count * o.probe / len);
  };
  p.for_each_tile([&](detail::Tile& t) {
    if (distrust) --distrust;
    long long cnt;
    if (distrust) {
      cnt = t.d.count = prev;
      t.d.source = CountSource::previous;
    } else {
      cnt = p.probe(t);
    }
    if (cnt > p.th().hi) {
      if (p.th().hi < 0) {
        p.blend_branch(t, cnt);
      } else if (distrust == 0) {
        size_t rest;
        const size_t did = p.verified(t, &rest);
        if (did < t.size()) {
          distrust = o.distrust;
          prev = scaled(rest, t.size() - did);
        }
      } else {
        prev = scaled(p.run(Strategy::detour, t), t.size());
      }
    } else {
      prev = scaled(detail::below_hi_v3(p, t, cnt), t.size());
    }
    t.d.distrust = distrust;
  });
}

}  // namespace maskapply
