// SPDX-License-Identifier: MIT
// One call that runs a kernel by name on a copy of the input inside sentinels and compares it with the oracle:
// what unit tests, properties and fuzzers share. It is the plug-in API (plugin.h) applied to the registry.
#pragma once

#include <span>
#include <string>

#include "oracle.h"
#include "plugin.h"
#include "registry.h"

namespace maskapply::testing {

// Runs kernel k with f and mask on a copy of input at the given misalignment (floats from a 64-byte boundary),
// with sentinels around it, and compares bit for bit with the oracle.
CheckResult check_kernel(Kernel k, Fn f, const MaskSpec& m, std::span<const float> input,
                         const PilotOptions& o = {}, size_t misalign = 0);

// Kernel k with catalog f and mask m as a plug-in subject (it reports its runs and decisions to the trace).
Subject kernel_subject(Kernel k, Fn f, const MaskSpec& m);

std::string describe(Kernel k, Fn f, const MaskSpec& m, size_t n, const PilotOptions& o, size_t misalign);

}  // namespace maskapply::testing
