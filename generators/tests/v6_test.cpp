// SPDX-License-Identifier: MIT
// pilot_v6 (docs/pilot_v6.md) against the pilots it was designed to beat, on the model: certified below every
// certified bound of v1, v2, v3 and v3.5 for every f (the bound's own program, generators/hunt/bound.cpp, exact on
// the small settings of generators_bound_test; sqrt, d_max < 0, included: v6 runs no probe there and cuts its
// blend_skip short, where v1 blends everything and v2 .. v3.5 run the article's blend branch); its model cost on
// uniform random selections within issue 29's 3 % of the best of v1-v4 for every f; the article's three
// countertests under their f within the 1.10.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "bound.h"
#include "emulation.h"
#include "pattern_file.h"
#include "search.h"
#include "tune.h"

namespace maskapply::gen::hunt {
namespace {


// Five decided tiles after the article's calibration region: the tile programs are what the bound costs.
constexpr size_t kBoundN = 8192 + 5 * 4096;

double certified(Kernel k, Fn f) {
  const CostModel m = CostModel::m5();
  return regret_bound(k, f, m, model_options(m, f), kBoundN).bound;
}

TEST(PilotV6, IsCertifiedBelowEveryCertifiedV1ToV3_5ForEveryF) {
  const CostModel m = CostModel::m5();
  // Under an emulator (gen::under_emulation(): the qemu presets, an emulated arm64 system) two f, the same doubles.
  const bool emulated = under_emulation();
  for (const Fn f : kArticleFns) {
    if (emulated && f != Fn::sqrt && f != Fn::fma13) continue;
    // sqrt (d_max < 0): v1 blends everything (2.407 at 36 tiles, v6 2.391: docs/pilot_v6.md; 2.420 while v6 probed).
    double best = 1e300;
    Kernel arg = Kernel::pilot_v1;
    for (const Kernel k : {Kernel::pilot_v1, Kernel::pilot_v2, Kernel::pilot_v3, Kernel::pilot_v3_5}) {
      const double b = certified(k, f);
      if (b < best) best = b, arg = k;
    }
    // pilot_v6 is certified below `best` iff F(best) = max_x [P(x) - best O(x)] < 0 (bound.h): one program at
    // that lambda, no Dinkelbach iterations and no witness (its figure: the hunt, the rerun line below). The
    // program is exact up to rounding many orders below the gaps (sqrt's, the least: 0.011 O).
    // With d_max < 0 pilot_v6's gate is certified by its potential (gate_bound.h), in milliseconds: its bound.
    const PilotOptions o = model_options(m, f);
    const bool gate = certified_by_gate(Kernel::pilot_v6, o);
    const double F = gate ? regret_bound(Kernel::pilot_v6, f, m, o, kBoundN).bound - best
                          : bound_objective(Kernel::pilot_v6, f, m, o, kBoundN, best);
    std::printf("%-8s best of v1-v3.5 %.4f (%s); pilot_v6's %s %.4g (< 0: certified below), n = %zu\n",
                std::string(name(f)).c_str(), best, std::string(name(arg)).c_str(),
                gate ? "gated bound minus it" : "F at it", F, kBoundN);
    EXPECT_LT(F, 0) << name(f) << " (rerun: maskapply hunt --pilot v6," << name(arg) << " --f " << name(f)
                    << " --n " << kBoundN << " --seconds 0 --budget 0)";
  }
}

// The uniform random selection at density d from seed (every element selected with probability d).
Summary uniform(double d, uint64_t seed, size_t n) {
  Summary s;
  s.assign(uniform_pattern(n, d, seed), n);
  return s;
}

TEST(PilotV6, CostsAtMost1_03TimesTheBestOfV1ToV4OnUniformRandomSelectionsForEveryF) {
  // Measured worst per f (docs/pilot_v6.md, "What it costs on plain data"): sqrt 1.021 (0.03), frfrexp 1.027
  // (0.03), fma13 1.027 (0.03), sin35 1.029 (0.2; 1.028 at 0.6), sin10 1.025 (0.2), pow10 1.018 (0.02). Every f is
  // held to issue 29's 1.03. pow10 was at 1.037 (0.02: its one-pass compact stopping on a sparse piece, now at
  // v6_dear_floor 0.12) and 1.035 (1.0: every piece of its verified blend bailed, now a blend_skip run whose floor
  // is capped at 1) before 2026-12-06.
  struct Ceiling {
    Fn f;
    double max;
  };
  const Ceiling ceilings[] = {{Fn::sqrt, 1.03},  {Fn::frfrexp, 1.03}, {Fn::sin35, 1.03},
                              {Fn::sin10, 1.03}, {Fn::pow10, 1.03},  {Fn::fma13, 1.03}};
  constexpr size_t n = 8192 + 94 * 4096;
  const CostModel m = CostModel::m5();
  for (const auto& [f, ceiling] : ceilings) {
    double worst = 0, at = 0;
    for (const double d : {0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.6, 0.7, 0.9, 1.0})
      for (const uint64_t seed : {1, 2}) {
        const Summary s = uniform(d, seed, n);
        double best = 1e300;
        for (const Kernel k : kPilots)
          if (k < Kernel::pilot_v5) best = std::min(best, Scorer(k, f, m).score(s).pilot_cost);
        const double r = Scorer(Kernel::pilot_v6, f, m).score(s).pilot_cost / best;
        if (r > worst) worst = r, at = d;
        EXPECT_LE(r, ceiling) << name(f) << " density " << d << " seed " << seed;
      }
    std::printf("%-8s pilot_v6 on uniform random selections: worst %.4f x the best of v1-v4 (density %g)\n",
                std::string(name(f)).c_str(), worst, at);
  }
}

TEST(PilotV6, TheArticlesCountertestsCostItAtMost1_10TimesTheBlockOracle) {
  struct Case {
    const char* file;
    Fn f;
    double ceiling;  // issue 29: 1.10 (measured 1.0148, 1.0183, 1.0129)
  };
  const Case cases[] = {{"article-step-pilot_v3-pow10.pattern", Fn::pow10, 1.10},
                        {"article-offset390-pilot_v3_5-pow10.pattern", Fn::pow10, 1.10},
                        {"article-cycle17-pilot_v4-fma13.pattern", Fn::fma13, 1.10}};
  const CostModel m = CostModel::m5();
  for (const Case& c : cases) {
    std::ifstream in(std::string(MASKAPPLY_COUNTERTESTS_DIR) + "/" + c.file);
    ASSERT_TRUE(in) << c.file;
    std::stringstream ss;
    ss << in.rdbuf();
    const ParseResult p = parse_pattern(ss.str());
    ASSERT_TRUE(p) << c.file;
    Summary s;
    s.assign(p.pattern(), p.pattern().length);
    const double r = Scorer(Kernel::pilot_v6, c.f, m).score(s).regret;
    std::printf("%s under %s: pilot_v6 model regret %.4f\n", c.file, std::string(name(c.f)).c_str(), r);
    EXPECT_LE(r, c.ceiling) << c.file;
  }
}

}  // namespace
}  // namespace maskapply::gen::hunt
