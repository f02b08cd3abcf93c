// SPDX-License-Identifier: MIT
// Properties 1, 3 and 14: every kernel equals the oracle bit for bit, whatever the floats, threshold, f, length,
// misalignment and mask; and what the mask does not select keeps its exact bits.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "support.h"

namespace maskapply::prop {
namespace {

// 1. Each plain kernel equals the oracle bit for bit, for arbitrary float arrays (all bit patterns), arbitrary
//    thd (NaN too), every f, any n from 0 to a few tiles, any misalignment.
RC_GTEST_PROP(PlainKernels, equalOracleBitForBitForAnyFloatsThdFnLengthAndMisalignment, ()) {
  testing::Case c;
  c.kernel = *gen::plain_kernel();
  c.f = *gen::any_fn();
  c.mask = *gen::less_mask();
  c.data = (*gen::float_array()).v;
  c.misalign = *rc::gen::inRange<size_t>(0, 16);
  c.options = *gen::plain_options();
  RC_CLASSIFY(std::isnan(c.mask.thd), "NaN thd");
  classify(c.data, c.mask);
  expect_oracle(c);
}

// What property 3 checks on a case: every unselected element keeps its exact bits, and the run as a whole
// equals the oracle (outputs, sentinels and, for pilots, decisions). Empty when it does.
std::string unselected_touched(const testing::Case& c) {
  const testing::CheckResult r = testing::run_case(c);
  for (size_t i = 0; i < c.data.size(); ++i) {
    if (oracle::selected(c.mask, c.data[i]) || bits(r.output[i]) == bits(c.data[i])) continue;
    return "unselected element " + std::to_string(i) + " changed: input " + oracle::hex(c.data[i]) + " output " +
           oracle::hex(r.output[i]) + " (" + r.message + ")";
  }
  return r.message;
}

// 3. Unselected elements are untouched, bit for bit (NaN payloads, signed zeros, denormals survive), through
//    every kernel and pilot, for any mask. A case with nothing unselected (n = 0, or a mask that selects every
//    element) checks nothing of this claim: about 1 case in 20 may be one (it must still equal the oracle).
RC_GTEST_PROP(AllKernels, leaveEveryUnselectedElementBitForBitUntouched, ()) {
  testing::Case c;
  c.kernel = *gen::any_kernel();
  c.f = *gen::any_fn();
  const auto shaped = gen::options_and_data(c);
  const bool trivial_ok = *rc::gen::weightedElement<bool>({{19, false}, {1, true}});
  RC_PRE(trivial_ok || !c.data.empty());
  const auto masks = shaped ? rc::gen::weightedOneOf<MaskSpec>({{1, rc::gen::just(*shaped)},
                                                                {1, gen::any_mask(c.data)}})
                            : gen::any_mask(c.data);
  // (The predicate outlives this call: RapidCheck reruns it while shrinking. It keeps its own copy of the data.)
  c.mask = *rc::gen::suchThat(masks, [data = c.data, trivial_ok](const MaskSpec& m) {
    return trivial_ok || oracle::count(data.data(), data.size(), m) < data.size();
  });
  c.misalign = *rc::gen::inRange<size_t>(0, 16);
  RC_CLASSIFY(oracle::count(c.data.data(), c.data.size(), c.mask) == c.data.size(), "nothing unselected");
  classify(c.data, c.mask);
  if (const std::string why = unselected_touched(c); !why.empty()) fail_minimal(c, unselected_touched, why);
}

// 14. Generic masks (greater-than, NaN-inclusive !(a >= t), bit-pattern predicates, always, never) give the
//     oracle's result through every kernel and pilot.
RC_GTEST_PROP(AllKernels, equalOracleForGreaterNotGeBitsEqAlwaysAndNeverMasks, ()) {
  testing::Case c;
  c.kernel = *gen::any_kernel();
  c.f = *gen::any_fn();
  gen::options_and_data(c);
  c.mask = *gen::generic_mask(c.data);
  c.misalign = *rc::gen::inRange<size_t>(0, 16);
  RC_TAG(name(c.mask.kind));
  expect_oracle(c);
}

}  // namespace
}  // namespace maskapply::prop
