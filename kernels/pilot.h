// SPDX-License-Identifier: MIT
// The adaptive pilots v1-v5: per tile, a decision table over the shared kernels, from the calibrated d_max and
// a density count. v1-v4 read as the article's code; v5 (docs/pilot_v5.md) plans each chunk of a tile from a
// probe spread over the tile at seeded positions and the cost model's break-evens. The tile loop, the probe, the
// calibration and the bookkeeping for the trace are shared here.
#pragma once

#include <algorithm>
#include <charconv>
#include <chrono>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

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
  // pilot_v5 only (docs/pilot_v5.md): the seed of its probe positions, the cost model's constants its break-evens
  // come from (m5's; generators' model_options injects a model's), and its estimator's weights.
  uint64_t seed = 0;           // probe pair positions: hashed from (seed, tile index, pair)
  double C = 0.3912;           // compress per register (detour over an empty span); D - C is expand
  double S = 0.1928;           // per register of a skipped empty block
  double K = 0.18;             // compact's bookkeeping per register
  double M = 3.0;              // one misprediction (a switch between empty and non-empty blocks)
  double V = 0.02;             // blend_verified's count per register (pilot_v6's gate)
  double shrink = 0.5;         // weight of the other chunks' pairs in a chunk's estimate
  double kappa = 2.0;          // pseudo-pairs of independent placement in the switch-rate estimate
  double rho = 1.35;           // blend_skip on the menu when blend costs <= rho x compact on a one-element block
  // pilot_v6 only (docs/pilot_v6.md): its verified strategies check the tile in v6_pieces pieces; the verified
  // blend bails below v6_bail * d_max, and the rest runs the one-pass detour or compact_skip.
  size_t v6_pieces = 16;
  double v6_bail = 1.05;
  double v6_lo = 0.16;         // a dear f: the one-pass detour from this density of the probe (or of a bailing piece)
  double v6_floor = 0.15;      // a cheap f: the one-pass compact ends at a piece with fewer of its blocks non-empty
  double v6_dear_floor = 0.12;  // the same for a dear f (0.12 of 16 blocks: fewer than 2)
  double v6_band = 0.35;       // f with d_max below this is cheap (its own table: blend_skip or the one-pass compact)
  // d_max < 0: the switch score of blend_skip and blend (blend.h's SwitchScore): what a switch adds, the scores at
  // which blend_skip hands over to blend and back, and blend's counted blocks (one in v6_score_sample).
  size_t v6_score_switch = 3;
  size_t v6_score_blend = 17;
  size_t v6_score_skip = 6;
  size_t v6_score_sample = 4;
  // d_max < 0 with v6_gate = 1: the gate (score_gate.h) runs the safe score (v6_safe_*: every blended block counted)
  // while g = P - lambda O_lb >= -v6_gate_g1 ns and the score above once g <= -v6_gate_g2 ns, g clamped at
  // -v6_gate_cap ns; lambda = v6_gate_lambda / 100. Its costs come from B, D, S, M, V, C and d_max.
  size_t v6_gate = 1;
  size_t v6_gate_lambda = 188;
  size_t v6_gate_g1 = 20;
  size_t v6_gate_g2 = 40;
  size_t v6_gate_cap = 80;
  size_t v6_safe_switch = 3;
  size_t v6_safe_blend = 3;
  size_t v6_safe_skip = 2;
  size_t v6_safe_sample = 1;
  double v6_dense_cut = 0.07;  // a cheap f: compact_skip until a piece this dense (selected / length), then blend_skip
  size_t v6_dense_block = 8;   // a cheap f: the one-pass compact ends after a block this full, then blend_skip
  double v6_reg = 0.6;         // a dear f: the one-pass detour ends at a piece with fewer of its registers non-empty
  size_t v6_dear_probe = 128;  // a dear f: pilot_v6 probes min(probe, v6_dear_probe) elements (and counts by it)
  size_t v6_cheap_probe = 96;  // a cheap f (0 <= d_max < v6_band): min(probe, v6_cheap_probe) elements
  // A cheap f (0 <= d_max < v6_band): v6_cs = 1 runs the compact score (compact.h's CompactScore; no probe), 0 the
  // probe's table (v6_cheap_probe, v6_floor, v6_dense_cut, v6_dense_block). The score's weights in 1/8 ns (from
  // m5's terms; the block weight and the thresholds from a search, docs/pilot_v6.md): an empty block, a switch, a
  // non-empty block, less per selected element up to 4 and per selected element;
  // compact hands over to blend_skip at v6_cs_to_skip, blend_skip to compact at v6_cs_to_compact, blend_skip counts
  // one block in v6_cs_sample, and a compact run after blend_skip starts at v6_cs_probation.
  size_t v6_cs = 1;
  size_t v6_cs_empty = 12;
  size_t v6_cs_switch = 24;
  size_t v6_cs_block = 12;
  size_t v6_cs_reg = 4;
  size_t v6_cs_elem = 1;
  size_t v6_cs_to_skip = 96;
  size_t v6_cs_to_compact = 64;
  size_t v6_cs_sample = 4;
  size_t v6_cs_probation = 88;

  // What a removed option's name gets from the files that read options (empty: not a removed one).
  static std::string retired(std::string_view name) {
    if (name == "v6_skip_cut" || name == "v6_cut_pieces")
      return std::string(name) + " was retired on 2026-12-06: pilot_v6's d_max < 0 tile runs the switch score " +
             "(v6_score_switch, v6_score_blend, v6_score_skip, v6_score_sample)";
    return {};
  }

  // Empty when the options are usable, else what is wrong.
  std::string validate() const {
    if (tile < 16) return "tile must be at least 16 (got " + std::to_string(tile) + ")";
    if (probe == 0 || probe > tile) return "probe must be in [1, tile] (got " + std::to_string(probe) + ")";
    if (calib_len == 0) return "calib_len must be positive";
    if (verify_blocks == 0) return "verify_blocks must be positive";
    if (v6_pieces == 0) return "v6_pieces must be positive";
    if (v6_score_blend == 0 || v6_score_skip == 0 || v6_score_sample == 0)
      return "v6_score_blend, v6_score_skip and v6_score_sample must be positive";
    if (v6_score_blend > 1000 || v6_score_skip > 1000 || v6_score_switch > 1000)
      return "v6_score_switch, v6_score_blend and v6_score_skip must be at most 1000";
    if (v6_gate > 1) return "v6_gate must be 0 (the switch score alone) or 1 (gated)";
    if (v6_safe_blend == 0 || v6_safe_skip == 0 || v6_safe_sample == 0)
      return "v6_safe_blend, v6_safe_skip and v6_safe_sample must be positive";
    if (v6_safe_blend > 1000 || v6_safe_skip > 1000 || v6_safe_switch > 1000)
      return "v6_safe_switch, v6_safe_blend and v6_safe_skip must be at most 1000";
    if (v6_gate_lambda < 100 || v6_gate_lambda > 100000)
      return "v6_gate_lambda must be in [100, 100000] (hundredths: lambda from 1 to 1000)";
    if (!(v6_gate_g1 <= v6_gate_g2 && v6_gate_g2 <= v6_gate_cap && v6_gate_cap <= 1000000))
      return "the gate needs v6_gate_g1 <= v6_gate_g2 <= v6_gate_cap <= 1000000 (ns)";
    if (v6_dear_probe == 0) return "v6_dear_probe must be positive";
    if (v6_cheap_probe == 0) return "v6_cheap_probe must be positive";
    if (v6_cs > 1) return "v6_cs must be 0 (the probe's table) or 1 (the compact score)";
    if (v6_cs_sample == 0) return "v6_cs_sample must be positive";
    for (const size_t v : {v6_cs_empty, v6_cs_switch, v6_cs_block, v6_cs_reg, v6_cs_elem, v6_cs_to_skip,
                           v6_cs_to_compact, v6_cs_sample})
      if (v > 1000)
        return "v6_cs_empty, v6_cs_switch, v6_cs_block, v6_cs_reg, v6_cs_elem, v6_cs_to_skip, v6_cs_to_compact and "
               "v6_cs_sample must be at most 1000";
    if (v6_cs_probation > v6_cs_to_skip) return "v6_cs_probation must be at most v6_cs_to_skip";
    if (!std::isfinite(xlo) || !std::isfinite(lo) || !std::isfinite(bail) || !std::isfinite(B) || !std::isfinite(D) ||
        !std::isfinite(v6_bail) || !std::isfinite(v6_lo) || !std::isfinite(v6_floor) ||
        !std::isfinite(v6_dear_floor) || !std::isfinite(v6_band) || !std::isfinite(v6_dense_cut))
      return "xlo, lo, bail, v6_bail, v6_lo, v6_floor, v6_dear_floor, v6_band, v6_dense_cut, B and D must be finite";
    if (!(v6_reg > 0) || !std::isfinite(v6_reg))
      return "v6_reg must be finite and > 0 (an empty piece must end the one-pass detour)";
    if (d_max && std::isnan(*d_max)) return "d_max must not be NaN";
    for (const double v : {C, S, K, M, V, shrink, kappa, rho})
      if (!std::isfinite(v) || v < 0) return "C, S, K, M, V, shrink, kappa and rho must be finite and >= 0";
    if (!(B < 1e6 && D < 1e6 && C < 1e6 && S < 1e6 && M < 1e6 && V < 1e6))
      return "B, D, C, S, M and V must be below 1e6 ns (the gate's integer costs)";
    return {};
  }
};

