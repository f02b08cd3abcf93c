// SPDX-License-Identifier: MIT
// One case through one kernel: run it on a copy inside sentinels, compare with the oracle bit for bit, and
// for pilots compute the model regret of the traced decisions; optionally time it (measured regret). What the
// `maskapply` tool and the story test share.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cost_model.h"
#include "emulation.h"
#include "registry.h"
#include "regret.h"

namespace maskapply::gen {

struct FirstMismatch {
  size_t index = 0, tile = 0;
  std::string strategy;                      // the traced strategy that wrote it
  std::string input, expected, actual;       // hex bits
};

struct Evaluation {
  Kernel kernel = Kernel::blend;
  Fn f = Fn::sqrt;
  bool bit_exact = false;
  size_t mismatches = 0;
  std::string message;                 // empty when bit-exact: the oracle's first-mismatch explanation
  std::optional<FirstMismatch> first;
  std::optional<double> d_max;         // what the pilot used (injected, or calibrated by timing)
  std::optional<Regret> regret;        // pilots only
  Trace trace;
};

// The options for kernel k: base, with d_max from dmax if given, else from the model if given (pilots
// calibrate by timing when neither is).
PilotOptions options_for(const PilotOptions& base, Fn f, const CostModel* model, std::optional<double> dmax);

// Runs k over input (a < thd) and compares with expected (the oracle's output for the same input). The
// regret is computed with `regret_model` for pilots. corrupt_for_test flips one output bit after the run (to
// prove that mismatches are reported; never used outside tests).
Evaluation evaluate(Kernel k, Fn f, float thd, std::span<const float> input, std::span<const float> expected,
                    const PilotOptions& o, const CostModel& regret_model, bool corrupt_for_test = false);

// The oracle's output.
std::vector<float> oracle_output(std::span<const float> input, Fn f, float thd);
// The selection of input under a < thd.
std::vector<uint8_t> selection_of(std::span<const float> input, float thd);

// Timing (min over reps of fresh copies), in ns.
double time_kernel(Kernel k, Fn f, float thd, std::span<const float> input, const PilotOptions& o, int reps);

// Measured regret under equal conditions: the pilot and the model oracle's whole-array schedule (its runs
// executed in order with the same kernels, in place) are timed the same way: whole array, each repeat on a fresh
// copy of the input, the minimum over reps. The best fixed strategy likewise (each strategy over the whole array,
// in pieces of the tile). The oracle's schedule is the model's best, not this machine's: the ratio can go below 1
// where the model is wrong about this machine.
struct CaseTimings {
  double oracle_ns = 0;            // the oracle's schedule over the whole array
  double fixed_ns = 0;             // the fastest single strategy over the whole array
  Strategy fixed = Strategy::blend;
};
CaseTimings time_case(Fn f, float thd, std::span<const float> input, const std::vector<Run>& oracle_runs,
                      size_t tile, int reps);

struct Measured {
  double pilot_ns = 0, oracle_ns = 0, fixed_ns = 0;
  double vs_oracle = 0, vs_fixed = 0;
  double gib_per_s = 0;   // n * 4 bytes / the pilot's run, in GiB/s
};
Measured measured_regret(double pilot_ns, size_t n, const CaseTimings& t);


}  // namespace maskapply::gen
