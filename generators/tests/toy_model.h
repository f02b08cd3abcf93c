// SPDX-License-Identifier: MIT
// The tests' toy cost model: round numbers, so the expected costs in cost_model_test and regret_test can be worked
// out by hand from the formulas in cost_model.h.
#pragma once

#include "cost_model.h"

namespace maskapply::gen::testing {

inline CostModel toy() {
  CostModel m;
  m.name = "toy";
  m.B = 1, m.D = 3, m.C = 1, m.S = 0.5, m.K = 0.25, m.M = 4, m.V = 0.125, m.Q = 0.5, m.F = 0;
  m.T.fill(0);
  m.T[static_cast<size_t>(Fn::sqrt)] = 10;
  return m;
}

}  // namespace maskapply::gen::testing
