// SPDX-License-Identifier: MIT
// maskapply's ready-made properties, instantiated for the user's kernels and pilot (my_compact.h), plus a sweep
// of every n and misalignment, and the pilot's model regret. BuggyCompact is expected to fail (ctest label
// `buggy`): the properties find the article's padding bug and shrink it to a handful of floats.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include <maskapply/maskapply_rapidcheck.h>
#include "my_compact.h"

using maskapply::PilotOptions;
using maskapply::Trace;
using maskapply::Workspace;

// The kernels, generic over f and mask: the properties instantiate them with catalog f's and masks.
MASKAPPLY_KERNEL_PROPERTIES(BuggyCompact, "my_compact<padded>",
                            [](float* a, size_t n, auto f, auto mask, Workspace& ws) {
                              mine::my_compact<true>(a, n, f, mask, ws);
                            })
MASKAPPLY_KERNEL_PROPERTIES(FixedCompact, "my_compact",
                            [](float* a, size_t n, auto f, auto mask, Workspace& ws) {
                              mine::my_compact<false>(a, n, f, mask, ws);
                            })
MASKAPPLY_PILOT_PROPERTIES(MyPilot, "my_pilot",
                           [](float* a, size_t n, auto f, auto mask, Workspace& ws, const PilotOptions& o,
                              Trace& t) { mine::my_pilot(a, n, f, mask, ws, o, t); })

// The user's own f and mask, outside the catalog: cube where |x| < 1, vector and scalar.
struct Cube {
  float32x4_t operator()(float32x4_t x) const { return vmulq_f32(vmulq_f32(x, x), x); }
};
struct AbsBelowOne {
  uint32x4_t operator()(float32x4_t x) const { return vcltq_f32(vabsq_f32(x), vdupq_n_f32(1.0f)); }
};
float cube(float x) { return x * x * x; }
bool abs_below_one(float x) { return std::fabs(x) < 1.0f; }
const maskapply::testing::Reference kCubeRef{"cube", "|x|<1", cube, abs_below_one};
const auto kCubeKernel = [](float* a, size_t n, Workspace& ws) {
  mine::my_compact<false>(a, n, Cube{}, AbsBelowOne{}, ws);
};

MASKAPPLY_FIXED_KERNEL_PROPERTIES(CubeCompact, "my_compact(cube, |x|<1)", kCubeKernel, kCubeRef)

TEST(CubeCompact, equalsItsReferenceForEveryNUpTo100AtEveryMisalignment) {
  const std::string err = maskapply::testing::sweep(maskapply::testing::subject("my_compact(cube)", kCubeKernel),
                                                    kCubeRef, {.max_n = 100, .seed = 7});
  EXPECT_EQ(err, "");
}

// The pilot's decisions priced by the article's M5 cost model, with pow10's cost standing for f: on uniform data
// at density 0.3 every tile is below d_max, so it compacts, within 5 % of the block oracle (measured 1.016).
TEST(MyPilot, modelRegretOnUniformDataAtDensity03IsBelow1Point05) {
  const auto model = maskapply::gen::CostModel::m5();
  PilotOptions o;
  o.d_max = model.d_max(maskapply::Fn::pow10);
  const auto less = [](float x) { return x < 0.3f; };
  const auto pilot = maskapply::testing::subject(
      "my_pilot", [](float* a, size_t n, Workspace& ws, const PilotOptions& op, Trace& t) {
        mine::my_pilot(a, n, maskapply::fn::Pow10{}, maskapply::mask::Less{0.3f}, ws, op, t);
      });
  const maskapply::testing::Reference ref{"pow10", "less(0.3)",
                                          [](float x) { return maskapply::oracle::apply_f(maskapply::Fn::pow10, x); },
                                          less};
  const std::vector<float> data = maskapply::testing::seeded_data(less, 16 * 4096, 11, 0.3, 0.0);
  const auto [r, regret] = maskapply::testing::check_and_cost(pilot, ref, data, o, model, maskapply::Fn::pow10);
  ASSERT_TRUE(r.ok) << r.message;
  std::printf("my_pilot: %zu tiles, model regret %.3f against the block oracle, %.3f against the best fixed "
              "strategy (%s)\n", regret.tiles, regret.vs_oracle, regret.vs_fixed,
              std::string(maskapply::name(regret.fixed_strategy)).c_str());
  EXPECT_LT(regret.vs_oracle, 1.05);
}
