// SPDX-License-Identifier: MIT
// Properties 4 and 5: every selected element gets f exactly once, and no kernel touches memory outside
// [a, a+n) -- sentinels on both sides, and the array flush against a PROT_NONE guard page at either end.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>

#include "buffers.h"
#include "support.h"

namespace maskapply::prop {
namespace {

// Draws a kernel with options and data that make strategies switch and blend_verified bail.
testing::Case switching_case(Fn f) {
  testing::Case c;
  c.kernel = *gen::any_kernel();
  c.f = f;
  if (is_pilot(c.kernel) || *rc::gen::arbitrary<bool>()) {
    c.options = *gen::pilot_options();
    if (!is_pilot(c.kernel)) c.options.probe = std::min(c.options.probe, c.options.tile);
    const Shaped s = *gen::pilot_data(c.options);
    c.data = s.v, c.mask = s.mask;
  } else {
    c.options = *gen::plain_options();
    c.data = (*gen::float_array()).v;
    c.mask = *gen::any_mask(c.data);
  }
  c.misalign = *rc::gen::inRange<size_t>(0, 16);
  return c;
}

// What property 4 checks on a bits_inc case: every selected element is its input + 1, every other its input,
// and the run equals the oracle (for pilots: the decisions too). Empty when it does.
std::string not_exactly_once(const testing::Case& c) {
  const testing::CheckResult r = testing::run_case(c);
  for (size_t i = 0; i < c.data.size(); ++i) {
    const uint32_t in = bits(c.data[i]), out = bits(r.output[i]);
    const bool sel = oracle::selected(c.mask, c.data[i]);
    if (out == (sel ? in + 1 : in)) continue;
    const uint32_t times = out - in;
    return "element " + std::to_string(i) + (sel ? " (selected)" : " (unselected)") + " got f " +
           (times < 16 ? std::to_string(times) + " times" : "a wrong value") + ": input " + oracle::hex(c.data[i]) +
           " output " + oracle::hex(r.output[i]) + (r.message.empty() ? "" : " (" + r.message + ")");
  }
  return r.message;  // the values are right; a pilot's decisions may not be the reference's
}

// 4. Exactly once: with the non-idempotent bits_inc (adds 1 to the bit pattern), every selected element is its
//    input + 1 and every other element its input -- f never runs twice on one element, also not after a
//    verified blend bails out to detour, and never zero times. An empty array checks nothing: about 1 case in 20
//    may be one.
RC_GTEST_PROP(AllKernels, applyFExactlyOnceToEverySelectedElement, ()) {
  const testing::Case c = switching_case(Fn::bits_inc);
  RC_PRE(!c.data.empty() || *rc::gen::weightedElement<bool>({{19, false}, {1, true}}));
  classify(c.data, c.mask);
  if (const std::string why = not_exactly_once(c); !why.empty()) fail_minimal(c, not_exactly_once, why);
}

// What property 5 checks on a case: no fault and the oracle's output with the array against a guard page at
// its end, then at its start (each on a hostile workspace); then the oracle's result inside sentinels.
std::string outside_the_array(const testing::Case& c) {
  const size_t n = c.data.size();
  std::vector<float> expected = c.data;
  oracle::apply(expected.data(), n, c.f, c.mask);
  for (const bool at_end : {true, false}) {
    testing::GuardedArray g(n, at_end);
    if (n) std::memcpy(g.data(), c.data.data(), n * sizeof(float));
    const testing::HostileWorkspace hw =
        c.workspace ? *c.workspace : testing::hostile_workspace(c.kernel, c.f, c.data, c.options.tile, at_end);
    Workspace ws(hw.capacity);
    ws.scribble(hw.garbage);
    const std::string fault = catch_fault([&] { run_kernel(c.kernel, c.f, c.mask, g.data(), n, ws, c.options); });
    if (!fault.empty()) {
      const auto addr = static_cast<long long>(last_fault_address());
      const auto a = static_cast<long long>(reinterpret_cast<uintptr_t>(g.data()));
      const long long off = addr - a;
      return testing::describe(c.kernel, c.f, c.mask, n, c.options, c.misalign) + ": " + fault + ", " +
             (off < 0 ? std::to_string(-off) + " bytes before"
                      : std::to_string(off - static_cast<long long>(n * sizeof(float))) + " bytes past the end of") +
             " the array (guard page at its " + (at_end ? "end" : "start") + ")";
    }
    if (const oracle::Mismatch mm = oracle::compare(name(c.kernel), c.data, expected, g.span(), c.options.tile); mm)
      return testing::describe(c.kernel, c.f, c.mask, n, c.options, c.misalign) + ": guarded array: " + mm.message;
  }
  return testing::oracle_failure(c);  // inside sentinels, at c.misalign
}

// 5. Nothing outside [a, a+n) is read or written: the array against a PROT_NONE page at its end and at its
//    start (a read or write one byte out faults), and inside sentinels at any misalignment.
RC_GTEST_PROP(AllKernels, neverReadOrWriteOutsideTheArray, ()) {
  const testing::Case c = switching_case(*gen::any_fn());
  classify(c.data, c.mask);
  if (const std::string why = outside_the_array(c); !why.empty()) fail_minimal(c, outside_the_array, why);
}

}  // namespace
}  // namespace maskapply::prop
