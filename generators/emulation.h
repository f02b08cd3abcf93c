// SPDX-License-Identifier: MIT
// Whether this process runs under an emulator: timings then describe the emulation, and the heaviest model tests
// run fewer cases (as Highway's AdjustedReps), the same code on the same doubles.
#pragma once

namespace maskapply::gen {

// True when MASKAPPLY_EMULATED is set to anything but "0" (ctest's registration sets it to 1 when cross-compiling
// with an emulator), or, on aarch64 with it unset, when /proc/cpuinfo is an x86 host's (qemu-user passes it
// through: an emulated arm64 system).
bool under_emulation();

}  // namespace maskapply::gen
