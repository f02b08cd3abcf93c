// SPDX-License-Identifier: MIT
// Property 13: each vector f equals its scalar twin (the oracle's apply_f) lane by lane, bit for bit, and a lane's
// result does not depend on its neighbours; so does its span form. The exhaustive form over all 2^32 floats is
// exhaustive_f.cpp.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <vector>

#include "functions.h"
#include "support.h"

namespace maskapply::prop {
namespace {

// 13. Each vector f equals its scalar twin lane by lane for arbitrary floats (specials, NaN payloads, denormals,
//     any sign and size), and lanes are independent: each lane keeps its result when the other three change. The
//     span form (span_fn(f), what a kernel wrapped in testing::over_spans gets) gives the scalar twin on each of
//     [p, p+n) for any n, the last n % 4 included, and touches nothing around it.
RC_GTEST_PROP(VectorF, equalsItsScalarTwinLaneByLaneWhateverTheNeighbours, ()) {
  const Fn f = *gen::any_fn();
  std::array<float, 4> v, w;
  for (float& x : v) x = *gen::any_float();
  for (float& x : w) x = *gen::any_float();
  RC_TAG(name(f));
  visit_fn(f, [&](auto fn) {
    alignas(16) float fv[4];
    vst1q_f32(fv, fn(vld1q_f32(v.data())));
    for (size_t lane = 0; lane < 4; ++lane) {
      const float want = oracle::apply_f(f, v[lane]);
      if (bits(fv[lane]) != bits(want)) {
        testing::Case c;  // blend with `always` runs f on every lane: the corpus replay sees the same mismatch
        c.kernel = Kernel::blend, c.f = f, c.mask = MaskSpec{MaskKind::always, 0, 0, 0}, c.data.assign(v.begin(), v.end());
        const std::string why = "vector " + std::string(name(f)) + "(" + oracle::hex(v[lane]) + ") in lane " +
                                std::to_string(lane) + " is " + oracle::hex(fv[lane]) + ", the scalar twin gives " +
                                oracle::hex(want);
        save_case(c, why);
        RC_FAIL(why);
      }
      // The same lane among w's lanes.
      alignas(16) float mix[4] = {w[0], w[1], w[2], w[3]}, fm[4];
      mix[lane] = v[lane];
      vst1q_f32(fm, fn(vld1q_f32(mix)));
      if (bits(fm[lane]) != bits(fv[lane]))
        RC_FAIL("lane " + std::to_string(lane) + " of " + std::string(name(f)) + " depends on its neighbours: " +
                oracle::hex(fv[lane]) + " next to " + oracle::hex(v[(lane + 1) % 4]) + ", " + oracle::hex(fm[lane]) +
                " next to " + oracle::hex(w[(lane + 1) % 4]));
    }
  });
  const size_t n = *rc::gen::inRange<size_t>(0, 9);
  const float sentinel = oracle::from_bits(0x7fc0dead);
  std::vector<float> span(n + 2, sentinel);
  for (size_t i = 0; i < n; ++i) span[1 + i] = i < 4 ? v[i] : w[i - 4];
  span_fn(f)(span.data() + 1, n);
  for (size_t i = 0; i < n; ++i) {
    const float in = i < 4 ? v[i] : w[i - 4], want = oracle::apply_f(f, in);
    if (bits(span[1 + i]) != bits(want))
      RC_FAIL("span form of " + std::string(name(f)) + " over " + std::to_string(n) + " floats: element " +
              std::to_string(i) + " (" + oracle::hex(in) + ") is " + oracle::hex(span[1 + i]) +
              ", the scalar twin gives " + oracle::hex(want));
  }
  if (bits(span[0]) != bits(sentinel) || bits(span[n + 1]) != bits(sentinel))
    RC_FAIL("span form of " + std::string(name(f)) + " over " + std::to_string(n) + " floats wrote outside them");
}

}  // namespace
}  // namespace maskapply::prop
