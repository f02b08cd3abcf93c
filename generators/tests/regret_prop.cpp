// SPDX-License-Identifier: MIT
// Property: regret against the block oracle is >= 1 for every input. Random selections (random segments of
// random length and density, or raw random bits), every pilot, every f, random options on the block grid,
// a random injected d_max, the m5 model or a random one. The pilot's traced schedule is one of the oracle's
// schedules (regret.h), so neither the decided-tiles figure nor the whole-array one can go below 1 (up to
// rounding in the last bits). A failure prints RapidCheck's reproduce line.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "evaluate.h"
#include "regret.h"

namespace maskapply::gen {
namespace {

constexpr std::array<Kernel, 6> kPilots{Kernel::pilot_v1, Kernel::pilot_v2, Kernel::pilot_v3, Kernel::pilot_v3_5,
                                        Kernel::pilot_v4, Kernel::pilot_v5};

// A regular density in 64ths: sparse ones (below the article's xlo = 0.014 is 1/64 and below), eighths, 0 and 1.
size_t density64() { return *rc::gen::element<size_t>(0, 1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64); }

// Random segments (a length, often a multiple of 16 or of a tile's fraction, and a regular density), repeated
// with a period when `period` is not 0 (so every tile looks alike, as the article's countertests); or raw bits.
std::vector<uint8_t> random_selection(size_t n, size_t period) {
  std::vector<uint8_t> sel(n);
  if (*rc::gen::inRange(0, 4) == 0) {
    for (auto& x : sel) x = *rc::gen::inRange(0, 2);
    return sel;
  }
  const size_t span = period ? std::min(period, n) : n;
  size_t i = 0;
  if (period && *rc::gen::inRange(0, 2) == 0) {  // a head of a/8 of the period at one density, the rest at another
    const size_t head = period * static_cast<size_t>(*rc::gen::inRange(1, 8)) / 8;
    const size_t d1 = density64(), d2 = density64();
    for (; i < span; ++i) sel[i] = (i * (i < head ? d1 : d2)) % 64 < (i < head ? d1 : d2) ? 1 : 0;
  }
  while (i < span) {
    const size_t len = *rc::gen::element<size_t>(1, 7, 16, 64, 200, 256, 390, 512, 1024, 2048, 4096) *
                       static_cast<size_t>(*rc::gen::inRange(1, 4));
    const size_t d = density64();
    for (size_t k = 0; k < len && i < span; ++k, ++i) sel[i] = (k * d) % 64 < d ? 1 : 0;
  }
  for (; i < n; ++i) sel[i] = sel[i - span];
  return sel;
}

RC_GTEST_PROP(RegretProperty, againstTheBlockOracleIsAtLeastOneForEveryPilotPatternOptionsDmaxAndF, ()) {
  const Kernel k = *rc::gen::elementOf(kPilots);
  const Fn f = *rc::gen::elementOf(kArticleFns);
  PilotOptions o;
  const size_t vb = *rc::gen::inRange<size_t>(1, 9);
  o.verify_blocks = vb;
  o.tile = 16 * vb * *rc::gen::inRange<size_t>(1, 33);  // verify blocks of whole 16-element blocks
  o.probe = *rc::gen::arbitrary<bool>() ? std::max<size_t>(1, o.tile / 16) : *rc::gen::inRange<size_t>(1, o.tile + 1);
  o.calib_blocks = *rc::gen::inRange<size_t>(0, 5);
  o.calib_len = 16 * *rc::gen::inRange<size_t>(1, 64);
  if (*rc::gen::arbitrary<bool>()) {  // else the article's
    o.xlo = *rc::gen::inRange(0, 100) / 1000.0;
    o.lo = *rc::gen::inRange(0, 500) / 1000.0;
    o.bail = *rc::gen::inRange(0, 150) / 100.0;
  }
  o.distrust = *rc::gen::inRange<size_t>(0, 20);
  const size_t tiles = *rc::gen::inRange<size_t>(0, 13);
  const size_t extra = *rc::gen::element<size_t>(0, 0, 0, 5, 16 * vb);  // a short last tile, sometimes misaligned
  const size_t n = std::max<size_t>(1, o.calib_blocks * o.calib_len + tiles * o.tile + extra);
  CostModel m = CostModel::m5();
  if (*rc::gen::arbitrary<bool>()) {  // any model with non-negative constants
    const auto c = [] { return *rc::gen::inRange(0, 3000) / 1000.0; };
    m.B = c(), m.C = c(), m.D = m.C + c(), m.S = c(), m.K = c(), m.M = 4 * c(), m.V = c() / 10, m.Q = c(), m.F = c();
    for (double& t : m.T) t = 10 * c();
  }
  // The pilot calibrated for the model (as the report runs it), or any d_max.
  o.d_max = *rc::gen::arbitrary<bool>() ? m.d_max(f) : *rc::gen::inRange(-150, 151) / 100.0;
  const size_t period = *rc::gen::element<size_t>(0, o.tile, o.tile, 2 * o.tile, 17 * o.tile);
  const std::vector<uint8_t> sel = random_selection(n, period);
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = sel[i] ? 0.0f : 1.0f;
  Workspace ws(o.tile);
  Trace trace;
  run_kernel(k, f, MaskSpec{MaskKind::less, 0.5f, 0, 0}, in.data(), n, ws, o, &trace);
  const Regret g = model_regret(trace, sel, m, f, o);
  RC_CLASSIFY(g.aligned, "aligned");
  RC_CLASSIFY(g.tiles == 0, "no decided tile");
  RC_CLASSIFY(g.tiles && g.vs_tile_oracle < 1, "beats the per-tile oracle");
  RC_TAG(std::string(name(k)));
  RC_PRE(g.aligned);  // the bound is claimed for schedules on the block grid (regret.h)
  const double slack = 1e-9;
  if (g.tiles) RC_ASSERT(g.pilot_cost >= g.oracle_cost * (1 - slack));
  RC_ASSERT(g.whole_pilot_cost >= g.whole_oracle_cost * (1 - slack));
  if (g.tiles && g.oracle_cost > 0) RC_ASSERT(g.vs_oracle >= 1 - slack);
  if (g.whole_oracle_cost > 0) RC_ASSERT(g.whole >= 1 - slack);
}

}  // namespace
}  // namespace maskapply::gen
