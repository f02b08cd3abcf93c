// SPDX-License-Identifier: MIT
// One call that runs a kernel by name on a copy of the input inside sentinels and compares it with the oracle:
// what unit tests, properties and fuzzers share. It is the plug-in API (plugin.h) applied to the registry.
#pragma once

#include <span>
#include <string>

#include "decisions.h"
#include "oracle.h"
#include "plugin.h"
#include "registry.h"

namespace maskapply::testing {

// The workspace check_kernel uses by default (HostileWorkspace: plugin.h), drawn from a hash of the case (so a
// case file replays it): a capacity equal to the tile, smaller (1 to tile) or larger (up to 2 * tile + 64),
// always filled with garbage. The pilots, tiled_detour and blend_verified grow an undersized one to the tile;
// the grown buffers hold garbage too (Workspace::reserve after scribble), so every draw is dirty. salt
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
// The same checks with the kernel run by s, which must run kernel k with f and m (the fuzz targets' one-instance
// build: fuzz/one_instance.h); the report names k, f and m. Without w: the default hostile workspace above.
CheckResult check_kernel(const Subject& s, Kernel k, Fn f, const MaskSpec& m, std::span<const float> input,
                         const PilotOptions& o, size_t misalign);
CheckResult check_kernel(const Subject& s, Kernel k, Fn f, const MaskSpec& m, std::span<const float> input,
                         const PilotOptions& o, size_t misalign, const HostileWorkspace& w);

// The decision reference's parameters (decisions.h) from the options, every option the reference reads; d_max is
// left at Params' default (the caller knows whether it is injected, timed or the registry's).
reference::Params reference_params(const PilotOptions& o);

// Empty when the trace t of kernel k over input is the one the decision reference computes from the selection
// and the options (pilots and blend_verified; any other kernel: always empty); else the first difference.
std::string check_decisions(Kernel k, std::span<const float> input, const MaskSpec& m, const PilotOptions& o,
                            const Trace& t);

// Kernel k with catalog f and mask m as a plug-in subject (it reports its runs and decisions to the trace).
Subject kernel_subject(Kernel k, Fn f, const MaskSpec& m);

std::string describe(Kernel k, Fn f, const MaskSpec& m, size_t n, const PilotOptions& o, size_t misalign);

}  // namespace maskapply::testing
