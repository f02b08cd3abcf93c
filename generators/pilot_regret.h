// SPDX-License-Identifier: MIT
// Your pilot, checked and costed: run it against the scalar oracle (testing::check) and price the decisions it
// reported through the trace with the generators' model regret (gen::model_regret: the pilot's cost over the
// clairvoyant block oracle's, the cheapest schedule of the same 16-element blocks, under a cost model; regret.h). The selection regret is judged on is the reference mask's,
// evaluated by plain scalar code on the input.
//
//   const auto [r, regret] = testing::check_and_cost(my_pilot, ref, data, o, gen::CostModel::m5(), Fn::pow10);
//   ASSERT_TRUE(r.ok) << r.message;  std::cout << regret.vs_oracle;
#pragma once

#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "cost_model.h"
#include "plugin.h"
#include "regret.h"

namespace maskapply::testing {

// The selection the cost model prices: mask(input[i]) per element.
inline std::vector<uint8_t> selection(std::span<const float> input, const std::function<bool(float)>& mask) {
  std::vector<uint8_t> sel(input.size());
  for (size_t i = 0; i < input.size(); ++i) sel[i] = mask(input[i]) ? 1 : 0;
  return sel;
}

// Model regret of a traced run over input. The model prices f by a catalog entry: cost_as names the entry whose
// T (ns per register) stands for your f; set model.T[size_t(cost_as)] to your own f's cost first if none fits.
inline gen::Regret pilot_regret(const Trace& trace, std::span<const float> input,
                                const std::function<bool(float)>& mask, const gen::CostModel& model, Fn cost_as,
                                const PilotOptions& o = {}) {
  return gen::model_regret(trace, selection(input, mask), model, cost_as, o);
}

// check() and pilot_regret() on the same run.
inline std::pair<CheckResult, gen::Regret> check_and_cost(const Subject& pilot, const Reference& ref,
                                                          std::span<const float> input, const PilotOptions& o,
                                                          const gen::CostModel& model, Fn cost_as) {
  CheckResult r = check(pilot, ref, input, o);
  gen::Regret g = pilot_regret(r.trace, input, ref.mask, model, cost_as, o);
  return {std::move(r), std::move(g)};
}

}  // namespace maskapply::testing