// The type of the field a member pointer of for_each_option_field points at (size_t, uint64_t or double).
template <class P>
struct option_field;
template <class T>
struct option_field<T PilotOptions::*> {
  using type = T;
};
template <class P>
using option_field_t = typename option_field<P>::type;

// Every PilotOptions field but d_max (an optional, which each reader spells "timed" or null), by name, in the order
// case files write them: visit(name, member pointer) for each. The one list that case files, pattern files, the
// JSON reports, the properties' printer and tune walk; a new option is a field above and a line here.
template <class Visit>
constexpr void for_each_option_field(Visit&& visit) {
  visit("tile", &PilotOptions::tile);
  visit("probe", &PilotOptions::probe);
  visit("xlo", &PilotOptions::xlo);
  visit("lo", &PilotOptions::lo);
  visit("B", &PilotOptions::B);
  visit("D", &PilotOptions::D);
  visit("calib_blocks", &PilotOptions::calib_blocks);
  visit("calib_len", &PilotOptions::calib_len);
  visit("verify_blocks", &PilotOptions::verify_blocks);
  visit("bail", &PilotOptions::bail);
  visit("distrust", &PilotOptions::distrust);
  visit("seed", &PilotOptions::seed);
  visit("C", &PilotOptions::C);
  visit("S", &PilotOptions::S);
  visit("K", &PilotOptions::K);
  visit("M", &PilotOptions::M);
  visit("shrink", &PilotOptions::shrink);
  visit("kappa", &PilotOptions::kappa);
  visit("rho", &PilotOptions::rho);
  visit("v6_pieces", &PilotOptions::v6_pieces);
  visit("v6_bail", &PilotOptions::v6_bail);
  visit("v6_lo", &PilotOptions::v6_lo);
  visit("v6_floor", &PilotOptions::v6_floor);
  visit("v6_band", &PilotOptions::v6_band);
  visit("v6_score_switch", &PilotOptions::v6_score_switch);
  visit("v6_score_blend", &PilotOptions::v6_score_blend);
  visit("v6_score_skip", &PilotOptions::v6_score_skip);
  visit("v6_score_sample", &PilotOptions::v6_score_sample);
  visit("v6_gate", &PilotOptions::v6_gate);
  visit("v6_gate_lambda", &PilotOptions::v6_gate_lambda);
  visit("v6_gate_g1", &PilotOptions::v6_gate_g1);
  visit("v6_gate_g2", &PilotOptions::v6_gate_g2);
  visit("v6_gate_cap", &PilotOptions::v6_gate_cap);
  visit("v6_safe_switch", &PilotOptions::v6_safe_switch);
  visit("v6_safe_blend", &PilotOptions::v6_safe_blend);
  visit("v6_safe_skip", &PilotOptions::v6_safe_skip);
  visit("v6_safe_sample", &PilotOptions::v6_safe_sample);
  visit("V", &PilotOptions::V);
  visit("v6_dense_cut", &PilotOptions::v6_dense_cut);
  visit("v6_dense_block", &PilotOptions::v6_dense_block);
  visit("v6_reg", &PilotOptions::v6_reg);
  visit("v6_dear_floor", &PilotOptions::v6_dear_floor);
  visit("v6_dear_probe", &PilotOptions::v6_dear_probe);
  visit("v6_cheap_probe", &PilotOptions::v6_cheap_probe);
  visit("v6_cs", &PilotOptions::v6_cs);
  visit("v6_cs_empty", &PilotOptions::v6_cs_empty);
  visit("v6_cs_switch", &PilotOptions::v6_cs_switch);
  visit("v6_cs_block", &PilotOptions::v6_cs_block);
  visit("v6_cs_reg", &PilotOptions::v6_cs_reg);
  visit("v6_cs_elem", &PilotOptions::v6_cs_elem);
  visit("v6_cs_to_skip", &PilotOptions::v6_cs_to_skip);
  visit("v6_cs_to_compact", &PilotOptions::v6_cs_to_compact);
  visit("v6_cs_sample", &PilotOptions::v6_cs_sample);
  visit("v6_cs_probation", &PilotOptions::v6_cs_probation);
}

