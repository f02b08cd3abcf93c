// SPDX-License-Identifier: MIT
// What the fuzz targets share: how a failure is reported (always with the commands that rerun it), the case
// file it leaves behind, and the checks on a pilot's decision trace. Works the same under libFuzzer and under
// the replay main (replay_main.cpp), so ctest's corpus replay reports exactly what a fuzzing run would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "case_file.h"
#include "check.h"
#include "minimize.h"

namespace maskapply::fuzz {

// Set by LLVMFuzzerInitialize / the replay main: the program, and the input being replayed (empty under
// libFuzzer, which names the crash file itself).
void set_program(const char* argv0);
void set_current_input(std::string path);
const std::string& program();

// Prints the report, writes the case (when given) to $MASKAPPLY_FUZZ_CASES or ./fuzz-cases, prints how to
// rerun the input and the case, and aborts. Never returns. With a case, it then shrinks it (testing::minimize:
// length first, then the tile, then the contents) under `check` -- by default testing::oracle_failure, the
// registry's run against the oracle -- and prints and writes the minimal failing case too (<name>-min.case).
// A case that `check` passes (a failure only the target's own instance shows) is said so and left as it is.
[[noreturn]] void fail(std::string_view target, std::string_view what, const testing::Case* c = nullptr,
                       const testing::Failure& check = {});

// The trace of a pilot run over `input` (the data before the run) must partition [0, n) into runs and tiles,
// and every decision must follow from what the pilot could see: the probe counts equal the oracle's counts,
// the thresholds follow from d_max, a bail-out happens exactly where blend_verified's rule says. Returns an
// empty string when it does, else what is wrong.
std::string check_pilot_trace(Kernel k, const MaskSpec& m, std::span<const float> input, const PilotOptions& o,
                              const Trace& t);
// Its first half alone: the runs and the tiles partition [0, n), every run inside one tile. For a trace whose
// decisions were already compared with the decision reference (testing::check_kernel does, for every pilot).
std::string check_trace_partition(const Trace& t, size_t n);

// With MASKAPPLY_FUZZ_VERBOSE set, prints what the input decoded to (one line): for reading a corpus.
void verbose(const testing::Case& c);

// Stable short hash (FNV-1a 64) for file names.
uint64_t fnv1a(std::string_view s);
std::string hex64(uint64_t x);

}  // namespace maskapply::fuzz
