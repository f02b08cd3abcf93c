// SPDX-License-Identifier: MIT
#include "v5_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace maskapply::gen::hunt {

namespace {

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct Plan {
  Strategy best;
  std::array<double, 6> cost;  // per row of the table (compact_skip, compact, detour_skip, detour, blend, blend_skip)
};

struct Sample {
  size_t block;    // tile-relative block index of the pair's first block
  uint32_t c[2];   // selected per block
  uint32_t r[2];   // nonempty registers per block
};

}  // namespace

namespace {
// The first block of pair j in a tile whose slices have `slice` blocks (the rule's probe positions).
size_t pair_block(const V5Params& p, size_t tile_index, size_t j, size_t slice) {
  const size_t span = slice > 1 ? slice - 1 : 1;
  const size_t off = p.random ? splitmix(p.seed ^ splitmix(tile_index * 0x100000001b3ull + j)) % span : span / 2;
  return j * slice + off;
}
}  // namespace

std::vector<size_t> v5_probe_blocks(const PilotOptions& o, size_t tile_index, size_t size) {
  const V5Params p = v5_params(o);
  const size_t nb = size / 16, np = std::min({o.probe / 32, nb / 2, size_t{32}});
  std::vector<size_t> out;
  if (np == 0) return out;
  for (size_t j = 0; j < np; ++j) {
    const size_t b = pair_block(p, tile_index, j, nb / np);
    out.push_back(b), out.push_back(b + 1);
  }
  return out;
}

V5Params v5_params(const PilotOptions& o) {
  V5Params p;
  p.C = o.C, p.S = o.S, p.K = o.K, p.M = o.M, p.seed = o.seed, p.shrink = o.shrink, p.kappa = o.kappa, p.rho = o.rho;
  return p;
}

