// SPDX-License-Identifier: MIT
// pilot_v6 (docs/pilot_v6.md) against the pilots it was designed to beat, on the model: its certified bound (the
// bound's own program, generators/hunt/bound.cpp, exact on the small settings of generators_bound_test) below
// every certified bound of v1, v2, v3 and v3.5 for every f (sqrt, d_max < 0, included: v6 runs no probe there and
// cuts its blend_skip short, where v1 blends everything and v2 .. v3.5 run the article's blend branch); its model cost on
// uniform random selections within its measured ceiling per f over the best of v1-v4 (the 3 % for every f
// but pow10, docs/pilot_v6.md says where and why); the article's three countertests under their f within
// their measured ceilings.
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

namespace maskapply::gen::hunt {
namespace {

constexpr Fn kFns[] = {Fn::sqrt, Fn::frfrexp, Fn::sin35, Fn::sin10, Fn::pow10, Fn::fma13};

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
  for (const Fn f : kFns) {
    if (emulated && f != Fn::sqrt && f != Fn::fma13) continue;
    const double v6 = certified(Kernel::pilot_v6, f);
    // sqrt (d_max < 0): v1 blends everything (2.407 at 36 tiles, v6 2.391: docs/pilot_v6.md; 2.420 while v6 probed).
    double best = 1e300;
    Kernel arg = Kernel::pilot_v1;
    for (const Kernel k : {Kernel::pilot_v1, Kernel::pilot_v2, Kernel::pilot_v3, Kernel::pilot_v3_5}) {
      const double b = certified(k, f);
      if (b < best) best = b, arg = k;
    }
    std::printf("%-8s pilot_v6 certified %.4f, best of v1-v3.5 %.4f (%s), n = %zu\n", std::string(name(f)).c_str(), v6,
                best, std::string(name(arg)).c_str(), kBoundN);
    EXPECT_LT(v6, best) << name(f) << " (rerun: maskapply hunt --pilot v6," << name(arg) << " --f " << name(f)
                        << " --n " << kBoundN << " --seconds 0 --budget 0)";
  }
}

// The uniform random selection at density d from seed (every element selected with probability d).
Summary uniform(double d, uint64_t seed, size_t n) {
  char text[128];
  std::snprintf(text, sizeof text, "period %zu\nseed %llu\nseg rest:~%.17g\n", n, static_cast<unsigned long long>(seed), d);
  const ParseResult p = parse_pattern(text);
  EXPECT_TRUE(p) << text;
  Summary s;
  s.assign(p.pattern(), n);
  return s;
}

TEST(PilotV6, CostsWithinItsMeasuredCeilingPerFOverTheBestOfV1ToV4OnUniformRandomSelections) {
  // Measured worst per f (docs/pilot_v6.md, "What it costs on plain data"): sqrt 1.021 (0.03), frfrexp 1.027
  // (0.03), fma13 1.027 (0.03), sin35 1.029 (0.2; 1.028 at 0.6), sin10 1.027 (0.02), pow10 1.037 (0.02; 1.035 at
  // 1.0). The one-pass detour from v6_lo = 0.16 and the verified blend's bail going on in it (2026-12-06) brought
  // sin35 from 1.121 (0.6) and sin10 from 1.073 (0.5), where compact_skip ran between lo and lo6 = 0.6 and after
  // the blend's bail near d_max; pow10's 1.037 at 0.02 is the one-pass compact's stop (a second packed pass).
  // Every f but pow10 is held to issue 29's 1.03.
  struct Ceiling {
    Fn f;
    double max;
  };
  const Ceiling ceilings[] = {{Fn::sqrt, 1.03},  {Fn::frfrexp, 1.03}, {Fn::sin35, 1.03},
                              {Fn::sin10, 1.03}, {Fn::pow10, 1.04},  {Fn::fma13, 1.03}};
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

TEST(PilotV6, TheArticlesCountertestsStayWithinTheirMeasuredCeilings) {
  struct Case {
    const char* file;
    Fn f;
    double ceiling;  // issue 29: 1.10 (measured 1.0121, 1.0236, 1.0695)
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
