// SPDX-License-Identifier: MIT
// The model regret of a pilot on a selection pattern, as the regret target and the countertest check compute
// it: the article's options with the m5 model's d_max injected, data 0 / 1 under `a < 0.5` (selected = 0), the
// trace checked against the reference pilot on the way.
#pragma once

#include <string>

#include "pattern.h"
#include "regret.h"
#include "registry.h"

namespace maskapply::fuzz {

// Elements per evaluation: the calibration and two 17-tile cycles of 4096.
inline constexpr size_t kRegretN = 8192 + 34 * 4096;

struct RegretEval {
  gen::Regret regret;
  std::string trace_error;  // empty when the trace matched the reference pilot
};

RegretEval evaluate_regret(Kernel k, Fn f, const gen::Pattern& p, size_t n = kRegretN);

}  // namespace maskapply::fuzz