void simulate_v5(const Summary& s, const PilotOptions& o, const V5Params& p, Trace& out) {
  if (const std::string err = o.validate(); !err.empty()) throw std::invalid_argument("maskapply: " + err);
  if (!o.d_max) throw std::invalid_argument("simulate_v5 needs an injected d_max");
  out.clear();
  const double dm = *o.d_max;
  const double pr = static_cast<double>(o.probe);
  const auto conv = [&](double x) { return static_cast<long long>(std::clamp(x, -2.0, 2.0) * pr); };
  const long long hi = conv(dm), xlo = conv(o.xlo), lo = conv(o.lo);
  const size_t n = s.size();
  const size_t region = std::min(n, o.calib_blocks * o.calib_len);
  size_t index = 0;
  const auto fresh = [&](size_t b, size_t e) {
    TileDecision d;
    d.index = index++, d.begin = b, d.end = e, d.hi = hi, d.xlo = xlo, d.lo = lo, d.d_max = dm;
    return d;
  };
  const auto run = [&](size_t b, size_t e, Strategy st) {
    if (b < e) out.runs.push_back(Run{b, e, st});
    return s.count(b, e);
  };
  for (size_t i = 0; i < region; i += o.calib_len) {
    TileDecision d = fresh(i, std::min(i + o.calib_len, region));
    d.source = CountSource::calibration;
    run(d.begin, d.end, Strategy::blend);
    out.tiles.push_back(d);
  }
  // f per register from the calibration: d_max = 1 - (D - B) / T.
  const double T = dm >= 1 ? 1e30 : (o.D - o.B) / (1.0 - std::max(dm, -1e12));
  const double E = o.D - p.C;
  const double bl = 4 * (o.B + T);
  // blend_skip cannot be verified: it is on the menu only when blending one sparse non-empty block costs at most
  // rho times compacting it (cheap f), so an unseen sparse region costs it at most rho.
  const bool bs_safe = bl <= p.rho * (4 * (p.C + p.K) + E + T / 4);
  const auto choose = [&](double d, double e, double x, double r, bool allow_blend, bool can_bail) {
    // Cheaper-if-wrong first: ties go to the detour family.
    // As the kernel's V5Table::choose: every added product an explicit std::fma (the same bits with or without
    // contraction), a skip row with no empty block and no switch equal to its twin.
    const double fd = 4 * d, ck = 4 * (p.C + p.K), skips = std::fma(e, 4 * p.S, p.M * x);
    const double g = std::fma(r, E, fd * T), h = std::fma(fd, T, 4 * E);
    const std::array<std::pair<Strategy, double>, 6> c{{
        {Strategy::compact_skip, std::fma(1 - e, ck, skips) + g + p.skip_margin * (ck + g)},
        {Strategy::compact, ck + g},
        {Strategy::detour_skip, std::fma(1 - e, 4 * p.C, skips) + h + p.skip_margin * (4 * p.C + h)},
        {Strategy::detour, 4 * p.C + h},
        {Strategy::blend, bl},
        {Strategy::blend_skip, std::fma(1 - e, bl, skips) + p.skip_margin * bl},
    }};
    Plan out{Strategy::compact_skip, {}};
    double cost = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < 6; ++i) out.cost[i] = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < 6; ++i) {
      const auto& [st, v] = c[i];
      if (!allow_blend && (st == Strategy::blend || st == Strategy::blend_skip)) continue;
      if (st == Strategy::blend_skip && (p.skip_blend_skip || (can_bail && p.bs_mode == 0) ||
                                         (can_bail && p.bs_mode == 2 && !bs_safe)))
        continue;
      out.cost[i] = v;
      if (v < cost) cost = v, out.best = st;
    }
    return out;
  };
  std::vector<Sample> samples;
  std::vector<Plan> plan;
  for (size_t t0 = region; t0 < n; t0 += o.tile) {
    TileDecision d = fresh(t0, std::min(t0 + o.tile, n));
    const size_t size = d.end - d.begin, nb = size / 16;
    // The probe.
    samples.clear();
    size_t np = std::min({o.probe / 32, nb / 2, size_t{32}});
    if (p.cheap_pairs && !(dm > 0)) np = std::min(np, p.cheap_pairs);
    size_t probed = 0;
    const auto block = [&](size_t b, uint32_t& c, uint32_t& r) {
      const size_t e0 = d.begin + 16 * b;
      if (e0 % 16 == 0 && e0 + 16 <= n) {  // a whole block of the summary: the same two counts
        const BlockSummary& bs = s.blocks()[e0 / 16];
        c = bs.selected, r = bs.nonempty;
        return;
      }
      c = static_cast<uint32_t>(s.count(e0, e0 + 16));
      r = 0;
      for (size_t k = 0; k < 4; ++k) r += s.count(e0 + 4 * k, e0 + 4 * k + 4) != 0;
    };
    if (p.spread && np > 0) {
      const size_t slice = nb / np;
      for (size_t j = 0; j < np; ++j) {
        Sample sm{pair_block(p, d.index, j, slice), {0, 0}, {0, 0}};
        block(sm.block, sm.c[0], sm.r[0]);
        block(sm.block + 1, sm.c[1], sm.r[1]);
        samples.push_back(sm);
        probed += 32;
      }
    } else {
      for (size_t b = 0; b + 1 < std::min(nb, o.probe / 16); b += 2) {
        Sample sm{b, {0, 0}, {0, 0}};
        block(b, sm.c[0], sm.r[0]);
        block(b + 1, sm.c[1], sm.r[1]);
        samples.push_back(sm);
        probed += 32;
      }
    }
    long long cnt = 0;
    for (const Sample& sm : samples) cnt += sm.c[0] + sm.c[1];
    d.source = CountSource::probe;
    d.probed = probed;
    d.count = probed == o.probe || probed == 0 ? cnt : cnt * static_cast<long long>(o.probe) / static_cast<long long>(probed);
    // Per chunk, a plan from the samples in chunks [k - w, k + w].
    const size_t V = o.verify_blocks;
    const size_t len = verify_len(size, V), nc = verify_count(size, V);
    const auto chunk_of = [&](size_t blk) { return std::min(nc - 1, 16 * blk / len); };
    const bool can_bail = p.bail_f * dm > 0;
    size_t window = p.window;
    double shrink = p.shrink;
    // Every pair at weight 1 (the candidates kappa_adapt, indep_z, adapt, x_mode): switches sw, empty blocks em,
    // the pairs npd, and the switch rate xi that independently placed empty blocks would give.
    double sw = 0, em = 0;
    for (const Sample& sm : samples) sw += (sm.c[0] == 0) != (sm.c[1] == 0), em += (sm.c[0] == 0) + (sm.c[1] == 0);
    const double npd = static_cast<double>(samples.size()), et = npd > 0 ? em / (2 * npd) : 0, xi = 2 * et * (1 - et);
    const double ratio = xi > 0 ? std::min(1.0, sw / npd / xi) : 1.0;  // observed switches / independence's, <= 1
    // kappa_adapt: the independence prior weighs as much as the pairs' switches support it.
    const double kappa = p.kappa_adapt ? p.kappa * ratio : p.kappa;
    // indep_z: do the pairs' switches look like independently placed empty blocks?
    const bool indep = p.indep_z > 0 && xi > 0 && sw >= npd * xi - p.indep_z * std::sqrt(npd * xi * (1 - xi));
    // adapt: the others' weight rises to 1 as the pairs' switches reach independence's.
    if (p.adapt && npd > 0) shrink = shrink + (1 - shrink) * ratio;
    double fb_c = 0, fb_e = 0, fb_r = 0, fb_g = 0, fb_x = 0;  // skip_feedback 2: what the skip chunks reported
    const auto est = [&](size_t k, bool allow_blend) {
      double c = 0, e = 0, x = 0, r = 0, blocks = 0, pairs = 0;
      const size_t lo_k = k >= window ? k - window : 0, hi_k = k + window;
      for (int pass = 0; pass < 2 && blocks == 0; ++pass)
        for (const Sample& sm : samples) {
          const size_t ck = chunk_of(sm.block);
          double w = 1;
          if (pass == 0 && (ck < lo_k || ck > hi_k)) {
            if (shrink <= 0) continue;
            w = shrink;
          }
          // Per pair, in the kernel's order and with its explicit fma (any shrink gives the kernel's bits).
          c = std::fma(w, sm.c[0] + sm.c[1], c);
          e = std::fma(w, (sm.c[0] == 0) + (sm.c[1] == 0), e);
          r = std::fma(w, sm.r[0] + sm.r[1], r);
          x = std::fma(w, (sm.c[0] == 0) != (sm.c[1] == 0), x);
          blocks += 2 * w, pairs += w;
        }
      if (p.prior > 0) c += p.prior, r += p.prior, blocks += p.prior;
      c += fb_c, e += fb_e, r += fb_r, blocks += fb_g, x += fb_x, pairs += fb_g;
      if (blocks == 0) return choose(0, 0, 0, 0, allow_blend, can_bail);
      const double ef = e / blocks;
      if (p.x_mode) {  // the switch rate from every pair at weight 1
        const double ep = p.x_mode == 1 ? et : ef;
        x = sw, pairs = npd;
        const double xf = (std::fma(kappa * 2 * ep, 1 - ep, x) + p.lambda) / (pairs + kappa + p.lambda);
        return choose(c / (16 * blocks), ef, xf, r / blocks, allow_blend, can_bail);
      }
      if (indep) return choose(c / (16 * blocks), ef, 2 * ef * (1 - ef), r / blocks, allow_blend, can_bail);
      const double xf = (std::fma(kappa * 2 * ef, 1 - ef, x) + p.lambda) / (pairs + kappa + p.lambda);
      return choose(c / (16 * blocks), ef, pairs + kappa + p.lambda > 0 ? xf : 0, r / blocks, allow_blend, can_bail);
    };
    plan.resize(nc);
    for (size_t k = 0; k < nc; ++k) plan[k] = est(k, true);
    size_t k = 0;
    while (k < nc) {
      const size_t b = k * len;
      const Strategy st = plan[k].best;
      if (st == Strategy::blend && can_bail) {
        const size_t e = k + 1 == nc ? size : b + len;
        const size_t c = run(d.begin + b, d.begin + e, Strategy::blend_verified);
        ++k;
        if (k < nc && static_cast<double>(c) / static_cast<double>(e - b) < p.bail_f * dm) {
          if (d.bail == kNoBail) d.bail = d.begin + e;
          if (window != p.bail_window || shrink != p.bail_shrink) {
            window = p.bail_window, shrink = p.bail_shrink;
            for (size_t j = k; j < nc; ++j) plan[j] = est(j, true);
          }
          if (!p.blend_after_bail)
            for (size_t j = k; j < nc; ++j) plan[j] = est(j, false);
        }
      } else if (p.skip_feedback && st == Strategy::blend_skip) {
        // Exploration only: a blend_skip that reports its empty blocks and switches (no such kernel; its count is
        // not charged). After a chunk where it cost more than blend would have, the rest of the tile blends.
        const size_t e = k + 1 == nc ? size : b + len;
        run(d.begin + b, d.begin + e, st);
        const SpanStats ss = s.stats(d.begin + b, d.begin + e);
        const double g = static_cast<double>(ss.blocks), ge = static_cast<double>(ss.empty_blocks);
        ++k;
        if (p.skip_feedback == 1) {
          if ((g - ge) * bl + ge * 4 * p.S + static_cast<double>(ss.switches) * p.M > g * bl)
            for (size_t j = k; j < nc; ++j)
              if (plan[j].best == Strategy::blend_skip) plan[j].best = Strategy::blend;
        } else {  // 2: the chunk's exact counts join every later chunk's estimate at weight fb_w per block
          fb_e += p.fb_w * ge, fb_g += p.fb_w * g, fb_x += p.fb_w * static_cast<double>(ss.switches);
          fb_c += p.fb_w * static_cast<double>(ss.selected), fb_r += p.fb_w * static_cast<double>(ss.nonempty_registers);
          for (size_t j = k; j < nc; ++j) plan[j] = est(j, true);
        }
      } else {
        size_t j = k + 1;
        // A detour-family run continues over a chunk planned for another detour-family strategy when that
        // chunk's estimate for the run's strategy exceeds its best by at most a new run's expected packed waste.
        const auto packs = [](Strategy s) { return s != Strategy::blend && s != Strategy::blend_skip; };
        const auto row = [](Strategy s) { return static_cast<size_t>(s == Strategy::compact_skip ? 0 : s == Strategy::compact ? 1 : s == Strategy::detour_skip ? 2 : s == Strategy::detour ? 3 : s == Strategy::blend ? 4 : 5); };
        const auto joins = [&](size_t j) {
          if (plan[j].best == st) return true;
          if (!(p.split > 0) || !packs(st) || !packs(plan[j].best)) return false;
          const double blocks_j = static_cast<double>((j + 1 == nc ? size : (j + 1) * len) - j * len) / 16;
          return (plan[j].cost[row(st)] - plan[j].cost[row(plan[j].best)]) * blocks_j <= p.split * T;
        };
        while (j < nc && joins(j) && (p.esc_chunks == 0 || j < k + p.esc_chunks)) ++j;
        const size_t e = j == nc ? size : j * len;
        const size_t c = run(d.begin + b, d.begin + e, st);
        if (j < nc && st != Strategy::blend && st != Strategy::blend_skip && p.esc_chunks &&
            static_cast<double>(c) / static_cast<double>(e - b) > p.esc_f * dm)
          plan[j].best = Strategy::blend;
        k = j;
      }
    }
    out.tiles.push_back(d);
  }
}

}  // namespace maskapply::gen::hunt