// Sets the field of for_each_option_field named `name` from `text`: a whole number or a finite double, the whole
// text (std::from_chars). Empty when no field has that name (d_max has none: each file spells it its own way),
// else whether `text` was such a value. What case files, `# options:` lines and `--options` words share.
inline std::optional<bool> set_option_field(PilotOptions& o, std::string_view name, std::string_view text) {
  std::optional<bool> ok;
  for_each_option_field([&](const char* field, auto PilotOptions::*p) {
    if (name != field) return;
    option_field_t<decltype(p)> v{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    ok = !text.empty() && ec == std::errc{} && end == text.data() + text.size() && std::isfinite(static_cast<double>(v));
    if (*ok) o.*p = v;
  });
  return ok;
}

// The article's integer thresholds, in counts over the probe: hi = d_max * probe, xlo, lo (truncated as in
// `const long long hi = d_max * probe; constexpr size_t xlo = 0.014 * probe;`). d_max is clamped to [-2, 2]
// first, which changes no decision and keeps the conversion defined.
struct Thresholds {
  long long hi, xlo, lo;
  static Thresholds from(const PilotOptions& o, double d_max) {
    return {count(d_max, o.probe), count(o.xlo, o.probe), count(o.lo, o.probe)};
  }
  // A fraction of the probe as a count, as above.
  static long long count(double fraction, size_t probe) {
    return static_cast<long long>(std::clamp(fraction, -2.0, 2.0) * static_cast<double>(probe));
  }
};

// pilot_v6's gate (score_gate.h) from the options and the calibrated d_max: the plain score (v6_score_*), the safe
// one (v6_safe_*), the costs (B, D, S, M, V, C), lambda (v6_gate_lambda / 100) and the thresholds (ns).
inline SwitchGate v6_gate_of(const PilotOptions& o, double d_max) {
  const int64_t unit = kGateUnit * kGateDen;
  SwitchGate gate{SwitchScore{o.v6_score_switch, o.v6_score_blend, o.v6_score_skip, o.v6_score_sample},
                  SwitchScore{o.v6_safe_switch, o.v6_safe_blend, o.v6_safe_skip, o.v6_safe_sample},
                  GateCosts::from(o.B, o.D, o.S, o.M, o.V, o.C, d_max),
                  static_cast<int64_t>(o.v6_gate_lambda),
                  static_cast<int64_t>(o.v6_gate_g1) * unit,
                  static_cast<int64_t>(o.v6_gate_g2) * unit,
                  static_cast<int64_t>(o.v6_gate_cap) * unit};
  detail::gate_tabulate(gate);
  return gate;
}

// The article's calibration formula: a blend time of t ns per register gives T = t - B (at least 1e-9) and
// d_max = 1 - (D - B) / T.
inline double d_max_from_time(double ns_per_register, double B, double D) {
  const double t = std::max(1e-9, ns_per_register - B);
  return 1.0 - (D - B) / t;
}

// The article's bsl_calibrate: the fastest blend over blocks of len, as ns per register, gives d_max
// (d_max_from_time). Processes [a, a+n) with blend as it measures (telling w the work).
template <class F, class M, class W = NoWork>
double bsl_calibrate(float* a, size_t n, size_t len, F f, M mask, double B, double D, W&& w = {}) {
  double ns = 1e18;
  for (size_t i = 0; i < n; i += len) {
    const size_t l = std::min(len, n - i);
    const auto st = std::chrono::steady_clock::now();
    blend(a + i, l, f, mask, w);
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
// range with its report, and the verified blend with its detour fallback. The observer also receives the work
// of every kernel the pilot runs (work.h).
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
  // calls decide(tile) for each following tile of o.tile elements; the last tile may be shorter. The probe (and
  // the thresholds counted over it) is probe_of(d_max) elements from the calibration on (at most o.probe).
  template <class Decide>
  void for_each_tile(Decide&& decide) {
    for_each_tile(decide, [&](double) { return o_.probe; });
  }
  template <class Decide, class ProbeOf>
  void for_each_tile(Decide&& decide, ProbeOf&& probe_of) {
    const size_t region = std::min(n_, o_.calib_blocks * o_.calib_len);
    size_t index = 0;
    if (o_.d_max) {
      d_max_ = *o_.d_max;
      for (size_t i = 0; i < region; i += o_.calib_len)
        blend(a_ + i, std::min(o_.calib_len, region - i), f_, mask_, work());
    } else {
      d_max_ = bsl_calibrate(a_, region, o_.calib_len, f_, mask_, o_.B, o_.D, work());
    }
    o_.probe = std::clamp<size_t>(probe_of(d_max_), 1, o_.probe);
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
    const size_t cnt = density(a_ + t.begin(), len, mask_, work());
    t.d.source = CountSource::probe;
    t.d.probed = len;
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
      case Strategy::blend: blend(p, len, f_, mask_, work()); break;
      case Strategy::blend_skip: blend_skip(p, len, f_, mask_, work()); break;
      case Strategy::blend_verified: break;  // see verified()
      case Strategy::blend_skip_verified: break;  // see verified_blend_then()
      case Strategy::detour: count = detour_span<false>(p, len, f_, mask_, ws_, work()); break;
      case Strategy::detour_skip: count = detour_span<true>(p, len, f_, mask_, ws_, work()); break;
      case Strategy::compact: count = compact_span<false>(p, len, f_, mask_, ws_, work()); break;
      case Strategy::compact_skip: count = compact_span<true>(p, len, f_, mask_, ws_, work()); break;
    }
    report(begin, end, s);
    return count;
  }
  size_t run(Strategy s, const Tile& t) { return run(s, t.begin(), t.end()); }

  // The article's verified blend over the tile (verify_blocks pieces, bailing below bail * d_max); if it bails,
  // detour on the rest. Returns where it bailed (tile-relative), or the tile size, and the detour's count in
  // *rest_count.
  size_t verified(Tile& t, size_t* rest_count) {
    *rest_count = 0;
    const auto detour_rest = [&](size_t did, double) { *rest_count = run(Strategy::detour, t.begin() + did, t.end()); };
    return verified_blend_then(t, o_.verify_blocks, o_.bail * d_max_, detour_rest);
  }

  // The verified blend over the tile in the VerifyPieces of (size, pieces), bailing below `floor` (Skip: as one
  // blend_skip run, reported as blend_skip_verified); after a bail, then(tile-relative end of the blend, density of
  // the piece that bailed) runs the rest. Returns where it bailed, or the tile size.
  template <bool Skip = false, class Then>
  size_t verified_blend_then(Tile& t, size_t pieces, double floor, Then&& then) {
    const VerifiedBlend r = blend_verified_span<Skip>(a_ + t.begin(), t.size(), f_, mask_, floor, pieces, work());
    report(t.begin(), t.begin() + r.did, Skip ? Strategy::blend_skip_verified : Strategy::blend_verified);
    if (r.did < t.size()) {
      t.d.bail = t.begin() + r.did;
      const size_t len = VerifyPieces(t.size(), pieces).len;
      then(r.did, static_cast<double>(r.last) / static_cast<double>(len));
    }
    return r.did;
  }

  // pilot_v6's one-pass compact over the tile (compact_verified_span in the VerifyPieces of (size, pieces), counting
  // the blocks past the probe), reported as one compact run; after a piece but the last with fewer than `floor` of
  // its blocks past the probe non-empty, compact_skip on the rest (with `cut`, a cheap f: compact_skip_cut; and
  // after a piece but the last with a block past the probe holding at least v6_dense_block selected, blend_skip).
  // Returns where it stopped (tile-relative), or the tile size.
  size_t compact_verified(Tile& t, size_t pieces, double floor, bool cut) {
    const size_t from = std::min(o_.probe, t.size());
    const VerifiedCompact r = compact_verified_span(a_ + t.begin(), t.size(), f_, mask_, ws_, pieces, floor, from,
                                                    cut ? o_.v6_dense_block : kBlock + 1, work());
    report(t.begin(), t.begin() + r.did, Strategy::compact);
    if (r.did < t.size()) {
      t.d.bail = t.begin() + r.did;
      if (r.dense)
        run(Strategy::blend_skip, t.begin() + r.did, t.end());
      else if (cut)
        compact_skip_cut(t, r.did, pieces, o_.v6_dense_cut);
      else
        run(Strategy::compact_skip, t.begin() + r.did, t.end());
    }
    return r.did;
  }

  // pilot_v6's one-pass detour from the tile-relative `from` (a piece's start) to the tile's end
  // (detour_verified_span in the VerifyPieces of (size, pieces), counting the registers of the blocks past the
  // probe), reported as one detour run; after a piece but the last with fewer than `floor` of those registers
  // non-empty, compact_skip on the rest. Returns where it stopped (tile-relative), or the size.
  size_t detour_verified(Tile& t, size_t from, size_t pieces, double floor) {
    const size_t did = detour_verified_span(a_ + t.begin(), t.size(), f_, mask_, ws_, pieces, floor, from,
                                            std::min(o_.probe, t.size()), work());
    return run_then(t, from, did, Strategy::detour, Strategy::compact_skip);
  }

  // pilot_v6's compact_skip for a cheap f from the tile-relative `from` (a piece's start) to the tile's end
  // (compact_skip_cut_span in the VerifyPieces of (size, pieces), counting each piece's selected elements),
  // reported as one compact_skip run; after a piece (not piece 0, not the last) with at least `cut` of its
  // elements selected, blend_skip on the rest. Returns where it cut (tile-relative), or the size.
  size_t compact_skip_cut(Tile& t, size_t from, size_t pieces, double cut) {
    const size_t did =
        compact_skip_cut_span(a_ + t.begin(), t.size(), f_, mask_, ws_, pieces, cut, from, work());
    return run_then(t, from, did, Strategy::compact_skip, Strategy::blend_skip);
  }

  // pilot_v6's tile when d_max < 0: blend_switch_scored over the tile with the options' score, starting in blend
  // when `blend` is set (the mode the tile before ended in), each run reported. Returns the mode it ends in.
  // With v6_gate, blend_switch_gated with the options' two scores; the gate's state goes on from tile to tile
  // (kept here: one per call of the pilot).
  bool switch_scored(Tile& t, bool blend) {
    const SwitchScore s{o_.v6_score_switch, o_.v6_score_blend, o_.v6_score_skip, o_.v6_score_sample};
    const auto told = [&](size_t b, size_t e, Strategy st) { report(t.begin() + b, t.begin() + e, st); };
    if (!o_.v6_gate) return blend_switch_scored(a_ + t.begin(), t.size(), f_, mask_, s, blend, work(), told);
    if (!gate_) gate_ = v6_gate_of(o_, d_max_), gate_state_ = GateState::start(gate_->c);
    return blend_switch_gated(a_ + t.begin(), t.size(), f_, mask_, *gate_, gate_state_, blend, work(), told);
  }

  // pilot_v6's tile for a cheap f with v6_cs: compact_blend_skip_scored over the tile with the options' score,
  // starting in blend_skip when `skip` is set (the mode the tile before ended in), each run reported. Returns the
  // mode it ends in.
  bool compact_scored(Tile& t, bool skip) {
    const CompactScore s{o_.v6_cs_empty,   o_.v6_cs_switch,     o_.v6_cs_block,  o_.v6_cs_reg,     o_.v6_cs_elem,
                         o_.v6_cs_to_skip, o_.v6_cs_to_compact, o_.v6_cs_sample, o_.v6_cs_probation};
    return compact_blend_skip_scored(a_ + t.begin(), t.size(), f_, mask_, ws_, s, skip, work(),
                                     [&](size_t b, size_t e, Strategy st) { report(t.begin() + b, t.begin() + e, st); });
  }

  // Reports the run of s over the tile-relative [from, did) that a pilot_v6 kernel executed; when it stopped early
  // (did < size), that is the tile's bail if the run began the tile, and `then` runs the rest. Returns did.
  size_t run_then(Tile& t, size_t from, size_t did, Strategy s, Strategy then) {
    report(t.begin() + from, t.begin() + did, s);
    if (did < t.size()) {
      if (from == 0) t.d.bail = t.begin() + did;
      run(then, t.begin() + did, t.end());
    }
    return did;
  }

  // Blend over [begin, end) counting the selected elements (the verified blend's counting pass, one block),
  // reported as blend_verified. Returns the count.
  size_t counted_blend(size_t begin, size_t end) {
    const size_t c = detail::blend_impl<false, true>(a_ + begin, end - begin, f_, mask_, work());
    report(begin, end, Strategy::blend_verified);
    return c;
  }

  // The selected lanes and the registers with one, of the 16-element block at element `at` (tile-relative to
  // nothing: an array offset; the block must lie in [0, n)).
  void sample_block(size_t at, uint32_t& count, uint32_t& registers) const {
    const Block b = load_block(a_ + at, mask_);
    work().work(Work::probed, 4);
    count = 0, registers = 0;
    for (size_t j = 0; j < 4; ++j) {
      const uint32_t code = lane_code(b.m[j]);
      count += code >> 4;
      registers += (code & 15u) != 0;
    }
  }

  // The article's blend branch: blend_skip below xlo, blend otherwise (pilot_v6 has its own: switch_scored).
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
  // Where the kernels report their work: the observer, or a NoWork when it drops the work (work.h).
  auto& work() const {
    if constexpr (drops_work<Obs>())
      return none_;
    else
      return obs_;
  }

  float* a_;
  size_t n_;
  F& f_;
  M& mask_;
  Workspace& ws_;
  PilotOptions o_;  // a copy: the probe may narrow after calibration (for_each_tile)
  Obs& obs_;
  mutable NoWork none_;
  double d_max_ = 0;
  Thresholds th_{0, 0, 0};
  std::optional<SwitchGate> gate_;  // pilot_v6's gate, from its first d_max < 0 tile on
  GateState gate_state_;
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

// pilot v6 (docs/pilot_v6.md): designed against the certified bound. v3.5's probe, but every branch that a costly
// rest of the tile could punish is verified piece by piece and falls back to compact_skip, the strategy whose worst
// case is the least (the verified blend, to the one-pass detour first when the piece it bailed on is dense enough);
// the pieces are min(v6_pieces, tile size / probe) (at least one). The one-pass compact is compact as one run over
// the pieces (one packed pass), ending after a piece (not the last) with fewer than v6_floor (a dear f:
// v6_dear_floor) of its blocks past the probe non-empty (compact_skip on the rest): plain compact's speed on random
// data; a cheap f's one-pass compact also ends after a piece (not the last) with a block past the probe holding at
// least v6_dense_block selected (blend_skip on the rest). For a dear f (d_max >= v6_band): above hi the verified
// blend as one blend_skip run (blend_skip_verified: empty blocks skipped; bailing below min(v6_bail * d_max, 1): a
// full piece never bails), from v6_lo to hi the one-pass detour, from xlo to lo the one-pass compact, else
// compact_skip. The one-pass detour is detour as one run over the pieces (one packed pass), ending after a piece
// (not the last) with fewer than v6_reg of its registers past the probe non-empty (compact_skip on the rest); after
// the verified blend bails, a piece that bailed at a density of at least v6_lo goes on in the one-pass detour, a
// sparser one in compact_skip. For a cheap f (0 <= d_max < v6_band): a probe above both hi and lo runs blend_skip
// over the tile, whose worst case (a switch per block) is the least for such an f; from xlo the one-pass compact;
// below xlo compact_skip; a cheap f's compact_skip (below xlo, and after the one-pass compact stops) is one run cut
// short after a piece (not piece 0, not the last) with at least v6_dense_cut of its elements selected, blend_skip
// on the rest. When d_max < 0 (blend is cheaper than detour even over empty registers) no probe: blend_skip and
// blend with a verdict after every block on the switch score (blend_switch_scored: v6_score_switch per switch, 1
// off per empty block; blend from v6_score_blend, back to blend_skip from v6_score_skip, one block in
// v6_score_sample counted in blend), the first decided tile starting in blend_skip and each next one in the mode
// the one before ended in (the only memory between tiles); what decides is read by the work the tile needs anyway
// and one counted block in v6_score_sample. A dear f's probe is min(probe, v6_dear_probe) elements, a cheap f's
// (0 <= d_max < v6_band) min(probe, v6_cheap_probe), and hi, xlo, lo, v6_lo and the pieces are counted over it.
template <class F, class M, class Obs = NullObserver>
void pilot_v6(float* a, size_t n, F f, M mask, Workspace& ws, const PilotOptions& o = {}, Obs&& obs = {}) {
  detail::Pilot p(a, n, f, mask, ws, o, obs);
  const auto probe_of = [&](double d_max) -> size_t {
    if (!(d_max < o.v6_band)) return std::min(o.probe, o.v6_dear_probe);  // a dear f
    if (d_max >= 0 && o.v6_cs) return o.probe;                             // a cheap f: the compact score, no probe
    if (d_max >= 0) return std::min(o.probe, o.v6_cheap_probe);            // a cheap f
    return o.probe;                                                         // d_max < 0: the switch score, no probe
  };
  bool blend = false;  // d_max < 0: the mode the tile before ended in (a cheap f with v6_cs: true = blend_skip)
  p.for_each_tile([&](detail::Tile& t) {
    if (p.th().hi < 0) {
      blend = p.switch_scored(t, blend);
      return;
    }
    if (o.v6_cs && p.d_max() < o.v6_band) {
      blend = p.compact_scored(t, blend);
      return;
    }
    const long long cnt = p.probe(t);
    const bool cheap = p.d_max() < o.v6_band;  // a cheap f (else a dear f)
    const size_t probe = p.options().probe;    // probe_of(d_max)
    const long long v6_lo = Thresholds::count(o.v6_lo, probe);
    // Pieces of at least the probe's length, so that the probe lies in the first (a short tile has fewer).
    const size_t pieces = std::max<size_t>(1, std::min(o.v6_pieces, t.size() / probe));
    const double blend_floor = std::min(o.v6_bail * p.d_max(), 1.0);  // a full piece never bails
    if (cheap && cnt > p.th().hi && cnt > p.th().lo)
      p.run(Strategy::blend_skip, t);
    else if (!cheap && cnt > p.th().hi)
      p.template verified_blend_then<true>(t, pieces, blend_floor, [&](size_t did, double last) {
        if (last < o.v6_lo)
          p.run(Strategy::compact_skip, t.begin() + did, t.end());
        else
          p.detour_verified(t, did, pieces, o.v6_reg);
      });
    else if (!cheap && cnt >= v6_lo)
      p.detour_verified(t, 0, pieces, o.v6_reg);
    else if (cnt >= p.th().xlo && (cheap || cnt < p.th().lo))
      p.compact_verified(t, pieces, cheap ? o.v6_floor : o.v6_dear_floor, cheap);
    else if (cheap)
      p.compact_skip_cut(t, 0, pieces, o.v6_dense_cut);
    else
      p.run(Strategy::compact_skip, t);
  }, probe_of);
}

namespace detail {

// pilot_v5's decision table (docs/pilot_v5.md), as numbers: the per-block cost estimates of the menu from a
// chunk's estimated density d, fraction of empty blocks e, switch rate x and non-empty registers per block r.
class V5Table {
 public:
  V5Table(const PilotOptions& o, double d_max) : o_(o) {
    T_ = d_max >= 1 ? 1e30 : (o.D - o.B) / (1.0 - std::max(d_max, -1e12));
    E_ = o.D - o.C;
    blend_ = 4 * (o.B + T_);
    can_bail_ = d_max > 0;
    blend_skip_ = !can_bail_ || blend_ <= o.rho * (4 * (o.C + o.K) + E_ + T_ / 4);
  }
  bool can_bail() const { return can_bail_; }
  // The cheapest strategy by estimate; ties go to the earlier row (the detour family first). Every product that
  // is added is an explicit std::fma, so the estimate has the same bits whether or not the compiler contracts
  // (the decision reference and the hunt's model compute the same expressions), and a skip row with no empty
  // block and no switch equals its twin exactly (the tie goes to the skip row).
  Strategy choose(double d, double e, double x, double r) const {
    const double fd = 4 * d, ck = 4 * (o_.C + o_.K), skips = std::fma(e, 4 * o_.S, o_.M * x);
    const double g = std::fma(r, E_, fd * T_), h = std::fma(fd, T_, 4 * E_);
    const std::array<std::pair<Strategy, double>, 6> rows{{
        {Strategy::compact_skip, std::fma(1 - e, ck, skips) + g},
        {Strategy::compact, ck + g},
        {Strategy::detour_skip, std::fma(1 - e, 4 * o_.C, skips) + h},
        {Strategy::detour, 4 * o_.C + h},
        {Strategy::blend, blend_},
        {Strategy::blend_skip, std::fma(1 - e, blend_, skips)},
    }};
    Strategy best = Strategy::compact_skip;
    double cost = std::numeric_limits<double>::infinity();
    for (const auto& [s, c] : rows) {
      if (s == Strategy::blend_skip && !blend_skip_) continue;
      if (c < cost) cost = c, best = s;
    }
    return best;
  }

 private:
  const PilotOptions& o_;
  double T_ = 0, E_ = 0, blend_ = 0;
  bool can_bail_ = false, blend_skip_ = false;
};

// splitmix64's finalizer: v5's probe positions.
constexpr uint64_t v5_mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline constexpr size_t kV5MaxPairs = 32;  // v5 reads at most 32 pairs of blocks (1024 elements) per tile

}  // namespace detail

// pilot v5: a probe of probe / 32 pairs of adjacent blocks (at most 32), one pair in each equal slice of the
// tile at an offset hashed from (seed, tile index, pair); each of the verify_blocks chunks of the tile gets the
// strategy the cost model estimates cheapest from its own pair and the other pairs at weight `shrink`
// (consecutive chunks with one plan run as one run). A planned blend runs counted chunk by chunk when d_max > 0;
// a chunk counted below d_max (the break-even) makes the rest of the tile trust only its own pairs. No memory
// between tiles. The probe count reported is the pairs' selected elements (scaled to a full probe).
template <class F, class M, class Obs = NullObserver>
void pilot_v5(float* a, size_t n, F f, M mask, Workspace& ws, const PilotOptions& o = {}, Obs&& obs = {}) {
  detail::Pilot p(a, n, f, mask, ws, o, obs);
  struct Pair {
    size_t chunk;
    uint32_t c[2], r[2];
  };
  std::array<Pair, detail::kV5MaxPairs> pairs;
  std::optional<detail::V5Table> table;
  p.for_each_tile([&](detail::Tile& t) {
    if (!table) table.emplace(o, p.d_max());
    const size_t size = t.size(), blocks = size / 16;
    const VerifyPieces chunks(size, o.verify_blocks);
    const size_t nc = chunks.count, len = chunks.len;
    const size_t np = std::min({o.probe / 32, blocks / 2, detail::kV5MaxPairs});
    long long count = 0;
    for (size_t j = 0; j < np; ++j) {
      const size_t slice = blocks / np;
      const size_t block = j * slice + detail::v5_mix(o.seed ^ detail::v5_mix(t.d.index * 0x100000001b3ull + j)) %
                                           (slice - 1);
      Pair& q = pairs[j];
      q.chunk = std::min(nc - 1, 16 * block / len);
      p.sample_block(t.begin() + 16 * block, q.c[0], q.r[0]);
      p.sample_block(t.begin() + 16 * block + 16, q.c[1], q.r[1]);
      count += q.c[0] + q.c[1];
    }
    t.d.source = CountSource::probe;
    t.d.probed = 32 * np;
    t.d.count = np == 0 || 32 * np == o.probe ? count : count * static_cast<long long>(o.probe) /
                                                            static_cast<long long>(32 * np);
    double shrink = o.shrink;
    const auto plan = [&](size_t k) {
      double c = 0, e = 0, x = 0, r = 0, w_blocks = 0, w_pairs = 0;
      for (int pass = 0; pass < 2 && w_blocks == 0; ++pass)
        for (size_t j = 0; j < np; ++j) {
          const Pair& q = pairs[j];
          const double w = pass == 1 || q.chunk == k ? 1.0 : shrink;
          if (w == 0) continue;
          c = std::fma(w, q.c[0] + q.c[1], c);
          e = std::fma(w, (q.c[0] == 0) + (q.c[1] == 0), e);
          r = std::fma(w, q.r[0] + q.r[1], r);
          x = std::fma(w, (q.c[0] == 0) != (q.c[1] == 0), x);
          w_blocks += 2 * w, w_pairs += w;
        }
      if (w_blocks == 0) return table->choose(0, 0, 0, 0);
      const double ef = e / w_blocks;
      return table->choose(c / (16 * w_blocks), ef, std::fma(o.kappa * 2 * ef, 1 - ef, x) / (w_pairs + o.kappa),
                           r / w_blocks);
    };
    const auto chunk_end = [&](size_t k) { return chunks.end(k, size); };
    size_t k = 0;
    while (k < nc) {
      const Strategy s = plan(k);
      const size_t b = k * len;
      if (s == Strategy::blend && table->can_bail()) {
        const size_t e = chunk_end(k);
        const size_t c = p.counted_blend(t.begin() + b, t.begin() + e);
        ++k;
        if (k < nc && static_cast<double>(c) / static_cast<double>(e - b) < p.d_max()) {
          if (t.d.bail == kNoBail) t.d.bail = t.begin() + e;
          shrink = 0;
        }
      } else {
        size_t j = k + 1;
        while (j < nc && plan(j) == s) ++j;
        p.run(s, t.begin() + b, t.begin() + chunk_end(j - 1));
        k = j;
      }
    }
  });
}

}  // namespace maskapply
