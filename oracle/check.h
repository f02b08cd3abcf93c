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

// The workspace a check runs on: its capacity (0: the tile) and the seed of the garbage it is filled with
// (0: left zero-filled, as a fresh one).
struct HostileWorkspace {
  size_t capacity = 0;
  uint64_t garbage = 0;
};

// The workspace check_kernel uses by default, drawn from a hash of the case (so a case file replays it): a
// capacity equal to the tile, smaller (1 to tile) or larger (up to 2 * tile + 64), filled with garbage. salt
// (check_kernel passes the misalignment) varies the draw for the same data.
HostileWorkspace hostile_workspace(Kernel k, Fn f, std::span<const float> input, size_t tile, size_t salt);

// Runs kernel k with f and mask on a copy of input at the given misalignment (floats from a 64-byte boundary),
// with sentinels around it, on a hostile workspace, and compares bit for bit with the oracle. For pilots (and
// the registry's blend_verified) the trace must also equal the decision reference's (oracle/decisions.h), with
// the injected d_max or, when timed, the d_max the pilot measured.
CheckResult check_kernel(Kernel k, Fn f, const MaskSpec& m, std::span<const float> input,
                         const PilotOptions& o = {}, size_t misalign = 0);
CheckResult check_kernel(Kernel k, Fn f, const MaskSpec& m, std::span<const float> input, const PilotOptions& o,
                         size_t misalign, const HostileWorkspace& w);

// Empty when the trace t of kernel k over input is the one the decision reference computes from the selection
// and the options (pilots and blend_verified; any other kernel: always empty); else the first difference.
std::string check_decisions(Kernel k, std::span<const float> input, const MaskSpec& m, const PilotOptions& o,
                            const Trace& t);

std::string describe(Kernel k, Fn f, const MaskSpec& m, size_t n, const PilotOptions& o, size_t misalign);

}  // namespace maskapply::testing
