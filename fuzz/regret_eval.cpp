// SPDX-License-Identifier: MIT
#include "regret_eval.h"

#include "cost_model.h"
#include "fuzz.h"

namespace maskapply::fuzz {

RegretEval evaluate_regret(Kernel k, Fn f, const gen::Pattern& p, size_t n) {
  const std::vector<uint8_t> sel = gen::selection(p, n);
  std::vector<float> a(n);
  for (size_t i = 0; i < n; ++i) a[i] = sel[i] ? 0.0f : 1.0f;
  const std::vector<float> input = a;
  const gen::CostModel m = gen::CostModel::m5();
  const PilotOptions o = gen::model_options(m, f);
  const MaskSpec mask{MaskKind::less, 0.5f, 0, 0};
  Workspace ws(o.tile);
  Trace t;
  run_kernel(k, f, mask, a.data(), n, ws, o, &t);
  RegretEval e;
  e.trace_error = check_pilot_trace(k, mask, input, o, t);
  e.regret = gen::model_regret(t, sel, m, f, o);
  return e;
}

}  // namespace maskapply::fuzz
