// SPDX-License-Identifier: MIT
// pilot_v6's design by measurement (docs/pilot_v6.md, "Rules tried"): for each f under m5 at n = 147 456, its
// certified bound (bisection of the bound's F(lambda) to 2^-14, no witness) and its worst model cost over the best
// of v1-v4 on uniform random selections (densities 0.005-1, seeds 1 and 2). Options from the environment:
// X_PROBE=probe X_VB=v6_pieces X_BAIL=v6_bail X_LOD=v6_lo X_FLOOR=v6_floor X_BAND=v6_band
// X_SW=v6_score_switch X_TB=v6_score_blend X_TS=v6_score_skip X_SAMP=v6_score_sample X_DC=v6_dense_cut X_DB=v6_dense_block X_REG=v6_reg X_DFLOOR=v6_dear_floor X_DPROBE=v6_dear_probe X_CPROBE=v6_cheap_probe;
// X_BLO, X_BHI, X_BSTEPS: the bisection's bracket and steps (1, 20, 14: to 2^-14 of 19); X_NOBOUND=1 or X_NOPLAIN=1 skip a part, X_F=name measures that f only, X_ALLD=1 prints each density's ratio. The
// plain-data worst is also given for densities <= 0.2 and above.
//   X_LOD=0.3 build/x86/generators/maskapply_v6_explore
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>
#include "bound.h"
#include "regret.h"
#include "search.h"
#include "tune.h"
using namespace maskapply; using namespace maskapply::gen; using namespace maskapply::gen::hunt;
constexpr size_t kU = 8192 + 94 * 4096;
PilotOptions opts(const CostModel& m, Fn f) {
  PilotOptions o = model_options(m, f);
  if (getenv("X_VB")) o.v6_pieces = atol(getenv("X_VB"));
  if (getenv("X_BAIL")) o.v6_bail = atof(getenv("X_BAIL"));
  if (getenv("X_LOD")) o.v6_lo = atof(getenv("X_LOD"));
  if (getenv("X_FLOOR")) o.v6_floor = atof(getenv("X_FLOOR"));
  if (getenv("X_BAND")) o.v6_band = atof(getenv("X_BAND"));
  if (getenv("X_PROBE")) o.probe = atol(getenv("X_PROBE"));
  if (getenv("X_SW")) o.v6_score_switch = atol(getenv("X_SW"));
  if (getenv("X_TB")) o.v6_score_blend = atol(getenv("X_TB"));
  if (getenv("X_TS")) o.v6_score_skip = atol(getenv("X_TS"));
  if (getenv("X_SAMP")) o.v6_score_sample = atol(getenv("X_SAMP"));
  if (getenv("X_DC")) o.v6_dense_cut = atof(getenv("X_DC"));
  if (getenv("X_DB")) o.v6_dense_block = atol(getenv("X_DB"));
  if (getenv("X_REG")) o.v6_reg = atof(getenv("X_REG"));
  if (getenv("X_DFLOOR")) o.v6_dear_floor = atof(getenv("X_DFLOOR"));
  if (getenv("X_DPROBE")) o.v6_dear_probe = atol(getenv("X_DPROBE"));
  if (getenv("X_CPROBE")) o.v6_cheap_probe = atol(getenv("X_CPROBE"));
  return o;
}
int main() {
  const CostModel m = CostModel::m5();
  const size_t n = 147456;
  const bool bound = !getenv("X_NOBOUND"), plain = !getenv("X_NOPLAIN");
  for (size_t fi = 0; fi < 6; ++fi) {
    const Fn f = static_cast<Fn>(fi);
    if (getenv("X_F") && std::string(kFnNames[fi]) != getenv("X_F")) continue;
    const PilotOptions o = opts(m, f);
    printf("%s:", std::string(kFnNames[fi]).c_str());
    if (bound) {
      double lo = getenv("X_BLO") ? atof(getenv("X_BLO")) : 1, hi = getenv("X_BHI") ? atof(getenv("X_BHI")) : 20;
      const int steps = getenv("X_BSTEPS") ? atoi(getenv("X_BSTEPS")) : 14;
      for (int it = 0; it < steps; ++it) { double mid = (lo + hi) / 2; (bound_objective(Kernel::pilot_v6, f, m, o, n, mid) > 0 ? lo : hi) = mid; }
      printf(" bound %.3f", hi);
    }
    if (plain) {
      double worst = 0, wd = 0, wlo = 0, whi = 0;
      std::vector<std::pair<double, double>> per;  // density, worst over the seeds
      for (double d : {0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0})
        for (uint64_t seed : {1, 2}) {
          Summary s; s.assign(uniform_pattern(kU, d, seed), kU);
          double best = 1e300;
          for (Kernel k : kPilots) if (k < Kernel::pilot_v5) best = std::min(best, Scorer(k, f, m).score(s).pilot_cost);
          const double r = Scorer(Kernel::pilot_v6, f, m, o).score(s).pilot_cost / best;
          if (r > worst) worst = r, wd = d;
          if (seed == 1) per.push_back({d, r}); else per.back().second = std::max(per.back().second, r);
          (d <= 0.2 ? wlo : whi) = std::max(d <= 0.2 ? wlo : whi, r);
        }
      printf(" plain %.4f@%g (d<=0.2 %.4f, d>0.2 %.4f)", worst, wd, wlo, whi);
      if (getenv("X_ALLD"))
        for (const auto& [d, r] : per) printf(" %g:%.3f", d, r);
    }
    printf(" |"); fflush(stdout);
  }
  printf("\n");
}
