// SPDX-License-Identifier: MIT
// One call that runs a kernel by name on a copy of the input inside sentinels and compares it with the oracle:
// what unit tests, properties and fuzzers share.
#pragma once

#include <span>
#include <string>

#include "oracle.h"
#include "registry.h"

namespace maskapply::testing {

struct CheckResult {
  bool ok = true;
  size_t mismatches = 0;
  std::string message;  // empty when ok; else kernel, f, mask, n, misalignment and the first difference
  Trace trace;
  std::vector<float> output;
};

// Runs kernel k with f and mask on a copy of input at the given misalignment (floats from a 64-byte boundary),
// with sentinels around it, and compares bit for bit with the oracle.
CheckResult check_kernel(Kernel k, Fn f, const MaskSpec& m, std::span<const float> input,
                         const PilotOptions& o = {}, size_t misalign = 0);

std::string describe(Kernel k, Fn f, const MaskSpec& m, size_t n, const PilotOptions& o, size_t misalign);

}  // namespace maskapply::testing
