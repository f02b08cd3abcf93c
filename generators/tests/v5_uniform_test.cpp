// SPDX-License-Identifier: MIT
// pilot_v5 on plain data: on uniform random selections at a density (every element selected with probability d,
// the pattern `seg rest:~d` from a seed), v5's model cost over the decided tiles against the best of v1-v4 on the
// same selection (m5, the report's 96 tiles, the hunt's fast paths: property 15 ties them to the kernels).
// Outside the sparse band v5 is within 3 % of the best of them; inside it (densities 0.02-0.05, where v5's
// estimate from 16 sampled blocks cannot tell a skip strategy from its twin, docs/pilot_v5.md) the measured gap
// is up to 9 % (sqrt), and the test holds it under 10 %.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "search.h"
#include "tune.h"

namespace maskapply::gen::hunt {
namespace {

constexpr size_t kN = 8192 + 94 * 4096;  // the report's 96 tiles

// v5's model cost / the least of v1-v4's on the uniform random selection at density d from seed.
double v5_over_best(Fn f, double d, uint64_t seed) {
  Summary s;
  s.assign(uniform_pattern(kN, d, seed), kN);
  const CostModel m = CostModel::m5();
  double best = 1e300;
  for (Kernel k : kPilots)
    if (k < Kernel::pilot_v5) best = std::min(best, Scorer(k, f, m).score(s).pilot_cost);
  return Scorer(Kernel::pilot_v5, f, m).score(s).pilot_cost / best;
}

constexpr uint64_t kSeeds[] = {1, 2, 3};

TEST(PilotV5, IsWithin3PercentOfTheBestOfV1ToV4OnUniformRandomSelectionsOutsideTheSparseBand) {
  for (Fn f : kArticleFns)
    for (double d : {0.0, 0.005, 0.01, 0.07, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 0.9, 1.0})
      for (uint64_t seed : kSeeds)
        EXPECT_LE(v5_over_best(f, d, seed), 1.03)
            << name(f) << " density " << d << " seed " << seed << " (rerun: maskapply_v5_explore --no-hunt --cells)";
}

TEST(PilotV5, IsWithin10PercentOfTheBestOfV1ToV4OnUniformRandomSelectionsInTheSparseBand) {
  for (Fn f : kArticleFns)
    for (double d : {0.015, 0.02, 0.025, 0.03, 0.04, 0.05})
      for (uint64_t seed : kSeeds)
        EXPECT_LE(v5_over_best(f, d, seed), 1.10) << name(f) << " density " << d << " seed " << seed;
}

}  // namespace
}  // namespace maskapply::gen::hunt
