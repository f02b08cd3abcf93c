// SPDX-License-Identifier: MIT
// maskapply's ready-made properties on a kernel written with Highway (hwy_detour.h): the correct detour and the one
// whose tail is a full-width load (label `buggy`: expected to fail, with a shrunk counterexample and a case file).
// The kernels take f as a function over a span, so testing::over_spans checks them against the whole catalog --
// sqrt, SLEEF's frfrexp, sin35, sin10 and pow10, fma13, bits_inc -- and the sweeps name pow10 and sin35 outright.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include <maskapply/maskapply_rapidcheck.h>
#include "hwy_detour.h"

using maskapply::Fn;
using maskapply::MaskKind;
using maskapply::MaskSpec;
using maskapply::SpanFn;
using maskapply::Workspace;
namespace testing_ = maskapply::testing;
namespace hn = mine::hn;

namespace {
const auto kHwyDetour = testing_::over_spans([](float* a, size_t n, SpanFn f, auto mask, Workspace& ws) {
  mine::hwy_detour(a, n, f, mask, ws);
});
const auto kHwyDetourFullTail = testing_::over_spans([](float* a, size_t n, SpanFn f, auto mask, Workspace& ws) {
  mine::hwy_detour<mine::TailLoad::full>(a, n, f, mask, ws);
});
}  // namespace

// The properties: bit for bit against the oracle for any floats, catalog f and mask, length and misalignment;
// f exactly once; nothing read or written outside the array (guard pages).
MASKAPPLY_KERNEL_PROPERTIES(HwyDetour, "hwy_detour", kHwyDetour)
MASKAPPLY_KERNEL_PROPERTIES(HwyDetourFullTail, "hwy_detour<full-tail-load>", kHwyDetourFullTail)

// Static dispatch compiles for the compiler's target: AVX2 on x86-64 (the flags in CMakeLists.txt), NEON on aarch64.
TEST(HwyDetour, isCompiledForTheNativeHighwayTarget) {
  const std::string target = mine::target_name();
  std::printf("hwy_detour: Highway %d.%d.%d, target %s, %zu lanes\n", HWY_MAJOR, HWY_MINOR, HWY_PATCH,
              target.c_str(), mine::lanes());
#if defined(__x86_64__)
  EXPECT_EQ(target, "AVX2");
#elif defined(__aarch64__)
  EXPECT_EQ(target, "NEON");
#endif
}

// Every n up to 100 at every misalignment (and against guard pages every 7th n), with SLEEF's pow10 and sin35.
TEST(HwyDetour, equalsTheOracleWithPow10AndSin35ForEveryNUpTo100AtEveryMisalignment) {
  const MaskSpec less{MaskKind::less, 0.5f, 0, 0};
  const MaskSpec not_ge{MaskKind::not_ge, 0.0f, 0, 0};
  for (const auto& [f, m] : {std::pair{Fn::pow10, less}, std::pair{Fn::sin35, not_ge}}) {
    const std::string err = testing_::sweep(testing_::catalog_subject("hwy_detour", kHwyDetour, f, m),
                                            testing_::reference(f, m), {.max_n = 100, .seed = 3});
    EXPECT_EQ(err, "") << maskapply::name(f);
  }
}

// The case file the properties left for the full-width tail load (cases/): the correct kernel passes it, the
// buggy one fails it (label `buggy`). testing::replay_catalog_case takes f and mask from the file.
TEST(HwyDetour, passesTheFullTailLoadCaseFile) {
  const testing_::CheckResult r = testing_::replay_catalog_case(HWY_CASE_FILE, "hwy_detour", kHwyDetour);
  EXPECT_TRUE(r.ok) << r.message;
}
TEST(HwyDetourFullTail, passesItsCaseFile) {
  const testing_::CheckResult r =
      testing_::replay_catalog_case(HWY_CASE_FILE, "hwy_detour<full-tail-load>", kHwyDetourFullTail);
  EXPECT_TRUE(r.ok) << r.message;
}

// A private f and mask, outside the catalog, both written with Highway: cube over a span, |x| < 1 per vector.
// HWY_ATTR: compiled for Highway's target, as the code in hwy_detour.h is.
struct HwyCube {
  HWY_ATTR void operator()(float* p, size_t n) const {
    const hn::ScalableTag<float> d;
    const size_t N = hn::Lanes(d);
    size_t i = 0;
    for (; i + N <= n; i += N) {
      const auto v = hn::LoadU(d, p + i);
      hn::StoreU(hn::Mul(hn::Mul(v, v), v), d, p + i);
    }
    for (; i < n; ++i) p[i] = p[i] * p[i] * p[i];  // the same two roundings as the vector lanes
  }
};
struct AbsBelowOne {
  template <class D, class V>
  HWY_ATTR auto operator()(D d, V v) const {
    return hn::Lt(hn::Abs(v), hn::Set(d, 1.0f));
  }
};
float cube(float x) { return x * x * x; }
bool abs_below_one(float x) { return std::fabs(x) < 1.0f; }
const testing_::Reference kCubeRef{"cube", "|x|<1", cube, abs_below_one};
const auto kCubeKernel = [](float* a, size_t n, Workspace& ws) { mine::hwy_detour(a, n, HwyCube{}, AbsBelowOne{}, ws); };

MASKAPPLY_FIXED_KERNEL_PROPERTIES(HwyCubeDetour, "hwy_detour(cube, |x|<1)", kCubeKernel, kCubeRef)

TEST(HwyCubeDetour, equalsItsReferenceForEveryNUpTo100AtEveryMisalignment) {
  const std::string err = testing_::sweep(testing_::subject("hwy_detour(cube)", kCubeKernel), kCubeRef,
                                          {.max_n = 100, .seed = 7});
  EXPECT_EQ(err, "");
}
