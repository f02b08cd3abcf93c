// SPDX-License-Identifier: MIT
// The second run of every `kernels` and `pilots` input: the array flush against a PROT_NONE guard page (its end or
// its start), so a read or write outside [a, a+n) by one byte faults (SIGSEGV, which libFuzzer reports) where the
// first run's sentinels, inside the same allocation, let a read pass. The guard pages are the target's, mapped
// once (testing::GuardPages); the workspace is hostile, its own draw (another salt than the first run's).
#pragma once

#include <span>
#include <string>

#include "buffers.h"
#include "one_instance.h"

namespace maskapply::fuzz {

// Runs c's kernel through route on c.data placed in g (at its end when at_end, else at its start), with options o
// (the case's, or the case's without an injected d_max: timed calibration), the trace into *trace when given.
// Empty when the output equals expected (the oracle's, which the first run matched) bit for bit; else where the
// array was and the first difference, as oracle::compare words it (the caller prefixes testing::describe).
std::string run_guarded(testing::GuardPages& g, Route route, const testing::Case& c, const PilotOptions& o,
                        bool at_end, std::span<const float> expected, Trace* trace = nullptr);

}  // namespace maskapply::fuzz
