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

// Per decided tile of a pilot's trace, the time of every oracle strategy on a copy of the tile (min of reps),
// and the calibration blend: measured once per case, shared by every pilot with the same tiles.
struct TileTimings {
  std::vector<std::array<double, kOracleStrategies.size()>> ns;
  double calibration_ns = 0;
};
TileTimings time_tiles(Fn f, float thd, std::span<const float> input, const Trace& trace, int reps);

struct Measured {
  double pilot_ns = 0;    // the pilot over the decided tiles (its whole run minus the calibration blend)
  double oracle_ns = 0;   // per decided tile, the fastest strategy
  double fixed_ns = 0;    // the fastest single strategy summed over the decided tiles
  double vs_oracle = 0, vs_fixed = 0;
  double gib_per_s = 0;   // n * 4 bytes / the pilot's whole run, in GiB/s
};
// Measured regret from the pilot's whole-run time (time_kernel) and the tile timings.
Measured measured_regret(double pilot_whole_ns, size_t n, const TileTimings& t);

// True when this process runs under an emulator (qemu-user): timings mean nothing then.
bool under_emulation();

}  // namespace maskapply::gen
